package upstreams

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fake is a controllable backend that counts the requests reaching it.
type fake struct {
	srv  *httptest.Server
	hits atomic.Int64
}

func newFake(t testing.TB, h http.HandlerFunc) *fake {
	t.Helper()
	f := &fake{}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func answer(status int, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, body)
	}
}

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu       sync.Mutex
	outcomes []string
	changes  []string
}

func (r *recorder) CallDone(_, outcome string, _ time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outcomes = append(r.outcomes, outcome)
}

func (r *recorder) BreakerChanged(_, from, to string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.changes = append(r.changes, from+"->"+to)
}

func (r *recorder) seen() (outcomes, changes []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.outcomes...), append([]string(nil), r.changes...)
}

// testSettings are short enough for tests and keep every rule out of the
// way unless a test turns it on.
func testSettings(url string) Settings {
	return Settings{
		URL:            url,
		Timeout:        2 * time.Second,
		ConnectTimeout: time.Second,
		Breaker:        BreakerSettings{ConsecutiveFailures: 1000, MinRequests: math.MaxUint32, OpenTimeout: time.Hour},
		Retry:          RetrySettings{Attempts: 1, Backoff: time.Millisecond},
	}
}

func newTestClient(t testing.TB, s Settings) (*Client, *recorder) {
	t.Helper()
	rec := &recorder{}
	c, err := NewClient("test", s, rec)
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c, rec
}

// fetch sends one request and reads its whole body.
func fetch(ctx context.Context, c *Client, method, url, body string) (int, string, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, "", err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

func kindOf(err error) Kind {
	if ue := AsError(err); ue != nil {
		return ue.Kind
	}
	return 0
}

func TestDoReturnsAnswersAndAccountsTime(t *testing.T) {
	t.Parallel()
	f := newFake(t, answer(http.StatusOK, `{"ok":true}`))
	c, rec := newTestClient(t, testSettings(f.srv.URL))
	state := &CallState{}
	ctx := WithCallState(context.Background(), state)

	status, body, err := fetch(ctx, c, http.MethodGet, f.srv.URL, "")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status)
	assert.JSONEq(t, `{"ok":true}`, body)
	first := state.Timing.Total()
	assert.Positive(t, first)

	_, _, err = fetch(ctx, c, http.MethodGet, f.srv.URL, "")
	require.NoError(t, err)
	assert.Greater(t, state.Timing.Total(), first, "a second call adds to the same Timing")

	outcomes, _ := rec.seen()
	assert.Equal(t, []string{"success", "success"}, outcomes, "one report per call")
	assert.Equal(t, "closed", c.BreakerState())
	assert.Equal(t, 0, c.limit.inFlightNow(), "closing the body frees the slot")
}

func TestDoRefusedConnection(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	c, rec := newTestClient(t, testSettings("http://"+addr))

	_, _, err = fetch(context.Background(), c, http.MethodGet, "http://"+addr+"/x", "")
	require.Error(t, err)
	assert.Equal(t, KindFailed, kindOf(err))
	assert.Equal(t, http.StatusBadGateway, StatusFor(err))
	outcomes, _ := rec.seen()
	assert.Equal(t, []string{"failed"}, outcomes)
}

func TestDoTimeouts(t *testing.T) {
	t.Parallel()
	stall := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}
	stallMidBody := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		_, _ = io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		stall(w, r)
	}
	tests := []struct {
		desc    string
		handler http.HandlerFunc
		opts    *CallOptions
	}{
		{desc: "no headers within the call timeout", handler: stall},
		{desc: "body stalls after the headers", handler: stallMidBody},
		{desc: "route timeout overrides the upstream's", handler: stall, opts: &CallOptions{Timeout: 30 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, tt.handler)
			s := testSettings(f.srv.URL)
			if tt.opts == nil {
				s.Timeout = 50 * time.Millisecond
			}
			c, rec := newTestClient(t, s)
			ctx := context.Background()
			if tt.opts != nil {
				ctx = WithCallState(ctx, &CallState{Options: *tt.opts})
			}

			_, _, err := fetch(ctx, c, http.MethodGet, f.srv.URL, "")
			require.Error(t, err)
			assert.Equal(t, KindTimeout, kindOf(err))
			assert.Equal(t, http.StatusGatewayTimeout, StatusFor(err))
			outcomes, _ := rec.seen()
			assert.Equal(t, []string{"timeout"}, outcomes)
			assert.Equal(t, 0, c.limit.inFlightNow())
		})
	}
}

