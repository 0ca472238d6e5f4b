package accounts

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/sandbox/sandboxdb"
	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

const basePath = "/api/v1/account/"

// startServer serves a fresh account controller over HTTP.
func startServer(t *testing.T) (*httptest.Server, *sql.DB) {
	t.Helper()
	db, err := sandboxdb.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	h, err := New(db)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, db
}

// send makes one call and returns the status and body.
func send(t *testing.T, method, url, contentType, body string) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	// a transport of the call's own: httptest's Close of another test's
	// server closes http.DefaultTransport's idle connections
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if resp.StatusCode == http.StatusOK {
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	}
	return resp.StatusCode, data
}

func listAccounts(t *testing.T, base, query string) []map[string]any {
	t.Helper()
	status, body := send(t, http.MethodGet, base+basePath+query, "", "")
	require.Equal(t, http.StatusOK, status, string(body))
	var recs []map[string]any
	require.NoError(t, json.Unmarshal(body, &recs))
	return recs
}

func createAccount(t *testing.T, base, body string) string {
	t.Helper()
	status, reply := send(t, http.MethodPost, base+basePath, "application/json", body)
	require.Equal(t, http.StatusOK, status, string(reply))
	var out struct{ ID string }
	require.NoError(t, json.Unmarshal(reply, &out))
	require.True(t, sfdc.ValidID(out.ID), out.ID)
	return out.ID
}

func getAccount(t *testing.T, base, id string) map[string]any {
	t.Helper()
	status, body := send(t, http.MethodGet, base+basePath+id, "", "")
	require.Equal(t, http.StatusOK, status, string(body))
	var recs []map[string]any
	require.NoError(t, json.Unmarshal(body, &recs))
	require.Len(t, recs, 1)
	return recs[0]
}

func TestSeed(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	recs := listAccounts(t, srv.URL, "")
	require.Len(t, recs, 36)

	ids := make(map[string]bool)
	var parents, nulls int
	for _, r := range recs {
		id, _ := r["Id"].(string)
		assert.Len(t, id, 18)
		assert.True(t, strings.HasPrefix(id, "001"), id)
		assert.True(t, sfdc.ValidID(id), id)
		ids[id] = true
		assert.Len(t, r, len(sfdc.AccountFields()))
		assert.NotEmpty(t, r["Name"])
		if n, ok := r["NumberOfEmployees"]; ok && n != nil {
			assert.IsType(t, float64(0), n, "employees are a JSON number")
		}
		for _, v := range r {
			if v == nil {
				nulls++
			}
		}
		if r["ParentId"] != nil {
			parents++
		}
	}
	assert.Len(t, ids, 36, "ids are unique")
	assert.GreaterOrEqual(t, parents, 3)
	assert.Positive(t, nulls)
	for _, r := range recs {
		if p, ok := r["ParentId"].(string); ok {
			assert.True(t, ids[p], "parent %s exists", p)
		}
	}
}

func TestFieldOrder(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	status, body := send(t, http.MethodGet, srv.URL+basePath+"?limit=1", "", "")
	require.Equal(t, http.StatusOK, status)

	dec := json.NewDecoder(bytes.NewReader(body))
	for range 2 { // [ and {
		_, err := dec.Token()
		require.NoError(t, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	var want []string
	for _, f := range sfdc.AccountFields() {
		want = append(want, f.Name)
	}
	assert.Equal(t, want, keys)
}

func TestPaging(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	all := listAccounts(t, srv.URL, "")
	tests := []struct {
		desc       string
		query      string
		start, end int
	}{
		{desc: "first page", query: "?limit=10&offset=0", start: 0, end: 10},
		{desc: "middle page", query: "?limit=5&offset=12", start: 12, end: 17},
		{desc: "last partial page", query: "?limit=10&offset=30", start: 30, end: 36},
		{desc: "past the end", query: "?limit=10&offset=50", start: 36, end: 36},
		{desc: "limit only", query: "?limit=3", start: 0, end: 3},
		{desc: "offset only", query: "?offset=34", start: 34, end: 36},
		{desc: "zero limit", query: "?limit=0&offset=0", start: 0, end: 0},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got := listAccounts(t, srv.URL, tt.query)
			assert.Equal(t, all[tt.start:tt.end], got)
		})
	}
}

func TestCreateUpdateDelete(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	id := createAccount(t, srv.URL,
		`{"Name":"Zephyr Labs","BillingCity":"Oslo","NumberOfEmployees":"42","Total_Assets__c":1250000.5,"Color__c":"ignored","Id":"001000000000000AAA"}`)
	rec := getAccount(t, srv.URL, id)
	assert.Equal(t, id, rec["Id"], "the server picks the id")
	assert.Equal(t, "Zephyr Labs", rec["Name"])
	assert.Equal(t, "Oslo", rec["BillingCity"])
	assert.InDelta(t, 42, rec["NumberOfEmployees"], 0)
	assert.InDelta(t, 1250000.5, rec["Total_Assets__c"], 0)
	assert.Nil(t, rec["Phone"])
	assert.Equal(t, id, listAccounts(t, srv.URL, "?limit=1&offset=36")[0]["Id"], "new accounts list last")

	status, body := send(t, http.MethodPost, srv.URL+basePath+id, "application/json",
		`{"billingcity":"Bergen","Phone":"+47 55 55 01 00","NumberOfEmployees":null}`)
	require.Equal(t, http.StatusOK, status, string(body))
	assert.JSONEq(t, `{"status":"success"}`, string(body))
	rec = getAccount(t, srv.URL, id)
	assert.Equal(t, "Bergen", rec["BillingCity"])
	assert.Equal(t, "+47 55 55 01 00", rec["Phone"])
	assert.Nil(t, rec["NumberOfEmployees"])
	assert.Equal(t, "Zephyr Labs", rec["Name"], "fields not given are kept")

	status, body = send(t, http.MethodPost, srv.URL+basePath+id[:15], "application/json", `{"Rating":"Hot"}`)
	require.Equal(t, http.StatusOK, status, string(body))
	assert.Equal(t, "Hot", getAccount(t, srv.URL, id[:15])["Rating"], "15-character ids work too")

	status, body = send(t, http.MethodDelete, srv.URL+basePath+id, "", "")
	require.Equal(t, http.StatusOK, status, string(body))
	assert.JSONEq(t, `{"status":"success"}`, string(body))
	status, _ = send(t, http.MethodGet, srv.URL+basePath+id, "", "")
	assert.Equal(t, http.StatusNotFound, status)
	assert.Len(t, listAccounts(t, srv.URL, ""), 36)
}

