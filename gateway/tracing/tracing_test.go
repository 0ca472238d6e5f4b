package tracing

import (
	"context"
	"net"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/tracing/tracingtest"
)

// newGRPCReceiver serves rcv as an OTLP/gRPC collector on loopback and
// returns its URL.
func newGRPCReceiver(t *testing.T, rcv *tracingtest.Receiver) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer()
	rcv.RegisterGRPC(srv)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return "http://" + ln.Addr().String()
}

func noEnv(string) string { return "" }

func ratio(f float64) *float64 { return &f }

// exportOne starts and ends a server span with a child through tr, then
// shuts the pipeline down, which sends the batch.
func exportOne(t *testing.T, tr *Tracing) trace.SpanContext {
	t.Helper()
	require.NotNil(t, tr)
	ctx, server := tr.Tracer().Start(context.Background(), "GET /{version}/accounts", trace.WithSpanKind(trace.SpanKindServer))
	_, client := tr.Tracer().Start(ctx, "GET accounts", trace.WithSpanKind(trace.SpanKindClient))
	client.End()
	server.End()
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, tr.Shutdown(shutdown))
	return server.SpanContext()
}

func TestExportsOverOTLP(t *testing.T) {
	t.Parallel()
	httpRcv, grpcRcv := tracingtest.New(), tracingtest.New()
	httpSrv := httptest.NewServer(httpRcv)
	t.Cleanup(httpSrv.Close)
	grpcURL := newGRPCReceiver(t, grpcRcv)
	tests := []struct {
		desc     string
		cfg      config.Tracing
		rcv      *tracingtest.Receiver
		wantPath string
	}{
		{desc: "http/protobuf, /v1/traces added to a URL without a path", rcv: httpRcv, wantPath: "/v1/traces",
			cfg: config.Tracing{Enabled: true, Endpoint: httpSrv.URL, Headers: map[string]string{"X-Api-Key": "k1"}}},
		{desc: "grpc", rcv: grpcRcv,
			cfg: config.Tracing{Enabled: true, Protocol: config.ProtocolGRPC, Endpoint: grpcURL, Headers: map[string]string{"x-api-key": "k1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			tt.cfg.ServiceName = "gw-test"
			tr, err := New(context.Background(), tt.cfg, noEnv, "1.2.3")
			require.NoError(t, err)
			sc := exportOne(t, tr)

			exports := tt.rcv.Exports()
			require.Len(t, exports, 1, "one batch, sent at shutdown")
			if tt.wantPath != "" {
				assert.Equal(t, tt.wantPath, exports[0].Path)
			}
			assert.Equal(t, "k1", exports[0].Header.Get("X-Api-Key"), "the configured headers go with the export")
			rs := exports[0].Request.GetResourceSpans()
			require.Len(t, rs, 1)
			res := attrMap(rs[0].GetResource().GetAttributes())
			assert.Equal(t, "gw-test", res["service.name"])
			assert.Equal(t, "1.2.3", res["service.version"])
			assert.Equal(t, "opentelemetry", res["telemetry.sdk.name"])
			require.Len(t, rs[0].GetScopeSpans(), 1)
			assert.Equal(t, ScopeName, rs[0].GetScopeSpans()[0].GetScope().GetName())
			spans := rs[0].GetScopeSpans()[0].GetSpans()
			require.Len(t, spans, 2)
			byName := map[string]*tracepb.Span{}
			for _, s := range spans {
				byName[s.GetName()] = s
			}
			server, client := byName["GET /{version}/accounts"], byName["GET accounts"]
			require.NotNil(t, server)
			require.NotNil(t, client)
			assert.Equal(t, tracepb.Span_SPAN_KIND_SERVER, server.GetKind())
			assert.Equal(t, tracepb.Span_SPAN_KIND_CLIENT, client.GetKind())
			traceID := sc.TraceID()
			spanID := sc.SpanID()
			assert.Equal(t, traceID[:], server.GetTraceId())
			assert.Equal(t, spanID[:], server.GetSpanId())
			assert.Equal(t, server.GetSpanId(), client.GetParentSpanId())
		})
	}
}

func attrMap(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[kv.GetKey()] = kv.GetValue().GetStringValue()
	}
	return out
}

