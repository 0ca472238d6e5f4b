package calllog

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
)

// slowCollector answers every POST after latency and records, per call
// text, how often it was delivered, the largest batch and the most POSTs
// in flight at once. While down it answers 503 (or, with reset, drops the
// connection) and keeps nothing.
type slowCollector struct {
	srv      *httptest.Server
	latency  time.Duration
	down     atomic.Bool
	reset    bool
	inFlight atomic.Int64
	maxIn    atomic.Int64
	maxBatch atomic.Int64
	posts    atomic.Int64
	mu       sync.Mutex
	got      map[string]int  // JSON line id -> deliveries
	attempts map[string]bool // ids seen in POSTs answered while down
}

func newSlowCollector(t *testing.T, latency time.Duration) *slowCollector {
	t.Helper()
	c := &slowCollector{latency: latency, got: map[string]int{}, attempts: map[string]bool{}}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := c.inFlight.Add(1)
		defer c.inFlight.Add(-1)
		for m := c.maxIn.Load(); n > m && !c.maxIn.CompareAndSwap(m, n); m = c.maxIn.Load() {
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return // the sender gave up mid-body (its Close's deadline)
		}
		ids := jsonlIDs(t, body)
		if c.down.Load() {
			c.mu.Lock()
			for _, id := range ids {
				c.attempts[id] = true
			}
			c.mu.Unlock()
			if c.reset {
				conn, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					_ = conn.Close()
				}
				return
			}
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		if c.latency > 0 {
			select {
			case <-time.After(c.latency):
			case <-r.Context().Done():
				return
			}
		}
		c.posts.Add(1)
		for m := c.maxBatch.Load(); int64(len(ids)) > m && !c.maxBatch.CompareAndSwap(m, int64(len(ids))); m = c.maxBatch.Load() {
		}
		c.mu.Lock()
		for _, id := range ids {
			c.got[id]++
		}
		c.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// jsonlIDs returns the text of every JSON line of a batch ("call N").
func jsonlIDs(t *testing.T, body []byte) []string {
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(string(body)), "\n") {
		if l == "" {
			continue
		}
		var v struct {
			ID   string `json:"id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Errorf("not a JSON line: %q", l)
			continue
		}
		ids = append(ids, v.Text)
	}
	return ids
}

// delivered returns how many distinct entries arrived and how many arrived
// more than once.
func (c *slowCollector) delivered() (distinct, twice int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, n := range c.got {
		if n > 1 {
			twice++
		}
	}
	return len(c.got), twice
}

// produce enqueues total entries at about rate per second, in ticks of
// 10ms. With catchUp a late tick enqueues what was due meanwhile (an
// accurate rate, for the soak); without, a loaded machine only produces
// more slowly, never in a burst (for the tests CI runs).
func produce(s *Shipper, total, rate int, catchUp bool) {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	began := time.Now()
	perTick := max(rate/100, 1)
	for i := 0; i < total; {
		<-t.C
		due := min(i+perTick, total)
		if catchUp {
			due = min(int(time.Since(began).Seconds()*float64(rate)), total)
		}
		for ; i < due; i++ {
			s.Enqueue(entry(i))
		}
	}
}

// TestShipperKeepsUpWithASlowCollector is the fault-test finding scaled
// down ten times: a collector that takes 200ms per POST at 2000 entries a
// second (the same 400 entries per round trip as a 2 s collector at 200
// requests a second), with a queue of half of what arrives. One sender
// with fixed batches of 100 ships at most 500 a second and drops a quarter
// of them or more; senders joining and batches growing with the backlog
// lose nothing.
func TestShipperKeepsUpWithASlowCollector(t *testing.T) {
	t.Parallel()
	c := newSlowCollector(t, 200*time.Millisecond)
	m := &countingMetrics{}
	s := newTestShipper(t, Config{URL: c.srv.URL, Format: "jsonl", QueueSize: 3000, FlushInterval: 50 * time.Millisecond}, m)
	start(t, context.Background(), s)
	const total = 6000
	produce(s, total, 2000, false)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	require.NoError(t, s.Close(ctx))

	assert.Zero(t, m.dropped.Load(), "nothing dropped")
	assert.Equal(t, int64(total), m.sent.Load())
	distinct, twice := c.delivered()
	assert.Equal(t, total, distinct)
	assert.Zero(t, twice)
	assert.Greater(t, c.maxBatch.Load(), int64(100), "batches grew past batchSize")
	assert.Greater(t, c.maxIn.Load(), int64(1), "senders joined")
	t.Logf("%d POSTs, largest batch %d, at most %d in flight", c.posts.Load(), c.maxBatch.Load(), c.maxIn.Load())
}

// TestShipperSoak is the long figure: a 2 s collector at 200 entries a
// second (CALLLOG_SOAK_RATE) for CALLLOG_SOAK (such as 100s) with the
// default settings. It is a measurement, run by hand:
// CALLLOG_SOAK=100s go test -run Soak -v ./gateway/calllog.
func TestShipperSoak(t *testing.T) {
	d, err := time.ParseDuration(os.Getenv("CALLLOG_SOAK"))
	if err != nil || d <= 0 {
		t.Skip("set CALLLOG_SOAK=100s to run the soak")
	}
	c := newSlowCollector(t, 2*time.Second)
	m := &countingMetrics{}
	s := newTestShipper(t, Config{URL: c.srv.URL, Format: "jsonl"}, m)
	start(t, context.Background(), s)
	rate := 200
	if r, err := strconv.Atoi(os.Getenv("CALLLOG_SOAK_RATE")); err == nil && r > 0 {
		rate = r
	}
	total := int(d.Seconds() * float64(rate))
	began := time.Now()
	produce(s, total, rate, true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.NoError(t, s.Close(ctx))
	distinct, twice := c.delivered()
	t.Logf("%d entries over %s: %d delivered (%d twice), %d dropped; %d POSTs, largest batch %d, at most %d in flight",
		total, time.Since(began).Round(time.Second), distinct, twice, m.dropped.Load(), c.posts.Load(), c.maxBatch.Load(), c.maxIn.Load())
	assert.Zero(t, m.dropped.Load())
	assert.Equal(t, total, distinct)
}

// outageConfig makes the breaker and the held batches' backoff quick.
func outageConfig(url string) Config {
	return Config{URL: url, Format: "jsonl", QueueSize: 5000, FlushInterval: 10 * time.Millisecond,
		RetryBackoff: 5 * time.Millisecond, MaxRetryBackoff: 50 * time.Millisecond,
		Client: upstreams.Settings{Retry: upstreams.RetrySettings{Attempts: 2, Backoff: time.Millisecond},
			Breaker: upstreams.BreakerSettings{ConsecutiveFailures: 5, OpenTimeout: 50 * time.Millisecond}}}
}

// TestShipperRidesOutACollectorOutage: the collector is down (503, or
// connections dropped) while entries keep coming, long enough for the
// breaker to open and the held batches to back off many times (the 60 s
// outage of the fault test, scaled down); once it is back, every entry
// arrives exactly once and none was dropped.
func TestShipperRidesOutACollectorOutage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc  string
		reset bool
		disk  bool
	}{
		{desc: "503, memory queue"}, {desc: "connection reset, memory queue", reset: true},
		{desc: "503, disk queue", disk: true}, {desc: "connection reset, disk queue", reset: true, disk: true},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			c := newSlowCollector(t, 0)
			c.reset = tc.reset
			c.down.Store(true)
			m := &countingMetrics{}
			cfg := outageConfig(c.srv.URL)
			if tc.disk {
				cfg.Queue, cfg.Disk.Dir = QueueDisk, t.TempDir()
			}
			s := newTestShipper(t, cfg, m)
			start(t, context.Background(), s)
			const total = 3000
			produce(s, total, 10000, false)
			require.Eventually(t, func() bool { return m.failed.Load() >= 10 }, guard, time.Millisecond,
				"the senders failed and held their batches")
			assert.Zero(t, m.sent.Load())
			c.down.Store(false)

			require.Eventually(t, func() bool { return m.sent.Load() == total }, guard, time.Millisecond)
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			require.NoError(t, s.Close(ctx))
			assert.Zero(t, m.dropped.Load())
			distinct, twice := c.delivered()
			assert.Equal(t, total, distinct)
			assert.Zero(t, twice, "a batch the collector did not take is not duplicated")
		})
	}
}
