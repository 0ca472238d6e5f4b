package upstreams

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

func TestCredentialsAndTraceContextReachTheBackend(t *testing.T) {
	t.Parallel()
	traceID, err := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	require.NoError(t, err)
	spanID, err := trace.SpanIDFromHex("00f067aa0ba902b7")
	require.NoError(t, err)
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID, TraceFlags: trace.FlagsSampled, Remote: true})
	traced := trace.ContextWithRemoteSpanContext(context.Background(), sc)
	const wantParent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

	tests := []struct {
		desc   string
		auth   AuthSettings
		ctx    context.Context
		header http.Header // set by the adapter on the request
		want   map[string]string
	}{
		{
			desc: "basic",
			auth: AuthSettings{Username: "flowable", Password: "s3cret"},
			ctx:  traced,
			want: map[string]string{"Authorization": "Basic Zmxvd2FibGU6czNjcmV0", "Traceparent": wantParent},
		},
		{
			desc: "bearer and extra headers",
			auth: AuthSettings{BearerToken: "tok", Headers: map[string]string{"X-Gateway-Key": "k", "X-App-Name": "crm"}},
			ctx:  traced,
			want: map[string]string{"Authorization": "Bearer tok", "X-Gateway-Key": "k", "X-App-Name": "crm", "Traceparent": wantParent},
		},
		{
			desc:   "configured credentials override the adapter's",
			auth:   AuthSettings{BearerToken: "configured"},
			ctx:    context.Background(),
			header: http.Header{"Authorization": {"Bearer adapter"}},
			want:   map[string]string{"Authorization": "Bearer configured", "Traceparent": ""},
		},
		{
			desc:   "no credentials and no trace leave the request alone",
			ctx:    context.Background(),
			header: http.Header{"Authorization": {"Bearer adapter"}, "X-Custom": {"v"}},
			want:   map[string]string{"Authorization": "Bearer adapter", "X-Custom": "v", "Traceparent": ""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got := make(chan http.Header, 1)
			f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
				got <- r.Header.Clone()
			})
			s := testSettings(f.srv.URL)
			s.Auth = tt.auth
			c, _ := newTestClient(t, s)
			req := mustRequest(t, tt.ctx, http.MethodGet, f.srv.URL)
			for k, v := range tt.header {
				req.Header[k] = v
			}

			resp, err := c.Do(req)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			h := <-got
			for k, v := range tt.want {
				assert.Equal(t, v, h.Get(k), k)
			}
		})
	}
}

func TestErrorTextCarriesNoCredential(t *testing.T) {
	t.Parallel()
	f := newFake(t, answer(http.StatusServiceUnavailable, "down"))
	s := testSettings(f.srv.URL)
	s.Auth = AuthSettings{Username: "user", Password: "hunter2", Headers: map[string]string{"X-Key": "k3y-secret"}}
	c, _ := newTestClient(t, s)

	_, _, err := fetch(context.Background(), c, http.MethodGet, f.srv.URL, "")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "hunter2")
	assert.NotContains(t, err.Error(), "k3y-secret")
}

func TestNewTransportTuning(t *testing.T) {
	t.Parallel()
	s := Settings{MaxIdleConnsPerHost: 8, ConnectTimeout: 3 * time.Second, ResponseHeaderTimeout: 7 * time.Second}.WithDefaults()
	tr := newStdTransport(s)
	defer tr.CloseIdleConnections()
	assert.Equal(t, 8, tr.MaxIdleConnsPerHost)
	assert.Equal(t, minIdleConns, tr.MaxIdleConns)
	assert.Equal(t, 3*time.Second, tr.TLSHandshakeTimeout)
	assert.Equal(t, 7*time.Second, tr.ResponseHeaderTimeout)
	assert.Equal(t, idleConnTimeout, tr.IdleConnTimeout)
	assert.True(t, tr.ForceAttemptHTTP2)
	assert.NotNil(t, tr.DialContext)
	assert.NotSame(t, http.DefaultTransport, tr)
}

type timeoutErr struct{}

