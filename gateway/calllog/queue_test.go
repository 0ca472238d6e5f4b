package calllog

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRingGrowsWithTheBacklog: the queue's slots follow the longest backlog
// met, up to its bound, and growing (also once it has wrapped) keeps the
// entries in order with their bodies.
func TestRingGrowsWithTheBacklog(t *testing.T) {
	t.Parallel()
	pushAll := func(q *ring, from, to int) (dropped int) {
		for i := from; i < to; i++ {
			e := entry(i)
			e.Body = []byte(e.Text)
			dropped += q.push(&e)
		}
		return dropped
	}
	popAll := func(t *testing.T, q *ring, from, to int) {
		t.Helper()
		batch := q.popInto(nil, to-from, 0, 0)
		require.Len(t, batch, to-from)
		for k, b := range batch {
			want := entry(from + k)
			assert.Equal(t, want.Text, b.e.Text)
			assert.Equal(t, want.Text, string(b.e.Body))
		}
	}

	t.Run("a short backlog holds few slots", func(t *testing.T) {
		t.Parallel()
		q := newRing(10000, 1<<20)
		assert.Empty(t, q.slots, "nothing allocated up front")
		for round := range 100 {
			pushAll(&q, 10*round, 10*round+10)
			popAll(t, &q, 10*round, 10*round+10)
		}
		assert.Len(t, q.slots, minRing, "1000 entries went through 64 slots")
	})
	t.Run("wrapped, then grown", func(t *testing.T) {
		t.Parallel()
		q := newRing(10000, 1<<20)
		pushAll(&q, 0, 50)
		popAll(t, &q, 0, 40) // head at 40
		pushAll(&q, 50, 120) // wraps at 64 slots, then grows with 54 of them taken from head 40
		assert.Len(t, q.slots, 2*minRing)
		popAll(t, &q, 40, 120)
	})
	t.Run("bounded", func(t *testing.T) {
		t.Parallel()
		q := newRing(100, 1<<20)
		assert.Equal(t, 50, pushAll(&q, 0, 150), "the 50 oldest were dropped")
		assert.Len(t, q.slots, 100, "at most the bound")
		popAll(t, &q, 50, 150)
	})
}
