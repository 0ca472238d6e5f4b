package call

import (
	"context"
	"net/http"
	"time"

	"github.com/restgate/gateway/upstreams"
)

type callKey struct{}

// callContext is a request's context once With bound its Call. One node
// answers for the Call and for what the shared upstream client reads of it
// (Timing, trace headers, call options), where a WithValue layer each would
// cost an allocation each on every request.
type callContext struct {
	context.Context
	c *Call
}

// Value answers for the Call's keys and asks the parent for the rest.
func (n *callContext) Value(key any) any {
	switch key {
	case callKey{}:
		return n.c
	case upstreams.TimingKey():
		return &n.c.Upstream
	case upstreams.TraceHeadersKey():
		if n.c.Trace.Traceparent() != nil {
			return &n.c.Trace
		}
	case upstreams.CallOptionsKey():
		if n.c.upstreamOptions != (upstreams.CallOptions{}) {
			return &n.c.upstreamOptions
		}
	}
	return n.Context.Value(key)
}

// With returns ctx carrying c: From answers c, and the shared upstream
// client finds c's Upstream Timing, its captured Trace headers and the call
// options given to WithCallOptions. The first With of a Call allocates
// nothing (the node lives in c); c must not be bound to two requests.
func With(ctx context.Context, c *Call) context.Context {
	if c.ctx.c == nil {
		c.ctx = callContext{Context: ctx, c: c}
		return &c.ctx
	}
	// Bound before: the node in c belongs to that context and stays as it
	// is.
	return &callContext{Context: ctx, c: c}
}

// From returns the Call of ctx. Outside a request (tests of a bare handler)
// it returns a fresh Call so handlers never deal with nil.
func From(ctx context.Context) *Call {
	if c, ok := ctx.Value(callKey{}).(*Call); ok {
		return c
	}
	return &Call{Start: time.Now()}
}

// WithCallOptions returns r with o as the options of its upstream calls
// (upstreams.CallOptionsFrom of its context). When r's context is bound to
// c and nothing nearer carries call options, o is recorded on c and r is
// returned as it is: no copy of the request and its context per call.
// Otherwise r's context gets a layer of its own. Call it before the
// handler shares r's context with other goroutines.
func WithCallOptions(r *http.Request, c *Call, o upstreams.CallOptions) *http.Request {
	ctx := r.Context()
	if ctx.Value(callKey{}) == c {
		switch got := ctx.Value(upstreams.CallOptionsKey()); {
		case got == nil, got == &c.upstreamOptions:
			c.upstreamOptions = o
			return r
		}
	}
	return r.WithContext(upstreams.WithCallOptions(ctx, o))
}
