package main

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/cluster/redistest"
)

// -quota adds the gateway that counts every request in a quota and guards
// its upstream's org allowance (and, with -cluster, its twin on Redis):
// nothing is refused, every request is counted, the usage is read.
func TestSmokeRunQuota(t *testing.T) {
	if testing.Short() {
		t.Skip("starts six processes and redis-server, and builds the gateway")
	}
	redistest.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out, log bytes.Buffer
	code := run(ctx, []string{"-smoke", "-json", "-quota", "-cluster", "-std=false"}, &out, &log)
	require.Equal(t, 0, code, log.String())
	var rep report
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), out.String())
	var names []string
	for _, tr := range rep.Targets {
		names = append(names, tr.Name)
		assert.Positive(t, tr.Requests, tr.Name)
		assert.Zero(t, tr.Errors, "%s: a quota never reached and a usage far from the reserve refuse nothing", tr.Name)
	}
	assert.Equal(t, []string{"backend", "proxy", "gateway", "gateway-redis", "gateway-quota", "gateway-redis-quota"}, names)
	require.NotNil(t, rep.Quota)
	assert.GreaterOrEqual(t, rep.Quota.QuotaCounted, float64(rep.Targets[4].Requests), "every request counted")
	assert.Equal(t, 18.0, rep.Quota.AllowanceUsed, "the backend's Sforce-Limit-Info was read")
	assert.Positive(t, rep.Quota.QuotaVsGateway.CPUPerRequest)
	require.NotNil(t, rep.Quota.RedisQuotaVsRedis)
	assert.Positive(t, rep.Quota.RedisQuotaVsRedis.CPUPerRequest)
}
