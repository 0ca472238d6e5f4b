package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/gorilla/mux"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/routes"
)

// Routes wraps one build's handlers with the cache, by its Plan.
type Routes struct {
	cache  *Cache
	plan   *Plan
	writer *call.Writer
	// related says, per upstream, whether one of its routes is cached: a
	// write elsewhere invalidates nothing and is not wrapped.
	related map[string]bool
	// fingerprints are the cached routes', held until Release.
	fingerprints []string
	release      sync.Once
}

// Routes returns what wraps the handlers of a build of plan, whose
// answers w renders. The build holds its cached routes' answers until
// Release.
func (c *Cache) Routes(plan *Plan, w *call.Writer) *Routes {
	rs := &Routes{cache: c, plan: plan, writer: w, related: map[string]bool{}}
	for _, rp := range plan.Routes() {
		if rp.Cached {
			rs.related[rp.Route.Spec.Upstream] = true
			rs.fingerprints = append(rs.fingerprints, rp.Fingerprint)
		}
	}
	c.live.hold(rs.fingerprints)
	return rs
}

// Release says the build no longer serves new requests (a reload replaced
// it, or it failed): the answers of its routes that no other build serves
// (a route whose configuration the reload changed) are dropped from memory
// at once, and the requests still running on it store none. Safe to call
// more than once.
func (rs *Routes) Release() {
	rs.release.Do(func() { rs.cache.retire(rs.cache.live.release(rs.fingerprints)) })
}

// Wrap returns h, the handler of rt's method, with the cache in front of
// a cached route's GET and an invalidation behind a write of an upstream
// that has cached routes; other handlers are returned as they are. The
// router calls it after the route's checks (roles, query, body limit), so
// a hit is served only to a caller the route admits.
func (rs *Routes) Wrap(rt *routes.Route, method string, h call.Handler) call.Handler {
	rp := rs.plan.Of(rt)
	switch {
	case rp == nil:
		return h
	case rp.Cached && method == http.MethodGet:
		return (&reader{rs: rs, rp: rp, next: h}).serve
	case writes(method) && rs.related[rt.Spec.Upstream]:
		return (&writer{rs: rs, rp: rp, next: h}).serve
	}
	return h
}

// keyOf is the key of r's answer on rp: the route's fingerprint, the
// version, the path with its ids, the query sorted and escaped alike, the
// values of the route's vary headers and, unless the scope is shared, the
// verified user. It is hashed, so no id, query or user appears in Redis.
// false: the query does not parse, and r is not cached.
func keyOf(rp *RoutePlan, r *http.Request, c *call.Call) (string, bool) {
	var b strings.Builder
	b.Grow(128)
	b.WriteString(c.Version)
	b.WriteByte(0)
	b.WriteString(r.URL.EscapedPath())
	b.WriteByte(0)
	if r.URL.RawQuery != "" {
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return "", false
		}
		b.WriteString(q.Encode())
	}
	for _, name := range rp.Policy.Vary {
		b.WriteByte(0)
		b.WriteString(name)
		for _, v := range r.Header[name] {
			b.WriteByte(0)
			b.WriteString(v)
		}
	}
	if !rp.Policy.Shared {
		b.WriteByte(0)
		b.WriteString("user")
		b.WriteByte(0)
		b.WriteString(c.Identity.UserID)
	}
	sum := sha256.Sum256([]byte(b.String()))
	return rp.Fingerprint + ":" + hex.EncodeToString(sum[:16]), true
}

// resourceOf is the upstream resource r reads or writes: rp's Resource
// with r's path parameters, as sent (escaped).
func resourceOf(rp *RoutePlan, r *http.Request) string {
	if !rp.proxy {
		path := r.URL.EscapedPath()
		if i := strings.IndexByte(path[1:], '/'); i >= 0 {
			return path[1+i:]
		}
		return ""
	}
	vars := mux.Vars(r)
	res := rp.Resource
	for name, v := range vars {
		res = strings.ReplaceAll(res, "{"+name+"}", v) // escaped: the router matches encoded paths
	}
	return res
}
