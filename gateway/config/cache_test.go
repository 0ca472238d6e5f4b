package config

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateCache(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc                          string
		upstream, route, methods, top string
		wants                         []string
	}{
		{desc: "a route's cache with the upstream's defaults", upstream: "{scope: shared, staleIfError: 10m}",
			route: "{ttl: 1m, notFoundTTL: 10s, vary: [Accept-Language]}"},
		{desc: "ttl from the upstream", upstream: "{ttl: 5m}", route: "{notFoundTTL: 5m}"},
		{desc: "no ttl anywhere", route: "{scope: shared}", wants: []string{
			"routes[0].cache.ttl: required here or in upstreams.things.cache.ttl"}},
		{desc: "negative durations and a bad scope", route: "{ttl: -1s, staleWhileRevalidate: -1s, staleIfError: -1s, clientMaxAge: -1s, notFoundTTL: -1s, scope: everyone}",
			wants: []string{"routes[0].cache.ttl: must not be negative", "routes[0].cache.staleWhileRevalidate: must not be negative",
				"routes[0].cache.staleIfError: must not be negative", "routes[0].cache.clientMaxAge: must not be negative",
				"routes[0].cache.notFoundTTL: must not be negative", `routes[0].cache.scope: must be user or shared, not "everyone"`}},
		{desc: "a 404 kept longer than an answer", route: "{ttl: 1m, notFoundTTL: 2m}", wants: []string{
			"routes[0].cache.notFoundTTL: must not be longer than the ttl (1m0s)"}},
		{desc: "a 404 kept longer than the upstream's ttl", upstream: "{ttl: 30s}", route: "{notFoundTTL: 1m}", wants: []string{
			"routes[0].cache.notFoundTTL: must not be longer than the ttl (30s)"}},
		{desc: "a credential in the key", route: "{ttl: 1m, vary: [Authorization, 'bad name']}", wants: []string{
			"routes[0].cache.vary[0]: Authorization is a credential", `routes[0].cache.vary[1]: "bad name" is not a header name`}},
		{desc: "a route that serves no GET", route: "{ttl: 1m}", methods: "[PUT]", wants: []string{
			"routes[0].cache: only GET answers are cached, and the route does not serve GET"}},
		{desc: "the store's bounds", route: "{ttl: 1m}", top: "{maxBytes: 10, maxEntryBytes: 20, coalesceWait: 0s, maxRevalidations: -1}",
			wants: []string{"cache: maxBytes, maxEntries and maxEntryBytes must be positive, and maxEntryBytes at most maxBytes",
				"cache: coalesceWait must be positive and maxRevalidations at least 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			yaml := fmt.Sprintf(`versions: [v1]
upstreams:
  things: {url: "http://127.0.0.1:8080", cache: %s}
routes:
  - {path: "/{version}/things/{id}", kind: proxy, upstream: things, upstreamPath: "/things/{id}", methods: %s, cache: %s}
cache: %s
`, cmpOr(tt.upstream, "{}"), cmpOr(tt.methods, "[GET, PUT]"), tt.route, cmpOr(tt.top, "{}"))
			assertProblems(t, yaml, tt.wants)
		})
	}
}

func TestCachePolicyTakesTheUpstreamsDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := Parse([]byte(`versions: [v1]
upstreams:
  things: {url: "http://127.0.0.1:8080", cache: {ttl: 5m, staleWhileRevalidate: 1m, scope: shared, vary: [Accept-Language]}}
routes:
  - {path: "/{version}/a", kind: proxy, upstream: things, upstreamPath: "/a", cache: {notFoundTTL: 10s}}
  - {path: "/{version}/b", kind: proxy, upstream: things, upstreamPath: "/b", cache: {ttl: 1m, scope: user, vary: []}}
  - {path: "/{version}/c", kind: proxy, upstream: things, upstreamPath: "/c"}
`), env(nil))
	require.NoError(t, err)
	require.NoError(t, Validate(cfg))
	up := cfg.Upstreams["things"].Cache
	a, ok := cfg.Routes[0].Policy(up)
	require.True(t, ok)
	assert.Equal(t, RouteCache{TTL: 5 * time.Minute, StaleWhileRevalidate: time.Minute, Scope: "shared",
		Vary: []string{"Accept-Language"}, NotFoundTTL: 10 * time.Second}, a)
	b, ok := cfg.Routes[1].Policy(up)
	require.True(t, ok)
	assert.Equal(t, RouteCache{TTL: time.Minute, StaleWhileRevalidate: time.Minute, Scope: "user", Vary: []string{}}, b)
	_, ok = cfg.Routes[2].Policy(up)
	assert.False(t, ok, "no cache key: not cached, whatever the upstream says")
}
