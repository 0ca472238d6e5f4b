package accounts_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/handlers/accounts"
	"github.com/restgate/gateway/gateway/identity"
	"github.com/restgate/gateway/gateway/middleware"
)

// twentyAccounts is a list answer of 20 full records, a third of their
// optional fields null.
func twentyAccounts() string {
	recs := make([]string, 20)
	for i := range recs {
		recs[i] = fmt.Sprintf(`{"Id":"001000000000%03dAAA","Name":"Account %d","External_Id__c":"EXT-%05d",`+
			`"SicDesc":null,"AccountSource":"Web","Site":null,"Rating":"Warm","Description":"Record number %d of the benchmark",`+
			`"TickerSymbol":null,"Ownership":"Public","NumberOfEmployees":%d,"BillingCountry":"United States",`+
			`"BillingPostalCode":"27215","BillingState":"NC","BillingCity":"Burlington","BillingStreet":"525 S. Lexington Ave",`+
			`"ParentId":null,"Type":"Customer - Direct","Total_Assets__c":%d.5,"PhotoUrl":"/services/images/photo/001000000000%03dAAA",`+
			`"Website":"www.example.com","AccountNumber":"CD%06d","Fax":null,"Phone":"(336) 222-7000"}`,
			i, i, 1000+i, i, 100*i, 1000000*i, i, 355000+i)
	}
	return "[" + strings.Join(recs, ",") + "]"
}

// BenchmarkListV2 measures GET /v2/accounts of 20 records through the
// middleware chain (trace, recover, URL limit, authentication), the router,
// the handler, the adapter over loopback HTTP and the mapping writer.
func BenchmarkListV2(b *testing.B) {
	list := []byte(twentyAccounts())
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(list)
	}))
	defer backend.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}, Timeout: 10 * time.Second}
	routes, w := newRouter(b, backend.URL, accounts.Options{}, reference, client)
	authn, err := identity.New(context.Background(), config.Auth{Mode: config.AuthNone})
	require.NoError(b, err)
	logger := slog.New(slog.DiscardHandler)
	h := middleware.Trace(middleware.Recover(middleware.LimitURL(middleware.Authenticate(routes, authn, w), 4096, w), w, logger), time.Now)

	check := httptest.NewRecorder()
	h.ServeHTTP(check, httptest.NewRequest(http.MethodGet, "/v2/accounts", nil))
	require.Equal(b, http.StatusOK, check.Code, check.Body.String())
	require.Contains(b, check.Body.String(), `"totalAssets":19000000.5`)

	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v2/accounts", nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}
