package upstreams

import (
	"context"
	"math"
	"sync"
	"time"
)

// limiter caps the calls in flight to one upstream with a limit that
// follows the backend's measured latency, in the manner of Netflix's
// concurrency-limits Gradient2: the latency of each window of calls
// (short-term) is compared with its long-term average, and
//
//	gradient = clamp(tolerance * long / short, 0.5, 1)  (0.5 when a call timed out)
//	limit    = (1-s)*limit + s*(limit + sqrt(limit))    when gradient is 1
//	limit    = (1-s)*limit + s*limit*gradient           when it is below
//
// with smoothing s = 0.2, clamped to [min, max]. While latency holds, the
// limit grows by about a fifth of its square root per window; when a
// window's latency exceeds tolerance times the long-term average, or a
// call in it timed out, the limit falls by up to a tenth per window, down
// to min. The limit only grows while it is used (calls in flight at least
// half of it), so a quiet upstream does not build a limit no load has
// proven. In static mode the limit is max and never moves.
//
// A call that finds the limit reached waits in a FIFO queue, up to queue
// calls and queueTimeout (less if its context ends first), for a slot
// another call frees; one that finds the queue full, or waits it out,
// fails at once (KindBulkheadFull, 503). Nothing is queued but the waiting
// goroutine itself, which the connection it serves already had: a slow or
// hanging backend holds at most limit calls and queue waiters.
type limiter struct {
	name     string
	adaptive bool
	min, max float64
	tol      float64
	queueMax int
	wait     time.Duration
	obs      limitObserver

	mu       sync.Mutex
	limit    float64
	slots    int // the integer limit in force: floor(limit), at least 1
	inFlight int
	// waiters are the queued calls, first come first served; each is
	// closed when it is handed a slot.
	waiters []chan struct{}

	// the current window of samples
	winStart   time.Time
	winSum     time.Duration
	winCount   int
	winDropped bool
	winPeak    int // most calls in flight during the window
	// lastUpdate is when the last window closed.
	lastUpdate time.Time
	// long is the long-term latency average in seconds, 0 until the first
	// window.
	long float64
}

// limitObserver receives the limit in force each time it changes, for the
// metric; Client's Observer gets it when it implements the method.
type limitObserver interface {
	ConcurrencyLimit(upstream string, limit int)
}

// Window bounds of the adaptive limit: a window closes once it holds
// windowSamples calls and lasted windowMin, or lasted windowMax with at
// least one call, or holds a call that timed out and windowMin passed
// since the last window closed.
const (
	windowSamples = 32
	windowMin     = 20 * time.Millisecond
	windowMax     = time.Second
	// smoothing weighs a window's proposal against the limit in force.
	smoothing = 0.2
	// longWindows is the span, in windows, of the long-term latency
	// average.
	longWindows = 50
)

func newLimiter(name string, c ConcurrencySettings, maxInFlight int, obs Observer) *limiter {
	l := &limiter{
		name:     name,
		adaptive: c.Mode != ConcurrencyStatic,
		min:      float64(c.MinLimit),
		max:      float64(maxInFlight),
		tol:      c.Tolerance,
		queueMax: max(c.Queue, 0),
		wait:     c.QueueTimeout,
	}
	l.obs, _ = obs.(limitObserver)
	l.limit = l.max
	if l.adaptive {
		l.limit = math.Min(math.Max(float64(c.InitialLimit), l.min), l.max)
	}
	l.slots = max(int(l.limit), 1)
	if l.obs != nil {
		l.obs.ConcurrencyLimit(name, l.slots)
	}
	return l
}

