package upstreams

import (
	"fmt"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"
)

// Cache scopes (CacheSettings.Scope and a route's cache.scope).
const (
	// CacheScopeUser keeps an answer for the user who asked: another
	// user's request never reads it. The default.
	CacheScopeUser = "user"
	// CacheScopeShared serves one answer to every caller allowed on the
	// route: for answers that depend only on the request's path, query and
	// vary headers (the backend is called with the gateway's own
	// credentials, never the caller's).
	CacheScopeShared = "shared"
)

// What a response cache makes of a backend's caching headers
// (CacheSettings.BackendHeaders).
const (
	// BackendHeadersObey follows RFC 9111: no-store, private (in a shared
	// scope), Set-Cookie (in a shared scope), Vary: * and a Vary on a
	// header the route does not vary on keep an answer out of the cache;
	// max-age, s-maxage and Expires shorten the route's ttl; no-cache and
	// must-revalidate forbid serving it stale. The default.
	BackendHeadersObey = "obey"
	// BackendHeadersIgnore keeps the route's ttl whatever the backend's
	// Cache-Control, Expires, Vary and Set-Cookie say; its validators
	// (ETag, Last-Modified) are still used. For a backend that marks every
	// answer uncacheable whatever it is, as Salesforce's REST API does
	// (no-store, private, Expires in 1970 and a BrowserId cookie on every
	// answer), called with the gateway's own credentials.
	BackendHeadersIgnore = "ignore"
)

// CacheSettings are an upstream's response-cache settings
// (upstreams.<name>.cache): the defaults of the cache of its routes, and
// what the backend's caching headers mean. They never turn caching on by
// themselves: a route is cached when it has a cache key of its own
// (routes[].cache), whose unset keys take these values. A change reloads
// without rebuilding the upstream's client; the cached answers of its
// routes are dropped.
type CacheSettings struct {
	// TTL is how long an answer stays fresh, unless the backend says less
	// (backendHeaders obey). Default 0: each cached route sets its own.
	TTL time.Duration `yaml:"ttl"`
	// StaleWhileRevalidate serves an answer this long past its ttl while
	// one request revalidates it in the background. Default 0.
	StaleWhileRevalidate time.Duration `yaml:"staleWhileRevalidate"`
	// StaleIfError serves an answer this long past its ttl, with a
	// Warning header, when the backend fails (a 5xx, a timeout, an open
	// breaker, a full bulkhead, a refused connection). Default 0.
	StaleIfError time.Duration `yaml:"staleIfError"`
	// Scope is user or shared (CacheScopeUser, CacheScopeShared). Default
	// user: an answer is served only to the user who asked.
	Scope string `yaml:"scope"`
	// Vary are request headers whose values are part of an answer's key.
	Vary []string `yaml:"vary"`
	// BackendHeaders is obey (RFC 9111, the default) or ignore
	// (BackendHeadersObey, BackendHeadersIgnore).
	BackendHeaders string `yaml:"backendHeaders"`
}

// IsZero reports whether nothing is set.
func (c CacheSettings) IsZero() bool {
	return c.TTL == 0 && c.StaleWhileRevalidate == 0 && c.StaleIfError == 0 && c.Scope == "" &&
		len(c.Vary) == 0 && c.BackendHeaders == ""
}

// ValidateCachePolicy reports the problems of a cache's ttl, stale windows,
// scope and vary headers, with bad(key, problem) at keys relative to the
// cache's own key. Routes and upstreams share it.
func ValidateCachePolicy(ttl, swr, sie time.Duration, scope string, vary []string, bad func(key, problem string)) {
	for _, f := range []struct {
		key string
		d   time.Duration
	}{{"ttl", ttl}, {"staleWhileRevalidate", swr}, {"staleIfError", sie}} {
		if f.d < 0 {
			bad(f.key, "must not be negative")
		}
	}
	switch scope {
	case "", CacheScopeUser, CacheScopeShared:
	default:
		bad("scope", fmt.Sprintf("must be %s or %s, not %q", CacheScopeUser, CacheScopeShared, scope))
	}
	for i, h := range vary {
		key := fmt.Sprintf("vary[%d]", i)
		switch {
		case !httpguts.ValidHeaderFieldName(h):
			bad(key, fmt.Sprintf("%q is not a header name", h))
		case strings.EqualFold(h, "Authorization") || strings.EqualFold(h, "Cookie") || strings.EqualFold(h, "X-API-Key"):
			// a credential in a key would be kept in the cache's memory and
			// in Redis; scope user keys by the verified user instead
			bad(key, fmt.Sprintf("%s is a credential: use scope user to keep answers per caller", h))
		}
	}
}

// validate reports the problems of c, with keys relative to "cache".
func (c CacheSettings) validate(bad func(key, problem string)) {
	ValidateCachePolicy(c.TTL, c.StaleWhileRevalidate, c.StaleIfError, c.Scope, c.Vary,
		func(key, problem string) { bad("cache."+key, problem) })
	switch c.BackendHeaders {
	case "", BackendHeadersObey, BackendHeadersIgnore:
	default:
		bad("cache.backendHeaders", fmt.Sprintf("must be %s or %s, not %q", BackendHeadersObey, BackendHeadersIgnore, c.BackendHeaders))
	}
}

// WithoutCache returns s without its cache settings: what the upstream's
// client is built from, so that a change of the cache alone keeps the
// client (its breaker state and connections).
func (s Settings) WithoutCache() Settings {
	s.Cache = CacheSettings{}
	return s
}
