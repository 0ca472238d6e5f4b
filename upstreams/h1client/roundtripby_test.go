package h1client

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// stalling answers "part" of a 10-byte body when body is set, and then (or
// at once, without a head) waits for its client to go away.
func stalling(t *testing.T, body bool) string {
	t.Helper()
	release := make(chan struct{})
	srv, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		if body {
			w.Header().Set("Content-Length", "10")
			_, _ = io.WriteString(w, "part")
			w.(http.Flusher).Flush()
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) })
	return srv.URL
}

// exchangeBy sends a GET with RoundTripBy and reads the whole answer,
// returning the first error of either.
func exchangeBy(tr *Transport, ctx context.Context, u string, deadline time.Time) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	resp, err := tr.RoundTripBy(req, deadline)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	return err
}

func TestRoundTripByDeadline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		body bool // the head comes back, the body stalls
		// deadline is given to RoundTripBy, ctxDeadline set on the
		// context, cancelAfter cancels it; zero for none.
		deadline, ctxDeadline, cancelAfter time.Duration
		want                               error
	}{
		{desc: "head slower than the deadline", deadline: 30 * time.Millisecond, want: context.DeadlineExceeded},
		{desc: "body slower than the deadline", body: true, deadline: 30 * time.Millisecond, want: context.DeadlineExceeded},
		{desc: "earlier context deadline wins", deadline: time.Hour, ctxDeadline: 30 * time.Millisecond, want: context.DeadlineExceeded},
		{desc: "no deadline given, the context's bounds", ctxDeadline: 30 * time.Millisecond, want: context.DeadlineExceeded},
		{desc: "caller cancels the head", deadline: time.Hour, cancelAfter: 30 * time.Millisecond, want: context.Canceled},
		{desc: "caller cancels the body", body: true, deadline: time.Hour, cancelAfter: 30 * time.Millisecond, want: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			u := stalling(t, tt.body)
			tr, _ := newTransport(t, Options{})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.ctxDeadline > 0 {
				ctx, cancel = context.WithTimeout(ctx, tt.ctxDeadline)
				defer cancel()
			}
			if tt.cancelAfter > 0 {
				time.AfterFunc(tt.cancelAfter, cancel)
			}
			var deadline time.Time
			if tt.deadline > 0 {
				deadline = time.Now().Add(tt.deadline)
			}
			err := exchangeBy(tr, ctx, u, deadline)
			require.ErrorIs(t, err, tt.want)
			assert.Zero(t, idleCount(tr, u))
		})
	}
}

func TestRoundTripByKeepsConnections(t *testing.T) {
	t.Parallel()
	srv, conns := countingServer(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	tr, _ := newTransport(t, Options{})
	for range 3 {
		require.NoError(t, exchangeBy(tr, context.Background(), srv.URL, time.Now().Add(time.Minute)))
	}
	assert.Equal(t, int32(1), conns.Load())
	assert.Equal(t, 1, idleCount(tr, srv.URL))
}

func TestRoundTripByBoundsDial(t *testing.T) {
	t.Parallel()
	deadline := time.Now().Add(time.Minute)
	tests := []struct {
		desc        string
		ctxDeadline time.Time
		want        time.Time
	}{
		{desc: "context without deadline gets the given one", want: deadline},
		{desc: "later context deadline gives way", ctxDeadline: deadline.Add(time.Hour), want: deadline},
		{desc: "earlier context deadline stays", ctxDeadline: deadline.Add(-time.Second), want: deadline.Add(-time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			srv, _ := countingServer(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
			var got time.Time
			dialer := &net.Dialer{}
			tr, _ := newTransport(t, Options{Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
				got, _ = ctx.Deadline()
				return dialer.DialContext(ctx, network, addr)
			}})
			ctx := context.Background()
			if !tt.ctxDeadline.IsZero() {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, tt.ctxDeadline)
				defer cancel()
			}
			require.NoError(t, exchangeBy(tr, ctx, srv.URL, deadline))
			assert.True(t, tt.want.Equal(got), "dial deadline %v, want %v", got, tt.want)
		})
	}
}

// ctxFallback is a fallback answering a body whose end it records, with
// the context it was given.
type ctxFallback struct {
	mu  sync.Mutex
	ctx context.Context
}

func (f *ctxFallback) RoundTrip(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ctx = req.Context()
	return &http.Response{StatusCode: 200, Body: io.NopCloser(strings.NewReader("fallback")), Request: req}, nil
}

func (f *ctxFallback) given() context.Context {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ctx
}

func TestRoundTripByFallbackIsBounded(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc  string
		close bool // close the body instead of reading it to its end
	}{
		{desc: "released at EOF"},
		{desc: "released by Close", close: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			fb := &ctxFallback{}
			tr, _ := newTransport(t, Options{Fallback: fb})
			deadline := time.Now().Add(time.Minute)
			req, err := http.NewRequest(http.MethodGet, "https://backend.test/", nil)
			require.NoError(t, err)
			resp, err := tr.RoundTripBy(req, deadline)
			require.NoError(t, err)
			got, ok := fb.given().Deadline()
			require.True(t, ok)
			assert.True(t, deadline.Equal(got))
			assert.NoError(t, fb.given().Err(), "live while the body is read")
			if tt.close {
				require.NoError(t, resp.Body.Close())
			} else {
				b, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				assert.Equal(t, "fallback", string(b))
			}
			assert.ErrorIs(t, fb.given().Err(), context.Canceled)
		})
	}
}

func TestRoundTripByFallbackWithoutDeadline(t *testing.T) {
	t.Parallel()
	fb := &ctxFallback{}
	tr, _ := newTransport(t, Options{Fallback: fb})
	req, err := http.NewRequest(http.MethodGet, "https://backend.test/", nil)
	require.NoError(t, err)
	resp, err := tr.RoundTripBy(req, time.Time{})
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, req.Context(), fb.given(), "the request is passed on as it is")
}

// BenchmarkRoundTripBy compares a call bounded by a timer context of its
// own with one bounded by RoundTripBy, under a cancellable caller's
// context as a gateway request has.
func BenchmarkRoundTripBy(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"id":"001","name":"Acme"}`)
	}))
	defer srv.Close()
	tr := New(Options{Fallback: http.DefaultTransport})
	defer tr.CloseIdleConnections()
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, err := http.NewRequestWithContext(parent, http.MethodGet, srv.URL, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		send func() (*http.Response, context.CancelFunc, error)
	}{
		{"timer-context", func() (*http.Response, context.CancelFunc, error) {
			ctx, stop := context.WithTimeout(parent, time.Minute)
			resp, err := tr.RoundTrip(req.WithContext(ctx))
			return resp, stop, err
		}},
		{"deadline", func() (*http.Response, context.CancelFunc, error) {
			resp, err := tr.RoundTripBy(req, time.Now().Add(time.Minute))
			return resp, func() {}, err
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resp, stop, err := tc.send()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, resp.Body); err != nil {
					b.Fatal(err)
				}
				_ = resp.Body.Close()
				stop()
			}
		})
	}
}
