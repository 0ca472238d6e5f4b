// Package duplicates spots a user repeating the same request: same user,
// method, path, query and body within a time window (see Request). It
// answers the analytics question "duplicate requests by one user"; it never
// rejects a request. Detector keeps the requests of one process in memory;
// Digest keys a request in a store shared by several (gateway/cluster).
package duplicates

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

// DefaultMaxEntries is used when New is given a bound below 1.
const DefaultMaxEntries = 10000

// sweepBudget bounds the expired records removed per call, so no single
// request pays for sweeping a large backlog.
const sweepBudget = 8

// Detector remembers recent requests as 64-bit hashes. Memory grows with
// the requests remembered and is bounded by maxEntries: past it the oldest
// request is forgotten. Expired records are swept a few at a time on each
// call; the memory of a past peak is kept. Safe for concurrent use; Seen
// does not allocate once the table has grown.
//
// Two different requests with equal hashes (odds about 2^-64 per pair) would
// be reported as a duplicate; the seed is random per Detector, so a client
// cannot aim at one.
type Detector struct {
	seed   maphash.Seed
	window int64 // nanoseconds

	mu sync.Mutex
	// last maps a request's hash to its latest sighting.
	last map[uint64]sighting
	// order holds sightings oldest first, as a ring that doubles when full
	// up to max records; a record whose seq no longer matches last[key] is
	// stale (the key was seen again since).
	order        []record
	head, n, max int
	seq          uint64
}

type sighting struct {
	at  int64 // UnixNano
	seq uint64
}

type record struct {
	key uint64
	seq uint64
}

// New returns a Detector that reports a request repeated within window. A
// window of zero or less reports nothing. maxEntries below 1 means
// DefaultMaxEntries. Memory is taken as requests are remembered, not up
// front for maxEntries: a table sized for the bound would be resident from
// the start, in the live heap that the garbage collector's target doubles.
func New(window time.Duration, maxEntries int) *Detector {
	if maxEntries < 1 {
		maxEntries = DefaultMaxEntries
	}
	return &Detector{
		seed:   maphash.MakeSeed(),
		window: int64(window),
		last:   make(map[uint64]sighting),
		max:    maxEntries,
	}
}

// Seen records req and reports whether the same request was seen within the
// window before now. The window slides: a request repeated every half window
// is a duplicate each time. ctx is not used (nothing here waits); it lets a
// Detector stand where a shared store is expected.
func (d *Detector) Seen(_ context.Context, req Request, now time.Time) bool {
	if d.window <= 0 {
		return false
	}
	key := req.sum64(d.seed)
	at := now.UnixNano()

	d.mu.Lock()
	defer d.mu.Unlock()
	d.sweep(at)
	prev, ok := d.last[key]
	if ok && at < prev.at {
		// Concurrent callers read the clock in one order and lock in
		// another: compare, and keep the newer sighting.
		return prev.at-at < d.window
	}
	dup := ok && at-prev.at < d.window
	if d.n == len(d.order) {
		if len(d.order) < d.max {
			d.grow()
		} else {
			d.evictOldest()
		}
	}
	d.seq++
	d.order[(d.head+d.n)%len(d.order)] = record{key: key, seq: d.seq}
	d.n++
	d.last[key] = sighting{at: at, seq: d.seq}
	return dup
}

// Len returns how many distinct requests the Detector remembers.
func (d *Detector) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.last)
}

// sweep drops a few records from the old end: stale ones, and live ones
// whose window has passed. It stops at the first live, unexpired record,
// since records are in arrival order.
func (d *Detector) sweep(now int64) {
	for range sweepBudget {
		if d.n == 0 {
			return
		}
		r := d.order[d.head]
		s, ok := d.last[r.key]
		if ok && s.seq == r.seq && now-s.at < d.window {
			return
		}
		d.evictOldest()
	}
}

// minOrder is the ring's first size.
const minOrder = 64

// grow doubles the ring (at least minOrder, at most max records), oldest
// record first.
func (d *Detector) grow() {
	next := make([]record, min(max(2*len(d.order), minOrder), d.max))
	for i := range d.n {
		next[i] = d.order[(d.head+i)%len(d.order)]
	}
	d.order, d.head = next, 0
}

// evictOldest drops the oldest record, and its key when the record is the
// key's latest sighting.
func (d *Detector) evictOldest() {
	r := d.order[d.head]
	if s, ok := d.last[r.key]; ok && s.seq == r.seq {
		delete(d.last, r.key)
	}
	d.head = (d.head + 1) % len(d.order)
	d.n--
}
