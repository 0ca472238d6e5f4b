package app

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
)

// A reload keeps the answers of the routes it did not change; those of a
// changed route are never read again, and leave memory once the replaced
// build is closed (as the reloader does after the swap).
func TestCacheReloadDropsOnlyChangedRoutes(t *testing.T) {
	t.Parallel()
	b := newThingsBackend(t)
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{Version: "test"})
	require.NoError(t, err)
	cm, err := metrics.NewResponseCache(reg)
	require.NoError(t, err)
	sh := &Shared{Logger: discardLogger(), Metrics: m, CallLog: &recordingLog{}, Duplicates: duplicates.New(time.Minute, 100),
		CacheRecorder: cm, Upstreams: NewUpstreamSet(m, func(string, string) (string, error) { return "", errors.New("none") })}
	build := func(itemCache string) *Gateway {
		yaml := strings.Replace(thingsConfig(b.srv.URL, "{ttl: 1m, scope: shared}", "{}"),
			`upstreamPath: "/things/{id}", methods: [GET, PUT], cache: {ttl: 1m, scope: shared}`,
			`upstreamPath: "/things/{id}", methods: [GET, PUT], cache: `+itemCache, 1)
		cfg, err := config.Parse([]byte(yaml), func(string) string { return "" })
		require.NoError(t, err)
		gw, err := Build(context.Background(), cfg, tabled(t, cfg), sh)
		require.NoError(t, err)
		return gw
	}
	status := func(gw *Gateway, path string) string {
		rec := httptest.NewRecorder()
		gw.Handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		require.Equal(t, http.StatusOK, rec.Code)
		return rec.Header().Get("Cache-Status")
	}
	entries := func() float64 { return gaugeValue(t, reg, "gateway_cache_entries", "tier", "memory") }
	weight := func() float64 { return gaugeValue(t, reg, "gateway_cache_bytes", "tier", "memory") }

	first := build("{ttl: 1m, scope: shared}")
	for _, p := range []string{"/v1/things", "/v1/things/1", "/v2/things/2"} {
		status(first, p)
	}
	require.Eventually(t, func() bool { return entries() == 3 && weight() > 0 }, 5*time.Second, time.Millisecond)
	full := weight()

	second := build("{ttl: 2m, scope: shared}") // a reload changing the item route only
	assert.Equal(t, 3.0, entries(), "nothing leaves while the old build serves")
	first.Close()
	assert.Equal(t, 1.0, entries(), "the changed route's two answers left memory with the build that served them")
	assert.Equal(t, full/3, weight(), "and their weight")

	assert.Contains(t, status(first, "/v1/things/1"), "fwd=miss", "a request still running on the closed build is answered")
	assert.Equal(t, 1.0, entries(), "but its answer is not kept")
	assert.Contains(t, status(second, "/v1/things"), "hit", "an unchanged route keeps its answers")
	assert.Contains(t, status(second, "/v1/things/1"), "fwd=miss", "a changed route starts empty")
	assert.Contains(t, status(second, "/v1/things/1"), "ttl=120")
	assert.Equal(t, 2.0, entries())

	second.Close()
	assert.Zero(t, entries(), "a build closed with no successor leaves nothing")
}
