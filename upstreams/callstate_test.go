package upstreams

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

type outerKey struct{}

func TestWithCallState(t *testing.T) {
	t.Parallel()
	parent, cancel := context.WithCancel(context.WithValue(context.Background(), outerKey{}, "outer"))
	defer cancel()
	s := &CallState{Options: CallOptions{Timeout: time.Second}}
	first := WithCallState(parent, s)
	assert.Same(t, s, CallStateFrom(first))
	assert.Same(t, s, CallStateFrom(context.WithValue(first, outerKey{}, "nearer")), "found under other layers")
	assert.Equal(t, "outer", first.Value(outerKey{}), "other keys reach the parent")
	assert.Nil(t, CallStateFrom(parent))

	second := WithCallState(context.WithValue(context.Background(), outerKey{}, "second"), s)
	assert.Same(t, s, CallStateFrom(second))
	assert.Equal(t, "outer", first.Value(outerKey{}), "binding again leaves the first context as it was")
	assert.Equal(t, "second", second.Value(outerKey{}))

	nearer := &CallState{}
	assert.Same(t, nearer, CallStateFrom(WithCallState(first, nearer)), "the nearest state answers")

	cancel()
	assert.ErrorIs(t, first.Err(), context.Canceled, "cancellation is the parent's")
}

func TestWithCallStateAllocatesNothingTheFirstTime(t *testing.T) {
	parent := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		var s CallState
		if CallStateFrom(WithCallState(parent, &s)) != &s {
			t.Fatal("the state is not in its context")
		}
	})
	// The CallState itself escapes to the heap here; the binding adds
	// nothing to it.
	assert.LessOrEqual(t, allocs, 1.0)
}
