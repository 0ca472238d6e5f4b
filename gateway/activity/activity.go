// Package activity records what the gateway did recently, for the
// operator's console: per route and per upstream the answers, errors and
// latency of the last 15 minutes in ticks of 15 seconds, the slowest calls
// of each minute (their bodies masked as the call log masks them), the
// users sending duplicate requests and their routes, the errors by
// response code with the last system message of each, and every breaker's
// recent transitions.
//
// Everything is bounded in memory (see Config and
// docs/reference/admin-api.md) and kept in this process only. Record, on
// the request path, allocates nothing for a request that is neither among
// the slowest of its minute, an error nor a duplicate, and takes no lock
// (but for the first request of a route in each 15-second tick, which
// clears the tick's slot): it adds to a few atomic counters.
package activity

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/restgate/gateway/gateway/calllog"
)

// Unmatched is the route of requests no route matched.
const Unmatched = "unmatched"

// Config bounds the recording.
type Config struct {
	// SlowCalls is how many of the slowest calls of each minute are kept
	// (16 minutes of them); 0 keeps none.
	SlowCalls int
	// DuplicateUsers is how many users sending duplicates are kept per
	// tick of 15 seconds; 0 keeps none.
	DuplicateUsers int
	// MaxSeries bounds the (method, route) series and, apart, the upstream
	// series: past it, new ones are counted together under "(other)".
	MaxSeries int
	// MaxErrorSeries bounds the (response code, route, upstream) error
	// counts likewise.
	MaxErrorSeries int
	// Masker masks the bodies of slow calls (calllog.NewMasker of the
	// log's settings).
	Masker *calllog.Masker
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Recorder keeps the recent activity. A nil *Recorder records nothing and
// reads empty: that is recording turned off. Safe for concurrent use.
type Recorder struct {
	cfg     Config
	now     func() time.Time
	started time.Time

	routes    seriesSet[RouteKey]
	upstreams seriesSet[string]
	slow      *slowest
	dups      duplicates
	errors    *errorsByCode
	breakers  breakers
}

// RouteKey names a route series: a method and a route template (Unmatched
// for requests no route matched).
type RouteKey struct {
	Method string `json:"method"`
	Route  string `json:"route"`
}

// New returns a Recorder bounded by cfg.
func New(cfg Config) *Recorder {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Masker == nil {
		cfg.Masker = calllog.NewMasker(nil, 2048)
	}
	cfg.MaxSeries = max(cfg.MaxSeries, 1)
	cfg.MaxErrorSeries = max(cfg.MaxErrorSeries, 1)
	r := &Recorder{cfg: cfg, now: cfg.Now, started: cfg.Now()}
	r.routes.init(cfg.MaxSeries, RouteKey{Route: overflowRoute})
	r.upstreams.init(cfg.MaxSeries, overflowRoute)
	r.slow = newSlowest(max(cfg.SlowCalls, 0), cfg.Masker)
	r.dups.per = max(cfg.DuplicateUsers, 0)
	r.errors = newErrorsByCode(cfg.MaxErrorSeries)
	r.breakers = breakers{max: cfg.MaxSeries, by: map[string][]Transition{}}
	return r
}

// Started is when the recording began.
func (r *Recorder) Started() time.Time { return r.started }

// Record counts one answered call. With r nil it does nothing.
func (r *Recorder) Record(c *Call) {
	if r == nil {
		return
	}
	n := tickOf(c.End)
	r.routes.get(RouteKey{Method: normalizeMethod(c.Method), Route: routeName(c.Route)}).add(n, c.Total, statusOutcome(c.Status))
	r.slow.offer(c)
	if c.Code != "" {
		r.errors.add(c, n)
	}
	if c.Duplicate {
		r.dups.add(c, n)
	}
}

// upstreamCall counts one finished upstream call.
func (r *Recorder) upstreamCall(upstream, outcome string, d time.Duration) {
	r.upstreams.get(upstream).add(tickOf(r.now()), d, upstreamOutcome(outcome))
}

func statusOutcome(status int) int {
	switch {
	case status >= 500:
		return outcomeError
	case status >= 400:
		return outcomeClientError
	}
	return outcomeOK
}

// routeName is a route template, or Unmatched for "".
func routeName(route string) string {
	if route == "" {
		return Unmatched
	}
	return route
}

// normalizeMethod keeps the standard methods and calls any other OTHER,
// so that a client cannot make series of its own.
func normalizeMethod(m string) string {
	switch m {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
		return m
	}
	return "OTHER"
}

// seriesSet finds the series of a key, made on first use, at most max of
// them; past max every new key shares the overflow key's series.
type seriesSet[K comparable] struct {
	mu       sync.RWMutex
	m        map[K]*series
	max      int
	overflow K
}

func (s *seriesSet[K]) init(max int, overflow K) {
	s.m, s.max, s.overflow = map[K]*series{}, max, overflow
}

func (s *seriesSet[K]) get(k K) *series {
	s.mu.RLock()
	x := s.m[k]
	s.mu.RUnlock()
	if x != nil {
		return x
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if x = s.m[k]; x != nil {
		return x
	}
	if len(s.m) >= s.max {
		k = s.overflow
		if x = s.m[k]; x != nil {
			return x
		}
	}
	x = &series{}
	s.m[k] = x
	return x
}

// snapshots copies every series of s, by key.
func (s *seriesSet[K]) snapshots() map[K]*snapshot {
	s.mu.RLock()
	all := make(map[K]*series, len(s.m))
	for k, x := range s.m {
		all[k] = x
	}
	s.mu.RUnlock()
	out := make(map[K]*snapshot, len(all))
	for k, x := range all {
		sn := &snapshot{}
		x.snapshot(sn)
		out[k] = sn
	}
	return out
}

// span is the time line as it stands now.
func (r *Recorder) span() span {
	now := r.now()
	return span{now: now, current: tickOf(now), started: r.started}
}

// RouteStats are one route series' figures: Windows over the last 1, 5
// and 15 minutes, Series the last 15 minutes a point a minute.
type RouteStats struct {
	RouteKey
	Windows []Stats `json:"windows"`
	Series  []Point `json:"series"`
}

// Routes are the figures of every route series seen, by route and
// method; Total those of all of them together.
func (r *Recorder) Routes() (routes []RouteStats, total RouteStats) {
	if r == nil {
		return nil, RouteStats{}
	}
	sp := r.span()
	snaps := r.routes.snapshots()
	all := make([]*snapshot, 0, len(snaps))
	for k, sn := range snaps {
		routes = append(routes, RouteStats{RouteKey: k, Windows: sp.windows(sn), Series: sp.points(sn)})
		all = append(all, sn)
	}
	slices.SortFunc(routes, func(a, b RouteStats) int {
		if c := strings.Compare(a.Route, b.Route); c != 0 {
			return c
		}
		return strings.Compare(a.Method, b.Method)
	})
	return routes, RouteStats{Windows: sp.windows(all...), Series: sp.points(all...)}
}

// UpstreamStats are one upstream's call figures and breaker history.
type UpstreamStats struct {
	Windows []Stats      `json:"windows"`
	Series  []Point      `json:"series"`
	Breaker []Transition `json:"breakerHistory"`
}

// Upstreams are the figures of every upstream named, by name; an
// upstream without calls has zero figures.
func (r *Recorder) Upstreams(names []string) map[string]UpstreamStats {
	out := make(map[string]UpstreamStats, len(names))
	if r == nil {
		return out
	}
	sp := r.span()
	snaps := r.upstreams.snapshots()
	for _, name := range names {
		sn := snaps[name]
		if sn == nil {
			sn = &snapshot{}
		}
		out[name] = UpstreamStats{Windows: sp.windows(sn), Series: sp.points(sn), Breaker: r.breakers.history(name)}
	}
	return out
}

// SlowCalls are the slowest calls that ended within w, slowest first, at
// most limit of them.
func (r *Recorder) SlowCalls(w Window, limit int) []SlowCall {
	if r == nil {
		return nil
	}
	return r.slow.list(r.now().Add(-w.Duration()), limit)
}

// Duplicates are the users with the most duplicate requests within w,
// most first, at most limit of them.
func (r *Recorder) Duplicates(w Window, limit int) []DuplicateUser {
	if r == nil {
		return nil
	}
	sp := r.span()
	return r.dups.list(sp.current-w.Ticks, sp.current, limit)
}

// Errors are the errors of the last 15 minutes by response code, most
// first.
func (r *Recorder) Errors() []ErrorCode {
	if r == nil {
		return nil
	}
	return r.errors.list(r.span().current)
}
