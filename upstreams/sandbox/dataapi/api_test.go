package dataapi

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/sandbox/sandboxdb"
	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

// testAccounts is how many accounts newTestServer inserts.
const testAccounts = 12

// newTestServer starts the data API over a fresh database holding
// testAccounts accounts (inserted here: seeding accounts is the account
// controller's job).
func newTestServer(t *testing.T, opts ...Option) (*httptest.Server, *sql.DB) {
	t.Helper()
	db, err := sandboxdb.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	require.NoError(t, sfdc.EnsureTables(db))
	for i := range testAccounts {
		_, err := db.Exec(`INSERT INTO accounts ("Id", "Name", "BillingCity", "NumberOfEmployees") VALUES (?, ?, ?, ?)`,
			fmt.Sprintf("001000000000%03dAAA", i), fmt.Sprintf("Account %02d", i), []string{"Paris", "Austin"}[i%2], i*10)
		require.NoError(t, err)
	}
	h, err := New(db, opts...)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, db
}

func get(t *testing.T, srv *httptest.Server, path string, out any) int {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "application/json;charset=UTF-8", resp.Header.Get("Content-Type"))
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if out != nil {
		require.NoError(t, json.Unmarshal(body, out), string(body))
	}
	return resp.StatusCode
}

func queryPath(q string) string {
	return "/services/data/v35.0/query?q=" + url.QueryEscape(q)
}

type testQueryResult struct {
	TotalSize      int              `json:"totalSize"`
	Done           bool             `json:"done"`
	NextRecordsURL string           `json:"nextRecordsUrl"`
	Records        []map[string]any `json:"records"`
}

func TestDiscovery(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)

	var versions []apiVersion
	require.Equal(t, http.StatusOK, get(t, srv, "/services/data", &versions))
	assert.Contains(t, versions, apiVersion{Label: "Winter '16", URL: "/services/data/v35.0", Version: "35.0"})

	var resources map[string]string
	require.Equal(t, http.StatusOK, get(t, srv, "/services/data/v35.0", &resources))
	assert.Equal(t, "/services/data/v35.0/sobjects", resources["sobjects"])
	assert.Equal(t, "/services/data/v35.0/query", resources["query"])
	assert.Equal(t, "/services/data/v35.0/search", resources["search"])

	var global struct {
		Encoding string `json:"encoding"`
		SObjects []struct {
			Name, KeyPrefix string
			Queryable       bool
			URLs            map[string]string
		} `json:"sobjects"`
	}
	require.Equal(t, http.StatusOK, get(t, srv, "/services/data/v35.0/sobjects", &global))
	assert.Equal(t, "UTF-8", global.Encoding)
	require.Len(t, global.SObjects, 3)
	assert.Equal(t, "Account", global.SObjects[0].Name)
	assert.Equal(t, "001", global.SObjects[0].KeyPrefix)
	assert.Equal(t, "003", global.SObjects[1].KeyPrefix)
	assert.True(t, global.SObjects[1].Queryable)
	assert.Equal(t, "/services/data/v35.0/sobjects/Contact/describe", global.SObjects[1].URLs["describe"])

	var basic struct {
		ObjectDescribe struct{ Name string } `json:"objectDescribe"`
		RecentItems    []map[string]any      `json:"recentItems"`
	}
	require.Equal(t, http.StatusOK, get(t, srv, "/services/data/v35.0/sobjects/Account", &basic))
	assert.Equal(t, "Account", basic.ObjectDescribe.Name)
	require.Len(t, basic.RecentItems, 5)
	assert.Equal(t, "Account 11", basic.RecentItems[0]["Name"])
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	for _, typ := range sobjectTypes() {
		t.Run(typ.Name, func(t *testing.T) {
			t.Parallel()
			var d struct {
				Name   string `json:"name"`
				Fields []struct {
					Name, Type, Label string
					Length            int
					Updateable        bool
					Nillable          bool
				} `json:"fields"`
				ChildRelationships []map[string]any  `json:"childRelationships"`
				URLs               map[string]string `json:"urls"`
			}
			require.Equal(t, http.StatusOK, get(t, srv, "/services/data/v35.0/sobjects/"+typ.Name+"/describe", &d))
			assert.Equal(t, typ.Name, d.Name)
			require.Len(t, d.Fields, len(typ.Fields))
			for i, f := range typ.Fields {
				assert.Equal(t, f.Name, d.Fields[i].Name)
				assert.Equal(t, f.Type, d.Fields[i].Type)
				assert.Equal(t, f.Label, d.Fields[i].Label)
				assert.Equal(t, f.Length, d.Fields[i].Length)
			}
			assert.False(t, d.Fields[0].Updateable, "Id is read-only")
			assert.False(t, d.Fields[0].Nillable)
			assert.NotNil(t, d.ChildRelationships)
			assert.Equal(t, "/services/data/v35.0/sobjects/"+typ.Name, d.URLs["sobject"])
		})
	}
}

