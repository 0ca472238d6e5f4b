package upstreams

import (
	"context"
	"io"
	"math"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/sony/gobreaker/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBreakerOpensAndFailsFastWithoutNetwork(t *testing.T) {
	t.Parallel()
	f := newFake(t, answer(http.StatusInternalServerError, "boom"))
	s := testSettings(f.srv.URL)
	s.Breaker = BreakerSettings{ConsecutiveFailures: 3, OpenTimeout: time.Hour}
	c, rec := newTestClient(t, s)
	ctx := context.Background()

	for range 3 {
		_, _, err := fetch(ctx, c, http.MethodGet, f.srv.URL, "")
		require.Equal(t, KindFailed, kindOf(err))
	}
	require.Equal(t, "open", c.BreakerState())
	require.EqualValues(t, 3, f.hits.Load())

	for range 5 {
		_, _, err := fetch(ctx, c, http.MethodGet, f.srv.URL, "")
		ue := AsError(err)
		require.NotNil(t, ue)
		assert.Equal(t, KindOpen, ue.Kind)
		assert.Equal(t, http.StatusServiceUnavailable, StatusFor(err))
		assert.Positive(t, ue.RetryAfter)
		assert.LessOrEqual(t, ue.RetryAfter, time.Hour)
		assert.Greater(t, ue.RetryAfter, 59*time.Minute, "opened moments ago")
	}
	assert.EqualValues(t, 3, f.hits.Load(), "an open breaker sends nothing")
	outcomes, changes := rec.seen()
	assert.Equal(t, []string{"closed->open"}, changes)
	assert.Equal(t, []string{"failed", "failed", "failed", "open", "open", "open", "open", "open"}, outcomes)
}

func TestBreakerHalfOpenLetsProbesThroughThenCloses(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	failing := true
	gate := make(chan struct{})
	arrived := make(chan struct{}, 10)
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fail := failing
		mu.Unlock()
		if fail {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		arrived <- struct{}{}
		<-gate
		_, _ = io.WriteString(w, "ok")
	})
	s := testSettings(f.srv.URL)
	s.Breaker = BreakerSettings{ConsecutiveFailures: 2, OpenTimeout: 30 * time.Millisecond, HalfOpenRequests: 2}
	c, rec := newTestClient(t, s)
	ctx := context.Background()

	for range 2 {
		_, _, err := fetch(ctx, c, http.MethodGet, f.srv.URL, "")
		require.Error(t, err)
	}
	require.Equal(t, "open", c.BreakerState())
	mu.Lock()
	failing = false
	mu.Unlock()
	require.Eventually(t, func() bool { return c.BreakerState() == "half-open" }, 2*time.Second, 5*time.Millisecond)

	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		wg.Go(func() {
			_, _, err := fetch(ctx, c, http.MethodGet, f.srv.URL, "")
			errs <- err
		})
	}
	<-arrived
	<-arrived
	before := f.hits.Load()
	_, _, err := fetch(ctx, c, http.MethodGet, f.srv.URL, "")
	assert.Equal(t, KindOpen, kindOf(err), "probes exhausted")
	assert.Equal(t, min(halfOpenRetryAfter, s.Breaker.OpenTimeout), AsError(err).RetryAfter)
	assert.Equal(t, before, f.hits.Load(), "a refused probe sends nothing")

	close(gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	assert.Equal(t, "closed", c.BreakerState())
	_, changes := rec.seen()
	assert.Equal(t, []string{"closed->open", "open->half-open", "half-open->closed"}, changes)
}

func TestBreakerCountsResetMidBodyAsFailure(t *testing.T) {
	t.Parallel()
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			return
		}
		defer conn.Close()
		_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"partial\":")
		_ = buf.Flush()
	})
	s := testSettings(f.srv.URL)
	s.Breaker = BreakerSettings{ConsecutiveFailures: 2, OpenTimeout: time.Hour}
	c, rec := newTestClient(t, s)

	for range 2 {
		status, _, err := fetch(context.Background(), c, http.MethodGet, f.srv.URL, "")
		assert.Equal(t, http.StatusOK, status, "headers arrived")
		assert.Equal(t, KindFailed, kindOf(err), "the body read fails")
	}
	assert.Equal(t, "open", c.BreakerState())
	outcomes, _ := rec.seen()
	assert.Equal(t, []string{"failed", "failed"}, outcomes)
	assert.Equal(t, 0, c.limit.inFlightNow())
}