func (timeoutErr) Error() string   { return "i/o timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func TestClassify(t *testing.T) {
	t.Parallel()
	live := context.Background()
	cancelled, cancel := context.WithCancel(live)
	cancel()
	expired, stop := context.WithDeadline(live, time.Unix(0, 0))
	defer stop()
	tests := []struct {
		desc        string
		parent, ctx context.Context
		err         error
		want        Kind
	}{
		{desc: "transport error", parent: live, ctx: live, err: errors.New("connection refused"), want: KindFailed},
		{desc: "caller went away", parent: cancelled, ctx: cancelled, err: context.Canceled, want: KindCanceled},
		{desc: "call deadline passed", parent: live, ctx: expired, err: context.DeadlineExceeded, want: KindTimeout},
		{desc: "caller deadline passed", parent: expired, ctx: expired, err: context.DeadlineExceeded, want: KindTimeout},
		{desc: "response header timeout", parent: live, ctx: live, err: timeoutErr{}, want: KindTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			got := classify("u", tt.parent, tt.ctx, tt.err)
			assert.Equal(t, tt.want, got.Kind)
			assert.ErrorIs(t, got, tt.err)
		})
	}
}

// traced returns a context whose span context has the given ids, flags and
// tracestate.
func traced(t testing.TB, traceHex, spanHex string, flags trace.TraceFlags, state string) context.Context {
	t.Helper()
	traceID, err := trace.TraceIDFromHex(traceHex)
	require.NoError(t, err)
	spanID, err := trace.SpanIDFromHex(spanHex)
	require.NoError(t, err)
	ts, err := trace.ParseTraceState(state)
	require.NoError(t, err)
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceID, SpanID: spanID, TraceFlags: flags, TraceState: ts, Remote: true})
	return trace.ContextWithRemoteSpanContext(context.Background(), sc)
}

func TestTraceHeadersCaptureWhatInjectWrites(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc  string
		ctx   context.Context
		empty bool
	}{
		{desc: "sampled", ctx: traced(t, "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", trace.FlagsSampled, "")},
		{desc: "not sampled, with tracestate", ctx: traced(t, "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", 0, "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7")},
		{desc: "undefined flags are dropped", ctx: traced(t, "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", 0xff, "")},
		{desc: "no span context", ctx: context.Background(), empty: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			want := http.Header{}
			propagation.TraceContext{}.Inject(tt.ctx, propagation.HeaderCarrier(want))
			var th TraceHeaders
			th.Capture(tt.ctx)
			got := http.Header{}
			th.SetOn(got)
			assert.Equal(t, want, got)
			assert.Equal(t, trace.SpanContextFromContext(tt.ctx), th.SpanContext())
			if tt.empty {
				assert.Nil(t, th.Traceparent())
				assert.Empty(t, th.TraceID())
				return
			}
			assert.Equal(t, want.Values("Traceparent"), th.Traceparent())
			assert.Equal(t, trace.SpanContextFromContext(tt.ctx).TraceID().String(), th.TraceID())
		})
	}
}

func FuzzTraceHeaders(f *testing.F) {
	f.Add([]byte("4bf92f3577b34da6"), []byte("00f067aa"), byte(1), "congo=t61rcWkgMzE")
	f.Add([]byte{}, []byte{}, byte(0), "")
	f.Add([]byte("0123456789abcdef"), []byte("\x00\x00\x00\x00\x00\x00\x00\x01"), byte(3), "a=b,c=d")
	f.Fuzz(func(t *testing.T, traceID, spanID []byte, flags byte, state string) {
		var cfg trace.SpanContextConfig
		copy(cfg.TraceID[:], traceID)
		copy(cfg.SpanID[:], spanID)
		cfg.TraceFlags = trace.TraceFlags(flags)
		if ts, err := trace.ParseTraceState(state); err == nil {
			cfg.TraceState = ts
		}
		ctx := trace.ContextWithRemoteSpanContext(context.Background(), trace.NewSpanContext(cfg))
		want := http.Header{}
		propagation.TraceContext{}.Inject(ctx, propagation.HeaderCarrier(want))
		var th TraceHeaders
		th.Capture(ctx)
		got := http.Header{}
		th.SetOn(got)
		if !assert.Equal(t, want, got) {
			return
		}
		sc := trace.SpanContextFromContext(ctx)
		if sc.IsValid() {
			assert.Equal(t, sc.TraceID().String(), th.TraceID())
			assert.True(t, th.describes(sc))
		}
		// prepare writes the same headers whether or not it reuses th.
		reused := http.Header{}
		prepare(WithCallState(ctx, &CallState{Trace: th}), reused, nil)
		assert.Equal(t, want, reused)
	})
}

