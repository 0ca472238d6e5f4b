package upstreams

import (
	"context"
	"math"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Retry budget in thousandths of a retry, so deposits of a fraction of a
// token stay exact integers.
const (
	tokenScale = 1000
	// budgetCap is how many retries a burst may spend after a quiet period.
	budgetCap = 10 * tokenScale
	// maxBackoffShift bounds the doubling so the ceiling cannot overflow.
	maxBackoffShift = 20
)

// retrier decides whether a failed attempt is tried again and how long to
// wait first. Its budget is a token bucket: every call deposits Budget of a
// token (up to budgetCap), every retry spends one, so retries add at most
// Budget to the load a failing backend sees, plus one burst of budgetCap.
type retrier struct {
	attempts int
	backoff  time.Duration
	deposit  int64
	tokens   atomic.Int64

	mu   sync.Mutex
	rand *rand.Rand
}

// newRetrier builds a retrier from settings that carry their defaults. The
// budget starts full so a restarted gateway can still retry.
func newRetrier(s RetrySettings, src rand.Source) *retrier {
	r := &retrier{
		attempts: s.Attempts,
		backoff:  s.Backoff,
		deposit:  int64(math.Round(s.Budget * tokenScale)),
		rand:     rand.New(src),
	}
	r.tokens.Store(budgetCap)
	return r
}

// onCall deposits one call's share of the budget.
func (r *retrier) onCall() {
	for {
		cur := r.tokens.Load()
		next := min(cur+r.deposit, budgetCap)
		if next == cur || r.tokens.CompareAndSwap(cur, next) {
			return
		}
	}
}

// spend takes one retry's token; false when the budget is exhausted.
func (r *retrier) spend() bool {
	for {
		cur := r.tokens.Load()
		if cur < tokenScale {
			return false
		}
		if r.tokens.CompareAndSwap(cur, cur-tokenScale) {
			return true
		}
	}
}

// replayable reports whether req may be sent again: its method is
// idempotent, or it carries an Idempotency-Key (or X-Idempotency-Key)
// header, which is how a caller says that a POST or PATCH may be repeated
// (net/http's Transport reads it the same way), and its body, if any, can be
// produced anew.
func replayable(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodPut, http.MethodDelete:
	default:
		if _, ok := req.Header["Idempotency-Key"]; !ok {
			if _, ok := req.Header["X-Idempotency-Key"]; !ok {
				return false
			}
		}
	}
	return req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
}

// retryableStatus is a 5xx that says "try again" rather than "this request
// is wrong": a gateway or overload answer.
func retryableStatus(status int) bool {
	return status == http.StatusBadGateway || status == http.StatusServiceUnavailable ||
		status == http.StatusGatewayTimeout
}

// delay draws the full-jitter wait before retry n (1 for the first retry):
// uniform in [0, backoff*2^(n-1)).
func (r *retrier) delay(n int) time.Duration {
	ceiling := backoffCeiling(r.backoff, n)
	if ceiling <= 0 {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Duration(r.rand.Int64N(int64(ceiling)))
}

// backoffCeiling is backoff doubled n-1 times, saturating instead of
// overflowing.
func backoffCeiling(backoff time.Duration, n int) time.Duration {
	if backoff <= 0 || n < 1 {
		return 0
	}
	shift := min(n-1, maxBackoffShift)
	if backoff > math.MaxInt64>>shift {
		return math.MaxInt64
	}
	return backoff << shift
}

// sleep waits d unless ctx ends first or its deadline would pass before
// the retry could even start; false means do not retry.
func sleep(ctx context.Context, d time.Duration) bool {
	deadline, _ := ctx.Deadline()
	return sleepUntil(ctx, deadline, d)
}

// sleepUntil is sleep bounded by deadline (zero: none) rather than by
// ctx's own, for a call that has no timer context: the backoff's timer is
// the only one such a call sets.
func sleepUntil(ctx context.Context, deadline time.Time, d time.Duration) bool {
	if !deadline.IsZero() && time.Until(deadline) <= d {
		return false
	}
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