func TestOffBuildsNothing(t *testing.T) {
	t.Parallel()
	tr, err := New(context.Background(), config.Tracing{}, noEnv, "dev")
	require.NoError(t, err)
	assert.Nil(t, tr)
	assert.Nil(t, tr.Tracer(), "a nil pipeline has no tracer: the middleware's untraced path")
	assert.NoError(t, tr.Shutdown(context.Background()))

	env := map[string]string{"OTEL_SDK_DISABLED": "true"}
	tr, err = New(context.Background(), config.Tracing{Enabled: true}, func(k string) string { return env[k] }, "dev")
	require.NoError(t, err)
	assert.Nil(t, tr, "OTEL_SDK_DISABLED wins")
}

func TestResolve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		cfg     config.Tracing
		env     map[string]string
		want    Settings
		wantErr string
	}{
		{desc: "defaults", want: Settings{Protocol: config.ProtocolHTTP, SampleRatio: 1, ParentBased: true}},
		{desc: "protocol from the traces variable first",
			env:  map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
			want: Settings{Protocol: config.ProtocolGRPC, SampleRatio: 1, ParentBased: true}},
		{desc: "config protocol wins", cfg: config.Tracing{Protocol: config.ProtocolHTTP},
			env:  map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
			want: Settings{Protocol: config.ProtocolHTTP, SampleRatio: 1, ParentBased: true}},
		{desc: "http/json is refused", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"},
			wantErr: "OTEL_EXPORTER_OTLP_PROTOCOL"},
		{desc: "sampler from the environment",
			env:  map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.01"},
			want: Settings{Protocol: config.ProtocolHTTP, SampleRatio: 0.01, ParentBased: false}},
		{desc: "parent-based always off", env: map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_always_off"},
			want: Settings{Protocol: config.ProtocolHTTP, SampleRatio: 0, ParentBased: true}},
		{desc: "config ratio over the environment's, its parent-based kept",
			cfg:  config.Tracing{SampleRatio: ratio(0.25)},
			env:  map[string]string{"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.5"},
			want: Settings{Protocol: config.ProtocolHTTP, SampleRatio: 0.25, ParentBased: true}},
		{desc: "bad ratio", env: map[string]string{"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"},
			wantErr: "OTEL_TRACES_SAMPLER_ARG"},
		{desc: "sampler the gateway does not build", env: map[string]string{"OTEL_TRACES_SAMPLER": "jaeger_remote"},
			wantErr: "jaeger_remote"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got, err := resolve(tt.cfg, func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestHTTPEndpoint(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"http://collector:4318":            "http://collector:4318/v1/traces",
		"http://collector:4318/":           "http://collector:4318/v1/traces",
		"https://otlp.example/api/traces":  "https://otlp.example/api/traces",
		"https://otlp.example/v1/traces/x": "https://otlp.example/v1/traces/x",
	} {
		got, err := httpEndpoint(raw)
		require.NoError(t, err)
		assert.Equal(t, want, got, raw)
	}
	_, err := httpEndpoint("collector:4318")
	assert.Error(t, err)
}

func TestSamplerFollowsTheParent(t *testing.T) {
	t.Parallel()
	sampled := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{1},
		TraceFlags: trace.FlagsSampled, Remote: true})
	ctx := trace.ContextWithRemoteSpanContext(context.Background(), sampled)
	tr, err := New(context.Background(), config.Tracing{Enabled: true, SampleRatio: ratio(0), Endpoint: "http://127.0.0.1:1"}, noEnv, "dev")
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = tr.Shutdown(ctx) // the endpoint is closed: the export fails, which is fine here
	})
	_, child := tr.Tracer().Start(ctx, "x")
	assert.True(t, child.IsRecording(), "a sampled caller's trace is recorded whatever the ratio")
	_, root := tr.Tracer().Start(context.Background(), "y")
	assert.False(t, root.IsRecording(), "ratio 0: a trace started here is not")
}
