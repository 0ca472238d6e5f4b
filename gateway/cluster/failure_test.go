package cluster

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/cluster/redistest"
	"github.com/restgate/gateway/gateway/duplicates"
)

// load asks a limiter and a detector as fast as it can from a few
// goroutines, as a replica under traffic does, and keeps what it saw.
type load struct {
	stop     chan struct{}
	stopOnce sync.Once
	wg       sync.WaitGroup
	done     atomic.Int64
	errs     atomic.Int64
	slowest  atomic.Int64 // nanoseconds of the slowest decision
	failures chan error
}

func startLoad(l RateLimiter, d DuplicateDetector) *load {
	ld := &load{stop: make(chan struct{}), failures: make(chan error, 1)}
	for g := range 4 {
		ld.wg.Go(func() {
			ctx := context.Background()
			for i := 0; ; i++ {
				select {
				case <-ld.stop:
					return
				default:
				}
				start := time.Now()
				_, _, _, err := l.Allow(ctx, "user", start)
				d.Seen(ctx, duplicates.Request{User: "user", Method: "GET", Path: "/v2/accounts", Query: string(rune('a' + g)), Body: []byte{byte(i)}}, start)
				took := int64(time.Since(start))
				for {
					s := ld.slowest.Load()
					if took <= s || ld.slowest.CompareAndSwap(s, took) {
						break
					}
				}
				if err != nil {
					ld.errs.Add(1)
					select {
					case ld.failures <- err:
					default:
					}
				}
				ld.done.Add(1)
			}
		})
	}
	return ld
}

// end stops the load and waits for it; calling it again does nothing.
func (ld *load) end() {
	ld.stopOnce.Do(func() { close(ld.stop) })
	ld.wg.Wait()
}

// progress waits until the load made n more decisions.
func (ld *load) progress(t *testing.T, n int64) {
	t.Helper()
	from := ld.done.Load()
	require.Eventually(t, func() bool { return ld.done.Load() >= from+n }, 30*time.Second, time.Millisecond)
}

