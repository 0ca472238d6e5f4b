package cluster

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/sony/gobreaker/v2"
)

// guard bounds and watches every call to Redis: a deadline per call, a
// gobreaker breaker that stops asking a failing Redis for a while and lets
// one call probe it afterwards, the metrics, and a warning at most once per
// warnEvery.
type guard struct {
	timeout time.Duration
	cb      *gobreaker.TwoStepCircuitBreaker[struct{}]
	rec     Recorder
	logger  *slog.Logger

	lastWarn   atomic.Int64 // unix nanoseconds of the last warning
	suppressed atomic.Int64 // failures since then not warned about
}

func newGuard(timeout time.Duration, threshold int, retry time.Duration, rec Recorder, logger *slog.Logger) *guard {
	return newGuardOf(guardOf{name: "cluster-store", timeout: timeout, threshold: threshold, retry: retry, rec: rec,
		logger: logger, state: rec.ClusterStoreState,
		down: "shared store down: rate limits and duplicates are decided by each replica alone",
		back: "shared store back: rate limits and duplicates are shared again"})
}

// guardOf is what a guard is made of: its breaker's name, timeout and trip
// settings, the metrics, the log, and what a state change tells (state
// reports it; down and back are the warning and the notice).
type guardOf struct {
	name       string
	timeout    time.Duration
	threshold  int
	retry      time.Duration
	rec        Recorder
	logger     *slog.Logger
	state      func(int)
	down, back string
}

func newGuardOf(o guardOf) *guard {
	g := &guard{timeout: o.timeout, rec: o.rec, logger: o.logger}
	g.cb = gobreaker.NewTwoStepCircuitBreaker[struct{}](gobreaker.Settings{
		Name:        o.name,
		MaxRequests: 1,
		Timeout:     o.retry,
		Interval:    o.retry,
		ReadyToTrip: readyToTrip(o.threshold),
		OnStateChange: func(_ string, from, to gobreaker.State) {
			o.state(stateOf(to))
			switch to {
			case gobreaker.StateOpen:
				if from == gobreaker.StateClosed {
					o.logger.Warn(o.down, "retry_in", o.retry.String())
				}
			case gobreaker.StateClosed:
				o.logger.Info(o.back)
			}
		},
	})
	return g
}

// readyToTrip stops asking Redis once threshold calls in a row failed and
// failures are at least half of the calls since the counts were last
// cleared (every RetryInterval): a Redis that is gone or hung fails every
// call and trips it within threshold calls, while a stall of the replica
// itself (a pause that makes the calls in flight time out together) is a
// burst among many successes, decided locally call by call without
// leaving Redis for a whole RetryInterval.
func readyToTrip(threshold int) func(gobreaker.Counts) bool {
	return func(c gobreaker.Counts) bool {
		return c.ConsecutiveFailures >= uint32(threshold) && c.TotalFailures >= c.TotalSuccesses
	}
}

func stateOf(s gobreaker.State) int {
	switch s {
	case gobreaker.StateOpen:
		return StateDown
	case gobreaker.StateHalfOpen:
		return StateProbing
	}
	return StateUp
}

// run calls fn with a context that ends after the timeout, unless Redis is
// known to be down (then errLocal without calling). The caller's
// cancellation does not reach fn: a client that hangs up says nothing
// about Redis, and the decision is still recorded. The caller decides what
// an error means (a local decision, or a refusal when failing closed).
func (g *guard) run(ctx context.Context, op string, fn func(context.Context) error) error {
	done, err := g.cb.Allow()
	if err != nil {
		return errLocal{}
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), g.timeout)
	err = fn(ctx)
	cancel()
	g.rec.ClusterStoreCall(op, time.Since(start), err)
	done(err)
	if err != nil {
		g.warn(op, err)
	}
	return err
}

// warn logs the failure unless one was logged within warnEvery; the
// warning says how many were not.
func (g *guard) warn(op string, err error) {
	now := time.Now().UnixNano()
	last := g.lastWarn.Load()
	if now-last < int64(warnEvery) || !g.lastWarn.CompareAndSwap(last, now) {
		g.suppressed.Add(1)
		return
	}
	g.logger.Warn("shared store call failed; decided by this replica alone", "op", op, "err", describe(err),
		"failures_not_logged", g.suppressed.Swap(0), "timeout", g.timeout.String())
}

// describe names a timeout plainly: go-redis reports one as an i/o
// timeout or as the context's deadline.
func describe(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "no answer within the timeout"
	}
	var ne interface{ Timeout() bool }
	if errors.As(err, &ne) && ne.Timeout() {
		return "no answer within the timeout"
	}
	return err.Error()
}
