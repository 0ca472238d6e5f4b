package app

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
)

// testClock is a clock the test moves.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func clockedThings(t *testing.T, b *thingsBackend, routeCache string) (http.Handler, *testClock) {
	t.Helper()
	return clockedGateway(t, thingsConfig(b.srv.URL, routeCache, "{}"))
}

// clockedGateway builds the gateway of yaml on a clock the test moves.
func clockedGateway(t *testing.T, yaml string) (http.Handler, *testClock) {
	t.Helper()
	clock := &testClock{now: time.Now()}
	cfg, err := config.Parse([]byte(yaml), func(string) string { return "" })
	require.NoError(t, err)
	m, err := metrics.New(prometheus.NewRegistry(), metrics.BuildInfo{Version: "test"})
	require.NoError(t, err)
	sh := &Shared{Logger: discardLogger(), Metrics: m, CallLog: &recordingLog{}, Duplicates: duplicates.New(time.Minute, 100),
		Upstreams: NewUpstreamSet(m, func(string, string) (string, error) { return "", errors.New("none") }), Now: clock.Now}
	gw, err := Build(context.Background(), cfg, tabled(t, cfg), sh)
	require.NoError(t, err)
	return gw.Handler, clock
}

func cacheGet(t *testing.T, h http.Handler) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/things/1", nil))
	return rec
}

func TestCacheRevalidatesAndServesStaleWhenTheBackendFails(t *testing.T) {
	t.Parallel()
	b := newThingsBackend(t)
	h, clock := clockedThings(t, b, "{ttl: 1m, staleIfError: 10m, scope: shared}")
	require.Contains(t, cacheGet(t, h).Header().Get("Cache-Status"), "fwd=miss")

	clock.add(61 * time.Second)
	rec := cacheGet(t, h)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, `restgate; fwd=stale; fwd-status=304; stored; ttl=60`, rec.Header().Get("Cache-Status"),
		"Last-Modified sent back as If-Modified-Since; the backend answered 304")
	assert.Equal(t, "0", rec.Header().Get("Age"), "confirmed now")
	assert.Equal(t, int64(2), b.gets.Load())
	assert.Equal(t, "one", envelopeOf(t, rec)["result"].(map[string]any)["name"])

	clock.add(61 * time.Second)
	b.fail.Store(true)
	rec = cacheGet(t, h)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, `restgate; hit; ttl=-1; detail="stale-if-error"`, rec.Header().Get("Cache-Status"))
	assert.Equal(t, `111 - "Revalidation Failed"`, rec.Header().Get("Warning"))

	clock.add(10 * time.Minute)
	rec = cacheGet(t, h)
	assert.Equal(t, http.StatusServiceUnavailable, rec.Code, "past staleIfError the failure is answered")
}

func TestCacheServesStaleWhileRevalidating(t *testing.T) {
	t.Parallel()
	b := newThingsBackend(t)
	h, clock := clockedThings(t, b, "{ttl: 1m, staleWhileRevalidate: 1m, scope: shared}")
	cacheGet(t, h)
	clock.add(61 * time.Second)
	rec := cacheGet(t, h)
	assert.Equal(t, `restgate; hit; ttl=-1; detail="stale-while-revalidate"`, rec.Header().Get("Cache-Status"))
	require.Eventually(t, func() bool {
		return cacheGet(t, h).Header().Get("Cache-Status") == "restgate; hit; ttl=60"
	}, 5*time.Second, 5*time.Millisecond, "revalidated in the background")
	assert.Equal(t, int64(2), b.gets.Load(), "one background revalidation")
}

// The org's allowance reserved for essential calls refuses what would reach
// the backend, never a cached answer: fresh ones are hits, and a stale one
// whose revalidation the reserve refuses is served as stale-if-error.
func TestCacheServesStaleWhileTheAllowanceIsReserved(t *testing.T) {
	t.Parallel()
	b := newThingsBackend(t)
	b.headers.Set("Sforce-Limit-Info", "api-usage=50/100")
	h, clock := clockedGateway(t, thingsConfig(b.srv.URL, "{ttl: 10s, staleIfError: 10m, scope: shared}", "{}\n    allowance: {reserve: 10%}"))
	require.Contains(t, cacheGet(t, h).Header().Get("Cache-Status"), "fwd=miss")

	b.mu.Lock()
	b.headers.Set("Sforce-Limit-Info", "api-usage=95/100")
	b.mu.Unlock()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/plain/1", nil))
	require.Equal(t, http.StatusOK, rec.Code, "this answer says 95 of 100 are used")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/plain/2", nil))
	require.Equal(t, http.StatusServiceUnavailable, rec.Code, "under the reserve an uncached call is refused")
	gets := b.gets.Load()

	rec = cacheGet(t, h)
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, `restgate; hit; ttl=10`, rec.Header().Get("Cache-Status"))

	clock.add(11 * time.Second)
	rec = cacheGet(t, h)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, `restgate; hit; ttl=-1; detail="stale-if-error"`, rec.Header().Get("Cache-Status"))
	assert.Equal(t, gets, b.gets.Load(), "nothing reached the org")
}

// However many requests read a stale answer while it is revalidated, each
// is answered at once, and the key is revalidated once: more readers than
// cache.maxRevalidations (16) do not make the others wait for the backend.
func TestCacheServesStaleToEveryReaderDuringOneRevalidation(t *testing.T) {
	t.Parallel()
	b := newThingsBackend(t)
	h, clock := clockedThings(t, b, "{ttl: 1m, staleWhileRevalidate: 1m, scope: shared}")
	cacheGet(t, h)
	clock.add(61 * time.Second)
	gate := make(chan struct{})
	b.hold.Store(&gate)
	release := sync.OnceFunc(func() { b.hold.Store(nil); close(gate) })
	t.Cleanup(release)
	done := make(chan []string)
	go func() {
		var statuses []string
		for range 40 {
			statuses = append(statuses, cacheGet(t, h).Header().Get("Cache-Status"))
		}
		done <- statuses
	}()
	var statuses []string
	select {
	case statuses = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a reader of the stale answer waited for the backend")
	}
	for _, st := range statuses {
		assert.Equal(t, `restgate; hit; ttl=-1; detail="stale-while-revalidate"`, st)
	}
	require.Eventually(t, func() bool { return b.arrived.Load() == 2 }, 5*time.Second, time.Millisecond,
		"the background revalidation reaches the backend")
	release()
	require.Eventually(t, func() bool { return cacheGet(t, h).Header().Get("Cache-Status") == "restgate; hit; ttl=60" },
		5*time.Second, time.Millisecond)
	assert.Equal(t, int64(2), b.gets.Load(), "one revalidation for 40 readers")
	assert.Equal(t, int64(2), b.arrived.Load())
}
