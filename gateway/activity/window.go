package activity

import (
	"fmt"
	"time"
)

// Window is one of the spans the figures are given over.
type Window struct {
	// Name is how the API names it: "1m", "5m" or "15m".
	Name string
	// Ticks is the number of whole ticks before the current one it spans.
	Ticks int64
}

// Windows are the spans every windowed figure is given over: the last 1,
// 5 and 15 minutes. Each also holds the current tick so far, so it spans
// up to 15 seconds more than its name says; rates divide by the time
// actually covered.
func Windows() []Window {
	return []Window{{"1m", 4}, {"5m", 20}, {"15m", 60}}
}

// WindowNamed is the window called name, or an error listing the names.
func WindowNamed(name string) (Window, error) {
	for _, w := range Windows() {
		if w.Name == name {
			return w, nil
		}
	}
	return Window{}, fmt.Errorf("must be 1m, 5m or 15m, not %q", name)
}

// Duration is the window's nominal span.
func (w Window) Duration() time.Duration { return time.Duration(w.Ticks) * tick }

// Stats are the figures of one route or upstream over one window.
// Latencies are in milliseconds; they are nil without observations.
type Stats struct {
	Window string `json:"window"`
	// Seconds is the time the figures cover: the window, or less when the
	// gateway (or its recording) started within it.
	Seconds float64 `json:"seconds"`
	Count   uint64  `json:"count"`
	// Rate is Count per second over Seconds.
	Rate float64 `json:"rate"`
	// Errors are 5xx answers (routes) or failed calls (upstreams);
	// ClientErrors 4xx answers (routes) or calls the backend rejected for
	// the client's request (upstreams).
	Errors       uint64   `json:"errors"`
	ClientErrors uint64   `json:"clientErrors"`
	ErrorRatio   float64  `json:"errorRatio"`
	P50          *float64 `json:"p50"`
	P95          *float64 `json:"p95"`
	P99          *float64 `json:"p99"`
}

// Point is one minute of the latency plot.
type Point struct {
	// Time is the minute's start.
	Time   time.Time `json:"time"`
	Count  uint64    `json:"count"`
	Errors uint64    `json:"errors"`
	P50    *float64  `json:"p50"`
	P95    *float64  `json:"p95"`
	P99    *float64  `json:"p99"`
}

// statsOf makes the figures of t over w, which covers the given seconds.
func statsOf(w Window, t *totals, seconds float64) Stats {
	s := Stats{Window: w.Name, Seconds: seconds, Count: t.count, Errors: t.errors, ClientErrors: t.clientErrors}
	if seconds > 0 {
		s.Rate = float64(t.count) / seconds
	}
	if t.count > 0 {
		s.ErrorRatio = float64(t.errors) / float64(t.count)
	}
	s.P50, s.P95, s.P99 = quantiles(&t.hist)
	return s
}

func quantiles(h *histogram) (p50, p95, p99 *float64) {
	at := func(q float64) *float64 {
		if v, ok := h.quantile(q); ok {
			return &v
		}
		return nil
	}
	return at(0.5), at(0.95), at(0.99)
}

// span is the part of the time line a read covers.
type span struct {
	now     time.Time
	current int64 // the current tick
	started time.Time
}

// window sums ss over w and makes its figures.
func (sp span) window(w Window, ss ...*snapshot) Stats {
	var t totals
	first := sp.current - w.Ticks
	for _, s := range ss {
		s.sum(first, sp.current, &t)
	}
	from := tickStart(first)
	if sp.started.After(from) {
		from = sp.started
	}
	return statsOf(w, &t, max(sp.now.Sub(from).Seconds(), 1))
}

// windows are the figures of ss over every window.
func (sp span) windows(ss ...*snapshot) []Stats {
	out := make([]Stats, 0, 3)
	for _, w := range Windows() {
		out = append(out, sp.window(w, ss...))
	}
	return out
}

// points are the last 15 minutes of ss (the current one so far), one point a minute, the current
// minute last.
func (sp span) points(ss ...*snapshot) []Point {
	minute := sp.current / ticksPerMinute
	out := make([]Point, 0, 16)
	for m := minute - 14; m <= minute; m++ {
		var t totals
		for _, s := range ss {
			s.sum(m*ticksPerMinute, m*ticksPerMinute+ticksPerMinute-1, &t)
		}
		p := Point{Time: tickStart(m * ticksPerMinute), Count: t.count, Errors: t.errors}
		p.P50, p.P95, p.P99 = quantiles(&t.hist)
		out = append(out, p)
	}
	return out
}
