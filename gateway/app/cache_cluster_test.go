package app

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/cluster"
	"github.com/restgate/gateway/gateway/cluster/redistest"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
)

// cacheReplica is one replica of the things gateway sharing srv.
func cacheReplica(t *testing.T, srv *redistest.Server, backendURL string) (http.Handler, *Shared) {
	t.Helper()
	cfg, err := config.Parse([]byte(thingsConfig(backendURL, "{ttl: 1m, scope: shared}", "{}")+`
cluster:
  store: redis
  redis: {url: `+srv.URL()+`, keyPrefix: "cache-test:", timeout: 2s}
`), func(string) string { return "" })
	require.NoError(t, err)
	m, err := metrics.New(prometheus.NewRegistry(), metrics.BuildInfo{Version: "test"})
	require.NoError(t, err)
	store, err := cluster.Open(cfg.Cluster, m, discardLogger())
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	sh := &Shared{Logger: discardLogger(), Metrics: m, CallLog: &recordingLog{}, Cluster: store,
		Duplicates: duplicates.New(time.Minute, 100),
		Upstreams:  NewUpstreamSet(m, func(string, string) (string, error) { return "", errors.New("no sandbox") })}
	gw, err := Build(t.Context(), cfg, tabled(t, cfg), sh)
	require.NoError(t, err)
	t.Cleanup(sh.ResponseCache().Close)
	require.Eventually(t, sh.ResponseCache().SharedUp, 10*time.Second, 10*time.Millisecond, "the replica hears the others")
	return gw.Handler, sh
}

func getThing(t *testing.T, h http.Handler, path string) (status, name string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	_, env := rec, envelopeOf(t, rec)
	res, _ := env["result"].(map[string]any)
	n, _ := res["name"].(string)
	return rec.Header().Get("Cache-Status"), n
}

func TestCacheSharedByThreeReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	b := newThingsBackend(t)
	a, _ := cacheReplica(t, srv, b.srv.URL)
	bb, _ := cacheReplica(t, srv, b.srv.URL)
	c, _ := cacheReplica(t, srv, b.srv.URL)

	st, name := getThing(t, a, "/v1/things/1")
	assert.Contains(t, st, "fwd=miss")
	assert.Equal(t, "one", name)
	st, name = getThing(t, bb, "/v1/things/1")
	assert.Equal(t, "restgate; hit; ttl=60", st, "B is served what A fetched")
	assert.Equal(t, "one", name)
	getThing(t, c, "/v1/things/1")
	assert.Equal(t, int64(1), b.gets.Load(), "one backend call for three replicas")

	// a write on C invalidates the answer on all three
	rec := httptest.NewRecorder()
	c.ServeHTTP(rec, httptest.NewRequest(http.MethodPut, "/v2/things/1", strings.NewReader(`{"Name":"uno"}`)))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	for i, h := range []http.Handler{a, bb, c} {
		require.Eventually(t, func() bool { _, n := getThing(t, h, "/v1/things/1"); return n == "uno" },
			5*time.Second, 5*time.Millisecond, "replica %d serves the write", i)
	}

	// 50 concurrent misses of one key spread over the three: one backend call
	b.delay.Store(int64(200 * time.Millisecond))
	before := b.gets.Load()
	var wg sync.WaitGroup
	names := make([]string, 50)
	for i := range 50 {
		wg.Go(func() { _, names[i] = getThing(t, []http.Handler{a, bb, c}[i%3], "/v2/things/2") })
	}
	wg.Wait()
	assert.Equal(t, int64(1), b.gets.Load()-before, "one backend call for 50 misses over three replicas")
	for _, n := range names {
		assert.Equal(t, "two", n)
	}
}
