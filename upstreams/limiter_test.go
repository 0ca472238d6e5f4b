package upstreams

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inFlightNow is the number of slots taken.
func (l *limiter) inFlightNow() int {
	_, n, _ := l.current()
	return n
}

// bulkhead are settings of a fixed limit of n with no queue.
func bulkhead(s Settings, n int) Settings {
	s.MaxConcurrent = n
	s.Concurrency = ConcurrencySettings{Mode: ConcurrencyStatic, Queue: -1}
	return s
}

func TestBulkheadFullAnswersAtOnce(t *testing.T) {
	t.Parallel()
	gate := make(chan struct{})
	arrived := make(chan struct{}, 1)
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request) {
		arrived <- struct{}{}
		<-gate
		_, _ = io.WriteString(w, "ok")
	})
	s := bulkhead(testSettings(f.srv.URL), 1)
	c, rec := newTestClient(t, s)
	ctx := context.Background()

	first := make(chan error, 1)
	go func() {
		_, _, err := fetch(ctx, c, http.MethodGet, f.srv.URL, "")
		first <- err
	}()
	<-arrived

	_, _, err := fetch(ctx, c, http.MethodGet, f.srv.URL, "")
	assert.Equal(t, KindBulkheadFull, kindOf(err))
	assert.Equal(t, http.StatusServiceUnavailable, StatusFor(err))
	assert.EqualValues(t, 1, f.hits.Load(), "a call refused by the bulkhead sends nothing")

	close(gate)
	require.NoError(t, <-first)
	_, _, err = fetch(ctx, c, http.MethodGet, f.srv.URL, "")
	require.NoError(t, err, "the slot is free again once the first call's body is closed")
	assert.Equal(t, "closed", c.BreakerState(), "a full bulkhead is not a backend failure")
	outcomes, _ := rec.seen()
	assert.ElementsMatch(t, []string{"bulkhead_full", "success", "success"}, outcomes)
}

func TestBulkheadHoldsSlotUntilBodyClosed(t *testing.T) {
	t.Parallel()
	f := newFake(t, answer(http.StatusOK, "payload"))
	s := bulkhead(testSettings(f.srv.URL), 1)
	c, _ := newTestClient(t, s)

	resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, f.srv.URL))
	require.NoError(t, err)
	_, err = c.Do(mustRequest(t, context.Background(), http.MethodGet, f.srv.URL))
	assert.Equal(t, KindBulkheadFull, kindOf(err), "an unread body still occupies the slot")
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, 0, c.limit.inFlightNow())
}

func staticLimiter(n, queue int, wait time.Duration) *limiter {
	return newLimiter("u", ConcurrencySettings{Mode: ConcurrencyStatic, Queue: queue, QueueTimeout: wait}, n, nil)
}

func TestLimiterStaticWithoutQueue(t *testing.T) {
	t.Parallel()
	l := staticLimiter(2, 0, time.Hour)
	ctx := context.Background()
	assert.True(t, l.acquire(ctx, time.Time{}))
	assert.True(t, l.acquire(ctx, time.Time{}))
	assert.False(t, l.acquire(ctx, time.Time{}), "no queue: refused at once")
	l.release(time.Millisecond, false)
	assert.True(t, l.acquire(ctx, time.Time{}))
	assert.Equal(t, 2, l.inFlightNow())
}

// A call past the limit waits, in arrival order, for the slot a finished
// call frees.
func TestLimiterQueueHandsSlotsInOrder(t *testing.T) {
	t.Parallel()
	l := staticLimiter(1, 8, time.Hour)
	ctx := context.Background()
	require.True(t, l.acquire(ctx, time.Time{}))
	order := make(chan int, 3)
	for i := range 3 {
		go func() {
			if l.acquire(ctx, time.Time{}) {
				order <- i
			}
		}()
		require.Eventually(t, func() bool { _, _, w := l.current(); return w == i+1 }, 5*time.Second, time.Millisecond)
	}
	for want := range 3 {
		l.release(time.Millisecond, false)
		assert.Equal(t, want, <-order)
	}
	l.release(time.Millisecond, false)
	limit, inFlight, waiting := l.current()
	assert.Equal(t, []int{1, 0, 0}, []int{limit, inFlight, waiting})
}

func TestLimiterQueueBounds(t *testing.T) {
	t.Parallel()
	t.Run("full queue refuses at once", func(t *testing.T) {
		t.Parallel()
		l := staticLimiter(1, 1, time.Hour)
		ctx, cancel := context.WithCancel(context.Background())
		require.True(t, l.acquire(ctx, time.Time{}))
		waited := make(chan bool)
		go func() { waited <- l.acquire(ctx, time.Time{}) }()
		require.Eventually(t, func() bool { _, _, w := l.current(); return w == 1 }, 5*time.Second, time.Millisecond)
		assert.False(t, l.acquire(ctx, time.Time{}), "the one place in the queue is taken")
		cancel()
		assert.False(t, <-waited, "a waiter whose context ends gives up")
		_, inFlight, waiting := l.current()
		assert.Equal(t, []int{1, 0}, []int{inFlight, waiting})
	})
	t.Run("wait bounded by the queue timeout", func(t *testing.T) {
		t.Parallel()
		l := staticLimiter(1, 4, time.Millisecond)
		require.True(t, l.acquire(context.Background(), time.Time{}))
		assert.False(t, l.acquire(context.Background(), time.Time{}))
		_, inFlight, waiting := l.current()
		assert.Equal(t, []int{1, 0}, []int{inFlight, waiting})
	})
	t.Run("wait bounded by the deadline", func(t *testing.T) {
		t.Parallel()
		l := staticLimiter(1, 4, time.Hour)
		require.True(t, l.acquire(context.Background(), time.Time{}))
		ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
		defer cancel()
		assert.False(t, l.acquire(ctx, time.Time{}))
	})
}

