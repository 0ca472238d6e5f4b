package upstreams

import (
	"context"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// failFirst answers the first n requests with status (0: drop the
// connection without an answer) and then echoes the request body.
func failFirst(n int64, status int) http.HandlerFunc {
	var seen atomic.Int64
	return func(w http.ResponseWriter, r *http.Request) {
		if seen.Add(1) <= n {
			if status == 0 {
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					_ = conn.Close()
				}
				return
			}
			w.WriteHeader(status)
			return
		}
		_, _ = io.Copy(w, r.Body)
	}
}

func TestRetries(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		method   string
		body     string
		handler  http.HandlerFunc
		attempts int
		noRetry  bool
		noReplay bool
		header   string
		wantHits int64
		wantKind Kind
	}{
		{desc: "GET after 503", method: http.MethodGet, handler: failFirst(1, 503), wantHits: 2},
		{desc: "GET after two 502s", method: http.MethodGet, handler: failFirst(2, 502), attempts: 3, wantHits: 3},
		{desc: "GET after a dropped connection", method: http.MethodGet, handler: failFirst(1, 0), wantHits: 2},
		{desc: "GET gives up after its attempts", method: http.MethodGet, handler: failFirst(9, 504), attempts: 3, wantHits: 3, wantKind: KindFailed},
		{desc: "GET not after 500", method: http.MethodGet, handler: failFirst(1, 500), wantHits: 1, wantKind: KindFailed},
		{desc: "PUT replays its body", method: http.MethodPut, body: "payload", handler: failFirst(1, 503), wantHits: 2},
		{desc: "PUT whose body cannot be replayed", method: http.MethodPut, body: "payload", noReplay: true, handler: failFirst(1, 502), wantHits: 1, wantKind: KindFailed},
		{desc: "POST never", method: http.MethodPost, body: "payload", handler: failFirst(1, 502), wantHits: 1, wantKind: KindFailed},
		{desc: "PATCH never", method: http.MethodPatch, handler: failFirst(1, 0), wantHits: 1, wantKind: KindFailed},
		{desc: "POST with an Idempotency-Key", method: http.MethodPost, body: "payload", header: "Idempotency-Key", handler: failFirst(1, 503), wantHits: 2},
		{desc: "PATCH with an X-Idempotency-Key", method: http.MethodPatch, header: "X-Idempotency-Key", handler: failFirst(1, 0), wantHits: 2},
		{desc: "POST with an Idempotency-Key but a body that cannot be replayed", method: http.MethodPost, body: "payload",
			header: "Idempotency-Key", noReplay: true, handler: failFirst(1, 502), wantHits: 1, wantKind: KindFailed},
		{desc: "route turned retries off", method: http.MethodGet, noRetry: true, handler: failFirst(1, 502), wantHits: 1, wantKind: KindFailed},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, tt.handler)
			s := testSettings(f.srv.URL)
			s.Retry = RetrySettings{Attempts: max(tt.attempts, 2), Backoff: time.Millisecond, Budget: 1}
			c, rec := newTestClient(t, s)
			ctx := WithCallState(context.Background(), &CallState{Options: CallOptions{NoRetry: tt.noRetry}})
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			req, err := http.NewRequestWithContext(ctx, tt.method, f.srv.URL, body)
			require.NoError(t, err)
			if tt.noReplay {
				req.GetBody = nil
			}
			if tt.header != "" {
				req.Header[tt.header] = []string{"batch-1"}
			}

			resp, err := c.Do(req)
			assert.Equal(t, tt.wantHits, f.hits.Load())
			if tt.wantKind != 0 {
				outcomes, _ := rec.seen()
				assert.Equal(t, tt.wantKind, kindOf(err))
				assert.Equal(t, []string{tt.wantKind.String()}, outcomes, "one report per call, retries included")
				return
			}
			require.NoError(t, err)
			got, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			require.NoError(t, resp.Body.Close())
			assert.Equal(t, tt.body, string(got), "the retried request carries the whole body")
			outcomes, _ := rec.seen()
			assert.Equal(t, []string{"success"}, outcomes)
		})
	}
}

func TestRetryBudgetCapsRetries(t *testing.T) {
	t.Parallel()
	f := newFake(t, answer(http.StatusServiceUnavailable, ""))
	s := testSettings(f.srv.URL)
	s.Retry = RetrySettings{Attempts: 2, Backoff: time.Microsecond, Budget: 0.1}
	c, _ := newTestClient(t, s)

	const calls = 50
	for range calls {
		_, _, err := fetch(context.Background(), c, http.MethodGet, f.srv.URL, "")
		require.Error(t, err)
	}
	retries := f.hits.Load() - calls
	// The bucket starts with budgetCap tokens and gains 0.1 per call.
	assert.LessOrEqual(t, retries, int64(budgetCap/tokenScale+calls/10))
	assert.GreaterOrEqual(t, retries, int64(budgetCap/tokenScale))

	before := f.hits.Load()
	for range 10 {
		_, _, _ = fetch(context.Background(), c, http.MethodGet, f.srv.URL, "")
	}
	assert.LessOrEqual(t, f.hits.Load()-before, int64(11), "once spent, one retry per ten calls")
}

