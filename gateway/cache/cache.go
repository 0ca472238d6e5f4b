// Package cache is the gateway's response cache: GET answers of the routes
// that ask for it (routes[].cache), kept rendered (the envelope up to its
// per-request members, so every answer carries the request's own
// timeStamp, totalTime and userId), in each replica's memory and, with the
// redis cluster store, in Redis shared by every replica.
//
// A hit never reaches the upstream client. Misses of one key are coalesced
// into one backend call per replica (singleflight, on a context no caller
// can cancel), and across replicas by a short Redis lock. Stale answers are
// revalidated with the backend's validators, served while that runs
// (staleWhileRevalidate) and when the backend fails (staleIfError). Writes
// through the gateway, purges and reloads invalidate by marks (marks.go),
// shared through Redis pub/sub.
//
// The Cache outlives reloads (it is built once per process); each build
// wraps its routes' handlers with Routes.
package cache

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/maypok86/otter/v2"
	"golang.org/x/sync/singleflight"
)

// Tiers, the tier label of the size metrics.
const (
	TierMemory = "memory"
	TierRedis  = "redis"
)

// Results of a cached route's request, the result label of
// gateway_cache_requests_total.
const (
	ResultHit         = "hit"         // a fresh answer from the cache
	ResultMiss        = "miss"        // this request's backend call answered
	ResultStale       = "stale"       // a stale answer (while revalidating, or the backend failing)
	ResultRevalidated = "revalidated" // the backend confirmed a stale answer (304)
	ResultCoalesced   = "coalesced"   // another request's backend call answered, on this replica or another
	ResultBypass      = "bypass"      // the request cannot be cached (a query that does not parse)
)

// Recorder receives the cache's metrics (gateway/metrics implements it).
// Calls must not block.
type Recorder interface {
	// CacheRequest counts one request of a cached route by its result.
	CacheRequest(route, result string)
	// CacheEviction counts an answer dropped from tier to make room.
	CacheEviction(tier string)
	// CacheSize reports how to read a tier's entries and bytes (read at
	// each scrape).
	CacheSize(tier string, size func() (entries int, bytes int64))
}

// Options configure New.
type Options struct {
	// MaxBytes and MaxEntries bound the memory tier; MaxEntryBytes is the
	// largest answer kept (config cache.*).
	MaxBytes      int64
	MaxEntries    int
	MaxEntryBytes int
	// CoalesceWait bounds a wait on another request's backend call.
	CoalesceWait time.Duration
	// MaxRevalidations bounds background revalidations in flight.
	MaxRevalidations int
	// Shared is the Redis tier (gateway/cluster); nil keeps answers in
	// this replica's memory only.
	Shared Shared
	// Recorder receives the metrics; nil records nothing.
	Recorder Recorder
	// Logger receives what the cache cannot do (a purge not shared); nil
	// discards.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Cache is the process's response cache. Safe for concurrent use.
type Cache struct {
	o       Options
	mem     *otter.Cache[string, *Entry]
	shared  Shared
	marks   *marks
	live    live
	flights singleflight.Group
	// revalidations holds a token per background revalidation in flight;
	// revalidating holds the keys they revalidate.
	revalidations chan struct{}
	revalidating  sync.Map
	rec           Recorder
	logger        *slog.Logger
	now           func() time.Time
	bg            context.Context
	stop          context.CancelFunc
	// owed: an invalidation did not reach the shared tier (owe).
	owed atomic.Bool
}

// New builds the cache and, with a Shared tier, starts listening to the
// other replicas' invalidations; Close stops it.
func New(o Options) (*Cache, error) {
	c := &Cache{o: o, shared: o.Shared, rec: o.Recorder, logger: o.Logger, now: o.Now,
		revalidations: make(chan struct{}, max(o.MaxRevalidations, 1))}
	if c.rec == nil {
		c.rec = nopRecorder{}
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	if c.now == nil {
		c.now = time.Now
	}
	c.marks = newMarks(max(o.MaxEntries*4, 100_000), c.now)
	// Every entry weighs at least MaxBytes/MaxEntries, so the weight
	// bound holds the entry count too (otter bounds one or the other).
	minWeight := uint32(max(o.MaxBytes/int64(max(o.MaxEntries, 1)), 1))
	mem, err := otter.New(&otter.Options[string, *Entry]{
		MaximumWeight: uint64(o.MaxBytes),
		Weigher:       func(_ string, e *Entry) uint32 { return max(uint32(min(e.size(), 1<<31)), minWeight) },
		ExpiryCalculator: otter.ExpiryWritingFunc(func(e otter.Entry[string, *Entry]) time.Duration {
			return max(e.Value.Until.Sub(c.now()), time.Millisecond)
		}),
		OnDeletion: func(e otter.DeletionEvent[string, *Entry]) {
			if e.Cause == otter.CauseOverflow {
				c.rec.CacheEviction(TierMemory)
			}
		},
	})
	if err != nil {
		return nil, err
	}
	c.mem = mem
	c.rec.CacheSize(TierMemory, func() (int, int64) { return mem.EstimatedSize(), int64(mem.WeightedSize()) })
	c.bg, c.stop = context.WithCancel(context.Background())
	if c.shared != nil {
		go c.shared.Listen(c.bg, c.heard)
		go c.settle(c.bg)
	}
	return c, nil
}

// Close stops listening to the other replicas. Requests still running
// finish; background revalidations end with their backend calls.
func (c *Cache) Close() {
	c.stop()
	c.mem.StopAllGoroutines()
}

// memoryUsable reports whether the memory tier may hold lk's answers:
// always alone; with a shared tier while this replica hears the others'
// invalidations, and otherwise only when no route's writes invalidate
// them (another replica may have written what this one holds, and this one
// would not know).
func (c *Cache) memoryUsable(lk *lookup) bool { return c.shared == nil || !lk.written || c.shared.Up() }

// SharedUp reports whether the shared tier answers and this replica hears
// the others' invalidations; false without a shared tier.
func (c *Cache) SharedUp() bool { return c.shared != nil && c.shared.Up() }

type nopRecorder struct{}

func (nopRecorder) CacheRequest(string, string)                     {}
func (nopRecorder) CacheEviction(string)                            {}
func (nopRecorder) CacheSize(string, func() (entries int, b int64)) {}
