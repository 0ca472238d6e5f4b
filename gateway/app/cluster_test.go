package app

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/cluster"
	"github.com/restgate/gateway/gateway/cluster/redistest"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
)

// clusterGateway builds the shipped config with the redis store, wired as
// cmd/gateway wires it: one replica of a deployment sharing srv.
func clusterGateway(t *testing.T, srv *redistest.Server, extra map[string]string) *builtGateway {
	t.Helper()
	env := shippedEnv(t, "http://127.0.0.1:1", map[string]string{
		"GATEWAY_CLUSTER_STORE": "redis", "GATEWAY_REDIS_URL": srv.URL(), "GATEWAY_REDIS_KEY_PREFIX": "app-test:"})
	for k, v := range extra {
		env[k] = v
	}
	cfg, err := config.Load(shippedConfig, func(k string) string { return env[k] })
	require.NoError(t, err)
	require.NoError(t, config.Validate(cfg))
	cfg.Cluster.Redis.Timeout = 2 * time.Second // a loaded test machine must not fall back
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{Version: "test", Revision: "r", GoVersion: "go"})
	require.NoError(t, err)
	store, err := cluster.Open(cfg.Cluster, m, discardLogger())
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	rec := &recordingLog{}
	sh := &Shared{
		Logger: discardLogger(), Metrics: m, CallLog: rec, Cluster: store,
		Duplicates: store.Duplicates(cfg.Log.DuplicateWindow, duplicates.New(cfg.Log.DuplicateWindow, 100)),
		Upstreams:  NewUpstreamSet(m, func(string, string) (string, error) { return "", errors.New("no sandbox") }),
	}
	gw, err := Build(t.Context(), cfg, tabled(t, cfg), sh)
	require.NoError(t, err)
	return &builtGateway{handler: gw.Handler, table: gw.Table, reg: reg, log: rec}
}

func TestRateLimitSharedByReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	limit := map[string]string{"GATEWAY_RATE_LIMIT_RPS": "0.01", "GATEWAY_RATE_LIMIT_BURST": "2"}
	a, b := clusterGateway(t, srv, limit), clusterGateway(t, srv, limit)
	require.Equal(t, http.StatusOK, serve(a.handler, "GET", "/v2/settings/endpoints", nil, "").Code)
	require.Equal(t, http.StatusOK, serve(b.handler, "GET", "/v1/settings/endpoints", nil, "").Code)
	for _, gw := range []*builtGateway{a, b} {
		rec := serve(gw.handler, "GET", "/v2/settings/endpoints", nil, "")
		assert.Equal(t, http.StatusTooManyRequests, rec.Code, "two replicas, one allowance of 2")
		assert.Equal(t, "RATE_LIMITED", responseID(envelopeOf(t, rec)))
		retry := rec.Header().Get("Retry-After")
		assert.True(t, retry == "100" || retry == "99", "Retry-After from Redis's answer: %q", retry)
	}
}

func TestDuplicateSeenAcrossReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	a, b := clusterGateway(t, srv, nil), clusterGateway(t, srv, nil)
	serve(a.handler, "GET", "/v2/settings/model/Account", nil, "")
	serve(b.handler, "GET", "/v2/settings/model/Contact", nil, "")
	serve(b.handler, "GET", "/v2/settings/model/Account", nil, "")
	want := `
# HELP gateway_duplicate_requests_total Requests repeating one by the same user with the same method, path, query and body within the duplicate window.
# TYPE gateway_duplicate_requests_total counter
gateway_duplicate_requests_total{route="/{version}/settings/model/{objectName}"} 1
`
	assert.NoError(t, testutil.GatherAndCompare(b.reg, strings.NewReader(want), "gateway_duplicate_requests_total"))
	assert.NoError(t, testutil.GatherAndCompare(a.reg, strings.NewReader(""), "gateway_duplicate_requests_total"),
		"the first sighting is no duplicate")
	entries := b.log.all()
	require.Len(t, entries, 2)
	assert.False(t, entries[0].Duplicate)
	assert.True(t, entries[1].Duplicate, "marked in the call log of the replica that saw the repeat")
}

func TestFailClosedAnswers503(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	gw := clusterGateway(t, srv, map[string]string{"GATEWAY_RATE_LIMIT_RPS": "1000", "GATEWAY_CLUSTER_FAIL_CLOSED": "true"})
	require.Equal(t, http.StatusOK, serve(gw.handler, "GET", "/v2/settings/endpoints", nil, "").Code)
	srv.Kill()
	rec := serve(gw.handler, "GET", "/v2/settings/endpoints", nil, "")
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code)
	env := envelopeOf(t, rec)
	assert.Equal(t, "CALLOUT_FAILED", responseID(env))
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	assert.NotContains(t, rec.Body.String(), srv.Addr, "the store's address stays in the local log")
	assert.Equal(t, 1.0, counterValue(t, gw.reg, "gateway_cluster_store_errors_total", "ratelimit"))
	require.NoError(t, srv.Restart())
	require.Eventually(t, func() bool {
		return serve(gw.handler, "GET", "/v2/settings/endpoints", nil, "").Code == http.StatusOK
	}, 30*time.Second, 5*time.Millisecond, "back by itself")
}

// counterValue reads one op's value of a counter family from reg.
func counterValue(t *testing.T, reg *prometheus.Registry, name, op string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if f.GetName() == name && l.GetName() == "op" && l.GetValue() == op {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	t.Fatalf("no %s{op=%q}", name, op)
	return 0
}
