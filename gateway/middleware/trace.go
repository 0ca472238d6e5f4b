// Package middleware holds the layers every request passes before its route:
// trace, observe (metrics and call log), recover, URL and header limits,
// authenticate and the per-user rate limit.
// Each is one constructor returning an http.Handler; the order is decided in
// one place, gateway/app's chain.
package middleware

import (
	"math/rand/v2"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/restgate/gateway/gateway/call"
)

// Trace starts the request's Call and its W3C trace context: the client's
// traceparent is continued (a new span id for this hop), or a new trace is
// started when it is absent or invalid. The context carries the span context,
// so the shared upstream client sends traceparent on; the answer carries it
// back in the traceparent header.
func Trace(next http.Handler, now func() time.Time) http.Handler {
	prop := propagation.TraceContext{}
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c := &call.Call{Start: now()}
		ctx := prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		parent := trace.SpanContextFromContext(ctx)
		cfg := trace.SpanContextConfig{TraceID: parent.TraceID(), TraceFlags: parent.TraceFlags() | trace.FlagsSampled,
			TraceState: parent.TraceState(), Remote: true}
		if !parent.IsValid() {
			cfg.TraceID = newTraceID()
		}
		cfg.SpanID = newSpanID()
		ctx = trace.ContextWithRemoteSpanContext(ctx, trace.NewSpanContext(cfg))
		// Formatted once: the answer and every upstream call share the
		// values, and the trace id is a part of traceparent.
		c.Upstream.Trace.Capture(ctx)
		c.TraceID = c.Upstream.Trace.TraceID()
		c.Upstream.Trace.SetOn(rw.Header())
		next.ServeHTTP(rw, r.WithContext(call.With(ctx, c)))
	})
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