func TestQuery(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	var res testQueryResult
	status := get(t, srv, queryPath("SELECT Name, Id FROM Account WHERE BillingCity = 'Paris' ORDER BY Name DESC LIMIT 3"), &res)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, 3, res.TotalSize)
	assert.True(t, res.Done)
	assert.Empty(t, res.NextRecordsURL)
	require.Len(t, res.Records, 3)
	assert.Equal(t, "Account 10", res.Records[0]["Name"])
	assert.Equal(t, map[string]any{"type": "Account", "url": "/services/data/v35.0/sobjects/Account/001000000000010AAA"},
		res.Records[0]["attributes"])

	resp, err := srv.Client().Get(srv.URL + queryPath("SELECT Name, Id FROM Account WHERE Name = 'Account 03'"))
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.JSONEq(t, `{"totalSize":1,"done":true,"records":[{"attributes":{"type":"Account",
		"url":"/services/data/v35.0/sobjects/Account/001000000000003AAA"},"Name":"Account 03","Id":"001000000000003AAA"}]}`, string(body))
	assert.Regexp(t, regexp.MustCompile(`"records":\[\{"attributes":\{[^}]*\},"Name":"Account 03","Id":`), string(body),
		"fields come in SELECT order after attributes")
}

func TestQueryPaging(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t, WithBatchSize(5))
	var names []any
	path := queryPath("SELECT Name FROM Account ORDER BY NumberOfEmployees")
	for pages := 0; path != ""; pages++ {
		require.Less(t, pages, 10, "paging does not end")
		var res testQueryResult
		require.Equal(t, http.StatusOK, get(t, srv, path, &res))
		assert.Equal(t, testAccounts, res.TotalSize)
		assert.LessOrEqual(t, len(res.Records), 5)
		assert.Equal(t, res.Done, res.NextRecordsURL == "")
		if !res.Done {
			assert.Regexp(t, `^/services/data/v35\.0/query/01g[A-Za-z0-9_-]+-\d+$`, res.NextRecordsURL)
		}
		for _, r := range res.Records {
			names = append(names, r["Name"])
		}
		path = res.NextRecordsURL
	}
	require.Len(t, names, testAccounts)
	for i, n := range names {
		assert.Equal(t, fmt.Sprintf("Account %02d", i), n)
	}
}

func TestContactsSeeded(t *testing.T) {
	t.Parallel()
	srv, db := newTestServer(t)
	var res testQueryResult
	require.Equal(t, http.StatusOK, get(t, srv, queryPath("SELECT Id, AccountId, Name, Email FROM Contact"), &res))
	assert.Equal(t, seedContactCount, res.TotalSize)
	for _, r := range res.Records {
		assert.Regexp(t, `^003[0-9A-Za-z]{15}$`, r["Id"])
		assert.Regexp(t, `^001`, r["AccountId"])
	}
	// A second handler on the same database does not seed again.
	_, err := New(db)
	require.NoError(t, err)
	var n int
	require.NoError(t, db.QueryRow(`SELECT COUNT(*) FROM contacts`).Scan(&n))
	assert.Equal(t, seedContactCount, n)
}

func TestSeedWithoutAccounts(t *testing.T) {
	t.Parallel()
	db, err := sandboxdb.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	_, err = New(db)
	require.NoError(t, err)
	var total, orphans int
	require.NoError(t, db.QueryRow(`SELECT COUNT(*), SUM("AccountId" IS NULL) FROM contacts`).Scan(&total, &orphans))
	assert.Equal(t, seedContactCount, total)
	assert.Equal(t, seedContactCount, orphans)
}

