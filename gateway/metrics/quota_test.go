package metrics

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/quota"
)

// quotaCounter is a counter in which user reader used 3 of a daily quota
// of 10.
func quotaCounter(t *testing.T) *quota.Counter {
	t.Helper()
	policies := quota.NewPolicies(config.Auth{Quotas: config.Quotas{Users: map[string]config.Quota{"reader": {PerDay: 10}}}})
	pol, consumer, _ := policies.Resolve(call.Identity{UserID: "reader"})
	local := quota.NewMemory(10, nil)
	for range 3 {
		req := quota.Request{Consumer: consumer, Policy: pol.Name, Counts: pol.Counts(nil, consumer, "", time.Now())}
		_, err := local.Take(context.Background(), &req)
		require.NoError(t, err)
	}
	return quota.NewCounter(nil, local, nil)
}

func TestQuotaMetrics(t *testing.T) {
	t.Parallel()
	m, reg := newTestMetrics(t)
	assert.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(""), "gateway_quota_used"), "no source: no series")
	m.SetQuotaSource(quotaCounter(t))
	m.QuotaDecision("user:reader", true)
	m.QuotaDecision("user:reader", false)
	m.QuotaDecision("user:reader", true)
	assert.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP gateway_quota_limit Requests a window of the quota policy allows.
# TYPE gateway_quota_limit gauge
gateway_quota_limit{quota="user:reader",window="day"} 10
# HELP gateway_quota_requests_total Requests of limited callers by quota policy and result: allowed, or refused (RATE_LIMITED 429) because a window is used up.
# TYPE gateway_quota_requests_total counter
gateway_quota_requests_total{quota="user:reader",result="allowed"} 2
gateway_quota_requests_total{quota="user:reader",result="refused"} 1
`), "gateway_quota_limit", "gateway_quota_requests_total"))
}

func TestAllowanceMetrics(t *testing.T) {
	t.Parallel()
	m, reg := newTestMetrics(t)
	m.AllowanceReserve("data", false)
	m.AllowanceUsage("data", 13600, 15000, 1500, time.Unix(1700000000, 500e6))
	m.AllowanceReserve("data", true)
	m.AllowanceExceeded("data")
	m.AllowanceUsage("bad name!", 1, 2, 0, time.Unix(0, 0))
	assert.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP gateway_upstream_allowance_exceeded_total REQUEST_LIMIT_EXCEEDED answers of the org: its allowance is spent and it refuses every integration.
# TYPE gateway_upstream_allowance_exceeded_total counter
gateway_upstream_allowance_exceeded_total{upstream="data"} 1
# HELP gateway_upstream_allowance_reserve_engaged 1 while calls that are not essential are refused: fewer calls than the reserve remain, or the org answered REQUEST_LIMIT_EXCEEDED.
# TYPE gateway_upstream_allowance_reserve_engaged gauge
gateway_upstream_allowance_reserve_engaged{upstream="data"} 1
# HELP gateway_upstream_allowance_seen_timestamp_seconds When the usage was last reported (Unix time): an idle upstream's figures age.
# TYPE gateway_upstream_allowance_seen_timestamp_seconds gauge
gateway_upstream_allowance_seen_timestamp_seconds{upstream="data"} 1.7000000005e+09
gateway_upstream_allowance_seen_timestamp_seconds{upstream="other"} 0
# HELP gateway_upstream_allowance_used API calls the org behind the upstream counted in its rolling 24 hours, as the freshest answer any replica saw reported (Sforce-Limit-Info).
# TYPE gateway_upstream_allowance_used gauge
gateway_upstream_allowance_used{upstream="data"} 13600
gateway_upstream_allowance_used{upstream="other"} 1
`), "gateway_upstream_allowance_used", "gateway_upstream_allowance_exceeded_total", "gateway_upstream_allowance_reserve_engaged",
		"gateway_upstream_allowance_seen_timestamp_seconds"))
}
