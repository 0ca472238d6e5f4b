package activity

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
)

// countingObserver is what gateway/metrics is to the client: an observer
// with the optional reports.
type countingObserver struct {
	mu                          sync.Mutex
	calls, changes, limits, set int
}

func (o *countingObserver) CallDone(string, string, time.Duration) { o.inc(&o.calls) }
func (o *countingObserver) BreakerChanged(string, string, string)  { o.inc(&o.changes) }
func (o *countingObserver) ConcurrencyLimit(string, int)           { o.inc(&o.limits) }
func (o *countingObserver) SetBreakerState(string, string)         { o.inc(&o.set) }

func (o *countingObserver) inc(n *int) {
	o.mu.Lock()
	*n++
	o.mu.Unlock()
}

type attemptObserver struct {
	countingObserver
	attempts int
}

func (o *attemptObserver) Attempt(upstreams.Attempt) { o.inc(&o.attempts) }

func TestObserverRecordsAndPassesOn(t *testing.T) {
	t.Parallel()
	r, c := newTestRecorder(t, Config{})
	next := &countingObserver{}
	obs := r.Observe(next)
	obs.CallDone("accounts", "success", 20*time.Millisecond)
	obs.CallDone("accounts", "rejected", 5*time.Millisecond)
	obs.CallDone("accounts", "canceled", 5*time.Millisecond)
	obs.CallDone("accounts", "timeout", 2*time.Second)
	obs.BreakerChanged("accounts", "closed", "open")
	c.add(30 * time.Second)
	obs.BreakerChanged("accounts", "open", "half-open")
	obs.(interface{ ConcurrencyLimit(string, int) }).ConcurrencyLimit("accounts", 10)
	obs.(interface{ SetBreakerState(string, string) }).SetBreakerState("accounts", "closed")
	_, hears := obs.(upstreams.AttemptObserver)
	assert.False(t, hears, "no attempt reports unless next takes them")

	assert.Equal(t, 4, next.calls)
	assert.Equal(t, 2, next.changes)
	assert.Equal(t, 1, next.limits)
	assert.Equal(t, 1, next.set)

	got := r.Upstreams([]string{"accounts", "idle"})
	acc := got["accounts"]
	require.Len(t, acc.Windows, 3)
	assert.Equal(t, uint64(4), acc.Windows[0].Count)
	assert.Equal(t, uint64(2), acc.Windows[0].ClientErrors, "rejected and canceled are the client's")
	assert.Equal(t, uint64(1), acc.Windows[0].Errors)
	assert.Equal(t, []Transition{{start, "closed", "open"}, {start.Add(30 * time.Second), "open", "half-open"}}, acc.Breaker)
	assert.Equal(t, uint64(0), got["idle"].Windows[0].Count)
	assert.Empty(t, got["idle"].Breaker)

	for range 2 * breakerHistory {
		obs.BreakerChanged("accounts", "half-open", "open")
	}
	assert.Len(t, r.Upstreams([]string{"accounts"})["accounts"].Breaker, breakerHistory, "bounded")

	withAttempts := &attemptObserver{}
	ao, ok := r.Observe(withAttempts).(upstreams.AttemptObserver)
	require.True(t, ok)
	ao.Attempt(upstreams.Attempt{})
	assert.Equal(t, 1, withAttempts.attempts)
}
