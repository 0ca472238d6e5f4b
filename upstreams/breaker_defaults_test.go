package upstreams

import (
	"context"
	"math/rand/v2"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These fault tests run the shipped breaker defaults (Settings with only a
// URL) against backends that fail in the ways operators meet: the defaults
// must open on a dead or mostly failing backend and never on mild
// flakiness.

// failingEvery answers 502 to every n-th call and 200 to the others.
func failingEvery(n int64) func(*fake) http.HandlerFunc {
	return func(f *fake) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			if f.hits.Load()%n == 0 {
				http.Error(w, "flaky", http.StatusBadGateway)
				return
			}
			_, _ = w.Write([]byte(`{"ok":true}`))
		}
	}
}

// newFakeOf is newFake whose handler sees the fake (its hit count).
func newFakeOf(t *testing.T, h func(*fake) http.HandlerFunc) *fake {
	t.Helper()
	var f *fake
	f = newFake(t, func(w http.ResponseWriter, r *http.Request) { h(f)(w, r) })
	return f
}

func TestDefaultBreakerOpensOnADeadBackend(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		desc   string
		method string
		opens  int // the request after which the breaker is open
	}{
		{desc: "idempotent requests, each tried twice", method: http.MethodGet, opens: 5},
		{desc: "requests that are not retried", method: http.MethodPost, opens: 10},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			dead := "http://" + ln.Addr().String()
			require.NoError(t, ln.Close())
			c, rec := newTestClient(t, Settings{URL: dead})

			for i := 1; i <= tt.opens; i++ {
				_, _, err := fetch(context.Background(), c, tt.method, dead, "")
				require.Equal(t, KindFailed, kindOf(err), "request %d", i)
			}
			assert.Equal(t, "open", c.BreakerState(), "open after %d requests", tt.opens)
			_, _, err = fetch(context.Background(), c, tt.method, dead, "")
			assert.Equal(t, KindOpen, kindOf(err))
			_, changes := rec.seen()
			assert.Equal(t, []string{"closed->open"}, changes)
		})
	}
}

func TestDefaultBreakerOpensOnAMostlyFailingBackend(t *testing.T) {
	t.Parallel()
	// Two calls in three fail: never ten in a row, so only the ratio rule
	// can open the breaker, once minRequests (20) calls finished.
	f := newFakeOf(t, func(f *fake) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			if f.hits.Load()%3 != 0 {
				http.Error(w, "mostly down", http.StatusBadGateway)
				return
			}
			_, _ = w.Write([]byte(`{}`))
		}
	})
	c, _ := newTestClient(t, Settings{URL: f.srv.URL})
	for i := 1; i <= 20; i++ {
		_, _, _ = fetch(context.Background(), c, http.MethodPost, f.srv.URL, "")
		if i < 20 {
			require.Equal(t, "closed", c.BreakerState(), "call %d: under minRequests", i)
		}
	}
	assert.Equal(t, "open", c.BreakerState(), "14 failures among 20 calls")
}

func TestDefaultBreakerStaysClosedOnTenPercentFlakiness(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		desc     string
		method   string
		failures int // what the client sees
	}{
		// The retry of a failed call is the next call, which succeeds.
		{desc: "idempotent requests", method: http.MethodGet, failures: 0},
		{desc: "requests that are not retried", method: http.MethodPost, failures: 40},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			f := newFakeOf(t, failingEvery(10))
			c, rec := newTestClient(t, Settings{URL: f.srv.URL})
			failures := 0
			for range 400 {
				_, _, err := fetch(context.Background(), c, tt.method, f.srv.URL, "")
				if err != nil {
					require.Equal(t, KindFailed, kindOf(err), "never refused by the breaker")
					failures++
				}
			}
			assert.Equal(t, tt.failures, failures)
			assert.Equal(t, "closed", c.BreakerState())
			_, changes := rec.seen()
			assert.Empty(t, changes)
		})
	}
}

func TestDefaultBreakerStaysClosedOnRandomTenPercentFailures(t *testing.T) {
	t.Parallel()
	// Failures at random (a fixed seed, so the run is the same every time)
	// come in runs now and then; ten in a row is what the consecutive rule
	// waits for, about once in ten billion calls.
	rng := rand.New(rand.NewPCG(1, 2))
	fail := make([]bool, 2000)
	for i := range fail {
		fail[i] = rng.IntN(10) == 0
	}
	f := newFakeOf(t, func(f *fake) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			if n := f.hits.Load(); n <= int64(len(fail)) && fail[n-1] {
				http.Error(w, "flaky", http.StatusServiceUnavailable)
				return
			}
			_, _ = w.Write([]byte(`{}`))
		}
	})
	c, rec := newTestClient(t, Settings{URL: f.srv.URL})
	for range len(fail) {
		_, _, err := fetch(context.Background(), c, http.MethodPost, f.srv.URL, "")
		require.NotEqual(t, KindOpen, kindOf(err))
	}
	_, changes := rec.seen()
	assert.Empty(t, changes)
}
