// Package middleware holds the layers every request passes before its route:
// trace, recover, observe (metrics and call log), authenticate and limits.
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
		sc := trace.NewSpanContext(cfg)
		c.TraceID = sc.TraceID().String()
		ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
		prop.Inject(ctx, traceHeaders(rw.Header()))
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

// traceHeaders is a propagation carrier writing the W3C headers under their
// canonical names directly: http.Header.Set would canonicalise
// "traceparent" into a new string on every request.
type traceHeaders http.Header

func (c traceHeaders) Get(key string) string { return http.Header(c).Get(key) }

func (c traceHeaders) Set(key, value string) {
	switch key {
	case "traceparent":
		c["Traceparent"] = []string{value}
	case "tracestate":
		c["Tracestate"] = []string{value}
	default:
		http.Header(c).Set(key, value)
	}
}

func (c traceHeaders) Keys() []string { return propagation.HeaderCarrier(c).Keys() }
