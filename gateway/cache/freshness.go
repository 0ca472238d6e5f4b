package cache

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/restgate/gateway/upstreams"
)

// maxLifetime caps how long any answer is kept, whatever a route's ttl and
// windows say: the invalidation marks are kept a little longer (markLife),
// so that an answer never outlives the marks that can invalidate it.
const maxLifetime = 24 * time.Hour

// Policy is what a route keeps and for how long: its cache settings with
// the upstream's defaults (config.Route.Policy).
type Policy struct {
	TTL, StaleWhileRevalidate, StaleIfError, ClientMaxAge time.Duration
	// NotFoundTTL keeps the backend's 404 this long (0: never); at most
	// TTL.
	NotFoundTTL time.Duration
	// Shared serves an answer to every caller; otherwise each user has
	// their own (scope user).
	Shared bool
	// Vary are the canonical names of the request headers keyed on.
	Vary []string
	// ObeyBackend reads the backend's caching headers (backendHeaders
	// obey); otherwise only its validators are used.
	ObeyBackend bool
}

// directives are a Cache-Control value's directives that a shared cache
// acts on (RFC 9111 section 5.2.2).
type directives struct {
	noStore, noCache, private, mustRevalidate bool
	maxAge, sMaxAge                           time.Duration
	hasMaxAge, hasSMaxAge                     bool
}

// parseCacheControl reads a Cache-Control value; unknown directives and
// arguments are ignored, as RFC 9111 asks.
func parseCacheControl(v string) directives {
	var d directives
	for part := range strings.SplitSeq(v, ",") {
		name, arg, _ := strings.Cut(strings.TrimSpace(part), "=")
		arg = strings.Trim(strings.TrimSpace(arg), `"`)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "no-store":
			d.noStore = true
		case "no-cache":
			d.noCache = true
		case "private":
			d.private = true
		case "must-revalidate", "proxy-revalidate":
			d.mustRevalidate = true
		case "max-age":
			d.maxAge, d.hasMaxAge = seconds(arg, d.maxAge, d.hasMaxAge)
		case "s-maxage":
			d.sMaxAge, d.hasSMaxAge = seconds(arg, d.sMaxAge, d.hasSMaxAge)
		}
	}
	return d
}

// seconds reads a delta-seconds argument; a value that is not one keeps
// what was there (an invalid max-age is ignored; RFC 9111 4.2.1 says a
// cache may treat it as stale, and this one is told by the route's ttl).
func seconds(arg string, was time.Duration, had bool) (time.Duration, bool) {
	n, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || n < 0 {
		return was, had
	}
	return time.Duration(min(n, int64(maxLifetime/time.Second))) * time.Second, true
}

// verdict is what the cache does with one backend answer.
type verdict struct {
	// store says the answer is kept; reason says why not ("" when kept).
	store  bool
	reason string
	// fresh is how long it is fresh from now; noStale forbids serving
	// it past that without revalidating (no-cache, must-revalidate).
	fresh   time.Duration
	noStale bool
}

// judge reads a backend answer's caching headers for a route's policy
// (RFC 9111 sections 3 and 4.2): an answer with no-store, Vary: *, a Vary
// on a header the route does not key on, or (in a shared scope) private
// or Set-Cookie is not kept; max-age, s-maxage or Expires shorten the
// route's ttl, never lengthen it; no-cache and must-revalidate allow no
// stale serving. With ObeyBackend false only the route's ttl counts. now
// is the gateway's clock at the answer.
func (p Policy) judge(h upstreams.AnswerHeaders, now time.Time) verdict {
	v := verdict{store: true, fresh: p.TTL}
	if !p.ObeyBackend {
		return v
	}
	d := parseCacheControl(h.CacheControl)
	switch {
	case d.noStore:
		return verdict{reason: "no-store"}
	case p.Shared && d.private:
		return verdict{reason: "private"}
	case p.Shared && h.SetCookie:
		return verdict{reason: "set-cookie"}
	}
	if reason := p.varyRefusal(h.Vary); reason != "" {
		return verdict{reason: reason}
	}
	switch {
	case d.hasSMaxAge:
		v.fresh = min(v.fresh, d.sMaxAge)
	case d.hasMaxAge:
		v.fresh = min(v.fresh, d.maxAge)
	case h.Expires != "":
		exp, err := http.ParseTime(h.Expires)
		if err != nil {
			v.fresh = 0 // an invalid Expires means already expired (RFC 9111 5.3)
			break
		}
		date := now
		if t, err := http.ParseTime(h.Date); err == nil {
			date = t
		}
		v.fresh = min(v.fresh, max(exp.Sub(date), 0))
	}
	if age, err := strconv.ParseInt(strings.TrimSpace(h.Age), 10, 64); err == nil && age > 0 {
		v.fresh = max(v.fresh-time.Duration(age)*time.Second, 0)
	}
	if d.noCache {
		v.fresh = 0
	}
	v.noStale = d.noCache || d.mustRevalidate
	return v
}

// varyRefusal names why an answer's Vary keeps it out ("" when it does
// not): * varies on everything; a header the route does not key on would
// let one caller's answer reach another. Accept-Encoding is the transport's
// own: the gateway's client sends it alike on every call and decodes the
// answer.
func (p Policy) varyRefusal(vary string) string {
	for name := range strings.SplitSeq(vary, ",") {
		name = http.CanonicalHeaderKey(strings.TrimSpace(name))
		switch {
		case name == "" || name == "Accept-Encoding":
		case name == "*":
			return "vary-star"
		default:
			if !containsFold(p.Vary, name) {
				return "vary-" + strings.ToLower(name)
			}
		}
	}
	return ""
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
