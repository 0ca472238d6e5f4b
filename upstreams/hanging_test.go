package upstreams

import (
	"context"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A backend that hangs holds at most the limit's calls; the rest wait in
// the queue for at most its timeout, or fail at once when it is full, so
// goroutines and memory stay bounded however many callers come. When the
// hanging calls time out, the limit falls.
func TestHangingBackendIsShed(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	var arrived atomic.Int32
	f := newFake(t, func(w http.ResponseWriter, r *http.Request) {
		arrived.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) })
	s := testSettings(f.srv.URL)
	s.Timeout = 300 * time.Millisecond
	s.MaxConcurrent = 16
	s.Concurrency = ConcurrencySettings{Mode: ConcurrencyAdaptive, MinLimit: 2, InitialLimit: 8, Queue: 32,
		QueueTimeout: 20 * time.Millisecond}
	rec := &limitRecorder{}
	c, err := NewClient("hanging", s, rec)
	require.NoError(t, err)
	t.Cleanup(c.Close)

	base := runtime.NumGoroutine()
	const callers = 400
	var (
		wg             sync.WaitGroup
		shed, timedOut atomic.Int32
		peakGoroutines atomic.Int64
	)
	for range callers {
		wg.Go(func() {
			_, _, err := fetch(context.Background(), c, http.MethodGet, f.srv.URL, "")
			switch kindOf(err) {
			case KindBulkheadFull:
				shed.Add(1)
			case KindTimeout:
				timedOut.Add(1)
			default:
				t.Errorf("unexpected outcome %v", err)
			}
			if n := int64(runtime.NumGoroutine()); n > peakGoroutines.Load() {
				peakGoroutines.Store(n)
			}
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, arrived.Load(), int32(16), "no more calls reach the backend than the ceiling")
	assert.Equal(t, int32(callers), shed.Load()+timedOut.Load())
	assert.GreaterOrEqual(t, shed.Load(), int32(callers-16-32), "past the limit and the queue, calls are shed")
	limit, inFlight, waiting := c.limit.current()
	assert.Equal(t, 0, inFlight)
	assert.Equal(t, 0, waiting)
	assert.Less(t, limit, 8, "timeouts lowered the limit")
	require.Eventually(t, func() bool { return runtime.NumGoroutine() <= base+16 }, 10*time.Second, 10*time.Millisecond,
		"no goroutine outlives its call (%d now, %d before)", runtime.NumGoroutine(), base)
	t.Logf("shed %d, timed out %d, backend saw %d, limit now %d, peak goroutines %d (%d callers)",
		shed.Load(), timedOut.Load(), arrived.Load(), limit, peakGoroutines.Load(), callers)
}