func TestRetryStopsWhenBreakerOpens(t *testing.T) {
	t.Parallel()
	f := newFake(t, answer(http.StatusBadGateway, "overloaded"))
	s := testSettings(f.srv.URL)
	s.Breaker = BreakerSettings{ConsecutiveFailures: 1, OpenTimeout: time.Hour}
	s.Retry = RetrySettings{Attempts: 5, Backoff: time.Millisecond, Budget: 1}
	c, _ := newTestClient(t, s)

	_, _, err := fetch(context.Background(), c, http.MethodGet, f.srv.URL, "")
	ue := AsError(err)
	require.NotNil(t, ue)
	assert.Equal(t, KindFailed, ue.Kind, "the backend's own answer, not the breaker's")
	assert.Equal(t, http.StatusBadGateway, ue.Status)
	assert.Equal(t, "overloaded", ue.Message)
	assert.EqualValues(t, 1, f.hits.Load())
	assert.Equal(t, "open", c.BreakerState())
}

func TestRetryBudgetBucket(t *testing.T) {
	t.Parallel()
	r := newRetrier(RetrySettings{Budget: 0.5}, rand.NewPCG(1, 2))
	for range budgetCap / tokenScale {
		require.True(t, r.spend())
	}
	assert.False(t, r.spend(), "empty")
	r.onCall()
	assert.False(t, r.spend(), "half a token is not a retry")
	r.onCall()
	assert.True(t, r.spend())
	for range 1000 {
		r.onCall()
	}
	assert.EqualValues(t, budgetCap, r.tokens.Load(), "capped")
}

func TestReplayable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		method string
		body   io.Reader
		want   bool
	}{
		{desc: "GET", method: http.MethodGet, want: true},
		{desc: "HEAD", method: http.MethodHead, want: true},
		{desc: "OPTIONS", method: http.MethodOptions, want: true},
		{desc: "DELETE", method: http.MethodDelete, want: true},
		{desc: "PUT with a rewindable body", method: http.MethodPut, body: strings.NewReader("x"), want: true},
		{desc: "PUT with a stream", method: http.MethodPut, body: io.MultiReader(strings.NewReader("x"))},
		{desc: "POST", method: http.MethodPost},
		{desc: "PATCH", method: http.MethodPatch},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequest(tt.method, "http://backend", tt.body)
			require.NoError(t, err)
			assert.Equal(t, tt.want, replayable(req))
		})
	}
}

func TestBackoffCeiling(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		backoff time.Duration
		n       int
		want    time.Duration
	}{
		{desc: "first retry", backoff: 25 * time.Millisecond, n: 1, want: 25 * time.Millisecond},
		{desc: "doubles", backoff: 25 * time.Millisecond, n: 3, want: 100 * time.Millisecond},
		{desc: "no backoff", backoff: 0, n: 4, want: 0},
		{desc: "stops doubling", backoff: time.Hour, n: 1000, want: time.Hour << maxBackoffShift},
		{desc: "saturates", backoff: 1 << 50, n: 30, want: math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, backoffCeiling(tt.backoff, tt.n))
		})
	}
}

func FuzzBackoffCeiling(f *testing.F) {
	f.Add(int64(25*time.Millisecond), 1)
	f.Add(int64(time.Hour), 64)
	f.Add(int64(1), 1<<30)
	f.Add(int64(-5), 3)
	f.Fuzz(func(t *testing.T, backoff int64, n int) {
		got := backoffCeiling(time.Duration(backoff), n)
		if backoff <= 0 || n < 1 {
			assert.Zero(t, got)
			return
		}
		assert.GreaterOrEqual(t, got, time.Duration(backoff), "never below the base, never overflows")
		r := newRetrier(RetrySettings{Backoff: time.Duration(backoff)}, rand.NewPCG(uint64(backoff), uint64(n)))
		d := r.delay(n)
		assert.GreaterOrEqual(t, d, time.Duration(0))
		assert.Less(t, d, got)
	})
}

func TestSleep(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	short, stop := context.WithTimeout(context.Background(), time.Hour)
	defer stop()
	tests := []struct {
		desc string
		ctx  context.Context
		d    time.Duration
		want bool
	}{
		{desc: "no wait", ctx: context.Background(), d: 0, want: true},
		{desc: "short wait", ctx: context.Background(), d: time.Millisecond, want: true},
		{desc: "caller gone", ctx: cancelled, d: time.Hour},
		{desc: "caller gone, no wait", ctx: cancelled, d: 0},
		{desc: "wait would outlive the deadline", ctx: short, d: 2 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, sleep(tt.ctx, tt.d))
		})
	}
}

func TestSleepUntil(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	live := context.Background()
	tests := []struct {
		desc     string
		ctx      context.Context
		deadline time.Time
		d        time.Duration
		want     bool
	}{
		{desc: "no deadline, short wait", ctx: live, d: time.Millisecond, want: true},
		{desc: "wait within the deadline", ctx: live, deadline: time.Now().Add(time.Hour), d: time.Millisecond, want: true},
		{desc: "wait would outlive the deadline", ctx: live, deadline: time.Now().Add(time.Hour), d: 2 * time.Hour},
		{desc: "deadline passed, no wait", ctx: live, deadline: time.Now().Add(-time.Second), d: 0},
		{desc: "caller gone", ctx: cancelled, deadline: time.Now().Add(2 * time.Hour), d: time.Hour},
		{desc: "caller gone, no wait", ctx: cancelled, d: 0},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, sleepUntil(tt.ctx, tt.deadline, tt.d))
		})
	}
}
