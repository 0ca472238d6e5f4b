package config

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/restgate/gateway/upstreams"
)

// RouteCache turns the response cache on for a route's GET (and HEAD)
// answers (docs/guides/caching.md). Every key left unset but clientMaxAge
// and notFoundTTL, which are the route's own, takes the value of the
// route's upstream (upstreams.<name>.cache); ttl must be set on one of the
// two. A change reloads and drops the route's cached answers.
type RouteCache struct {
	// TTL is how long an answer stays fresh; the backend may say less
	// (upstreams.<name>.cache.backendHeaders). Default: the upstream's.
	TTL time.Duration `yaml:"ttl"`
	// StaleWhileRevalidate serves an answer this long past its ttl while
	// one request revalidates it in the background. Default: the
	// upstream's, else 0.
	StaleWhileRevalidate time.Duration `yaml:"staleWhileRevalidate"`
	// StaleIfError serves an answer this long past its ttl, with a Warning
	// header, when the backend fails (5xx, timeout, open breaker, full
	// bulkhead, refused connection). Default: the upstream's, else 0.
	StaleIfError time.Duration `yaml:"staleIfError"`
	// Scope is user (an answer is served only to the user who asked) or
	// shared (to every caller the route's roles allow: only for answers
	// that depend on the path, query and vary headers alone). Default: the
	// upstream's, else user.
	Scope string `yaml:"scope"`
	// Vary are request headers whose values are part of an answer's key
	// (Accept-Language). Default: the upstream's.
	Vary []string `yaml:"vary"`
	// ClientMaxAge lets clients keep an answer this long without asking
	// again (Cache-Control: private, max-age), never past the entry's own
	// freshness. Default 0: private, no-cache (clients keep it but
	// revalidate with If-None-Match, which a hit answers 304).
	ClientMaxAge time.Duration `yaml:"clientMaxAge"`
	// NotFoundTTL keeps the backend's 404 this long, so that a client
	// asking again and again for what does not exist costs one backend
	// call per notFoundTTL; a write invalidates it as it does an answer.
	// At most the route's ttl; keep it short, since what is missing may be
	// created by something other than the gateway. Default 0: a 404 is
	// never kept.
	NotFoundTTL time.Duration `yaml:"notFoundTTL"`
}

// Cache bounds the response cache's storage, shared by every cached route
// (docs/guides/caching.md). Every key needs a restart.
type Cache struct {
	// MaxBytes bounds the answers kept in each replica's memory. Default
	// 67108864 (64 MiB).
	MaxBytes int64 `yaml:"maxBytes"`
	// MaxEntries bounds how many answers each replica keeps in memory.
	// Default 10000.
	MaxEntries int `yaml:"maxEntries"`
	// MaxEntryBytes: a larger answer is served but not kept. Default
	// 1048576 (1 MiB); at most maxBytes.
	MaxEntryBytes int `yaml:"maxEntryBytes"`
	// CoalesceWait bounds how long a request waits for the backend call
	// that another request (of this replica, or of another through a
	// Redis lock) makes for the same answer; past it the request calls the
	// backend itself. Default 3s.
	CoalesceWait time.Duration `yaml:"coalesceWait"`
	// MaxRevalidations bounds the background revalidations of stale
	// answers in flight (staleWhileRevalidate); past it a stale answer is
	// revalidated by the request itself. Default 16.
	MaxRevalidations int `yaml:"maxRevalidations"`
	// RedisTimeout bounds each of the cache's calls to Redis with
	// cluster.store redis (a lookup, a store, a lock, an invalidation);
	// past it the replica goes on alone, as with Redis down. A miss costs
	// a backend call, far longer than this, so it is longer than the rate
	// limit's cluster.redis.timeout, and the cache's calls have their own
	// connections and failure count: a Redis too slow for one does not
	// turn the other off. Default 100ms.
	RedisTimeout time.Duration `yaml:"redisTimeout"`
}

// Policy is a route's effective cache: its own cache keys, each unset one
// taken from its upstream's, then the defaults.
func (r Route) Policy(up upstreams.CacheSettings) (RouteCache, bool) {
	if r.Cache == nil {
		return RouteCache{}, false
	}
	p := *r.Cache
	p.TTL = cmpOr(p.TTL, up.TTL)
	p.StaleWhileRevalidate = cmpOr(p.StaleWhileRevalidate, up.StaleWhileRevalidate)
	p.StaleIfError = cmpOr(p.StaleIfError, up.StaleIfError)
	p.Scope = cmpOr(p.Scope, up.Scope, upstreams.CacheScopeUser)
	if p.Vary == nil {
		p.Vary = up.Vary
	}
	return p, true
}

func cmpOr[T comparable](vals ...T) T {
	var zero T
	for _, v := range vals {
		if v != zero {
			return v
		}
	}
	return zero
}

func setCacheDefaults(c *Cache) {
	setInt64(&c.MaxBytes, 64<<20)
	setInt(&c.MaxEntries, 10000)
	setInt(&c.MaxEntryBytes, 1<<20)
	setDur(&c.CoalesceWait, 3*time.Second)
	setInt(&c.MaxRevalidations, 16)
	setDur(&c.RedisTimeout, 100*time.Millisecond)
}

func validateCache(p *problems, c *Config) {
	s := c.Cache
	if s.MaxBytes < 1 || s.MaxEntries < 1 || s.MaxEntryBytes < 1 || int64(s.MaxEntryBytes) > s.MaxBytes {
		p.add("cache", "maxBytes, maxEntries and maxEntryBytes must be positive, and maxEntryBytes at most maxBytes")
	}
	if s.CoalesceWait <= 0 || s.MaxRevalidations < 1 {
		p.add("cache", "coalesceWait must be positive and maxRevalidations at least 1")
	}
	if s.RedisTimeout < time.Millisecond || s.RedisTimeout > 10*time.Second {
		p.add("cache.redisTimeout", "must be between 1ms and 10s")
	}
	for i, r := range c.Routes {
		if r.Cache == nil {
			continue
		}
		path := fmt.Sprintf("routes[%d].cache", i)
		upstreams.ValidateCachePolicy(r.Cache.TTL, r.Cache.StaleWhileRevalidate, r.Cache.StaleIfError, r.Cache.Scope,
			r.Cache.Vary, func(key, problem string) { p.add(path+"."+key, "%s", problem) })
		if r.Cache.ClientMaxAge < 0 {
			p.add(path+".clientMaxAge", "must not be negative")
		}
		pol, _ := r.Policy(c.Upstreams[r.Upstream].Cache)
		switch {
		case r.Cache.NotFoundTTL < 0:
			p.add(path+".notFoundTTL", "must not be negative")
		case pol.TTL > 0 && r.Cache.NotFoundTTL > pol.TTL:
			p.add(path+".notFoundTTL", "must not be longer than the ttl (%s)", pol.TTL)
		}
		methods := r.Methods
		if len(methods) == 0 {
			methods = []string{http.MethodGet}
		}
		if !slices.Contains(methods, http.MethodGet) {
			p.add(path, "only GET answers are cached, and the route does not serve GET")
		}
		if pol.TTL <= 0 {
			p.add(path+".ttl", "required here or in upstreams.%s.cache.ttl", r.Upstream)
		}
	}
}
