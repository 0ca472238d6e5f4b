package cluster

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestGuardTripsOnAFailingStoreNotOnAStall(t *testing.T) {
	t.Parallel()
	failing := errors.New("i/o timeout")
	ok := func(context.Context) error { return nil }
	fail := func(context.Context) error { return failing }
	tests := []struct {
		desc      string
		successes int
		failures  int
		down      bool
	}{
		{desc: "a store that fails every call", failures: 10, down: true},
		{desc: "fewer failures than the threshold", failures: 9},
		{desc: "a burst of failures among many successes", successes: 100, failures: 40},
		{desc: "failures outnumbering successes", successes: 20, failures: 20, down: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			rec := newRecorder()
			g := newGuard(time.Second, 10, time.Hour, rec, slog.New(slog.DiscardHandler))
			ctx := context.Background()
			for range tt.successes {
				assert.NoError(t, g.run(ctx, OpRateLimit, ok))
			}
			for range tt.failures {
				assert.ErrorIs(t, g.run(ctx, OpRateLimit, fail), failing)
			}
			err := g.run(ctx, OpRateLimit, ok)
			if tt.down {
				assert.ErrorIs(t, err, errLocal{}, "down: not asked")
				assert.Equal(t, StateDown, rec.state())
			} else {
				assert.NoError(t, err)
			}
			assert.Equal(t, tt.failures, rec.get(&rec.errors, OpRateLimit))
		})
	}
}

func TestGuardBoundsEachCall(t *testing.T) {
	t.Parallel()
	g := newGuard(20*time.Millisecond, 10, time.Hour, newRecorder(), slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // a client that hung up does not cut the store's call short
	err := g.run(ctx, OpDuplicates, func(ctx context.Context) error {
		assert.NoError(t, ctx.Err(), "the caller's cancellation does not reach the store")
		deadline, ok := ctx.Deadline()
		assert.True(t, ok)
		assert.LessOrEqual(t, time.Until(deadline), 20*time.Millisecond, "the timeout bounds the call")
		<-ctx.Done()
		return ctx.Err()
	})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}