func TestSearch(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	tests := []struct {
		desc  string
		sosl  string
		want  int
		first map[string]any
	}{
		{desc: "all types, Id only", sosl: "FIND {Account 1}", want: 2, first: map[string]any{
			"attributes": map[string]any{"type": "Account", "url": "/services/data/v62.0/sobjects/Account/001000000000010AAA"},
			"Id":         "001000000000010AAA",
		}},
		{desc: "returning with fields", sosl: "FIND {ccount 0*} RETURNING Account(Name) LIMIT 1", want: 1, first: map[string]any{
			"attributes": map[string]any{"type": "Account", "url": "/services/data/v62.0/sobjects/Account/001000000000000AAA"},
			"Name":       "Account 00",
		}},
		{desc: "like wildcards in the term are literal", sosl: "FIND {Acc%}", want: 0},
		{desc: "contacts", sosl: "FIND {Olivia} RETURNING Contact(FirstName)", want: 2},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var res struct {
				SearchRecords []map[string]any `json:"searchRecords"`
			}
			require.Equal(t, http.StatusOK, get(t, srv, "/services/data/v62.0/search?q="+url.QueryEscape(tt.sosl), &res))
			require.Len(t, res.SearchRecords, tt.want)
			if tt.first != nil {
				assert.Equal(t, tt.first, res.SearchRecords[0])
			}
		})
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t, WithBatchSize(5))
	tests := []struct {
		desc   string
		method string
		path   string
		status int
		code   string
	}{
		{desc: "unknown type", path: "/services/data/v35.0/sobjects/Opportunity", status: 404, code: "NOT_FOUND"},
		{desc: "unknown describe", path: "/services/data/v35.0/sobjects/Foo/describe", status: 404, code: "NOT_FOUND"},
		{desc: "unknown version", path: "/services/data/v99.0/sobjects", status: 404, code: "NOT_FOUND"},
		{desc: "unknown resource", path: "/services/data/v35.0/tooling", status: 404, code: "NOT_FOUND"},
		{desc: "outside the API", path: "/other", status: 404, code: "NOT_FOUND"},
		{desc: "wrong method", method: http.MethodPost, path: "/services/data/v35.0/sobjects/Account", status: 405, code: "METHOD_NOT_ALLOWED"},
		{desc: "missing query", path: "/services/data/v35.0/query", status: 400, code: "MALFORMED_QUERY"},
		{desc: "malformed query", path: queryPath("SELECT FROM Account"), status: 400, code: "MALFORMED_QUERY"},
		{desc: "unknown field", path: queryPath("SELECT Nme FROM Account"), status: 400, code: "INVALID_FIELD"},
		{desc: "unknown query type", path: queryPath("SELECT Id FROM Lead"), status: 400, code: "INVALID_TYPE"},
		{desc: "bad locator", path: "/services/data/v35.0/query/01gnotbase64!-5", status: 400, code: "INVALID_QUERY_LOCATOR"},
		{desc: "locator without position", path: "/services/data/v35.0/query/01gU0VMRUNUIElkIEZST00gQWNjb3VudA", status: 400, code: "INVALID_QUERY_LOCATOR"},
		{desc: "malformed search", path: "/services/data/v35.0/search?q=" + url.QueryEscape("FIND Acme"), status: 400, code: "MALFORMED_SEARCH"},
		{desc: "search unknown type", path: "/services/data/v35.0/search?q=" + url.QueryEscape("FIND {Acme} RETURNING Lead"), status: 400, code: "INVALID_TYPE"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			req, err := http.NewRequest(method, srv.URL+tt.path, nil)
			require.NoError(t, err)
			resp, err := srv.Client().Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			var errs []sfdc.Error
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&errs))
			assert.Equal(t, tt.status, resp.StatusCode)
			require.Len(t, errs, 1)
			assert.Equal(t, tt.code, errs[0].ErrorCode)
			assert.NotEmpty(t, errs[0].Message)
			if tt.status == http.StatusMethodNotAllowed {
				assert.Equal(t, "GET, HEAD", resp.Header.Get("Allow"))
			}
		})
	}
}

func TestDescribeAnswersNotModifiedAsTheOrgDoes(t *testing.T) {
	t.Parallel()
	srv, _ := newTestServer(t)
	h := srv.Config.Handler
	for _, path := range []string{"/services/data/v62.0/sobjects", "/services/data/v62.0/sobjects/Account/describe"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		require.Equal(t, http.StatusOK, rec.Code)
		modified := rec.Header().Get("Last-Modified")
		require.NotEmpty(t, modified, path)
		assert.Contains(t, rec.Header().Get("Cache-Control"), "no-store", "the org marks every answer uncacheable")
		assert.Equal(t, "Thu, 01 Jan 1970 00:00:00 GMT", rec.Header().Get("Expires"))

		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("If-Modified-Since", modified)
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		assert.Equal(t, http.StatusNotModified, rec.Code, path)
		assert.Empty(t, rec.Body.Bytes())

		req.Header.Set("If-Modified-Since", "Wed, 03 Jul 2013 19:43:31 GMT")
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		assert.Equal(t, http.StatusOK, rec.Code, "changed since an older date")
	}
}
