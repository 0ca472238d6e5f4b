package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/restgate/gateway/gateway/metrics"
	"github.com/restgate/gateway/gateway/tracing"
	"github.com/restgate/gateway/upstreams"
)

// tracedGateway builds the accounts gateway with an SDK tracer sampling
// ratio of new traces (parent-based), exporting to memory.
func tracedGateway(t *testing.T, ratio float64, recordUserID bool) (*obsGateway, *accountsBackend, *tracetest.InMemoryExporter) {
	t.Helper()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSampler(tracing.Sampler(ratio, true)))
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	backend := newAccountsBackend(t)
	g := newObsGateway(t, accountsYAML("http", recordUserID), map[string]string{"ACCOUNTS_URL": backend.URL},
		tp.Tracer(tracing.ScopeName), time.Now)
	return g, backend, exp
}

func TestServerAndClientSpans(t *testing.T) {
	t.Parallel()
	g, backend, exp := tracedGateway(t, 1, false)
	const clientTrace, clientSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"

	// The backend answers 502 first: two attempts, two client spans.
	rec := g.do(t, "GET", "/v2/accounts/001000000000502AAA", map[string]string{
		"traceparent": "00-" + clientTrace + "-" + clientSpan + "-01", "tracestate": "congo=t61rcWkgMzE"})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

	spans := exp.GetSpans().Snapshots()
	require.Len(t, spans, 3, "one server span and a client span per attempt")
	server, first, second := spans[2], spans[0], spans[1]

	assert.Equal(t, "GET /{version}/accounts/{accountId}", server.Name())
	assert.Equal(t, trace.SpanKindServer, server.SpanKind())
	assert.Equal(t, clientTrace, server.SpanContext().TraceID().String(), "the caller's trace is continued")
	assert.Equal(t, clientSpan, server.Parent().SpanID().String(), "under the caller's span")
	assert.True(t, server.Parent().IsRemote())
	assert.Equal(t, "congo=t61rcWkgMzE", server.SpanContext().TraceState().String())
	assertAttrs(t, server, map[attribute.Key]any{
		"http.route": "/{version}/accounts/{accountId}", "http.request.method": "GET",
		"http.response.status_code": int64(200), "url.path": "/v2/accounts/001000000000502AAA",
	})
	_, hasUser := spanAttr(server, "enduser.id")
	assert.False(t, hasUser, "user ids are not recorded unless configured")

	for i, s := range []sdktrace.ReadOnlySpan{first, second} {
		assert.Equal(t, "GET accounts", s.Name())
		assert.Equal(t, trace.SpanKindClient, s.SpanKind())
		assert.Equal(t, server.SpanContext().SpanID(), s.Parent().SpanID(), "attempts are children of the server span")
		assertAttrs(t, s, map[attribute.Key]any{
			upstreams.UpstreamKey: "accounts", upstreams.AttemptKey: int64(i + 1), upstreams.BreakerStateKey: "closed",
		})
	}
	assertAttrs(t, first, map[attribute.Key]any{"http.response.status_code": int64(502), "error.type": "failed"})
	assert.Equal(t, codes.Error, first.Status().Code)
	assertAttrs(t, second, map[attribute.Key]any{"http.response.status_code": int64(200), "http.request.resend_count": int64(1)})
	assert.Equal(t, codes.Unset, second.Status().Code)

	// What went on the wire names these spans.
	sent := backend.traceparents()
	require.Len(t, sent, 2)
	for i, s := range []sdktrace.ReadOnlySpan{first, second} {
		assert.Equal(t, "00-"+clientTrace+"-"+s.SpanContext().SpanID().String()+"-01", sent[i], "attempt %d", i+1)
	}
	assert.Equal(t, "00-"+clientTrace+"-"+server.SpanContext().SpanID().String()+"-01", rec.Header().Get("traceparent"),
		"the answer names the server span")
	assert.Equal(t, clientTrace, g.log.all()[0].TraceID, "the call log has the trace id")
}

