package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
)

// obsGateway is a gateway built by Build with a clock and a tracer of the
// test's choosing, for the metrics and traces the whole chain produces.
type obsGateway struct {
	handler http.Handler
	reg     *prometheus.Registry
	log     *recordingLog
}

func newObsGateway(t *testing.T, yaml string, env map[string]string, tracer trace.Tracer, now func() time.Time) *obsGateway {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml), func(k string) string { return env[k] })
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{Version: "test", Revision: "r", GoVersion: "go"})
	require.NoError(t, err)
	log := &recordingLog{}
	sh := &Shared{
		Logger: discardLogger(), Metrics: m, CallLog: log, Duplicates: duplicates.New(time.Minute, 1000),
		Upstreams: NewUpstreamSet(m, func(string, string) (string, error) { return "", errors.New("no sandbox in this test") }),
		Tracer:    tracer, Now: now,
	}
	gw, err := Build(context.Background(), cfg, tabled(t, cfg), sh)
	require.NoError(t, err)
	return &obsGateway{handler: gw.Handler, reg: reg, log: log}
}

func (g *obsGateway) do(t *testing.T, method, path string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	g.handler.ServeHTTP(rec, req)
	return rec
}

func fixedClock() func() time.Time {
	at := time.Date(2026, 11, 22, 1, 21, 45, 0, time.UTC)
	return func() time.Time { return at }
}

// accountsBackend is an account controller answering by id: ...404AAA is
// unknown (404), ...500AAA fails (500), ...502AAA fails once with 502 and
// then answers, anything else answers one account. seen records the
// traceparent of every request.
type accountsBackend struct {
	*httptest.Server
	mu    sync.Mutex
	seen  []string
	flaky atomic.Bool
}

func newAccountsBackend(t *testing.T) *accountsBackend {
	t.Helper()
	b := &accountsBackend{}
	b.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.seen = append(b.seen, r.Header.Get("traceparent"))
		b.mu.Unlock()
		switch {
		case strings.HasSuffix(r.URL.Path, "404AAA"):
			http.Error(w, `{"message":"not found"}`, http.StatusNotFound)
			return
		case strings.HasSuffix(r.URL.Path, "500AAA"):
			http.Error(w, "database down", http.StatusInternalServerError)
			return
		case strings.HasSuffix(r.URL.Path, "502AAA") && !b.flaky.Swap(true):
			http.Error(w, "bad gateway", http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"Id":"001000000000001AAA","Name":"Acme"}`)
	}))
	t.Cleanup(b.Close)
	return b
}

func (b *accountsBackend) traceparents() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.seen...)
}

func accountsYAML(statusMode string, recordUserID bool) string {
	return fmt.Sprintf(`
versions: [v1, v2]
errors: {statusMode: %s}
tracing: {recordUserId: %t}
models:
  Account: {fields: [Id, Name]}
upstreams:
  accounts:
    url: ${ACCOUNTS_URL}
    retry: {attempts: 2, backoff: 1ms, budget: 1}
    breaker: {consecutiveFailures: 100}
routes:
  - {path: "/{version}/accounts/{accountId}", kind: account, upstream: accounts, model: Account}
`, statusMode, recordUserID)
}

// TestUnmatchedRequestsAreLabelledUnmatched: a request no route matched is
// filed under route="unmatched", not under the placeholder of raw paths
// (non_template), in the latency histogram and the duplicate counter.
func TestUnmatchedRequestsAreLabelledUnmatched(t *testing.T) {
	t.Parallel()
	g := newObsGateway(t, baseConfig, nil, nil, fixedClock())
	for range 2 {
		require.Equal(t, http.StatusNotFound, g.do(t, "GET", "/v2/nothing/here", nil).Code)
	}
	want := `
# HELP gateway_duplicate_requests_total Requests repeating one by the same user with the same method, path, query and body within the duplicate window.
# TYPE gateway_duplicate_requests_total counter
gateway_duplicate_requests_total{route="unmatched"} 1
# HELP gateway_request_duration_seconds Time to answer a client request, by route template, method, status, API version and phase (total, gateway, upstream).
# TYPE gateway_request_duration_seconds histogram
` + zeroHistogram(`method="GET",phase="gateway",route="unmatched",status="404",version="none"`, 2) +
		zeroHistogram(`method="GET",phase="total",route="unmatched",status="404",version="none"`, 2)
	assert.NoError(t, testutil.GatherAndCompare(g.reg, strings.NewReader(want),
		"gateway_request_duration_seconds", "gateway_duplicate_requests_total"))
}

// zeroHistogram is the exposition of a latency histogram child holding
// count observations of zero seconds.
func zeroHistogram(labels string, count int) string {
	var b strings.Builder
	for _, le := range []string{"0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"} {
		fmt.Fprintf(&b, "gateway_request_duration_seconds_bucket{%s,le=%q} %d\n", labels, le, count)
	}
	fmt.Fprintf(&b, "gateway_request_duration_seconds_sum{%s} 0\n", labels)
	fmt.Fprintf(&b, "gateway_request_duration_seconds_count{%s} %d\n", labels, count)
	return b.String()
}

// TestErrorsCountedByStatusClass: a client's mistake, an upstream's 4xx
// and a client gone away are 4xx, an upstream failure 5xx, and one id
// (CALLOUT_FAILED) covers both; status_class tells them apart, also when every
// error is answered with HTTP 200 (errors.statusMode always200).
func TestErrorsCountedByStatusClass(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{config.StatusHTTP, config.StatusAlways200} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			backend := newAccountsBackend(t)
			g := newObsGateway(t, accountsYAML(mode, false), map[string]string{"ACCOUNTS_URL": backend.URL}, nil, time.Now)
			for _, tc := range []struct {
				path   string
				status int
			}{
				{path: "/v2/accounts/not-an-id", status: http.StatusBadRequest},
				{path: "/v2/accounts/001000000000404AAA", status: http.StatusNotFound},
				{path: "/v2/accounts/001000000000500AAA", status: http.StatusBadGateway},
				{path: "/v2/nothing", status: http.StatusNotFound},
			} {
				want := tc.status
				if mode == config.StatusAlways200 {
					want = http.StatusOK
				}
				assert.Equal(t, want, g.do(t, "GET", tc.path, nil).Code, tc.path)
			}
			// A client gone before the upstream answered: CALLOUT_FAILED as
			// the 502 above, but 499, the client's doing.
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			req := httptest.NewRequestWithContext(ctx, "GET", "/v2/accounts/001000000000001AAA", nil)
			g.handler.ServeHTTP(httptest.NewRecorder(), req)
			const expected = `
# HELP gateway_errors_total Error answers by response-code id and status class (4xx, 5xx) of the error's HTTP status.
# TYPE gateway_errors_total counter
gateway_errors_total{id="CALLOUT_FAILED",status_class="4xx"} 1
gateway_errors_total{id="CALLOUT_FAILED",status_class="5xx"} 1
gateway_errors_total{id="PARAMETER_INVALID",status_class="4xx"} 1
gateway_errors_total{id="SOBJECT_OPERATION_FAILED",status_class="4xx"} 1
gateway_errors_total{id="URL_INVALID",status_class="4xx"} 1
`
			assert.NoError(t, testutil.GatherAndCompare(g.reg, strings.NewReader(expected), "gateway_errors_total"))
		})
	}
}

// spanAttr returns the value of key among a span's attributes.
func spanAttr(s sdktrace.ReadOnlySpan, key attribute.Key) (attribute.Value, bool) {
	for _, kv := range s.Attributes() {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}
