package app

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/cluster/redistest"
)

func getMissing(t *testing.T, h http.Handler) (*httptest.ResponseRecorder, map[string]any) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/v1/things/9", nil))
	require.Equal(t, http.StatusNotFound, rec.Code, rec.Body.String())
	return rec, envelopeOf(t, rec)
}

// notFoundTTL keeps the backend's 404 for a short while: asked again, it
// is answered from the cache with the request's own envelope members, never
// stale, and a write at the path ends it.
func TestCacheKeepsA404ForNotFoundTTL(t *testing.T) {
	t.Parallel()
	b := newThingsBackend(t)
	h, clock := clockedThings(t, b, "{ttl: 1m, notFoundTTL: 10s, staleIfError: 10m, staleWhileRevalidate: 1m, scope: shared}")

	rec, first := getMissing(t, h)
	assert.Equal(t, "restgate; fwd=miss; fwd-status=404; stored; ttl=10", rec.Header().Get("Cache-Status"))
	assert.Empty(t, rec.Header().Get("ETag"), "a 404 has no validator of the gateway's")
	clock.add(3 * time.Second)
	rec, again := getMissing(t, h)
	assert.Equal(t, "restgate; hit; ttl=7", rec.Header().Get("Cache-Status"))
	assert.Equal(t, "3", rec.Header().Get("Age"))
	assert.Equal(t, first["responseCode"], again["responseCode"], "the same error")
	assert.NotEqual(t, first["timeStamp"], again["timeStamp"], "with the request's own members")
	assert.Equal(t, int64(1), b.gets.Load())

	clock.add(8 * time.Second) // past notFoundTTL: never served stale, whatever the windows of answers say
	rec, _ = getMissing(t, h)
	assert.Equal(t, "restgate; fwd=stale; fwd-status=404; stored; ttl=10", rec.Header().Get("Cache-Status"))
	assert.Equal(t, int64(2), b.gets.Load())

	put := httptest.NewRecorder()
	h.ServeHTTP(put, httptest.NewRequest(http.MethodPut, "/v2/things/9", strings.NewReader(`{"Name":"nine"}`)))
	require.Equal(t, http.StatusOK, put.Code, put.Body.String())
	st, name := getThing(t, h, "/v1/things/9")
	assert.Equal(t, "nine", name, "a write at the path ends the kept 404")
	assert.Contains(t, st, "fwd=miss")
}

func TestCacheKeepsNo404Unasked(t *testing.T) {
	t.Parallel()
	b := newThingsBackend(t)
	h, _ := clockedThings(t, b, "{ttl: 1m, scope: shared}")
	for range 2 {
		rec, _ := getMissing(t, h)
		assert.Empty(t, rec.Header().Get("Cache-Status"), "a 404 is the backend's own error")
	}
	assert.Equal(t, int64(2), b.gets.Load())
}

// A 404 kept by one replica is read by another from Redis.
func TestCacheShares404sAcrossReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	b := newThingsBackend(t)
	const routeCache = "{ttl: 1m, notFoundTTL: 30s, scope: shared}"
	a, _ := cacheReplica(t, srv, thingsConfig(b.srv.URL, routeCache, "{}"), nil)
	bb, _ := cacheReplica(t, srv, thingsConfig(b.srv.URL, routeCache, "{}"), nil)
	rec, first := getMissing(t, a)
	assert.Contains(t, rec.Header().Get("Cache-Status"), "fwd-status=404; stored")
	rec, again := getMissing(t, bb)
	assert.Equal(t, "restgate; hit; ttl=30", rec.Header().Get("Cache-Status"))
	assert.Equal(t, first["responseCode"], again["responseCode"])
	assert.Equal(t, int64(1), b.gets.Load(), "one backend call for both replicas")
}