func TestDoServerErrorBecomesError(t *testing.T) {
	t.Parallel()
	f := newFake(t, answer(http.StatusInternalServerError, "  database down\n"))
	c, rec := newTestClient(t, testSettings(f.srv.URL))

	resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, f.srv.URL))
	require.Error(t, err)
	assert.Nil(t, resp)
	ue := AsError(err)
	require.NotNil(t, ue)
	assert.Equal(t, KindFailed, ue.Kind)
	assert.Equal(t, http.StatusInternalServerError, ue.Status)
	assert.Equal(t, "database down", ue.Message)
	assert.Equal(t, "test", ue.Upstream)
	outcomes, _ := rec.seen()
	assert.Equal(t, []string{"failed"}, outcomes)
}

func TestDoLongErrorBodyIsBounded(t *testing.T) {
	t.Parallel()
	f := newFake(t, answer(http.StatusBadGateway, strings.Repeat("x", 3*maxErrorBody)))
	c, _ := newTestClient(t, testSettings(f.srv.URL))

	_, _, err := fetch(context.Background(), c, http.MethodGet, f.srv.URL, "")
	require.Error(t, err)
	assert.Len(t, AsError(err).Message, maxErrorBody)
}

func TestDoDoesNotModifyTheCallersRequest(t *testing.T) {
	t.Parallel()
	f := newFake(t, answer(http.StatusNoContent, ""))
	s := testSettings(f.srv.URL)
	s.Auth = AuthSettings{BearerToken: "secret"}
	c, rec := newTestClient(t, s)
	req := mustRequest(t, context.Background(), http.MethodDelete, f.srv.URL)

	resp, err := c.Do(req)
	require.NoError(t, err)
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Empty(t, req.Header.Get("Authorization"))
	outcomes, _ := rec.seen()
	assert.Equal(t, []string{"success"}, outcomes, "a body-less answer ends the call at once")
	assert.Equal(t, 0, c.limit.inFlightNow())
	require.NoError(t, resp.Body.Close())
}

func TestNewClientRejectsInvalidSettings(t *testing.T) {
	t.Parallel()
	_, err := NewClient("accounts", Settings{URL: "ftp://x", Timeout: -1}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "upstreams.accounts.url: ")
	assert.Contains(t, err.Error(), "upstreams.accounts.timeout: must not be negative")
}

func TestClientKeepsSettingsAsGiven(t *testing.T) {
	t.Parallel()
	s := Settings{URL: "http://127.0.0.1:1"}
	c, err := NewClient("feed", s, nil)
	require.NoError(t, err)
	defer c.Close()
	assert.Equal(t, s, c.Settings())
	assert.Equal(t, "feed", c.Name())
	assert.Equal(t, DefaultTimeout, c.s.Timeout)
}

func TestStatusFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		err  error
		want int
	}{
		{desc: "nil", err: nil, want: http.StatusOK},
		{desc: "canceled", err: &Error{Kind: KindCanceled}, want: 499},
		{desc: "timeout", err: &Error{Kind: KindTimeout}, want: http.StatusGatewayTimeout},
		{desc: "open", err: &Error{Kind: KindOpen}, want: http.StatusServiceUnavailable},
		{desc: "bulkhead", err: &Error{Kind: KindBulkheadFull}, want: http.StatusServiceUnavailable},
		{desc: "rejected keeps status", err: NewStatusError("a", http.StatusConflict, "", ""), want: http.StatusConflict},
		{desc: "rejected without status", err: &Error{Kind: KindRejected}, want: http.StatusBadGateway},
		{desc: "failed", err: NewStatusError("a", http.StatusInternalServerError, "", ""), want: http.StatusBadGateway},
		{desc: "invalid", err: &Error{Kind: KindInvalid}, want: http.StatusBadGateway},
		{desc: "wrapped", err: io.ErrUnexpectedEOF, want: http.StatusBadGateway},
		{desc: "bare deadline", err: context.DeadlineExceeded, want: http.StatusGatewayTimeout},
		{desc: "bare cancel", err: context.Canceled, want: 499},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, StatusFor(tt.err))
		})
	}
}

func mustRequest(t testing.TB, ctx context.Context, method, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	require.NoError(t, err)
	return req
}

