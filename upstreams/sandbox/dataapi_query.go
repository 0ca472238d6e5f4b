package sandbox

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// dataRecord is one record as the real API writes it: attributes first, then
// the fields in the order they were asked for.
type dataRecord struct {
	typ    string
	url    string
	names  []string
	values []any
}

func newDataRecord(t dataType, v string, id any, names []string, values []any) dataRecord {
	return dataRecord{
		typ:    t.Name,
		url:    "/services/data/" + v + "/sobjects/" + t.Name + "/" + fmt.Sprint(sqlValue(id)),
		names:  names,
		values: values,
	}
}

// MarshalJSON writes the record with its members in order.
func (r dataRecord) MarshalJSON() ([]byte, error) {
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

// dataQueryResult is the answer of query and queryMore.
type dataQueryResult struct {
	TotalSize      int          `json:"totalSize"`
	Done           bool         `json:"done"`
	NextRecordsURL string       `json:"nextRecordsUrl,omitempty"`
	Records        []dataRecord `json:"records"`
}

func (a *dataAPI) query(w http.ResponseWriter, r *http.Request, v string) {
	q := r.URL.Query().Get("q")
	if strings.TrimSpace(q) == "" {
		writeAPIError(w, http.StatusBadRequest, "MALFORMED_QUERY", "A query string has to be specified")
		return
	}
	parsed, err := parseSOQL(q)
	if err != nil {
		failQuery(w, err)
		return
	}
	a.runQuery(w, r, v, parsed, 0)
}

func (a *dataAPI) queryMore(w http.ResponseWriter, r *http.Request, v, locator string) {
	parsed, pos, ok := decodeQueryLocator(locator)
	if !ok {
		writeAPIError(w, http.StatusBadRequest, "INVALID_QUERY_LOCATOR", "invalid query locator")
		return
	}
	a.runQuery(w, r, v, parsed, pos)
}

// runQuery answers the batch of q's records that starts at position pos.
func (a *dataAPI) runQuery(w http.ResponseWriter, r *http.Request, v string, q soqlQuery, pos int) {
	b, err := q.bind()
	if err != nil {
		failQuery(w, err)
		return
	}
	countSQL, countArgs := b.countSQL()
	var matched int
	if err := a.db.QueryRowContext(r.Context(), countSQL, countArgs...).Scan(&matched); err != nil {
		failQuery(w, err)
		return
	}
	total := b.total(matched)
	n := max(min(a.batch, total-pos), 0)
	records, err := a.page(r, v, b, pos, n)
	if err != nil {
		failQuery(w, err)
		return
	}
	res := dataQueryResult{TotalSize: total, Done: pos+n >= total, Records: records}
	if !res.Done {
		res.NextRecordsURL = "/services/data/" + v + "/query/" + encodeQueryLocator(q, pos+n)
	}
	writeAPIJSON(w, http.StatusOK, res)
}

func (a *dataAPI) page(r *http.Request, v string, b soqlBound, pos, n int) ([]dataRecord, error) {
	if n == 0 {
		return []dataRecord{}, nil
	}
	query, args := b.pageSQL(pos, n)
	return a.records(r.Context(), v, b.Type, b.Fields, query, args...)
}

// selectIDAnd is the SELECT of Id (for the record URL) and then fields, from
// the table of t. Column names come from the type table, never from a query.
func selectIDAnd(t dataType, fields []Field) string {
	var sb strings.Builder
	sb.WriteString(`SELECT "Id"`)
	for _, f := range fields {
		sb.WriteString(", " + quoteColumn(f.Name))
	}
	sb.WriteString(" FROM " + t.Table)
	return sb.String()
}

// records runs query, which must select what selectIDAnd(t, fields) does,
// and returns its rows as records of t.
func (a *dataAPI) records(ctx context.Context, v string, t dataType, fields []Field, query string, args ...any) ([]dataRecord, error) {
	rows, err := a.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	out := []dataRecord{}
	for rows.Next() {
		vals := make([]any, len(fields)+1)
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, newDataRecord(t, v, vals[0], names, vals[1:]))
	}
	return out, rows.Err()
}

// A query locator is "01g" + the query, base64url-encoded, + "-" + the
// position of the next record. It carries the whole query, so the sandbox
// keeps no cursor state and any replica can continue any query; a client
// that edits one only gets the answer to another query it could have sent.
const queryLocatorPrefix = "01g"

func encodeQueryLocator(q soqlQuery, pos int) string {
	return queryLocatorPrefix + base64.RawURLEncoding.EncodeToString([]byte(q.String())) + "-" + strconv.Itoa(pos)
}

func decodeQueryLocator(locator string) (soqlQuery, int, bool) {
	rest, ok := strings.CutPrefix(locator, queryLocatorPrefix)
	i := strings.LastIndexByte(rest, '-')
	if !ok || i < 0 {
		return soqlQuery{}, 0, false
	}
	pos, err := strconv.Atoi(rest[i+1:])
	if err != nil || pos < 0 || rest[i+1] == '+' {
		return soqlQuery{}, 0, false
	}
	text, err := base64.RawURLEncoding.DecodeString(rest[:i])
	if err != nil {
		return soqlQuery{}, 0, false
	}
	q, err := parseSOQL(string(text))
	if err != nil {
		return soqlQuery{}, 0, false
	}
	return q, pos, true
}
