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
// the fields in the order they were asked for.
type record struct {
	typ    string
	url    string
	names  []string
	values []any
}

// newRecord is a record of type t read through API version v.
func newRecord(t soql.Object, v string, id any, names []string, values []any) record {
	return record{
		typ:    t.Name,
		url:    "/services/data/" + v + "/sobjects/" + t.Name + "/" + fmt.Sprint(sqlValue(id)),
		names:  names,
		values: values,
	}
}

// MarshalJSON writes the record with its members in order.
func (r record) MarshalJSON() ([]byte, error) {
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
		val, err := json.Marshal(sqlValue(r.values[i]))
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

// queryResult is the answer of query and queryMore.
type queryResult struct {
	TotalSize      int      `json:"totalSize"`
	Done           bool     `json:"done"`
	NextRecordsURL string   `json:"nextRecordsUrl,omitempty"`
	Records        []record `json:"records"`
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
	countSQL, countArgs := b.CountSQL()
	var matched int
	if err := a.db.QueryRowContext(r.Context(), countSQL, countArgs...).Scan(&matched); err != nil {
		failQuery(w, err)
		return
	}
	total := b.Total(matched)
	n := max(min(a.batch, total-pos), 0)
	records, err := a.page(r, v, b, pos, n)
	if err != nil {
		failQuery(w, err)
		return
	}
	res := queryResult{TotalSize: total, Done: pos+n >= total, Records: records}
	if !res.Done {
		res.NextRecordsURL = "/services/data/" + v + "/query/" + encodeQueryLocator(q, pos+n)
	}
	sfdc.WriteJSON(w, http.StatusOK, res)
}

func (a *api) page(r *http.Request, v string, b soql.Bound, pos, n int) ([]record, error) {
	if n == 0 {
		return []record{}, nil
	}
	query, args := b.PageSQL(pos, n)
	return a.records(r.Context(), v, b.Type, b.Fields, query, args...)
}

// records runs query, which must select what t.SelectSQL(fields) does, and
// returns its rows as records of t.
func (a *api) records(ctx context.Context, v string, t soql.Object, fields []sfdc.Field, query string, args ...any) ([]record, error) {
	rows, err := a.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	out := []record{}
	for rows.Next() {
		vals := make([]any, len(fields)+1)
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, newRecord(t, v, vals[0], names, vals[1:]))
	}
	return out, rows.Err()
}