func TestCreateWithNameParam(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	status, body := send(t, http.MethodPost, srv.URL+"/api/v1/account?Name=Query+Made+Co", "", "")
	require.Equal(t, http.StatusOK, status, string(body))
	var out struct{ ID string }
	require.NoError(t, json.Unmarshal(body, &out))
	assert.Equal(t, "Query Made Co", getAccount(t, srv.URL, out.ID)["Name"])
}

func TestDeleteDetachesChildren(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	parent := createAccount(t, srv.URL, `{"Name":"Parent Co"}`)
	child := createAccount(t, srv.URL, fmt.Sprintf(`{"Name":"Child Co","ParentId":%q}`, parent))
	assert.Equal(t, parent, getAccount(t, srv.URL, child)["ParentId"])

	status, _ := send(t, http.MethodDelete, srv.URL+basePath+parent, "", "")
	require.Equal(t, http.StatusOK, status)
	assert.Nil(t, getAccount(t, srv.URL, child)["ParentId"])
}

func TestErrors(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	known := listAccounts(t, srv.URL, "?limit=1")[0]["Id"].(string)
	tests := []struct {
		desc   string
		method string
		path   string
		body   string
		status int
		msg    string
	}{
		{desc: "get invalid id", method: http.MethodGet, path: "abc", status: 400, msg: "invalid account id"},
		{desc: "get id with symbols", method: http.MethodGet, path: "001000000000000-AA", status: 400},
		{desc: "get unknown id", method: http.MethodGet, path: "001000000000000AAA", status: 404, msg: "not found"},
		{desc: "update unknown id", method: http.MethodPost, path: "001000000000000AAA", body: `{"Name":"x"}`, status: 404},
		{desc: "update unknown id without known fields", method: http.MethodPost, path: "001000000000000AAA", body: `{"x":1}`, status: 404},
		{desc: "delete unknown id", method: http.MethodDelete, path: "001000000000000AAA", status: 404},
		{desc: "delete invalid id", method: http.MethodDelete, path: "001", status: 400},
		{desc: "create with array body", method: http.MethodPost, path: "", body: `[{"Name":"x"}]`, status: 400, msg: "JSON object"},
		{desc: "create with text body", method: http.MethodPost, path: "", body: `Name=x`, status: 400},
		{desc: "create without name", method: http.MethodPost, path: "", body: `{"BillingCity":"Oslo"}`, status: 400, msg: "Name is required"},
		{desc: "create without body", method: http.MethodPost, path: "", status: 400, msg: "Name is required"},
		{desc: "create with text employees", method: http.MethodPost, path: "", body: `{"Name":"x","NumberOfEmployees":"many"}`, status: 400, msg: "NumberOfEmployees"},
		{desc: "create with fractional employees", method: http.MethodPost, path: "", body: `{"Name":"x","NumberOfEmployees":1.5}`, status: 400},
		{desc: "create with object city", method: http.MethodPost, path: "", body: `{"Name":"x","BillingCity":{"a":1}}`, status: 400},
		{desc: "create with too long name", method: http.MethodPost, path: "", body: `{"Name":"` + strings.Repeat("n", 256) + `"}`, status: 400, msg: "255"},
		{desc: "update with array body", method: http.MethodPost, path: known, body: `[]`, status: 400},
		{desc: "update to empty name", method: http.MethodPost, path: known, body: `{"Name":""}`, status: 400},
		{desc: "update with bad assets", method: http.MethodPost, path: known, body: `{"Total_Assets__c":"NaN"}`, status: 400},
		{desc: "negative limit", method: http.MethodGet, path: "?limit=-1", status: 400},
		{desc: "text offset", method: http.MethodGet, path: "?limit=1&offset=x", status: 400},
		{desc: "put is not allowed", method: http.MethodPut, path: known, body: `{}`, status: 405},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			status, body := send(t, tt.method, srv.URL+basePath+tt.path, "application/json", tt.body)
			assert.Equal(t, tt.status, status, string(body))
			if tt.msg == "" {
				return
			}
			var e struct {
				Status  int
				Error   string
				Message string
				Path    string
			}
			require.NoError(t, json.Unmarshal(body, &e), string(body))
			assert.Equal(t, tt.status, e.Status)
			assert.Equal(t, http.StatusText(tt.status), e.Error)
			assert.Contains(t, e.Message, tt.msg)
			assert.True(t, strings.HasPrefix(e.Path, "/api/v1/account"), e.Path)
		})
	}
	assert.Len(t, listAccounts(t, srv.URL, ""), 36, "no failed call changed the table")
}