func TestPrepareReusesTraceHeadersOnlyForTheirSpan(t *testing.T) {
	t.Parallel()
	captured := traced(t, "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", trace.FlagsSampled, "")
	state := &CallState{}
	state.Trace.Capture(captured)
	th := &state.Trace
	tests := []struct {
		desc   string
		ctx    context.Context
		shared bool
	}{
		{desc: "same span", ctx: WithCallState(captured, state), shared: true},
		{desc: "another span under the captured headers",
			ctx: trace.ContextWithRemoteSpanContext(WithCallState(captured, state),
				trace.SpanContextFromContext(traced(t, "4bf92f3577b34da6a3ce929d0e0e4736", "1111111111111111", trace.FlagsSampled, "")))},
		{desc: "other flags", ctx: WithCallState(traced(t, "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", 0, ""), state)},
		{desc: "a tracestate the capture lacks",
			ctx: WithCallState(traced(t, "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", trace.FlagsSampled, "k=v"), state)},
		{desc: "no span", ctx: WithCallState(context.Background(), state)},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			want := http.Header{}
			propagation.TraceContext{}.Inject(tt.ctx, propagation.HeaderCarrier(want))
			got := http.Header{}
			prepare(tt.ctx, got, nil)
			assert.Equal(t, want, got, "the headers Inject would write")
			if tt.shared {
				assert.Same(t, &th.Traceparent()[0], &got["Traceparent"][0], "the captured value is shared")
			}
		})
	}
}

func TestPrepareSharesCredentialValues(t *testing.T) {
	t.Parallel()
	creds := newCredentials(AuthSettings{BearerToken: "tok", Headers: map[string]string{"x-app-name": "crm"}})
	a, b := http.Header{}, http.Header{"Authorization": {"Bearer adapter"}}
	prepare(context.Background(), a, creds)
	prepare(context.Background(), b, creds)
	assert.Equal(t, http.Header{"Authorization": {"Bearer tok"}, "X-App-Name": {"crm"}}, a)
	assert.Equal(t, a, b, "configured credentials replace the adapter's")
	assert.Same(t, &a["Authorization"][0], &b["Authorization"][0], "one value for every request")
}

// Both transports carry a plain-http call, each on its own engine; only
// the fast one bounds a call by socket deadlines (no timer per call).
func TestTransportSetting(t *testing.T) {
	t.Parallel()
	f := newFake(t, answer(http.StatusOK, `{"ok":true}`))
	for _, tt := range []struct {
		transport string
		bounded   bool
	}{{TransportFast, true}, {TransportStd, false}, {"", true}} {
		t.Run("transport "+tt.transport, func(t *testing.T) {
			t.Parallel()
			s := testSettings(f.srv.URL)
			s.Transport = tt.transport
			c, _ := newTestClient(t, s)
			assert.Equal(t, tt.bounded, c.bounded != nil)
			if tt.transport == TransportStd {
				assert.IsType(t, &http.Transport{}, c.transport)
			}
			status, body, err := fetch(context.Background(), c, http.MethodGet, f.srv.URL, "")
			require.NoError(t, err)
			assert.Equal(t, http.StatusOK, status)
			assert.JSONEq(t, `{"ok":true}`, body)
		})
	}
}

// An answer whose status no request of the gateway can get is a failed
// call (502) whichever transport read it: net/http's passes a status below
// 100 or above 599, and an unasked-for 101, on as final answers.
func TestUndefinedStatusIsAFailure(t *testing.T) {
	t.Parallel()
	for _, status := range []string{"099 Low", "101 Switching Protocols", "600 High", "999 Highest"} {
		for _, transport := range []string{TransportFast, TransportStd} {
			t.Run(status+" "+transport, func(t *testing.T) {
				t.Parallel()
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				require.NoError(t, err)
				t.Cleanup(func() { _ = ln.Close() })
				go func() {
					nc, err := ln.Accept()
					if err != nil {
						return
					}
					defer nc.Close()
					if _, err := http.ReadRequest(bufio.NewReader(nc)); err == nil {
						_, _ = io.WriteString(nc, "HTTP/1.1 "+status+"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
					}
				}()
				s := testSettings("http://" + ln.Addr().String())
				s.Transport = transport
				c, _ := newTestClient(t, s)
				_, _, err = fetch(context.Background(), c, http.MethodGet, s.URL+"/", "")
				require.Error(t, err)
				assert.Equal(t, KindFailed, kindOf(err))
				assert.Equal(t, http.StatusBadGateway, StatusFor(err))
			})
		}
	}
}
