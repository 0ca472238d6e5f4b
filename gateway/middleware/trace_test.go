package middleware

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/upstreams"
)

func TestTrace(t *testing.T) {
	t.Parallel()
	const clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	tests := []struct {
		desc      string
		header    map[string]string
		wantTrace string // "" for a new trace
		wantState string
	}{
		{desc: "no traceparent starts a trace"},
		{desc: "invalid traceparent starts a trace", header: map[string]string{"traceparent": "00-zz-00f067aa0ba902b7-01"}},
		{desc: "a client's trace is continued", header: map[string]string{"traceparent": "00-" + clientTrace + "-00f067aa0ba902b7-00"},
			wantTrace: clientTrace},
		{desc: "with its tracestate", header: map[string]string{"traceparent": "00-" + clientTrace + "-00f067aa0ba902b7-01",
			"tracestate": "congo=t61rcWkgMzE"}, wantTrace: clientTrace, wantState: "congo=t61rcWkgMzE"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var seen *http.Request
			h := Trace(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { seen = r }), time.Now)
			req := httptest.NewRequest(http.MethodGet, "/v1/x", nil)
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			require.NotNil(t, seen)

			ctx := seen.Context()
			c := call.From(ctx)
			sc := trace.SpanContextFromContext(ctx)
			require.True(t, sc.IsValid())
			assert.True(t, sc.IsSampled())
			assert.NotEqual(t, "00f067aa0ba902b7", sc.SpanID().String(), "the hop has its own span id")
			if tt.wantTrace != "" {
				assert.Equal(t, tt.wantTrace, sc.TraceID().String())
			}
			assert.Equal(t, sc.TraceID().String(), c.TraceID)
			assert.Equal(t, tt.wantState, sc.TraceState().String())

			want := http.Header{}
			propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(want))
			assert.Equal(t, want.Values("Traceparent"), rec.Header().Values("Traceparent"), "the answer names the hop")
			assert.Equal(t, want.Values("Tracestate"), rec.Header().Values("Tracestate"))
			assert.Same(t, &c.Upstream, upstreams.CallStateFrom(ctx), "upstream calls reuse the captured headers")
			assert.Equal(t, sc, c.Upstream.Trace.SpanContext())
		})
	}
}

func BenchmarkTrace(b *testing.B) {
	h := Trace(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), time.Now)
	req := httptest.NewRequest(http.MethodGet, "/v2/accounts", nil)
	b.ReportAllocs()
	for b.Loop() {
		rw := httptest.NewRecorder()
		h.ServeHTTP(rw, req)
	}
}
