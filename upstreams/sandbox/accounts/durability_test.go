package accounts

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/sandbox/sandboxdb"
)

func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	srv, _ := startServer(t)
	const n = 50
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			// require must not stop the test from another goroutine, so
			// these calls check with assert and give up on failure.
			resp, err := http.Post(srv.URL+basePath, "application/json",
				strings.NewReader(fmt.Sprintf(`{"Name":"Parallel %02d"}`, i)))
			if !assert.NoError(t, err) {
				return
			}
			var out struct{ ID string }
			err = json.NewDecoder(resp.Body).Decode(&out)
			resp.Body.Close()
			if !assert.NoError(t, err) || !assert.Equal(t, http.StatusOK, resp.StatusCode) {
				return
			}
			ids[i] = out.ID
			resp, err = http.Post(srv.URL+basePath+out.ID, "application/json",
				strings.NewReader(fmt.Sprintf(`{"BillingCity":"City %02d","NumberOfEmployees":%d}`, i, i+1)))
			if assert.NoError(t, err) {
				resp.Body.Close()
				assert.Equal(t, http.StatusOK, resp.StatusCode)
			}
		})
	}
	wg.Wait()

	recs := listAccounts(t, srv.URL, "")
	require.Len(t, recs, 36+n)
	byID := make(map[string]map[string]any)
	for _, r := range recs {
		byID[r["Id"].(string)] = r
	}
	for i, id := range ids {
		r := byID[id]
		require.NotNil(t, r, "account %d is listed", i)
		assert.Equal(t, fmt.Sprintf("Parallel %02d", i), r["Name"])
		assert.Equal(t, fmt.Sprintf("City %02d", i), r["BillingCity"])
		assert.InDelta(t, i+1, r["NumberOfEmployees"], 0)
	}
}

func TestSurviveReopen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	open := func() (*httptest.Server, *sql.DB) {
		db, err := sandboxdb.Open(dir)
		require.NoError(t, err)
		h, err := New(db)
		require.NoError(t, err)
		return httptest.NewServer(h), db
	}

	srv, db := open()
	id := createAccount(t, srv.URL, `{"Name":"Durable Ltd","Total_Assets__c":99.25}`)
	for _, r := range listAccounts(t, srv.URL, "?limit=36") {
		status, _ := send(t, http.MethodDelete, srv.URL+basePath+r["Id"].(string), "", "")
		require.Equal(t, http.StatusOK, status)
	}
	srv.Close()
	require.NoError(t, db.Close())

	srv, db = open()
	defer db.Close()
	defer srv.Close()
	recs := listAccounts(t, srv.URL, "")
	require.Len(t, recs, 1, "the seed is not added again to a table emptied on purpose")
	assert.Equal(t, id, recs[0]["Id"])
	assert.Equal(t, "Durable Ltd", recs[0]["Name"])
	assert.InDelta(t, 99.25, recs[0]["Total_Assets__c"], 0)
}

func BenchmarkList(b *testing.B) {
	db, err := sandboxdb.Open(b.TempDir())
	require.NoError(b, err)
	defer db.Close()
	h, err := New(db)
	require.NoError(b, err)
	req := httptest.NewRequest(http.MethodGet, basePath, nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code)
		}
	}
}
