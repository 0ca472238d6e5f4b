package app

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/restgate/gateway/gateway/activity"
	"github.com/restgate/gateway/gateway/app/apptest"
	"github.com/restgate/gateway/gateway/calllog"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
	"github.com/restgate/gateway/gateway/tracing"
	sandboxaccounts "github.com/restgate/gateway/upstreams/sandbox/accounts"
)

// benchGateway builds the gateway of apptest.AccountsConfig, as the load
// harness runs it, against a backend answering list, with real metrics,
// duplicate detector and call log shipper (its collector counts lines).
// extra are environment variables, name then value, for the config.
func benchGateway(tb testing.TB, list []byte, extra ...string) (http.Handler, *atomic.Int64) {
	tb.Helper()
	return benchGatewayWith(tb, list, nil, extra...)
}

// benchGatewayWith is benchGateway with tracer starting the server spans
// (nil: tracing off).
func benchGatewayWith(tb testing.TB, list []byte, tracer trace.Tracer, extra ...string) (http.Handler, *atomic.Int64) {
	tb.Helper()
	return benchGatewayOn(tb, apptest.AccountsConfig, "", list, tracer, extra...)
}

// benchGatewayOn is benchGatewayWith on the configuration text, its
// backend sending usage in Sforce-Limit-Info when not empty.
func benchGatewayOn(tb testing.TB, text, usage string, list []byte, tracer trace.Tracer, extra ...string) (http.Handler, *atomic.Int64) {
	tb.Helper()
	backend := newCannedBackend(tb, list, usage)
	var lines atomic.Int64
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// counted through a buffer on the stack: the collector's reading
		// is no part of the gateway's cost
		var buf [4096]byte
		for {
			n, err := r.Body.Read(buf[:])
			lines.Add(int64(bytes.Count(buf[:n], []byte{'\n'})))
			if err != nil {
				return
			}
		}
	}))
	tb.Cleanup(collector.Close)

	env := map[string]string{"ACCOUNTS_URL": backend, "GATEWAY_LOG_COLLECTOR_URL": collector.URL,
		"GATEWAY_JWT_SECRET": apptest.JWTSecret}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	cfg, err := config.Parse([]byte(text), func(k string) string { return env[k] })
	require.NoError(tb, err)
	table := tabled(tb, cfg)
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{Version: "bench", Revision: "r", GoVersion: "go"})
	require.NoError(tb, err)
	shipper, err := calllog.NewShipper(calllog.Config{URL: collector.URL, FlushInterval: 50 * time.Millisecond}, nil, m, discardLogger())
	require.NoError(tb, err)
	ctx, cancel := context.WithCancel(context.Background())
	go shipper.Run(ctx)
	tb.Cleanup(func() {
		cancel()
		_ = shipper.Close(context.Background())
	})
	recorder := activity.FromConfig(cfg)
	sh := &Shared{
		Logger: discardLogger(), Metrics: m, CallLog: shipper,
		Duplicates: duplicates.New(cfg.Log.DuplicateWindow, 1000),
		Upstreams: NewUpstreamSet(recorder.Observe(m), func(string, string) (string, error) {
			return "", fmt.Errorf("no sandbox here")
		}),
		Tracer:   tracer,
		Activity: recorder,
	}
	gw, err := Build(context.Background(), cfg, table, sh)
	require.NoError(tb, err)
	return gw.Handler, &lines
}

// benchRequest is GET target with a bearer token of the configuration's
// secret: a returning caller, as nearly every request is (its token is
// verified once, then remembered).
func benchRequest(tb testing.TB, target string) *http.Request {
	tb.Helper()
	tokens, err := apptest.Tokens(1, time.Hour, time.Now())
	require.NoError(tb, err)
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.Header.Set("Authorization", "Bearer "+tokens[0])
	return req
}