func BenchmarkDo(b *testing.B) {
	f := newFake(b, answer(http.StatusOK, `{"id":"001","name":"Acme"}`))
	s := testSettings(f.srv.URL)
	s.Auth = AuthSettings{BearerToken: "token"}
	c, _ := newTestClient(b, s)
	ctx := WithCallState(context.Background(), &CallState{})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := fetch(ctx, c, http.MethodGet, f.srv.URL, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDoLeavesTheCallersRequestAloneOnEveryAttempt(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []http.Header
	retried := failFirst(1, http.StatusServiceUnavailable)
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Clone())
		mu.Unlock()
		retried(w, r)
	})
	s := testSettings(f.srv.URL)
	s.Auth = AuthSettings{BearerToken: "secret", Headers: map[string]string{"X-Gateway-Key": "k"}}
	s.Retry = RetrySettings{Attempts: 2, Backoff: time.Millisecond, Budget: 1}
	c, _ := newTestClient(t, s)
	ctx := traced(t, "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", trace.FlagsSampled, "")
	state := &CallState{}
	state.Trace.Capture(ctx)
	th := &state.Trace
	ctx = WithCallState(ctx, state)

	req, err := http.NewRequestWithContext(ctx, http.MethodPut, f.srv.URL+"/a?b=c", strings.NewReader("payload"))
	require.NoError(t, err)
	req.Header["Accept"] = []string{"application/json"}
	req.Header["Authorization"] = []string{"Bearer adapter"}
	header, url, values := req.Header.Clone(), *req.URL, req.Header["Accept"]

	resp, err := c.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, "payload", string(body), "the retry replays the body")

	assert.Equal(t, header, req.Header, "the caller's header keeps its fields and values")
	assert.Same(t, &values[0], &req.Header["Accept"][0])
	assert.Equal(t, url, *req.URL)
	assert.Same(t, ctx, req.Context())
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, 2, "one retry")
	for i, h := range seen {
		assert.Equal(t, "application/json", h.Get("Accept"), "attempt %d", i+1)
		assert.Equal(t, "Bearer secret", h.Get("Authorization"), "attempt %d", i+1)
		assert.Equal(t, "k", h.Get("X-Gateway-Key"), "attempt %d", i+1)
		assert.Equal(t, th.Traceparent()[0], h.Get("Traceparent"), "attempt %d", i+1)
	}
}

func TestAsError(t *testing.T) {
	t.Parallel()
	ue := &Error{Kind: KindFailed}
	tests := []struct {
		desc string
		err  error
		want *Error
	}{
		{desc: "nil", err: nil},
		{desc: "itself", err: ue, want: ue},
		{desc: "wrapped", err: fmt.Errorf("x: %w", ue), want: ue},
		{desc: "joined", err: errors.Join(io.EOF, ue), want: ue},
		{desc: "another error", err: io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Same(t, tt.want, AsError(tt.err))
		})
	}
}

// DoContext sends a request under the context it is given, not the
// request's own: its call state, its trace and its end are the given
// context's, on the first attempt and on a retry.
func TestDoContextSendsUnderTheGivenContext(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string
	retried := failFirst(1, http.StatusServiceUnavailable)
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("Traceparent"))
		mu.Unlock()
		retried(w, r)
	})
	s := testSettings(f.srv.URL)
	s.Retry = RetrySettings{Attempts: 2, Backoff: time.Millisecond, Budget: 1}
	c, _ := newTestClient(t, s)
	ctx := traced(t, "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", trace.FlagsSampled, "")
	state := &CallState{}
	state.Trace.Capture(ctx)
	ctx = WithCallState(ctx, state)
	ended, end := context.WithCancel(context.Background())
	end()
	req, err := http.NewRequestWithContext(ended, http.MethodGet, f.srv.URL, nil)
	require.NoError(t, err)

	resp, err := c.DoContext(ctx, req)
	require.NoError(t, err, "the request's own context has ended; the given one has not")
	_, err = io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Positive(t, state.Timing.Total(), "the given context's call state is the call's")
	mu.Lock()
	assert.Equal(t, []string{state.Trace.Traceparent()[0], state.Trace.Traceparent()[0]}, seen,
		"both attempts carry the given context's trace")
	mu.Unlock()
	assert.Same(t, ended, req.Context(), "the request is left as it was")

	_, err = c.DoContext(ended, req.WithContext(ctx))
	assert.Equal(t, KindCanceled, kindOf(err), "an ended given context ends the call")
}

// doerTestKey marks the context TestAsContextDoer sends under.
type doerTestKey struct{}

// doerFunc is a plain Doer.
type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(req *http.Request) (*http.Response, error) { return f(req) }

// AsContextDoer keeps a Client as it is and makes a plain Doer send the
// request bound to the given context.
func TestAsContextDoer(t *testing.T) {
	t.Parallel()
	c, _ := newTestClient(t, testSettings("http://127.0.0.1:1"))
	assert.Same(t, c, AsContextDoer(c))

	var got context.Context
	plain := AsContextDoer(doerFunc(func(req *http.Request) (*http.Response, error) {
		got = req.Context()
		return nil, errors.New("not sent")
	}))
	req, err := http.NewRequest(http.MethodGet, "http://127.0.0.1:1/", nil)
	require.NoError(t, err)
	ctx := context.WithValue(context.Background(), doerTestKey{}, "this call's")
	_, err = plain.DoContext(ctx, req)
	require.Error(t, err)
	assert.Same(t, ctx, got, "sent under the given context")
	assert.Equal(t, context.Background(), req.Context(), "the request is left as it was")
}
