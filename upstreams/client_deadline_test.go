package upstreams

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// paths are the two ways a call is bounded: by the transport's deadline
// (the default) or by a timer context, for a transport that cannot.
func paths() []string { return []string{"deadline", "timer-context"} }

func newPathClient(t testing.TB, s Settings, path string) (*Client, *recorder) {
	t.Helper()
	c, rec := newTestClient(t, s)
	require.NotNil(t, c.bounded, "the default transport bounds calls itself")
	if path == "timer-context" {
		c.bounded = nil
	}
	return c, rec
}

// stallAfter answers the head and part of a body first when body is set,
// then waits for its client to go away.
func stallAfter(body bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		// Read to its end, so that the server notices its client leave.
		_, _ = io.Copy(io.Discard, r.Body)
		if body {
			w.Header().Set("Content-Length", "100")
			_, _ = io.WriteString(w, "partial")
			w.(http.Flusher).Flush()
		}
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}
}

func TestDoBoundsEveryPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		body     bool // the head comes back, the body stalls
		fallback bool // a streaming upload, sent by the fallback transport
		// callerTimeout bounds the caller's context, cancelAfter cancels
		// it; zero for none. The call timeout is 50ms unless the caller
		// ends first.
		callerTimeout, cancelAfter time.Duration
		want                       Kind
	}{
		{desc: "head slower than the call timeout", want: KindTimeout},
		{desc: "body slower than the call timeout", body: true, want: KindTimeout},
		{desc: "caller deadline before the call timeout", callerTimeout: 30 * time.Millisecond, want: KindTimeout},
		{desc: "caller cancels before the head", cancelAfter: 30 * time.Millisecond, want: KindCanceled},
		{desc: "caller cancels during the body", body: true, cancelAfter: 30 * time.Millisecond, want: KindCanceled},
		{desc: "fallback head slower than the call timeout", fallback: true, want: KindTimeout},
		{desc: "fallback body slower than the call timeout", fallback: true, body: true, want: KindTimeout},
		{desc: "fallback caller cancels", fallback: true, cancelAfter: 30 * time.Millisecond, want: KindCanceled},
	}
	for _, path := range paths() {
		for _, tt := range tests {
			t.Run(path+"/"+tt.desc, func(t *testing.T) {
				t.Parallel()
				f := newFake(t, stallAfter(tt.body))
				s := testSettings(f.srv.URL)
				s.Timeout = 50 * time.Millisecond
				if tt.cancelAfter > 0 {
					s.Timeout = time.Minute
				}
				c, rec := newPathClient(t, s, path)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				if tt.callerTimeout > 0 {
					s.Timeout = time.Minute
					ctx, cancel = context.WithTimeout(ctx, tt.callerTimeout)
					defer cancel()
				}
				if tt.cancelAfter > 0 {
					time.AfterFunc(tt.cancelAfter, cancel)
				}
				var body io.Reader
				method := http.MethodGet
				if tt.fallback {
					method, body = http.MethodPost, io.NopCloser(strings.NewReader("upload"))
				}
				req, err := http.NewRequestWithContext(ctx, method, f.srv.URL, body)
				require.NoError(t, err)

				resp, err := c.Do(req)
				if err == nil {
					_, err = io.ReadAll(resp.Body)
					require.NoError(t, resp.Body.Close())
				}
				require.Error(t, err)
				assert.Equal(t, tt.want, kindOf(err), "%v", err)
				outcomes, _ := rec.seen()
				assert.Equal(t, []string{tt.want.String()}, outcomes)
				assert.Equal(t, 0, c.limit.inFlightNow())
				if tt.want == KindTimeout {
					assert.Equal(t, http.StatusGatewayTimeout, StatusFor(err))
				}
			})
		}
	}
}

func TestDoRetriesWithinTheDeadline(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		handler func() http.HandlerFunc // a new one per path: they count
		backoff time.Duration
		hits    int64
		want    Kind // 0: success
	}{
		{desc: "header timeout retried while the call has time", handler: func() http.HandlerFunc {
			first := make(chan struct{}, 1)
			first <- struct{}{}
			return func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-first:
					stallAfter(false)(w, r)
				default:
					_, _ = io.WriteString(w, "ok")
				}
			}
		}, backoff: time.Millisecond, hits: 2},
		{desc: "backoff that would outlive the deadline is not slept", handler: func() http.HandlerFunc {
			return failFirst(1, http.StatusBadGateway)
		},
			backoff: time.Hour, hits: 1, want: KindFailed},
	}
	for _, path := range paths() {
		for _, tt := range tests {
			t.Run(path+"/"+tt.desc, func(t *testing.T) {
				t.Parallel()
				f := newFake(t, tt.handler())
				s := testSettings(f.srv.URL)
				s.Timeout = 10 * time.Second
				s.ResponseHeaderTimeout = 50 * time.Millisecond
				s.Retry = RetrySettings{Attempts: 3, Backoff: tt.backoff}
				c, _ := newPathClient(t, s, path)
				_, _, err := fetch(context.Background(), c, http.MethodGet, f.srv.URL, "")
				assert.Equal(t, tt.want, kindOf(err), "%v", err)
				assert.Equal(t, tt.hits, f.hits.Load())
			})
		}
	}
}

// TestDoReadAfterCloseIsClassifiedAlike holds the two paths together on a
// read after Close, where the timer context is already cancelled.
func TestDoReadAfterCloseIsClassifiedAlike(t *testing.T) {
	t.Parallel()
	for _, path := range paths() {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, answer(http.StatusOK, strings.Repeat("x", 64)))
			c, _ := newPathClient(t, testSettings(f.srv.URL), path)
			resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, f.srv.URL))
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			_, err = resp.Body.Read(make([]byte, 8))
			assert.Equal(t, KindTimeout, kindOf(err), "%v", err)
		})
	}
}

// BenchmarkDoPaths is BenchmarkDo under a cancellable caller's context, as
// a gateway request has, on both paths.
func BenchmarkDoPaths(b *testing.B) {
	f := newFake(b, answer(http.StatusOK, `{"id":"001","name":"Acme"}`))
	s := testSettings(f.srv.URL)
	s.Auth = AuthSettings{BearerToken: "token"}
	parent, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx := WithCallState(parent, &CallState{})
	for _, path := range paths() {
		b.Run(path, func(b *testing.B) {
			c, _ := newPathClient(b, s, path)
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := fetch(ctx, c, http.MethodGet, f.srv.URL, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
