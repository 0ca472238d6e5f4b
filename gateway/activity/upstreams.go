package activity

import (
	"sync"
	"time"

	"github.com/restgate/gateway/upstreams"
)

// breakerHistory is the transitions kept per upstream.
const breakerHistory = 16

// Transition is one change of a breaker's state.
type Transition struct {
	Time time.Time `json:"time"`
	From string    `json:"from"`
	To   string    `json:"to"`
}

// breakers keeps the last transitions of every upstream's breaker.
type breakers struct {
	max int
	mu  sync.Mutex
	by  map[string][]Transition
}

func (b *breakers) add(upstream string, t Transition) {
	b.mu.Lock()
	defer b.mu.Unlock()
	h, ok := b.by[upstream]
	if !ok && len(b.by) >= b.max {
		return
	}
	if len(h) == breakerHistory {
		h = append(h[:0], h[1:]...)
	}
	b.by[upstream] = append(h, t)
}

// history is upstream's transitions, latest last.
func (b *breakers) history(upstream string) []Transition {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Transition{}, b.by[upstream]...)
}

// observer hears what the shared upstream client reports, records the
// calls and breaker transitions, and passes everything on to next.
type observer struct {
	next upstreams.Observer
	rec  *Recorder
	// attempts is next's AttemptObserver, nil when it is none.
	attempts upstreams.AttemptObserver
}

// limitObserver and breakerStateSetter are the optional methods the
// client and the upstream set look for on their observer
// (gateway/metrics implements both).
type limitObserver interface {
	ConcurrencyLimit(upstream string, limit int)
}

type breakerStateSetter interface {
	SetBreakerState(upstream, state string)
}

// Observe returns an upstreams.Observer that records every upstream call
// and breaker transition for the console and passes them, and the
// optional reports (concurrency limit, breaker state), on to next. With r
// nil (recording off) it returns next itself.
func (r *Recorder) Observe(next upstreams.Observer) upstreams.Observer {
	if r == nil {
		return next
	}
	o := &observer{next: next, rec: r}
	o.attempts, _ = next.(upstreams.AttemptObserver)
	if o.attempts != nil {
		return attemptsObserver{o}
	}
	return o
}

func (o *observer) CallDone(upstream, outcome string, d time.Duration) {
	o.next.CallDone(upstream, outcome, d)
	o.rec.upstreamCall(upstream, outcome, d)
}

func (o *observer) BreakerChanged(upstream, from, to string) {
	o.next.BreakerChanged(upstream, from, to)
	o.rec.breakers.add(upstream, Transition{Time: o.rec.now(), From: from, To: to})
}

// ConcurrencyLimit passes the limit on to next when it takes it.
func (o *observer) ConcurrencyLimit(upstream string, limit int) {
	if l, ok := o.next.(limitObserver); ok {
		l.ConcurrencyLimit(upstream, limit)
	}
}

// SetBreakerState passes the state on to next when it takes it.
func (o *observer) SetBreakerState(upstream, state string) {
	if s, ok := o.next.(breakerStateSetter); ok {
		s.SetBreakerState(upstream, state)
	}
}

// attemptsObserver is observer for a next that hears every attempt: the
// client then finds the method (and calls nothing per attempt otherwise).
type attemptsObserver struct{ *observer }

func (o attemptsObserver) Attempt(a upstreams.Attempt) { o.attempts.Attempt(a) }

// upstreamOutcome classes an upstream call's outcome: a rejection (the
// backend refused the client's request) or a call the client abandoned
// is the client's, anything else but success a failure.
func upstreamOutcome(outcome string) int {
	switch outcome {
	case "success":
		return outcomeOK
	case upstreams.KindRejected.String(), upstreams.KindCanceled.String():
		return outcomeClientError
	}
	return outcomeError
}
