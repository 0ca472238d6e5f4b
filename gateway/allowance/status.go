package allowance

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/restgate/gateway/upstreams"
)

// Status is one upstream's allowance as GET /admin/allowance shows it.
type Status struct {
	// Upstream is the configured upstream name.
	Upstream string `json:"upstream"`
	// Known is false until an answer (or a poll) reported the usage.
	Known bool `json:"known"`
	// Used and Limit are the org's figures; Remaining is Limit - Used
	// (negative past the limit).
	Used      int64 `json:"used"`
	Limit     int64 `json:"limit"`
	Remaining int64 `json:"remaining"`
	// Reserve is the reserve in calls (upstreams.<name>.allowance.reserve).
	Reserve int64 `json:"reserve"`
	// ReserveEngaged: calls that are not essential are refused.
	ReserveEngaged bool `json:"reserveEngaged"`
	// Exceeded: the org answered REQUEST_LIMIT_EXCEEDED (and no answer
	// since said otherwise).
	Exceeded bool `json:"exceeded"`
	// RetryAfter is the Retry-After a refusal would carry now, in seconds;
	// 0 when calls pass.
	RetryAfter int `json:"retryAfter"`
	// SeenAgo is how long ago the usage was observed, in seconds.
	SeenAgo float64 `json:"seenAgo"`
	// Shared says the state comes from the shared store (redis) as well
	// as this replica's own answers.
	Shared bool `json:"shared"`
}

// Statuses returns the state of every guard, by upstream name, after
// reading the shared store's (as a call would).
func (s *Set) Statuses(ctx context.Context) []Status {
	s.mu.Lock()
	guards := make([]*Guard, 0, len(s.guards))
	for _, g := range s.guards {
		guards = append(guards, g)
	}
	s.mu.Unlock()
	slices.SortFunc(guards, func(a, b *Guard) int { return strings.Compare(a.name, b.name) })
	out := make([]Status, 0, len(guards))
	for _, g := range guards {
		out = append(out, g.status(ctx))
	}
	return out
}

// status is g's Status: what Admit of a call that is not essential sees,
// without taking a probe's turn.
func (g *Guard) status(ctx context.Context) Status {
	now := g.set.now()
	g.refresh(ctx, now)
	g.mu.Lock()
	defer g.mu.Unlock()
	st := Status{Upstream: g.name, Known: g.known, Shared: g.set.shared != nil}
	if !g.known {
		return st
	}
	reserve, engaged := g.decision()
	st.Used, st.Limit, st.Remaining, st.Reserve = g.view.Used, g.view.Limit, g.view.Limit-g.view.Used, reserve
	st.ReserveEngaged, st.Exceeded = engaged, g.view.Exceeded
	st.SeenAgo = math.Round(now.Sub(g.at).Seconds()*10) / 10
	if engaged {
		wait := g.hold(reserve) - now.Sub(g.at)
		if wait <= 0 {
			wait = g.probeUntil.Sub(now)
		}
		st.RetryAfter = int(max(wait, 0).Round(time.Second) / time.Second)
	}
	return st
}

// Handler serves GET /admin/allowance: {"upstreams": [Status...]}.
func (s *Set) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := json.Marshal(struct {
			Upstreams []Status `json:"upstreams"`
		}{s.Statuses(r.Context())})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(append(body, '\n'))
	})
}

// Poll reads the org's usage with fetch (a GET of the data API's /limits
// resource) whenever no answer reported it for every, until ctx ends;
// checking at once and then every quarter of every, so the figures are
// there from the start. With the shared store an answer any replica saw
// counts, so the replicas poll about once per every between them. A
// failed poll is logged at debug and tried again at the next check.
func (g *Guard) Poll(ctx context.Context, every time.Duration, fetch func(context.Context) (upstreams.Usage, error)) {
	t := time.NewTicker(max(every/4, time.Millisecond))
	defer t.Stop()
	for first := true; ; first = false {
		if !first {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
		if !g.stale(ctx, every) {
			continue
		}
		u, err := fetch(ctx)
		if err != nil {
			if ctx.Err() == nil {
				g.set.logger.Debug("allowance poll failed", "upstream", g.name, "err", err)
			}
			continue
		}
		g.Observe(ctx, u)
	}
}

// stale reports whether the freshest usage known is older than every.
func (g *Guard) stale(ctx context.Context, every time.Duration) bool {
	now := g.set.now()
	g.refresh(ctx, now)
	g.mu.Lock()
	defer g.mu.Unlock()
	return !g.known || now.Sub(g.at) >= every
}
