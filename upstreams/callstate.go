package upstreams

import (
	"context"
	"sync/atomic"
	"time"
)

// CallState is what the shared client reads and records, through the
// context of each call, for the unit of work the calls serve (a gateway
// request): the time they spent, the trace headers to send and the route's
// call options. Bind it with WithCallState; a call whose context carries
// none sends with the upstream's own settings and records nothing.
//
// Fill Trace, Options and Essential before the state is shared with other
// goroutines; afterwards only Timing and Usage change. A CallState must not be copied once
// bound.
type CallState struct {
	// Timing accumulates the time spent in calls: the client adds every
	// call's duration. Safe for concurrent use.
	Timing Timing
	// Trace holds W3C trace headers captured once (TraceHeaders.Capture).
	// The client sends them while a call's context still carries the span
	// context they were captured from, and formats that context's own
	// otherwise. The zero value holds nothing.
	Trace TraceHeaders
	// Options are the calls' per-route settings; the zero value keeps the
	// upstream's.
	Options CallOptions
	// Cache, when not nil, is a response cache's exchange with the calls:
	// the validators their first GET sends, what its answer said
	// (CacheExchange). Nil costs nothing.
	Cache *CacheExchange
	// Essential marks the caller as essential (an API key or role the
	// configuration names): its calls pass an upstream's allowance
	// reserve (AllowanceSettings.Reserve), as an essential route's do.
	Essential bool
	// Usage is the last API usage an answer of these calls reported
	// (Sforce-Limit-Info), for the call log.
	Usage UsageSeen

	// node is the context node of the first WithCallState, kept here so
	// that binding a state allocates nothing of its own.
	node stateContext
}

// stateContext is a context that answers for its CallState and asks its
// parent for everything else.
type stateContext struct {
	context.Context
	s *CallState
}

type callStateKey struct{}

func (n *stateContext) Value(key any) any {
	if key == (callStateKey{}) {
		return n.s
	}
	return n.Context.Value(key)
}

// WithCallState returns ctx carrying s: calls made with it, or with a
// context derived from it, read s's Trace and Options and add to its
// Timing. The first WithCallState of s allocates nothing (the context node
// lives in s); binding s again allocates a node, leaving the first context
// as it was.
func WithCallState(ctx context.Context, s *CallState) context.Context {
	if s.node.s != s {
		s.node = stateContext{Context: ctx, s: s}
		return &s.node
	}
	return &stateContext{Context: ctx, s: s}
}

// CallStateFrom returns the CallState ctx carries, or nil.
func CallStateFrom(ctx context.Context) *CallState {
	s, _ := ctx.Value(callStateKey{}).(*CallState)
	return s
}

// Timing accumulates the time spent waiting on backends for one unit of
// work (CallState.Timing). Safe for concurrent use.
type Timing struct {
	nanos atomic.Int64
}

// Add records d of upstream time.
func (t *Timing) Add(d time.Duration) { t.nanos.Add(int64(d)) }

// Total is the upstream time recorded so far.
func (t *Timing) Total() time.Duration { return time.Duration(t.nanos.Load()) }

// CallOptions are the per-route settings of a call (CallState.Options), set
// by the gateway so that adapters need not know them.
type CallOptions struct {
	// Timeout bounds the whole call, retries included. Zero: the upstream's
	// configured timeout.
	Timeout time.Duration
	// NoRetry turns retries off for this route even for idempotent methods.
	NoRetry bool
	// MaxAnswer caps the body of each answer, in bytes: an answer that
	// declares more is refused before its body is read, one that sends more
	// fails at the first read past it (ErrAnswerTooLarge, 502). Zero: the
	// upstream's maxAnswerBytes.
	MaxAnswer int64
	// Essential lets the route's calls pass an upstream's allowance
	// reserve (routes[].essential).
	Essential bool
}
