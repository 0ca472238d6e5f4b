package dataapi

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams/sandbox/sandboxdb"
	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

func BenchmarkQuery(b *testing.B) {
	db, err := sandboxdb.Open(b.TempDir())
	require.NoError(b, err)
	defer db.Close()
	require.NoError(b, sfdc.EnsureTables(db))
	h, err := New(db)
	require.NoError(b, err)
	req := httptest.NewRequest(http.MethodGet, queryPath("SELECT Id, Name, Email FROM Contact WHERE MailingCountry = 'USA' ORDER BY Name"), nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Body.String())
		}
	}
}
