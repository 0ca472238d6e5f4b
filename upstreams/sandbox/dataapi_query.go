package sandbox

import (
	"bytes"
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
		a.fail(w, http.StatusBadRequest, "MALFORMED_QUERY", "A query string has to be specified")
		return
	}
	parsed, err := parseSOQL(q)
	if err != nil {
		a.failQuery(w, err)
		return
	}
	a.runQuery(w, r, v, parsed, 0)
}

func (a *dataAPI) queryMore(w http.ResponseWriter, r *http.Request, v, locator string) {
	parsed, pos, ok := decodeQueryLocator(locator)
	if !ok {
		a.fail(w, http.StatusBadRequest, "INVALID_QUERY_LOCATOR", "invalid query locator")
		return
	}
	a.runQuery(w, r, v, parsed, pos)
}

// runQuery answers the batch of q's records that starts at position pos.
func (a *dataAPI) runQuery(w http.ResponseWriter, r *http.Request, v string, q soqlQuery, pos int) {
	b, err := q.bind()
	if err != nil {
		a.failQuery(w, err)
		return
	}
	countSQL, countArgs := b.countSQL()
	var matched int
	if err := a.db.QueryRowContext(r.Context(), countSQL, countArgs...).Scan(&matched); err != nil {
		a.failQuery(w, err)
		return
	}
	total := b.total(matched)
	n := max(min(a.batch, total-pos), 0)
	records, err := a.page(r, v, b, pos, n)
	if err != nil {
		a.failQuery(w, err)
		return
	}
	res := dataQueryResult{TotalSize: total, Done: pos+n >= total, Records: records}
	if !res.Done {
		res.NextRecordsURL = "/services/data/" + v + "/query/" + encodeQueryLocator(q, pos+n)
	}
	a.writeJSON(w, http.StatusOK, res)
}

func (a *dataAPI) page(r *http.Request, v string, b soqlBound, pos, n int) ([]dataRecord, error) {
	records := []dataRecord{}
	if n == 0 {
		return records, nil
	}
	query, args := b.pageSQL(pos, n)
	rows, err := a.db.QueryContext(r.Context(), query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names := make([]string, len(b.Fields))
	for i, f := range b.Fields {
		names[i] = f.Name
	}
	for rows.Next() {
		vals := make([]any, len(b.Fields)+1)
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		records = append(records, newDataRecord(b.Type, v, vals[0], names, vals[1:]))
	}
	return records, rows.Err()
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
