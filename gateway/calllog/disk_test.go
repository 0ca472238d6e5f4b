package calllog

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/restgate/gateway/upstreams"
)

// TestDiskQueueKeepsWhatTheCollectorDidNotTake: the collector is down for
// a whole run; the entries stay on disk (not lost, not counted dropped),
// and the next run on the same directory delivers each exactly once.
func TestDiskQueueKeepsWhatTheCollectorDidNotTake(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	down := newSlowCollector(t, 0)
	down.down.Store(true)
	cfg := outageConfig(down.srv.URL)
	cfg.Queue, cfg.Disk.Dir = QueueDisk, dir
	m1 := &countingMetrics{}
	s1, err := NewShipper(cfg, nil, m1, nil)
	require.NoError(t, err)
	go s1.Run(context.Background())
	const total = 500
	for i := range total {
		s1.Enqueue(entry(i))
	}
	require.Eventually(t, func() bool { return m1.diskEntries.Load() == total }, guard, time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err = s1.Close(ctx)
	var fe *FlushError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, FlushError{Lost: 0, Kept: total}, FlushError{Lost: fe.Lost, Kept: fe.Kept})
	assert.Zero(t, m1.dropped.Load(), "kept on disk is not dropped")
	assert.Zero(t, m1.sent.Load())

	// The next run sends to a collector that is up (another server, so
	// that a POST of the first run still on its way cannot count).
	c := newSlowCollector(t, 0)
	cfg.URL = c.srv.URL
	m2 := &countingMetrics{}
	s2 := newTestShipper(t, cfg, m2)
	assert.Equal(t, int64(total), m2.diskEntries.Load(), "the new run finds them")
	start(t, context.Background(), s2)
	require.Eventually(t, func() bool { return m2.sent.Load() == total }, guard, time.Millisecond)
	ctx2, cancel2 := context.WithTimeout(context.Background(), guard)
	defer cancel2()
	require.NoError(t, s2.Close(ctx2))
	distinct, twice := c.delivered()
	assert.Equal(t, total, distinct)
	assert.Zero(t, twice)
	assert.Zero(t, m2.dropped.Load())
}

// TestDiskQueueFullDropsTheNewest: a disk queue at its bound refuses new
// entries, counted as queue_full; what it holds is delivered later.
func TestDiskQueueFullDropsTheNewest(t *testing.T) {
	t.Parallel()
	c := newSlowCollector(t, 0)
	c.down.Store(true)
	cfg := outageConfig(c.srv.URL)
	cfg.Queue, cfg.Disk = QueueDisk, DiskConfig{Dir: t.TempDir(), MaxBytes: 64 << 10}
	m := &countingMetrics{}
	s := newTestShipper(t, cfg, m)
	start(t, context.Background(), s)
	const total = 2000
	for i := range total {
		s.Enqueue(entry(i))
	}
	require.Eventually(t, func() bool { return m.diskEntries.Load()+m.droppedFor(DropQueueFull) == total }, guard, time.Millisecond)
	assert.Positive(t, m.droppedFor(DropQueueFull))
	assert.LessOrEqual(t, m.diskBytes.Load(), int64(64<<10))
	c.down.Store(false)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	require.NoError(t, s.Close(ctx))
	distinct, _ := c.delivered()
	assert.Equal(t, int64(total), int64(distinct)+m.dropped.Load(), "every entry delivered or counted")
	c.mu.Lock()
	defer c.mu.Unlock()
	assert.Contains(t, c.got, "call 0", "the oldest are kept")
}

// TestShipperAccountsForEveryEntry: whatever the collector answers (taken,
// refused, too large, overloaded, reset), every entry enqueued from many
// goroutines ends delivered or counted dropped, with both queues.
func TestShipperAccountsForEveryEntry(t *testing.T) {
	t.Parallel()
	for _, queue := range []string{QueueMemory, QueueDisk} {
		t.Run(queue, func(t *testing.T) {
			t.Parallel()
			var mu sync.Mutex
			rng := rand.New(rand.NewPCG(1, 2))
			c := newCollector(t, func(n int64, r *http.Request) int {
				if n > 60 {
					return http.StatusOK
				}
				mu.Lock()
				defer mu.Unlock()
				return []int{200, 200, 400, 413, 429, 503, 500}[rng.IntN(7)]
			})
			drainCollector(t, c)
			m := &countingMetrics{}
			cfg := outageConfig(c.srv.URL)
			cfg.QueueSize, cfg.BatchSize, cfg.MaxBatchSize = 300, 10, 50
			cfg.Client.Breaker = upstreams.BreakerSettings{ConsecutiveFailures: 1000}
			if queue == QueueDisk {
				cfg.Queue, cfg.Disk.Dir = QueueDisk, t.TempDir()
			}
			s := newTestShipper(t, cfg, m)
			start(t, context.Background(), s)
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Go(func() {
					for i := range 500 {
						s.Enqueue(entry(g*1000 + i))
					}
				})
			}
			wg.Wait()
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			require.NoError(t, s.Close(ctx))
			assert.Equal(t, int64(2000), m.sent.Load()+m.dropped.Load(), "sent %d, dropped %v", m.sent.Load(), m.reasons)
			assert.Positive(t, m.droppedFor(DropRejected))
			assert.Zero(t, m.depth.Load())
		})
	}
}

// drainCollector empties c's channel of accepted batches as they come.
func drainCollector(t *testing.T, c *collector) {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-c.got:
			case <-done:
				return
			}
		}
	}()
	t.Cleanup(func() { close(done) })
}

func FuzzDecodeItem(f *testing.F) {
	it := item{id: []byte("abc-1"), e: entry(7)}
	it.e.SpanID = trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8}
	it.e.TraceFlags = trace.FlagsSampled
	it.e.Duplicate = true
	f.Add(encodeItem(nil, &it))
	f.Add([]byte{recordVersion})
	f.Add([]byte{2, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		var got item
		if decodeItem(b, &got) != nil {
			return
		}
		again := encodeItem(nil, &got)
		var back item
		require.NoError(t, decodeItem(again, &back))
		// Compared encoded: a NaN time is not equal to itself.
		assert.Equal(t, again, encodeItem(nil, &back))
	})
}

func TestItemRoundTrip(t *testing.T) {
	t.Parallel()
	it := item{id: []byte("abc-1"), e: entry(7)}
	it.e.SpanID = trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8}
	it.e.TraceFlags = trace.FlagsSampled
	it.e.Duplicate, it.e.ResponseCode, it.e.UpstreamTime = true, "URL_INVALID", 0.25
	it.e.APIUsage = upstreams.Usage{Used: 18, Limit: 15000}
	var got item
	require.NoError(t, decodeItem(encodeItem(nil, &it), &got))
	assert.Equal(t, it, got)
	b := encodeItem(nil, &it)
	assert.Error(t, decodeItem(b[:len(b)-1], &got), "cut short")
	assert.Error(t, decodeItem(append(b, 0), &got), "trailing bytes")

	// A record of version 1, written before the API usage was logged (the
	// last two varints here), is read without it.
	usage := len(binary.AppendUvarint(binary.AppendUvarint(nil, 18), 15000))
	v1 := append([]byte{recordVersionV1}, b[1:len(b)-usage]...)
	require.NoError(t, decodeItem(v1, &got))
	want := it
	want.e.APIUsage = upstreams.Usage{}
	assert.Equal(t, want, got)
}
