package upstreams

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/sony/gobreaker/v2"
)

// halfOpenRetryAfter is the Retry-After hint while the breaker is half-open
// and its probes are all in flight: their outcome is expected well within it.
const halfOpenRetryAfter = time.Second

// breaker is one upstream's circuit breaker: a gobreaker two-step breaker
// plus the instant it last opened, which gobreaker does not expose and the
// gateway needs for Retry-After.
type breaker struct {
	name        string
	cb          *gobreaker.TwoStepCircuitBreaker[struct{}]
	openTimeout time.Duration
	openedAt    atomic.Int64 // unix nanoseconds of the last transition to open
}

// newBreaker builds the breaker from settings that already carry their
// defaults. obs is called under the breaker's lock and must not block.
func newBreaker(name string, s BreakerSettings, obs Observer) *breaker {
	b := &breaker{name: name, openTimeout: s.OpenTimeout}
	b.cb = gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        name,
		MaxRequests: s.HalfOpenRequests,
		Interval:    s.Interval,
		// A rolling window: the counts of the oldest bucket age out every
		// BucketPeriod, instead of every count at once every Interval.
		BucketPeriod: s.BucketPeriod,
		Timeout:      s.OpenTimeout,
		ReadyToTrip:  readyToTrip(s),
		OnStateChange: func(_ string, from, to gobreaker.State) {
			if to == gobreaker.StateOpen {
				b.openedAt.Store(time.Now().UnixNano())
			}
			obs.BreakerChanged(name, from.String(), to.String())
		},
		IsExcluded: isExcluded,
	})
	return b
}

// readyToTrip trips on ConsecutiveFailures in a row, or on FailureRatio of
// failures among at least MinRequests calls finished in the window.
func readyToTrip(s BreakerSettings) func(gobreaker.Counts) bool {
	return func(c gobreaker.Counts) bool {
		if c.ConsecutiveFailures >= s.ConsecutiveFailures {
			return true
		}
		finished := c.TotalSuccesses + c.TotalFailures
		return finished >= s.MinRequests && float64(c.TotalFailures)/float64(finished) >= s.FailureRatio
	}
}

// errFlowControl is what the breaker is told of a 429 or 503 answer to a
// client whose caller waits them out itself (WithOwnFlowControl).
var errFlowControl = errors.New("flow control answer waited out by the caller")

// isExcluded keeps out of the counts calls the gateway's own client
// abandoned (a burst of impatient clients says nothing about the backend),
// 5xx answers the caller explained (WithFailureCheck), an attempt refused
// for an ended session, renewed and sent again, and the flow control of a
// backend whose caller paces itself (WithOwnFlowControl), and a call that
// ran out of time waiting for an access token (ErrTokenTimeout): the token
// endpoint was slow, the backend was not called.
func isExcluded(err error) bool {
	if err == errStaleToken || err == errExplained || err == errFlowControl {
		return true
	}
	ue := AsError(err)
	return ue != nil && (ue.Kind == KindCanceled || ue.Err == ErrTokenTimeout)
}

// allow admits one attempt. The returned done must be called exactly once
// with the attempt's outcome (nil for success). A refused attempt gets a
// KindOpen *Error whose RetryAfter says when to try again.
func (b *breaker) allow() (done func(error), err *Error) {
	done, gerr := b.cb.Allow()
	if gerr == nil {
		return done, nil
	}
	retryAfter := halfOpenRetryAfter
	if errors.Is(gerr, gobreaker.ErrOpenState) {
		opened := time.Unix(0, b.openedAt.Load())
		retryAfter = max(time.Until(opened.Add(b.openTimeout)), 0)
	}
	retryAfter = min(retryAfter, b.openTimeout)
	return nil, &Error{Upstream: b.name, Kind: KindOpen, RetryAfter: retryAfter, Err: gerr}
}

// state is "closed", "half-open" or "open".
func (b *breaker) state() string { return b.cb.State().String() }
