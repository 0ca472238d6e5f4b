package call

import (
	"context"
	"net/http"
	"time"

	"github.com/restgate/gateway/upstreams"
)

type callKey struct{}

// callContext is a request's context once With bound its Call.
type callContext struct {
	context.Context
	c *Call
}

// Value answers for the Call and asks the parent for the rest.
func (n *callContext) Value(key any) any {
	if key == (callKey{}) {
		return n.c
	}
	return n.Context.Value(key)
}

// With returns ctx carrying c: From answers c, and the shared upstream
// client finds c.Upstream (upstreams.CallStateFrom). The first With of a
// Call allocates nothing (both context nodes live in c); c must not be bound
// to two requests.
func With(ctx context.Context, c *Call) context.Context {
	ctx = upstreams.WithCallState(ctx, &c.Upstream)
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

// WithCallOptions makes o the options of the upstream calls r makes for c
// (c.Upstream.Options). When r's context carries c's upstream state, r is
// returned as it is; otherwise (a handler run without the trace
// middleware, or under another state) r is returned bound to c. Call it
// before the handler shares r's context with other goroutines.
func WithCallOptions(r *http.Request, c *Call, o upstreams.CallOptions) *http.Request {
	c.Upstream.Options = o
	if upstreams.CallStateFrom(r.Context()) == &c.Upstream {
		return r
	}
	return r.WithContext(With(r.Context(), c))
}
