package dataapi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
	"github.com/restgate/gateway/upstreams/sandbox/soql"
)

// record is one record as the real API writes it: attributes first, then
// the members in the order they were asked for. A member's value is a
// scalar, a parent *record (nil: null), or a child *queryResult (nil: null,
// as the real API answers a subquery without records).
type record struct {
	typ     string
	url     string
	names   []string
	values  []any
	id      string
	columns map[string]any
}

// newRecord is a record of type t read through API version v.
func newRecord(t soql.Object, v string, id any) *record {
	sid := fmt.Sprint(sqlValue(id))
	return &record{typ: t.Name, url: "/services/data/" + v + "/sobjects/" + t.Name + "/" + sid, id: sid, columns: map[string]any{}}
}

func (r *record) add(name string, value any) {
	r.names = append(r.names, name)
	r.values = append(r.values, value)
}

// MarshalJSON writes the record with its members in order.
func (r *record) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	attrs, err := json.Marshal(struct {
		Type string `json:"type"`
		URL  string `json:"url"`
	}{r.typ, r.url})
	if err != nil {
		return nil, err
	}
	b.WriteString(`{"attributes":`)
	b.Write(attrs)
	for i, name := range r.names {
		val, err := json.Marshal(r.values[i])
		if err != nil {
			return nil, err
		}
		b.WriteString(`,"` + name + `":`)
		b.Write(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// sqlValue turns a scanned column into its JSON value.
func sqlValue(v any) any {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return v
}

// queryResult is the answer of query and queryMore, and the value of a
// subquery's relationship in its parent record.
type queryResult struct {
	TotalSize      int       `json:"totalSize"`
	Done           bool      `json:"done"`
	NextRecordsURL string    `json:"nextRecordsUrl,omitempty"`
	Records        []*record `json:"records"`
}

func (a *api) query(w http.ResponseWriter, r *http.Request, v string) {
	q := r.URL.Query().Get("q")
	if strings.TrimSpace(q) == "" {
		sfdc.WriteError(w, http.StatusBadRequest, "MALFORMED_QUERY", "A query string has to be specified")
		return
	}
	parsed, err := soql.ParseQuery(q)
	if err != nil {
		failQuery(w, err)
		return
	}
	a.runQuery(w, r, v, parsed, 0)
}

func (a *api) queryMore(w http.ResponseWriter, r *http.Request, v, locator string) {
	parsed, pos, ok := decodeQueryLocator(locator)
	if !ok {
		sfdc.WriteError(w, http.StatusBadRequest, "INVALID_QUERY_LOCATOR", "invalid query locator")
		return
	}
	a.runQuery(w, r, v, parsed, pos)
}

// runQuery answers the batch of q's records that starts at position pos.
func (a *api) runQuery(w http.ResponseWriter, r *http.Request, v string, q soql.Query, pos int) {
	b, err := q.Bind(a.schema)
	if err != nil {
		failQuery(w, err)
		return
	}
	res, err := a.batchOf(r.Context(), v, q, b, pos, a.batch)
	if err != nil {
		failQuery(w, err)
		return
	}
	sfdc.WriteJSON(w, http.StatusOK, res)
}

// batchOf is the batch of at most size records of q (bound as b) from
// position pos, with the locator of the rest.
func (a *api) batchOf(ctx context.Context, v string, q soql.Query, b soql.Bound, pos, size int) (*queryResult, error) {
	countSQL, countArgs := b.CountSQL()
	var matched int
	if err := a.db.QueryRowContext(ctx, countSQL, countArgs...).Scan(&matched); err != nil {
		return nil, err
	}
	total := b.Total(matched)
	n := max(min(size, total-pos), 0)
	records := []*record{}
	if n > 0 {
		query, args := b.PageSQL(pos, n)
		var err error
		if records, err = a.records(ctx, v, b, query, args...); err != nil {
			return nil, err
		}
	}
	res := &queryResult{TotalSize: total, Done: pos+n >= total, Records: records}
	if !res.Done {
		res.NextRecordsURL = "/services/data/" + v + "/query/" + encodeQueryLocator(q, pos+n)
	}
	return res, nil
}

// records runs query, which must select Id and b.Columns() from b's type,
// and returns its rows as records with their parents and child batches.
func (a *api) records(ctx context.Context, v string, b soql.Bound, query string, args ...any) ([]*record, error) {
	cols := b.Columns()
	rows, err := a.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	var out []*record
	for rows.Next() {
		vals := make([]any, len(cols)+1)
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			rows.Close()
			return nil, err
		}
		rec := newRecord(b.Type, v, vals[0])
		for i, c := range cols {
			rec.columns[c.Name] = sqlValue(vals[i+1])
		}
		out = append(out, rec)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if out == nil {
		out = []*record{}
	}
	parents := make(map[*soql.BoundParent]map[string]*record)
	for _, p := range b.Parents {
		if parents[p], err = a.parents(ctx, v, p, out); err != nil {
			return nil, err
		}
	}
	for _, rec := range out {
		for _, it := range b.Items {
			switch {
			case it.Field != nil:
				rec.add(it.Field.Name, rec.columns[it.Field.Name])
			case it.Parent != nil:
				id, _ := rec.columns[it.Parent.Ref.Name].(string)
				rec.add(it.Parent.Relationship, parents[it.Parent][id])
			case it.Child != nil:
				q, cb := it.Child.For(rec.id)
				res, err := a.batchOf(ctx, v, q, cb, 0, min(a.batch, childBatch))
				if err != nil {
					return nil, err
				}
				if res.TotalSize == 0 {
					rec.add(it.Child.Relationship, nil)
				} else {
					rec.add(it.Child.Relationship, res)
				}
			}
		}
	}
	return out, nil
}

// childBatch is the most records of a subquery a parent record carries
// before its nextRecordsUrl, as the real API pages subqueries (fewer when
// the query batch is smaller).
const childBatch = 200

// parents reads the parent records of recs through p, by Id.
func (a *api) parents(ctx context.Context, v string, p *soql.BoundParent, recs []*record) (map[string]*record, error) {
	out := map[string]*record{}
	var ids []any
	for _, rec := range recs {
		if id, ok := rec.columns[p.Ref.Name].(string); ok && id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return out, nil
	}
	parent := plainBound(p.Target, p.Fields)
	query := p.Target.SelectSQL(p.Fields) + ` WHERE "Id" IN (?` + strings.Repeat(",?", len(ids)-1) + ")"
	recs, err := a.records(ctx, v, parent, query, ids...)
	if err != nil {
		return nil, err
	}
	for _, r := range recs {
		out[r.id] = r
	}
	return out, nil
}

// plainBound selects fields of t, without relationships.
func plainBound(t soql.Object, fields []sfdc.Field) soql.Bound {
	b := soql.Bound{Type: t, Fields: fields}
	for i := range b.Fields {
		b.Items = append(b.Items, soql.Item{Field: &b.Fields[i]})
	}
	return b
}
