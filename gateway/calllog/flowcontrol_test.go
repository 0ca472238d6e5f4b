package calllog

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
)

// breakerWatch records the collector's breaker transitions.
type breakerWatch struct {
	mu      sync.Mutex
	changes []string
}

func (*breakerWatch) CallDone(string, string, time.Duration) {}
func (w *breakerWatch) BreakerChanged(_, from, to string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.changes = append(w.changes, from+"->"+to)
}

func (w *breakerWatch) seen() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.changes...)
}

// TestCollectorFlowControlIsWaitedPerBatch: a collector that answers 429 or
// 503 is up and asks for patience. Without a Retry-After the held batch
// waits the shipper's own backoff (here from 1 ms), not the breaker's open
// timeout (here an hour); with one it waits that long; and none of it opens
// the breaker, which would hold every sender, the shutdown flush
// included, for the open timeout whatever the collector said.
func TestCollectorFlowControlIsWaitedPerBatch(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		desc       string
		status     int
		retryAfter string
		refusals   int64
		minGap     time.Duration // between the first POST and the last
	}{
		{desc: "429 without Retry-After", status: http.StatusTooManyRequests, refusals: 8},
		{desc: "503 without Retry-After", status: http.StatusServiceUnavailable, refusals: 8},
		{desc: "429 with Retry-After", status: http.StatusTooManyRequests, retryAfter: "1", refusals: 1, minGap: time.Second},
	} {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var posts atomic.Int64
			var mu sync.Mutex
			var first, last time.Time
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n := posts.Add(1)
				mu.Lock()
				if n == 1 {
					first = time.Now()
				}
				last = time.Now()
				mu.Unlock()
				if n <= tt.refusals {
					if tt.retryAfter != "" {
						w.Header().Set("Retry-After", tt.retryAfter)
					}
					w.WriteHeader(tt.status)
					return
				}
				w.WriteHeader(http.StatusOK)
			}))
			t.Cleanup(srv.Close)
			cfg := Config{URL: srv.URL, Format: "jsonl", FlushInterval: 10 * time.Millisecond,
				RetryBackoff: time.Millisecond, MaxRetryBackoff: time.Hour,
				Client: upstreams.Settings{Retry: upstreams.RetrySettings{Attempts: 1},
					Breaker: upstreams.BreakerSettings{ConsecutiveFailures: 3, MinRequests: 3, OpenTimeout: time.Hour}}}
			watch := &breakerWatch{}
			m := &countingMetrics{}
			s, err := NewShipper(cfg, watch, m, nil)
			require.NoError(t, err)
			start(t, context.Background(), s)
			s.Enqueue(entry(1))
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			require.NoError(t, s.Close(ctx), "delivered after %d POSTs", posts.Load())
			assert.EqualValues(t, 1, m.sent.Load())
			assert.Equal(t, tt.refusals+1, posts.Load())
			assert.Empty(t, watch.seen(), "the breaker stays closed")
			mu.Lock()
			defer mu.Unlock()
			assert.GreaterOrEqual(t, last.Sub(first), tt.minGap, "the collector's Retry-After is waited")
		})
	}
}