// Waiters giving up while slots are handed to them never lose or leak a
// slot.
func TestLimiterNoSlotLost(t *testing.T) {
	t.Parallel()
	l := staticLimiter(3, 64, 50*time.Microsecond)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for range 200 {
				if l.acquire(context.Background(), time.Time{}) {
					l.release(time.Microsecond, false)
				}
			}
		})
	}
	wg.Wait()
	limit, inFlight, waiting := l.current()
	assert.Equal(t, []int{3, 0, 0}, []int{limit, inFlight, waiting})
}

type limitRecorder struct {
	mu     sync.Mutex
	limits []int
}

func (r *limitRecorder) CallDone(string, string, time.Duration) {}
func (r *limitRecorder) BreakerChanged(string, string, string)  {}
func (r *limitRecorder) ConcurrencyLimit(_ string, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.limits = append(r.limits, n)
}

func TestLimiterAdapts(t *testing.T) {
	t.Parallel()
	settings := ConcurrencySettings{Mode: ConcurrencyAdaptive, MinLimit: 4, InitialLimit: 16, Tolerance: 2}
	const ms = 0.001
	t.Run("grows while latency holds and the limit is used", func(t *testing.T) {
		t.Parallel()
		rec := &limitRecorder{}
		l := newLimiter("u", settings, 1000, rec)
		for range 200 {
			l.update(1*ms, false, l.slots)
		}
		assert.Greater(t, l.slots, 100)
		assert.Equal(t, 16, rec.limits[0], "the first limit is reported at once")
		assert.Equal(t, l.slots, rec.limits[len(rec.limits)-1])
	})
	t.Run("does not grow unused", func(t *testing.T) {
		t.Parallel()
		l := newLimiter("u", settings, 1000, nil)
		for range 200 {
			l.update(1*ms, false, 2)
		}
		assert.Equal(t, 16, l.slots)
	})
	t.Run("stops at the ceiling", func(t *testing.T) {
		t.Parallel()
		l := newLimiter("u", settings, 40, nil)
		for range 500 {
			l.update(1*ms, false, l.slots)
		}
		assert.Equal(t, 40, l.slots)
	})
	t.Run("falls when latency rises, to the floor", func(t *testing.T) {
		t.Parallel()
		l := newLimiter("u", settings, 1000, nil)
		for range 100 {
			l.update(1*ms, false, l.slots)
		}
		high := l.slots
		l.update(10*ms, false, l.slots)
		assert.Less(t, l.slots, high)
		lat := 10 * ms
		for range 200 {
			lat *= 1.5 // latency keeps rising
			l.update(lat, false, l.slots)
		}
		assert.Equal(t, 4, l.slots)
	})
	t.Run("falls on timeouts whatever the latency", func(t *testing.T) {
		t.Parallel()
		l := newLimiter("u", settings, 1000, nil)
		l.update(1*ms, true, l.slots)
		assert.Equal(t, 14, l.slots, "16 * 0.9")
	})
	t.Run("recovers once latency is back", func(t *testing.T) {
		t.Parallel()
		l := newLimiter("u", settings, 1000, nil)
		for range 50 {
			l.update(1*ms, false, l.slots)
		}
		for range 50 {
			l.update(100*ms, false, l.slots)
		}
		low := l.slots
		for range 200 {
			l.update(1*ms, false, l.slots)
		}
		assert.Greater(t, l.slots, low)
	})
	t.Run("static never moves", func(t *testing.T) {
		t.Parallel()
		l := newLimiter("u", ConcurrencySettings{Mode: ConcurrencyStatic}, 50, nil)
		for range 100 {
			l.release(0, true)
			l.inFlight++
		}
		assert.Equal(t, 50, l.slots)
	})
}

// Windows close by samples and time: a window of fast calls moves the
// limit once it has enough of them.
func TestLimiterWindows(t *testing.T) {
	t.Parallel()
	l := newLimiter("u", ConcurrencySettings{Mode: ConcurrencyAdaptive, MinLimit: 1, InitialLimit: 4, Tolerance: 2}, 100, nil)
	now := time.Unix(0, 0)
	l.winPeak = 4
	for range windowSamples - 1 {
		l.sample(time.Millisecond, false, now)
	}
	now = now.Add(windowMin)
	assert.Zero(t, l.long, "no window closed yet")
	l.sample(time.Millisecond, false, now)
	assert.InDelta(t, 0.001, l.long, 1e-9, "the window closed with its mean latency")
	l.sample(time.Millisecond, false, now)
	l.sample(time.Millisecond, false, now.Add(windowMax))
	assert.Equal(t, 0, l.winCount, "a long window closes with few samples")
}

func BenchmarkLimiter(b *testing.B) {
	l := newLimiter("u", ConcurrencySettings{Mode: ConcurrencyAdaptive, MinLimit: 8, InitialLimit: 256, Tolerance: 2, Queue: 4096, QueueTimeout: time.Second}, 1024, nil)
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if l.acquire(ctx, time.Time{}) {
				l.release(time.Millisecond, false)
			}
		}
	})
}