// syncBuffer is a log destination safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Redis killed, restarted empty, paused and resumed while a replica is
// under load: every decision is still taken (locally meanwhile), none waits
// much longer than the timeout, the state and counters say what happened,
// one warning is logged per period, and sharing resumes by itself.
func TestFailOpenWhenRedisGoesAwayUnderLoad(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	c := redisConfig(srv)
	c.Redis.Timeout = 50 * time.Millisecond
	var logs syncBuffer
	rec := newRecorder()
	s, err := Open(c, rec, slog.New(slog.NewJSONHandler(&logs, nil)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	local := &localLimiter{}
	l := s.Limiter(1e6, 1e6, local)
	d := s.Duplicates(time.Minute, duplicates.New(time.Minute, 1000))
	rdb := direct(t, srv)
	ctx := context.Background()

	ld := startLoad(l, d)
	defer ld.end()
	ld.progress(t, 200)
	// Redis up: decisions are taken there (a loaded test machine may still
	// miss the 50ms timeout now and then: those are decided locally)
	require.Eventually(t, func() bool { return rec.state() == StateUp }, 30*time.Second, time.Millisecond)
	calls := rec.get(&rec.calls, OpRateLimit)
	ld.progress(t, 200)
	assert.Greater(t, rec.get(&rec.calls, OpRateLimit), calls)
	n, err := rdb.Exists(ctx, "test:rl:user").Result()
	require.NoError(t, err)
	require.Equal(t, int64(1), n)

	srv.Kill()
	require.Eventually(t, func() bool { return rec.state() == StateDown }, 30*time.Second, time.Millisecond)
	before := local.count()
	ld.progress(t, 200)
	assert.Greater(t, local.count(), before, "Redis down: the replica decides alone")
	assert.Positive(t, rec.get(&rec.errors, OpRateLimit))
	assert.Positive(t, rec.get(&rec.fallbacks, OpRateLimit))
	assert.Positive(t, rec.get(&rec.fallbacks, OpDuplicates))

	require.NoError(t, srv.Restart()) // empty: the script cache too
	require.Eventually(t, func() bool { return rec.state() == StateUp }, 30*time.Second, time.Millisecond,
		"recovery needs nobody")
	require.Eventually(t, func() bool {
		n, err := rdb.Exists(ctx, "test:rl:user").Result()
		return err == nil && n == 1
	}, 30*time.Second, time.Millisecond, "decisions are taken in Redis again, the script loaded anew")

	srv.Pause() // connections stay open, nothing answers
	require.Eventually(t, func() bool { return rec.state() == StateDown }, 30*time.Second, time.Millisecond)
	before = local.count()
	ld.progress(t, 200)
	assert.Greater(t, local.count(), before)
	srv.Resume()
	require.Eventually(t, func() bool { return rec.state() == StateUp }, 30*time.Second, time.Millisecond)
	ld.progress(t, 200)

	ld.end()
	assert.Zero(t, ld.errs.Load(), "failing open, no decision is ever an error")
	// The bound is the timeout (50ms) for each of the two calls; the rest of
	// the margin is for a loaded test machine, the point being that a paused
	// Redis never holds a request for long.
	assert.Less(t, time.Duration(ld.slowest.Load()), 2*time.Second)
	out := logs.String()
	assert.Contains(t, out, "shared store down")
	assert.Contains(t, out, "shared store back")
	warnings := strings.Count(out, "shared store call failed")
	assert.GreaterOrEqual(t, warnings, 1)
	assert.Less(t, warnings, rec.get(&rec.errors, OpRateLimit)+rec.get(&rec.errors, OpDuplicates),
		"warnings are spaced, not one per failure")
	assert.NotContains(t, out, srv.Addr+"/0", "no URL in the log")
}

func TestFailClosedRefusesRateLimitDecisionsOnly(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	c := redisConfig(srv)
	c.FailClosed = true
	s, rec := openStore(t, c)
	local := &localLimiter{}
	l := s.Limiter(1e6, 1e6, local)
	d := s.Duplicates(time.Minute, duplicates.New(time.Minute, 100))
	ctx := context.Background()
	ok, _, _, err := l.Allow(ctx, "u", time.Now())
	require.NoError(t, err)
	require.True(t, ok)

	srv.Kill()
	ok, _, _, err = l.Allow(ctx, "u", time.Now())
	assert.Error(t, err, "no decision without Redis")
	assert.False(t, ok)
	req := duplicates.Request{User: "u", Method: "GET", Path: "/p"}
	assert.False(t, d.Seen(ctx, req, time.Now()), "duplicates never refuse: decided locally")
	assert.True(t, d.Seen(ctx, req, time.Now()))
	assert.Zero(t, local.count(), "failing closed, the local limiter is not asked")
	assert.Zero(t, rec.get(&rec.fallbacks, OpRateLimit))

	require.NoError(t, srv.Restart())
	require.Eventually(t, func() bool {
		ok, _, _, err := l.Allow(ctx, "u", time.Now())
		return err == nil && ok
	}, 30*time.Second, 5*time.Millisecond)
}

// A Redis that answers, but with errors (out of memory, no eviction):
// decided locally, counted, and shared again once it accepts writes.
func TestRedisRefusingWrites(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t, "--maxmemory-policy", "noeviction")
	s, rec := openStore(t, redisConfig(srv))
	rdb := direct(t, srv)
	ctx := context.Background()
	local := &localLimiter{}
	l := s.Limiter(1e6, 1e6, local)
	require.NoError(t, rdb.ConfigSet(ctx, "maxmemory", "1").Err())
	ok, _, _, err := l.Allow(ctx, "u", time.Now())
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, 1, local.count(), "an OOM answer is decided locally")
	assert.Equal(t, 1, rec.get(&rec.errors, OpRateLimit))
	require.NoError(t, rdb.ConfigSet(ctx, "maxmemory", "0").Err())
	require.Eventually(t, func() bool {
		_, _, _, _ = l.Allow(ctx, "u", time.Now())
		n, err := rdb.Exists(ctx, "test:rl:u").Result()
		return err == nil && n == 1
	}, 30*time.Second, 5*time.Millisecond)
}
