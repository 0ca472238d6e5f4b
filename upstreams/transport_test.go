package upstreams

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