func TestServerSpanOfAnError(t *testing.T) {
	t.Parallel()
	g, _, exp := tracedGateway(t, 1, true)
	require.Equal(t, http.StatusBadGateway, g.do(t, "GET", "/v2/accounts/001000000000500AAA", nil).Code)
	require.Equal(t, http.StatusNotFound, g.do(t, "GET", "/v2/nothing", nil).Code)

	spans := exp.GetSpans().Snapshots()
	require.Len(t, spans, 3, "the attempt (a 500 is not retried), its server span, the 404's")
	failed, unmatched := spans[1], spans[2]
	assertAttrs(t, spans[0], map[attribute.Key]any{"http.response.status_code": int64(500), "error.type": "failed"})
	assert.Equal(t, "GET /{version}/accounts/{accountId}", failed.Name())
	assertAttrs(t, failed, map[attribute.Key]any{
		"http.response.status_code": int64(502), "restgate.response_code": "CALLOUT_FAILED",
		"error.type": "CALLOUT_FAILED", "enduser.id": "anonymous",
	})
	assert.Equal(t, codes.Error, failed.Status().Code)
	assert.False(t, failed.Parent().IsValid(), "no traceparent: a new trace")

	assert.Equal(t, "GET", unmatched.Name(), "no route: the method alone, never the raw path")
	assertAttrs(t, unmatched, map[attribute.Key]any{"http.response.status_code": int64(404), "restgate.response_code": "URL_INVALID"})
	assert.Equal(t, codes.Unset, unmatched.Status().Code, "a 4xx is the caller's error, not the server's")
}

// TestUnsampledRequestsKeepTheTraceContext: with tracing on and the trace
// not sampled, nothing is recorded, but the trace is continued, passed on
// and returned with its sampled flag cleared, and no exemplar is recorded.
func TestUnsampledRequestsKeepTheTraceContext(t *testing.T) {
	t.Parallel()
	g, backend, exp := tracedGateway(t, 0, false)
	rec := g.do(t, "GET", "/v2/accounts/001000000000001AAA", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	const callerNotSampled = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"
	rec2 := g.do(t, "GET", "/v2/accounts/001000000000001AAA", map[string]string{"traceparent": callerNotSampled})
	require.Equal(t, http.StatusOK, rec2.Code)

	assert.Empty(t, exp.GetSpans())
	answered := strings.Split(rec.Header().Get("traceparent"), "-")
	require.Len(t, answered, 4)
	assert.Equal(t, "00", answered[3], "not sampled")
	assert.Equal(t, rec.Header().Get("traceparent"), backend.traceparents()[0], "the same hop goes upstream")
	assert.Equal(t, answered[1], g.log.all()[0].TraceID)
	continued := strings.Split(rec2.Header().Get("traceparent"), "-")
	require.Len(t, continued, 4)
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", continued[1])
	assert.NotContains(t, scrapeOpenMetrics(t, g), "trace_id", "no exemplar without a recorded trace")
}

// TestLatencyExemplarLinksTheTrace scrapes /metrics as Prometheus does:
// the total-phase bucket of a sampled request carries its trace id.
func TestLatencyExemplarLinksTheTrace(t *testing.T) {
	t.Parallel()
	g, _, exp := tracedGateway(t, 1, false)
	require.Equal(t, http.StatusOK, g.do(t, "GET", "/v2/accounts/001000000000001AAA", nil).Code)
	spans := exp.GetSpans().Snapshots()
	require.NotEmpty(t, spans)
	traceID := spans[len(spans)-1].SpanContext().TraceID().String()

	body := scrapeOpenMetrics(t, g)
	assert.Regexp(t, `gateway_request_duration_seconds_bucket\{method="GET",phase="total",route="/\{version\}/accounts/\{accountId\}",status="200",version="v2",le="[0-9.]+"\} 1 # \{trace_id="`+traceID+`"\} [0-9.e-]+ [0-9.e+]+\n`, body)
	assert.Equal(t, 1, strings.Count(body, `# {trace_id="`), "only the total phase carries exemplars")
}

func scrapeOpenMetrics(t *testing.T, g *obsGateway) string {
	t.Helper()
	srv := httptest.NewServer(metrics.Handler(g.reg))
	t.Cleanup(srv.Close)
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/metrics", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0")
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Contains(t, resp.Header.Get("Content-Type"), "application/openmetrics-text")
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b)
}

func assertAttrs(t *testing.T, s sdktrace.ReadOnlySpan, want map[attribute.Key]any) {
	t.Helper()
	for k, v := range want {
		got, ok := spanAttr(s, k)
		if assert.True(t, ok, "span %q lacks %s", s.Name(), k) {
			assert.Equal(t, v, got.AsInterface(), "span %q: %s", s.Name(), k)
		}
	}
}
