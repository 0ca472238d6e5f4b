package upstreams

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A token endpoint slower than the call's timeout ends the call at its
// deadline, not at the upstream's own timeout, on both ways a call is
// bounded; it is reported as the token endpoint's slowness, and neither
// the breaker nor the concurrency limit counts it against the backend,
// which was not called. The token request goes on: once it is answered,
// calls use its token.
func TestSlowTokenEndpointEndsAtTheCallsDeadline(t *testing.T) {
	t.Parallel()
	for _, path := range paths() {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			org := newFakeOrg(t)
			org.gate = make(chan struct{})
			released := false
			release := func() {
				if !released {
					released = true
					close(org.gate)
				}
			}
			t.Cleanup(release) // before the org's server closes

			o := org.oauth(t, FlowClientCredentials)
			s := testSettings(org.srv.URL)
			s.Timeout = 10 * time.Second // the upstream's own, which bounds the token request too
			s.Breaker.ConsecutiveFailures = 2
			c, rec := newTokenClientWith(t, s, o)
			if path == "timer-context" {
				c.bounded = nil
			}

			c.limit.mu.Lock()
			limit := c.limit.limit
			c.limit.mu.Unlock()
			const routeTimeout = 200 * time.Millisecond
			for range 3 {
				ctx := WithCallState(context.Background(), &CallState{Options: CallOptions{Timeout: routeTimeout}})
				start := time.Now()
				_, _, err := fetch(ctx, c, http.MethodGet, org.srv.URL+"/services/data/v62.0/query", "")
				took := time.Since(start)
				ue := AsError(err)
				require.NotNil(t, ue, "%v", err)
				assert.Equal(t, KindTimeout, ue.Kind)
				assert.ErrorIs(t, err, ErrTokenTimeout)
				assert.Equal(t, http.StatusGatewayTimeout, StatusFor(err))
				assert.Contains(t, err.Error(), "the token endpoint has not answered after")
				assert.GreaterOrEqual(t, took, routeTimeout)
				assert.Less(t, took, s.Timeout, "ended at the route's timeout, not the upstream's")
			}
			assert.EqualValues(t, 1, org.tokenHits.Load(), "one token request, still waiting")
			assert.Zero(t, org.apiHits.Load(), "the backend was not called")
			outcomes, changes := rec.seen()
			assert.Equal(t, []string{"timeout", "timeout", "timeout"}, outcomes)
			assert.Empty(t, changes, "three in a row, yet the breaker (2 in a row) stays closed")
			assert.Equal(t, "closed", c.BreakerState())
			c.limit.mu.Lock()
			assert.Zero(t, c.limit.winCount, "the concurrency limit took no sample")
			assert.Equal(t, limit, c.limit.limit, "a timeout would have halved the limit")
			assert.Zero(t, c.limit.inFlight)
			c.limit.mu.Unlock()

			release()
			require.Eventually(t, func() bool {
				status, _, err := fetch(context.Background(), c, http.MethodGet, org.srv.URL+"/services/data/v62.0/query", "")
				return err == nil && status == http.StatusOK
			}, 10*time.Second, 10*time.Millisecond)
			assert.EqualValues(t, 1, org.tokenHits.Load(), "the held request's token serves the calls after it")
		})
	}
}

// A caller that goes away while it waits for a token is canceled, as
// before: not a timeout, and not counted.
func TestTokenWaitCanceledByTheCaller(t *testing.T) {
	t.Parallel()
	org := newFakeOrg(t)
	org.gate = make(chan struct{})
	t.Cleanup(func() { close(org.gate) })
	c, rec := newTokenClient(t, org.srv.URL, org.oauth(t, FlowClientCredentials))
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() {
		_, _, err := fetch(ctx, c, http.MethodGet, org.srv.URL+"/x", "")
		errs <- err
	}()
	require.Eventually(t, func() bool { return org.tokenHits.Load() == 1 }, 10*time.Second, time.Millisecond)
	cancel()
	err := <-errs
	assert.Equal(t, KindCanceled, kindOf(err))
	assert.False(t, errors.Is(err, ErrTokenTimeout))
	outcomes, _ := rec.seen()
	assert.Equal(t, []string{"canceled"}, outcomes)
}

// The wait for a concurrency slot is part of the call too: a call queued
// behind a slow one leaves the queue at its route's timeout, refused as the
// full bulkhead (503, nothing sent), not handed a slot with no time left
// and failed as the backend's timeout, which the breaker and the limit
// would count.
func TestQueueWaitEndsAtTheCallsDeadline(t *testing.T) {
	t.Parallel()
	for _, path := range paths() {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			hold := make(chan struct{})
			var once sync.Once
			release := func() { once.Do(func() { close(hold) }) }
			var hits atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if hits.Add(1) == 1 {
					<-hold
				}
				_, _ = io.WriteString(w, `{}`)
			}))
			t.Cleanup(srv.Close)
			t.Cleanup(release)
			s := testSettings(srv.URL)
			s.Timeout = 10 * time.Second
			s.MaxConcurrent = 1
			s.Concurrency = ConcurrencySettings{Mode: ConcurrencyStatic}
			s.Breaker.ConsecutiveFailures = 1
			c, rec := newPathClient(t, s, path)

			first := make(chan error, 1)
			go func() {
				_, _, err := fetch(context.Background(), c, http.MethodGet, srv.URL, "")
				first <- err
			}()
			require.Eventually(t, func() bool { return hits.Load() == 1 }, 10*time.Second, time.Millisecond)

			ctx := WithCallState(context.Background(), &CallState{Options: CallOptions{Timeout: 200 * time.Millisecond}})
			start := time.Now()
			_, _, err := fetch(ctx, c, http.MethodGet, srv.URL, "")
			took := time.Since(start)
			assert.Equal(t, KindBulkheadFull, kindOf(err))
			assert.Less(t, took, s.Timeout, "left the queue at the route's timeout")
			assert.EqualValues(t, 1, hits.Load(), "nothing sent")
			assert.Equal(t, "closed", c.BreakerState(), "one failure would open it")

			release()
			require.NoError(t, <-first)
			outcomes, _ := rec.seen()
			assert.ElementsMatch(t, []string{"bulkhead_full", "success"}, outcomes)
		})
	}
}
