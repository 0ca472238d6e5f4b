// Package allowance guards the API allowance of the orgs behind the
// gateway's upstreams (upstreams.Allowance). A Salesforce org has one
// allowance of API calls per rolling 24 hours for every integration it
// has, and reports its usage on every answer; a Guard keeps the freshest
// usage this replica knows (its own answers, and with the redis store what
// any replica saw), exports it, and refuses the calls of routes and
// callers that are not essential while fewer calls than the configured
// reserve remain or after the org answered REQUEST_LIMIT_EXCEEDED, until
// the usage is estimated to have left the reserve (see holdFor).
//
// With a shared store every guarded call reads the shared state (one
// round trip, bounded by cluster.redis.timeout) and every answer that
// changes the decision, or comes a second after the last one written, is
// written there; so once any replica sees the org cross the reserve, the
// next call on every replica is refused. When the store fails, a replica
// decides on what it saw itself (counted as a fallback by the store).
package allowance

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/restgate/gateway/upstreams"
)

// State is an org's usage as a replica or the shared store knows it.
type State struct {
	// Used and Limit are the api-usage figures (Limit 0: never seen, as
	// when the org refused before any answer reported them).
	Used, Limit int64
	// Exceeded says the org answered REQUEST_LIMIT_EXCEEDED.
	Exceeded bool
	// Age is how long ago the state was observed.
	Age time.Duration
}

// Shared is the state the replicas share (gateway/cluster's Store with
// the redis store). Both calls must return within a bounded time; on an
// error the caller decides on its own view.
type Shared interface {
	// LoadAllowance returns the freshest state any replica saved for
	// upstream; false when none was.
	LoadAllowance(ctx context.Context, upstream string) (State, bool, error)
	// SaveAllowance merges st (its Age ignored: it is observed now) into
	// the stored state by the rule of merge, and returns the result.
	SaveAllowance(ctx context.Context, upstream string, st State) (State, error)
}

// Recorder receives the guards' metrics (gateway/metrics implements it).
// Calls must not block.
type Recorder interface {
	// AllowanceUsage sets an upstream's usage gauges: the calls used, the
	// org's limit, the reserve in calls, and when the usage was seen.
	AllowanceUsage(upstream string, used, limit, reserve int64, seen time.Time)
	// AllowanceReserve sets whether the reserve is engaged (calls that
	// are not essential are refused).
	AllowanceReserve(upstream string, engaged bool)
	// AllowanceExceeded counts one REQUEST_LIMIT_EXCEEDED of the org.
	AllowanceExceeded(upstream string)
}

// MergeWindow is how close two observations must be for the higher usage
// to win whatever their order: answers of concurrent calls arrive out of
// order, and a count never goes down within a second. Past it the newer
// observation wins, so a usage that fell as the rolling window moved is
// seen.
const MergeWindow = time.Second

// shareEvery spaces the writes of a replica's observations to the shared
// store while nothing changes the decision: an observation that engages
// or releases the reserve, or is made while it is engaged, is written at
// once.
const shareEvery = time.Second

// Set holds the guard of every upstream, across reloads: a reload's new
// client gets the guard the old one had, with its state. Safe for
// concurrent use.
type Set struct {
	shared Shared
	rec    Recorder
	logger *slog.Logger
	now    func() time.Time

	mu     sync.Mutex
	guards map[string]*Guard
}

// NewSet returns an empty set. shared is nil with the memory store (each
// replica decides on what it saw); now nil means time.Now.
func NewSet(shared Shared, rec Recorder, logger *slog.Logger, now func() time.Time) *Set {
	if now == nil {
		now = time.Now
	}
	return &Set{shared: shared, rec: rec, logger: logger, now: now, guards: map[string]*Guard{}}
}

// Guard returns upstream's guard, made on first use, with settings (a
// reload's settings replace the previous ones; the state stays).
func (s *Set) Guard(upstream string, settings upstreams.AllowanceSettings) *Guard {
	s.mu.Lock()
	defer s.mu.Unlock()
	g, ok := s.guards[upstream]
	if !ok {
		g = &Guard{name: upstream, set: s}
		s.guards[upstream] = g
		// the engaged gauge and the exceeded counter exist from the start,
		// at 0, so that alerts see the first change
		s.rec.AllowanceReserve(upstream, false)
	}
	g.rule.Store(new(settings.Rule()))
	return g
}

// Guard guards one upstream's org (upstreams.Allowance). Safe for
// concurrent use.
type Guard struct {
	name string
	set  *Set
	// rule is the reserve of the upstream's settings, replaced by a reload.
	rule atomic.Pointer[upstreams.ReserveRule]

	mu sync.Mutex
	// view is the freshest state known, observed at at (this replica's
	// clock); known is false until something was.
	view  State
	at    time.Time
	known bool
	trend trend
	// savedAt and savedEngaged are the last write to the shared store.
	savedAt      time.Time
	savedEngaged bool
	// engaged is the decision last reported (gauge and log).
	engaged bool
	// probeUntil: after a hold ran out, one call at a time may pass to
	// learn the usage, each until this.
	probeUntil time.Time
}

var _ upstreams.Allowance = (*Guard)(nil)

// probeEvery spaces the calls let through, one at a time, once a hold ran
// out without any answer saying where the usage is.
const probeEvery = 10 * time.Second

