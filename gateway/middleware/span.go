package middleware

import (
	"context"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/restgate/gateway/gateway/call"
)

// ResponseCodeKey is the server span's attribute holding the response-code
// id of an error answer ("CALLOUT_FAILED").
const ResponseCodeKey = attribute.Key("restgate.response_code")

// startServerSpan starts the request's server span as a child of the
// caller's span context in ctx (a new trace without one). Its name is the
// method until the route is known.
func startServerSpan(ctx context.Context, tracer trace.Tracer, r *http.Request, start time.Time) (context.Context, trace.Span) {
	return tracer.Start(ctx, r.Method, trace.WithSpanKind(trace.SpanKindServer), trace.WithTimestamp(start),
		trace.WithAttributes(semconv.HTTPRequestMethodKey.String(r.Method), semconv.URLPath(r.URL.Path),
			semconv.URLScheme(scheme(r))))
}

// endServerSpan names the span by its route template ("GET
// /{version}/accounts"; the method alone when no route matched), records
// the answer and ends it. 5xx answers mark the span as an error; 4xx are
// the caller's (OpenTelemetry's HTTP conventions for server spans).
func endServerSpan(span trace.Span, r *http.Request, c *call.Call, recordUserID bool) {
	if !span.IsRecording() {
		span.End()
		return
	}
	status := answeredStatus(r, c)
	if c.Route != nil {
		span.SetName(r.Method + " " + c.Route.Template)
		span.SetAttributes(semconv.HTTPRoute(c.Route.Template))
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	if c.Version != "" {
		span.SetAttributes(attribute.String("restgate.api_version", c.Version))
	}
	if c.CodeID != "" {
		span.SetAttributes(ResponseCodeKey.String(c.CodeID))
	}
	if recordUserID && c.Identity.UserID != "" {
		span.SetAttributes(semconv.EnduserID(c.Identity.UserID))
	}
	if status >= http.StatusInternalServerError {
		span.SetAttributes(semconv.ErrorTypeKey.String(c.CodeID))
		span.SetStatus(codes.Error, c.CodeID)
	}
	span.End()
}

func scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}
