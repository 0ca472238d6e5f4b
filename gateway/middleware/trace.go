// Package middleware holds the layers every request passes before its route:
// trace, observe (metrics and call log), recover, URL and header limits,
// authenticate and the per-user rate limit.
// Each is one constructor returning an http.Handler; the order is decided in
// one place, gateway/app's chain.
package middleware

import (
	"context"
	"math/rand/v2"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/upstreams"
)

// TraceDeps are what Traced needs.
type TraceDeps struct {
	// Now is the clock of the Call's start.
	Now func() time.Time
	// Tracer starts each request's server span (tracing.Tracing's). Nil:
	// tracing is off; the trace context is still continued and passed on.
	Tracer trace.Tracer
	// RecordUserID adds the caller's user id to the server span
	// (enduser.id).
	RecordUserID bool
}

// Trace is Traced with tracing off.
func Trace(next http.Handler, now func() time.Time) http.Handler {
	return Traced(next, TraceDeps{Now: now})
}

// Traced starts the request's Call and its W3C trace context: the client's
// traceparent (and tracestate) is continued with a new span id for this hop,
// or a new trace is started when it is absent or invalid. The context
// carries the span context, so the shared upstream client sends traceparent
// on; the answer carries it back in the traceparent header, and the call
// log has its trace id.
//
// With a Tracer the hop is a server span the SDK starts (its sampler decides
// the sampled flag) and ends after the answer, named by the method and the
// route template, with the route, status, response-code id and, with
// RecordUserID, the user id. Without one, ids come from a fast random
// source and the sampled flag is always set, as before tracing existed.
func Traced(next http.Handler, d TraceDeps) http.Handler {
	prop := propagation.TraceContext{}
	if d.Tracer != nil {
		return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
			c := &call.Call{Start: d.Now()}
			ctx := prop.Extract(r.Context(), upstreams.TraceCarrier(r.Header))
			ctx, span := startServerSpan(ctx, d.Tracer, r, c.Start)
			r = r.WithContext(call.With(ctx, c))
			begin(rw, c, ctx)
			next.ServeHTTP(rw, r)
			endServerSpan(span, r, c, d.RecordUserID)
		})
	}
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c := &call.Call{Start: d.Now()}
		ctx := prop.Extract(r.Context(), upstreams.TraceCarrier(r.Header))
		parent := trace.SpanContextFromContext(ctx)
		cfg := trace.SpanContextConfig{TraceID: parent.TraceID(), TraceFlags: parent.TraceFlags() | trace.FlagsSampled,
			TraceState: parent.TraceState(), Remote: true}
		if !parent.IsValid() {
			cfg.TraceID = newTraceID()
		}
		cfg.SpanID = newSpanID()
		ctx = trace.ContextWithRemoteSpanContext(ctx, trace.NewSpanContext(cfg))
		begin(rw, c, ctx)
		next.ServeHTTP(rw, r.WithContext(call.With(ctx, c)))
	})
}

// begin captures the trace headers of ctx's span context once: the answer
// and every upstream call share the values, and the trace id is a part of
// traceparent.
func begin(rw http.ResponseWriter, c *call.Call, ctx context.Context) {
	c.Upstream.Trace.Capture(ctx)
	c.TraceID = c.Upstream.Trace.TraceID()
	c.Upstream.Trace.SetOn(rw.Header())
}

func newTraceID() trace.TraceID {
	var id trace.TraceID
	putUint64(id[:8], rand.Uint64())
	putUint64(id[8:], rand.Uint64()|1) // never all zero
	return id
}

func newSpanID() trace.SpanID {
	var id trace.SpanID
	putUint64(id[:], rand.Uint64()|1)
	return id
}

func putUint64(b []byte, v uint64) {
	for i := range 8 {
		b[i] = byte(v >> (56 - 8*i))
	}
}
