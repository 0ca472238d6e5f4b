package upstreams

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// inFlight is the number of slots taken.
func (b *bulkhead) inFlight() int { return len(b.slots) }

func TestBulkheadFullAnswersAtOnce(t *testing.T) {
	t.Parallel()
	gate := make(chan struct{})
	arrived := make(chan struct{}, 1)
	f := newFake(t, func(w http.ResponseWriter, _ *http.Request) {
		arrived <- struct{}{}
		<-gate
		_, _ = io.WriteString(w, "ok")
	})
	s := testSettings(f.srv.URL)
	s.MaxConcurrent = 1
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
	s := testSettings(f.srv.URL)
	s.MaxConcurrent = 1
	c, _ := newTestClient(t, s)

	resp, err := c.Do(mustRequest(t, context.Background(), http.MethodGet, f.srv.URL))
	require.NoError(t, err)
	_, err = c.Do(mustRequest(t, context.Background(), http.MethodGet, f.srv.URL))
	assert.Equal(t, KindBulkheadFull, kindOf(err), "an unread body still occupies the slot")
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, 0, c.bulkhead.inFlight())
}

func TestBulkheadSemaphore(t *testing.T) {
	t.Parallel()
	b := newBulkhead(2)
	assert.True(t, b.tryAcquire())
	assert.True(t, b.tryAcquire())
	assert.False(t, b.tryAcquire())
	b.release()
	assert.True(t, b.tryAcquire())
	assert.Equal(t, 2, b.inFlight())
}

func BenchmarkBulkhead(b *testing.B) {
	bh := newBulkhead(256)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if bh.tryAcquire() {
				bh.release()
			}
		}
	})
}