// acquire takes a slot, waiting in the queue while the limit is reached,
// for at most the queue timeout and until ctx ends or deadline (the
// call's; zero for none) passes. A true result must be paired with
// exactly one release or free.
func (l *limiter) acquire(ctx context.Context, deadline time.Time) bool {
	l.mu.Lock()
	if l.inFlight < l.slots && len(l.waiters) == 0 {
		l.take()
		l.mu.Unlock()
		return true
	}
	if len(l.waiters) >= l.queueMax {
		l.mu.Unlock()
		return false
	}
	ready := make(chan struct{})
	l.waiters = append(l.waiters, ready)
	l.mu.Unlock()

	wait := l.wait
	if d, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(d))
	}
	if !deadline.IsZero() {
		wait = min(wait, time.Until(deadline))
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-ready:
		return true
	case <-timer.C:
	case <-ctx.Done():
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, w := range l.waiters {
		if w == ready {
			l.waiters = append(l.waiters[:i], l.waiters[i+1:]...)
			return false
		}
	}
	// Handed a slot as it gave up: pass it on.
	l.inFlight--
	l.handOff()
	return false
}

// take counts a call in flight; l.mu is held.
func (l *limiter) take() {
	l.inFlight++
	if l.inFlight > l.winPeak {
		l.winPeak = l.inFlight
	}
}

// handOff gives free slots to waiters, first come first served; l.mu is
// held.
func (l *limiter) handOff() {
	for len(l.waiters) > 0 && l.inFlight < l.slots {
		w := l.waiters[0]
		l.waiters[0] = nil
		l.waiters = l.waiters[1:]
		l.take()
		close(w)
	}
}

// release frees a slot and records the call: d is how long it held the
// slot, dropped whether it timed out (a sign of overload whatever its
// length).
func (l *limiter) release(d time.Duration, dropped bool) {
	l.mu.Lock()
	l.inFlight--
	if l.adaptive {
		l.sample(d, dropped, time.Now())
	}
	l.handOff()
	l.mu.Unlock()
}

// free frees a slot without recording the call: one that never reached
// the backend.
func (l *limiter) free() {
	l.mu.Lock()
	l.inFlight--
	l.handOff()
	l.mu.Unlock()
}

// sample adds one call to the window and closes the window when it is
// due; l.mu is held.
func (l *limiter) sample(d time.Duration, dropped bool, now time.Time) {
	if l.winCount == 0 && !l.winDropped {
		l.winStart = now
	}
	l.winSum += d
	l.winCount++
	l.winDropped = l.winDropped || dropped
	age := now.Sub(l.winStart)
	due := l.winCount >= windowSamples && age >= windowMin || age >= windowMax ||
		l.winDropped && now.Sub(l.lastUpdate) >= windowMin // a timeout is news enough
	if !due {
		return
	}
	short := (l.winSum / time.Duration(l.winCount)).Seconds()
	l.update(short, l.winDropped, l.winPeak)
	l.winSum, l.winCount, l.winDropped, l.winPeak = 0, 0, false, l.inFlight
	l.lastUpdate = now
}

// update moves the limit by one window whose mean latency was short
// seconds; peak is the most calls that were in flight during it.
func (l *limiter) update(short float64, dropped bool, peak int) {
	if l.long == 0 {
		l.long = short
	} else {
		l.long += (short - l.long) / longWindows
	}
	if l.long > 2*short {
		// Latency fell well below the average (a backend that recovered):
		// let the average follow faster, so the limit can grow again.
		l.long = l.long*0.9 + short*0.1
	}
	gradient := 1.0
	if short > 0 {
		gradient = math.Max(0.5, math.Min(1, l.tol*l.long/short))
	}
	if dropped {
		gradient = 0.5
	}
	if gradient >= 1 && float64(peak) < l.limit/2 {
		return // not used enough to prove a higher limit
	}
	proposed := l.limit*gradient + math.Sqrt(l.limit)
	if gradient < 1 {
		proposed = l.limit * gradient
	}
	next := (1-smoothing)*l.limit + smoothing*proposed
	l.limit = math.Min(math.Max(next, l.min), l.max)
	if slots := max(int(l.limit), 1); slots != l.slots {
		l.slots = slots
		if l.obs != nil {
			l.obs.ConcurrencyLimit(l.name, slots)
		}
	}
}

// current is the limit in force and the calls in flight and waiting.
func (l *limiter) current() (limit, inFlight, waiting int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.slots, l.inFlight, len(l.waiters)
}