func TestBreakerIgnoresRejections(t *testing.T) {
	t.Parallel()
	f := newFake(t, answer(http.StatusNotFound, `{"errorCode":"NOT_FOUND"}`))
	s := testSettings(f.srv.URL)
	s.Breaker = BreakerSettings{ConsecutiveFailures: 2, OpenTimeout: time.Hour}
	c, rec := newTestClient(t, s)

	for range 10 {
		status, body, err := fetch(context.Background(), c, http.MethodGet, f.srv.URL, "")
		require.NoError(t, err, "4xx comes back as a response")
		assert.Equal(t, http.StatusNotFound, status)
		assert.Contains(t, body, "NOT_FOUND")
	}
	assert.Equal(t, "closed", c.BreakerState())
	outcomes, _ := rec.seen()
	assert.Len(t, outcomes, 10)
	assert.Equal(t, "rejected", outcomes[0])
}

func TestBreakerIgnoresCancelledCallers(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 1)
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		<-r.Context().Done()
	})
	s := testSettings(f.srv.URL)
	s.Breaker = BreakerSettings{ConsecutiveFailures: 2, OpenTimeout: time.Hour}
	s.Retry = RetrySettings{Attempts: 3, Backoff: time.Millisecond, Budget: 1}
	c, rec := newTestClient(t, s)

	for range 10 {
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-arrived
			cancel()
		}()
		_, _, err := fetch(ctx, c, http.MethodGet, f.srv.URL, "")
		assert.Equal(t, KindCanceled, kindOf(err))
		assert.Equal(t, StatusClientClosedRequest, StatusFor(err))
		cancel()
	}
	assert.Equal(t, "closed", c.BreakerState())
	assert.EqualValues(t, 10, f.hits.Load(), "a cancelled call is not retried")
	outcomes, changes := rec.seen()
	assert.Empty(t, changes)
	assert.Len(t, outcomes, 10)
	assert.Equal(t, "canceled", outcomes[9])
}

func TestBreakersOfTwoClientsAreIndependent(t *testing.T) {
	t.Parallel()
	bad := newFake(t, answer(http.StatusBadGateway, ""))
	good := newFake(t, answer(http.StatusOK, "ok"))
	sBad := testSettings(bad.srv.URL)
	sBad.Breaker = BreakerSettings{ConsecutiveFailures: 2, OpenTimeout: time.Hour}
	sGood := sBad
	sGood.URL = good.srv.URL
	failing, _ := newTestClient(t, sBad)
	healthy, _ := newTestClient(t, sGood)

	for range 3 {
		_, _, _ = fetch(context.Background(), failing, http.MethodGet, bad.srv.URL, "")
	}
	require.Equal(t, "open", failing.BreakerState())
	status, _, err := fetch(context.Background(), healthy, http.MethodGet, good.srv.URL, "")
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "closed", healthy.BreakerState())
}

func TestReadyToTrip(t *testing.T) {
	t.Parallel()
	s := BreakerSettings{ConsecutiveFailures: 5, FailureRatio: 0.5, MinRequests: 10}
	tests := []struct {
		desc   string
		s      BreakerSettings
		counts gobreaker.Counts
		want   bool
	}{
		{desc: "consecutive failures reached", s: s, counts: gobreaker.Counts{ConsecutiveFailures: 5, TotalFailures: 5}, want: true},
		{desc: "below both rules", s: s, counts: gobreaker.Counts{ConsecutiveFailures: 1, TotalFailures: 4, TotalSuccesses: 5}},
		{desc: "ratio reached with enough calls", s: s, counts: gobreaker.Counts{ConsecutiveFailures: 1, TotalFailures: 5, TotalSuccesses: 5}, want: true},
		{desc: "ratio reached with too few calls", s: s, counts: gobreaker.Counts{ConsecutiveFailures: 1, TotalFailures: 3, TotalSuccesses: 1}},
		{desc: "exclusions do not count toward MinRequests", s: s, counts: gobreaker.Counts{Requests: 20, TotalExclusions: 12, ConsecutiveFailures: 1, TotalFailures: 4, TotalSuccesses: 4}},
		{desc: "ratio rule out of reach", s: BreakerSettings{ConsecutiveFailures: 5, FailureRatio: 0.5, MinRequests: math.MaxUint32},
			counts: gobreaker.Counts{ConsecutiveFailures: 1, TotalFailures: 9, TotalSuccesses: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, readyToTrip(tt.s)(tt.counts))
		})
	}
}
