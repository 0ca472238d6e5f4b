package app

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/app/apptest"
	sandboxaccounts "github.com/restgate/gateway/upstreams/sandbox/accounts"
)

func TestBenchGatewayQuotaCountsAndReads(t *testing.T) {
	t.Parallel()
	h, _ := benchGatewayOn(t, apptest.QuotaConfig(), "api-usage=18/1000000000", sandboxaccounts.FixedList(), nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, benchRequest(t, "/v2/accounts"))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, `"day";q=1000000000000000;w=86400`, rec.Header().Get("RateLimit-Policy"))
}

// BenchmarkGatewayAccountsV2Quota is BenchmarkGatewayAccountsV2 with every
// request counted in a quota (in memory) and the accounts upstream guarded
// by an org allowance whose usage each answer reports: what the two cost
// on the whole path, against BenchmarkGatewayAccountsV2 in the same run.
func BenchmarkGatewayAccountsV2Quota(b *testing.B) {
	h, _ := benchGatewayOn(b, apptest.QuotaConfig(), "api-usage=18/1000000000", sandboxaccounts.FixedList(), nil)
	benchAccountsV2(b, h)
}
