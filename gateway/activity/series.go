package activity

import (
	"sync"
	"sync/atomic"
	"time"
)

// Time is cut in ticks of 15 seconds; the windowed figures keep the ticks
// of the last 15 minutes and the current one.
const (
	tick = 15 * time.Second
	// ticks kept per series: 60 full ones and the current.
	ticks = 61
	// ticksPerMinute groups ticks into the points of the latency plot.
	ticksPerMinute = int64(time.Minute / tick)
)

// tickOf is the tick t falls in.
func tickOf(t time.Time) int64 { return t.Unix() / int64(tick/time.Second) }

// tickStart is when tick n began.
func tickStart(n int64) time.Time { return time.Unix(n*int64(tick/time.Second), 0) }

// slot is one tick of a series. The hot path only adds to it, with
// atomics; a slot is zeroed, under its series' lock, the first time a
// later tick lands on it.
type slot struct {
	tick         atomic.Int64
	count        atomic.Uint32
	clientErrors atomic.Uint32
	errors       atomic.Uint32
	hist         [buckets]atomic.Uint32
}

// series counts answers (or upstream calls) and their latency per tick:
// a ring of ticks slots, about 24 KiB.
type series struct {
	mu    sync.Mutex
	slots [ticks]slot
}

// Outcome classes of one observation.
const (
	outcomeOK          = iota
	outcomeClientError // a 4xx answer; a backend's rejection
	outcomeError       // a 5xx answer; a failed upstream call
)

// add counts one observation of duration d in tick n. An observation of a
// tick older than its slot holds (a clock that stepped back) is dropped.
func (s *series) add(n int64, d time.Duration, outcome int) {
	sl := &s.slots[n%ticks]
	if sl.tick.Load() != n && !s.advance(sl, n) {
		return
	}
	sl.count.Add(1)
	switch outcome {
	case outcomeClientError:
		sl.clientErrors.Add(1)
	case outcomeError:
		sl.errors.Add(1)
	}
	sl.hist[bucketOf(d)].Add(1)
}

// advance moves sl to tick n, zeroed, unless another caller already did
// or sl holds a later tick; it reports whether sl now holds n.
func (s *series) advance(sl *slot, n int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch cur := sl.tick.Load(); {
	case cur == n:
		return true
	case cur > n:
		return false
	}
	sl.count.Store(0)
	sl.clientErrors.Store(0)
	sl.errors.Store(0)
	for i := range sl.hist {
		sl.hist[i].Store(0)
	}
	sl.tick.Store(n)
	return true
}

// totals are a series' counts over some ticks.
type totals struct {
	count, clientErrors, errors uint64
	hist                        histogram
}

// snapshot is a copy of a series' slots, read once so that the windows
// and the plot's points are summed from it without touching the atomics
// again.
type snapshot [ticks]struct {
	tick                        int64
	count, clientErrors, errors uint32
	hist                        [buckets]uint32
}

// snapshot copies s's slots into dst.
func (s *series) snapshot(dst *snapshot) {
	for i := range s.slots {
		sl, d := &s.slots[i], &dst[i]
		d.tick = sl.tick.Load()
		d.count, d.clientErrors, d.errors = sl.count.Load(), sl.clientErrors.Load(), sl.errors.Load()
		for b := range sl.hist {
			d.hist[b] = sl.hist[b].Load()
		}
	}
}

// sum adds the ticks from first to last (both included) to t.
func (sn *snapshot) sum(first, last int64, t *totals) {
	for i := range sn {
		sl := &sn[i]
		if sl.tick < first || sl.tick > last || sl.tick == 0 || sl.count == 0 {
			continue
		}
		t.count += uint64(sl.count)
		t.clientErrors += uint64(sl.clientErrors)
		t.errors += uint64(sl.errors)
		for b, n := range sl.hist {
			t.hist[b] += uint64(n)
		}
	}
}