func TestBenchGatewayAnswersMappedAccounts(t *testing.T) {
	t.Parallel()
	h, lines := benchGateway(t, sandboxaccounts.FixedList())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, benchRequest(t, "/v2/accounts"))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	body := rec.Body.String()
	assert.True(t, strings.HasPrefix(body, `{"result":[{"id":"001000000000000AAA","name":"Account 0"`), body)
	assert.Contains(t, body, `"totalAssets":19000000.5`)
	assert.NotContains(t, body, `"sicDesc"`, "v2 removes null members")
	assert.Contains(t, body, `"mapKeysFlag":true,"serializeNulls":true}`)
	assert.Equal(t, 20, strings.Count(body, `"externalId"`))
	assert.Eventually(t, func() bool { return lines.Load() == 1 }, 5*time.Second, 10*time.Millisecond,
		"the call reaches the collector")
}

// BenchmarkGatewayAccountsV2 is GET /v2/accounts of 20 accounts through the
// whole chain (trace, observe, recover, URL limit, authentication of a
// returning HS256 token, router,
// handler, shared upstream client over loopback, mapping writer) with
// metrics and the call log on.
func BenchmarkGatewayAccountsV2(b *testing.B) {
	h, _ := benchGateway(b, sandboxaccounts.FixedList())
	benchAccountsV2(b, h)
}

// benchAccountsV2 asks h for GET /v2/accounts b.N times, through one
// request and one discarding writer reused (the client side allocates
// nothing: what the benchmark counts is the gateway's).
func benchAccountsV2(b *testing.B, h http.Handler) {
	req := benchRequest(b, "/v2/accounts")
	w := newDiscardWriter()
	b.ReportAllocs()
	for b.Loop() {
		w.reset()
		h.ServeHTTP(w, req)
		if err := w.check(`{"result":[{"id":`); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGatewayAccountsV2Recording is BenchmarkGatewayAccountsV2 with
// the console's recording off and on (the shipped default, which
// BenchmarkGatewayAccountsV2 runs too): what the recording adds to a
// request, allocations included.
func BenchmarkGatewayAccountsV2Recording(b *testing.B) {
	for _, record := range []string{"false", "true"} {
		b.Run("record="+record, func(b *testing.B) {
			h, _ := benchGateway(b, sandboxaccounts.FixedList(), "GATEWAY_CONSOLE_RECORD", record)
			benchAccountsV2(b, h)
		})
	}
}

// BenchmarkGatewayAccountsV2Traced is BenchmarkGatewayAccountsV2 with
// tracing on, sampling 1% and 100% of the requests (parent-based, the
// default), the spans batched to an exporter that discards them: the cost
// of the spans themselves, without a collector's.
func BenchmarkGatewayAccountsV2Traced(b *testing.B) {
	for _, ratio := range []float64{0.01, 1} {
		b.Run(fmt.Sprintf("%g%%", ratio*100), func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()),
				sdktrace.WithSampler(tracing.Sampler(ratio, true)))
			b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
			h, _ := benchGatewayWith(b, sandboxaccounts.FixedList(), tp.Tracer(tracing.ScopeName))
			benchAccountsV2(b, h)
		})
	}
}

// BenchmarkGatewayAccountsV2Page2000 is GET /v2/accounts?limit=2000&offset=0
// of 2000 accounts (1.4 MB, a Salesforce query batch) from a backend that
// pages (options.paging backend) through the whole chain: the answer read
// into a pooled buffer of its declared size, then renamed, filtered and
// counted for its page member in one rewrite.
func BenchmarkGatewayAccountsV2Page2000(b *testing.B) {
	one := sandboxaccounts.FixedList()
	list := append([]byte{'['}, bytes.Repeat(append(one[1:len(one)-1:len(one)-1], ','), 100)...)
	list[len(list)-1] = ']'
	h, _ := benchGateway(b, list, "GATEWAY_MAX_OUTPUT", "4000000", "GATEWAY_ACCOUNTS_PAGING", "backend")
	req := benchRequest(b, "/v2/accounts?limit=2000&offset=0")
	w := newDiscardWriter()
	b.ReportAllocs()
	b.SetBytes(int64(len(list)))
	for b.Loop() {
		w.reset()
		h.ServeHTTP(w, req)
		if err := w.check(`{"result":[{"id":`); err != nil || !bytes.Contains(w.end, []byte(`"page":{"start":0,"size":2000`)) {
			b.Fatalf("%v: %s", err, w.end)
		}
	}
}
