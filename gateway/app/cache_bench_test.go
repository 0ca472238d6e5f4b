package app

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/restgate/gateway/gateway/cache"
)

// BenchmarkCache compares, through the whole chain, one GET of a 10 KB
// answer served from the cache (hit), fetched by the cache (miss: the
// answer purged before each request) and of the same answer on a route
// without cache (the backend called, as every request did before).
func BenchmarkCache(b *testing.B) {
	back := newThingsBackend(b)
	back.mu.Lock()
	back.things["1"] = strings.Repeat("x", 10<<10)
	back.mu.Unlock()
	h := newHarness(&testing.T{}, thingsConfig(back.srv.URL, "{ttl: 1h, scope: shared}", "{}"), nil)
	get := func(b *testing.B, path string, before func()) {
		b.ReportAllocs()
		for b.Loop() {
			if before != nil {
				before()
			}
			rec := httptest.NewRecorder()
			h.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
			if rec.Code != http.StatusOK {
				b.Fatal(rec.Code, rec.Body.String())
			}
		}
	}
	b.Run("hit", func(b *testing.B) { get(b, "/v1/things/1", nil) })
	b.Run("miss", func(b *testing.B) {
		purge := cache.PurgeHandler(func() *cache.Cache { return h.cache })
		get(b, "/v1/things/1", func() {
			purge.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/?prefix=/v1/things/1", nil))
		})
	})
	b.Run("uncached", func(b *testing.B) { get(b, "/v1/plain/1", nil) })
}