// Admit implements upstreams.Allowance: essential calls always pass;
// others pass unless the reserve is engaged and its hold has not run out.
func (g *Guard) Admit(ctx context.Context, essential bool) (time.Duration, bool) {
	if essential {
		return 0, true
	}
	now := g.set.now()
	g.refresh(ctx, now)
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.known {
		return 0, true
	}
	reserve, engaged := g.decision()
	g.report(engaged, reserve)
	if !engaged {
		return 0, true
	}
	hold := g.hold(reserve)
	if age := now.Sub(g.at); age < hold {
		return hold - age, false
	}
	if now.Before(g.probeUntil) {
		return g.probeUntil.Sub(now), false
	}
	g.probeUntil = now.Add(probeEvery)
	return 0, true
}

// Observe implements upstreams.Allowance.
func (g *Guard) Observe(ctx context.Context, u upstreams.Usage) {
	now := g.set.now()
	g.mu.Lock()
	g.merge(State{Used: u.Used, Limit: u.Limit}, now)
	g.trend.add(now, u.Used)
	g.probeUntil = time.Time{}
	reserve, engaged := g.decision()
	g.gauges(reserve)
	g.report(engaged, reserve)
	share := g.set.shared != nil && (engaged || engaged != g.savedEngaged || now.Sub(g.savedAt) >= shareEvery)
	if share {
		g.savedAt, g.savedEngaged = now, engaged
	}
	st := g.view
	g.mu.Unlock()
	if share {
		g.save(ctx, st, now)
	}
}

// Exceeded implements upstreams.Allowance: the org refused a call for its
// limit, so every replica stops sending what is not essential.
func (g *Guard) Exceeded(ctx context.Context) time.Duration {
	now := g.set.now()
	g.mu.Lock()
	st := g.view
	st.Exceeded = true
	st.Used = max(st.Used, st.Limit)
	g.merge(st, now)
	g.probeUntil = time.Time{}
	reserve, _ := g.decision()
	g.gauges(reserve)
	g.report(true, reserve)
	hold := g.hold(reserve)
	g.savedAt, g.savedEngaged = now, true
	st = g.view
	g.mu.Unlock()
	g.set.rec.AllowanceExceeded(g.name)
	g.set.logger.Error("the org answered REQUEST_LIMIT_EXCEEDED: calls that are not essential are refused",
		"upstream", g.name, "used", st.Used, "limit", st.Limit, "retry_after", hold.Round(time.Second).String())
	if g.set.shared != nil {
		g.save(ctx, st, now)
	}
	return hold
}

// refresh takes in the shared store's state, when there is one.
func (g *Guard) refresh(ctx context.Context, now time.Time) {
	sh := g.set.shared
	if sh == nil {
		return
	}
	st, ok, err := sh.LoadAllowance(ctx, g.name)
	if err != nil || !ok {
		return
	}
	g.mu.Lock()
	if g.merge(st, now.Add(-st.Age)) {
		reserve, _ := g.decision()
		g.gauges(reserve)
	}
	g.mu.Unlock()
}

// save writes st to the shared store and takes in what it merged.
func (g *Guard) save(ctx context.Context, st State, now time.Time) {
	merged, err := g.set.shared.SaveAllowance(ctx, g.name, st)
	if err != nil {
		return
	}
	g.mu.Lock()
	if g.merge(merged, now) {
		reserve, _ := g.decision()
		g.gauges(reserve)
	}
	g.mu.Unlock()
}

// merge takes st, observed at at, into the view: an observation newer by
// more than MergeWindow replaces it, one within it raises the usage and
// keeps a trip, an older one changes nothing. It reports whether the view
// changed.
func (g *Guard) merge(st State, at time.Time) bool {
	st.Age = 0
	before, beforeAt := g.view, g.at
	switch {
	case !g.known || at.Sub(g.at) > MergeWindow:
		if st.Limit == 0 {
			st.Limit = g.view.Limit
		}
		g.view, g.at, g.known = st, at, true
		return true
	case g.at.Sub(at) > MergeWindow:
		return false
	default:
		g.view.Used = max(g.view.Used, st.Used)
		g.view.Exceeded = g.view.Exceeded || st.Exceeded
		if st.Limit > 0 {
			g.view.Limit = st.Limit
		}
		if at.After(g.at) {
			g.at = at
		}
		return g.view != before || !g.at.Equal(beforeAt)
	}
}

// decision is the reserve in calls and whether it is engaged.
func (g *Guard) decision() (reserve int64, engaged bool) {
	reserve = g.rule.Load().Of(g.view.Limit)
	engaged = g.view.Exceeded || (reserve > 0 && g.view.Limit-g.view.Used < reserve)
	return reserve, engaged
}

// hold is how long after the view's observation calls stay refused.
func (g *Guard) hold(reserve int64) time.Duration {
	slope, ok := g.trend.slope()
	return holdFor(g.view, reserve, slope, ok)
}

// gauges sets the usage gauges to the view.
func (g *Guard) gauges(reserve int64) {
	if g.view.Limit > 0 {
		g.set.rec.AllowanceUsage(g.name, g.view.Used, g.view.Limit, reserve, g.at)
	}
}

// report sets the engaged gauge and logs a change of the decision.
func (g *Guard) report(engaged bool, reserve int64) {
	rec := g.set.rec
	if engaged == g.engaged {
		return
	}
	g.engaged = engaged
	rec.AllowanceReserve(g.name, engaged)
	if engaged {
		g.set.logger.Warn("the org's API allowance is in its reserve: calls that are not essential are refused",
			"upstream", g.name, "used", g.view.Used, "limit", g.view.Limit, "reserve", reserve)
		return
	}
	g.set.logger.Info("the org's API allowance left its reserve: every call is sent again",
		"upstream", g.name, "used", g.view.Used, "limit", g.view.Limit, "reserve", reserve)
}
