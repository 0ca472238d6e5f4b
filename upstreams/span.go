package upstreams

import (
	"context"
	"net"
	"net/http"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// Attributes of an attempt's client span beside OpenTelemetry's HTTP ones.
const (
	// UpstreamKey is the configured upstream name ("accounts").
	UpstreamKey = attribute.Key("restgate.upstream")
	// AttemptKey is the attempt's number within its call, from 1.
	AttemptKey = attribute.Key("restgate.upstream.attempt")
	// BreakerStateKey is the upstream's breaker state once the attempt
	// was admitted or refused: closed, half-open or open.
	BreakerStateKey = attribute.Key("restgate.breaker.state")
)

// tracerName is the instrumentation scope of the client spans.
const tracerName = "github.com/restgate/gateway/upstreams"

// startAttempt starts the client span of one attempt, a child of the span
// in the call's context, when that span is recording (the gateway traces
// and sampled the request); the context returned carries it, so the
// attempt's traceparent names it. Otherwise it returns the call's context
// and nil, and allocates nothing.
func (k *call) startAttempt(req *http.Request, attempt int) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(k.parent)
	if !parent.IsRecording() {
		return k.parent, nil
	}
	attrs := []attribute.KeyValue{
		UpstreamKey.String(k.c.name), AttemptKey.Int(attempt),
		semconv.HTTPRequestMethodKey.String(req.Method), semconv.URLPath(req.URL.Path),
	}
	if host, port, err := net.SplitHostPort(req.URL.Host); err == nil {
		attrs = append(attrs, semconv.ServerAddress(host))
		if p, err := strconv.Atoi(port); err == nil {
			attrs = append(attrs, semconv.ServerPort(p))
		}
	} else {
		attrs = append(attrs, semconv.ServerAddress(req.URL.Host))
	}
	if attempt > 1 {
		attrs = append(attrs, semconv.HTTPRequestResendCount(attempt-1))
	}
	return parent.TracerProvider().Tracer(tracerName).Start(k.parent, req.Method+" "+k.c.name,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
}

// admitted records the breaker's state on an attempt's span once the
// breaker admitted or refused it.
func (k *call) admitted(span trace.Span) {
	if span != nil {
		span.SetAttributes(BreakerStateKey.String(k.c.breaker.state()))
	}
}

// endAttempt ends an attempt's span (nil: none) with the backend's status
// (0 when it never answered) and the attempt's failure, if any.
func endAttempt(span trace.Span, status int, err *Error) {
	endAttemptAt(span, status, err, time.Time{})
}

// endAttemptAt is endAttempt for an attempt that ended at (zero: now).
func endAttemptAt(span trace.Span, status int, err *Error, at time.Time) {
	if span == nil {
		return
	}
	if err != nil && err.Status != 0 {
		status = err.Status
	}
	if status != 0 {
		span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	}
	switch {
	case err != nil:
		span.SetAttributes(semconv.ErrorTypeKey.String(err.Kind.String()))
		span.SetStatus(codes.Error, err.Kind.String())
	case status >= http.StatusBadRequest:
		// A client span's 4xx is an error of the attempt (OpenTelemetry's
		// HTTP conventions), even though the gateway passes it on.
		span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(status)))
		span.SetStatus(codes.Error, "")
	}
	if at.IsZero() {
		span.End()
		return
	}
	span.End(trace.WithTimestamp(at))
}
