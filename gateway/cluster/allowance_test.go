package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/allowance"
	"github.com/restgate/gateway/gateway/cluster/redistest"
)

// The scripts merge as allowance.Guard merges: within the merge window the
// higher usage wins and a trip stays; past it the newer state replaces the
// stored one.
func TestAllowanceStateMergesInRedis(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	s, rec := openStore(t, redisConfig(srv))
	ctx := context.Background()
	_, found, err := s.LoadAllowance(ctx, "data")
	require.NoError(t, err)
	assert.False(t, found, "nothing saved yet")

	steps := []struct {
		desc string
		save allowance.State
		want allowance.State
	}{
		{desc: "first", save: allowance.State{Used: 100, Limit: 15000}, want: allowance.State{Used: 100, Limit: 15000}},
		{desc: "an older answer arriving late", save: allowance.State{Used: 90, Limit: 15000}, want: allowance.State{Used: 100, Limit: 15000}},
		{desc: "a trip without a limit", save: allowance.State{Used: 0, Exceeded: true},
			want: allowance.State{Used: 100, Limit: 15000, Exceeded: true}},
		{desc: "the trip stays within the window", save: allowance.State{Used: 101, Limit: 15000},
			want: allowance.State{Used: 101, Limit: 15000, Exceeded: true}},
	}
	for _, st := range steps {
		got, err := s.SaveAllowance(ctx, "data", st.save)
		require.NoError(t, err, st.desc)
		assert.Equal(t, st.want, got, st.desc)
	}
	loaded, found, err := s.LoadAllowance(ctx, "data")
	require.NoError(t, err)
	require.True(t, found)
	assert.Less(t, loaded.Age, time.Second)
	loaded.Age = 0
	assert.Equal(t, allowance.State{Used: 101, Limit: 15000, Exceeded: true}, loaded)

	// Past the window the newer observation replaces the stored one: the
	// usage fell as the rolling window moved on, and the trip is over.
	ttl := direct(t, srv).PTTL(ctx, "test:allowance:data").Val()
	assert.InDelta(t, allowanceTTL.Seconds(), ttl.Seconds(), 5)
	direct(t, srv).HSet(ctx, "test:allowance:data", "at", 1) // as if saved long ago
	got, err := s.SaveAllowance(ctx, "data", allowance.State{Used: 80, Limit: 15000})
	require.NoError(t, err)
	assert.Equal(t, allowance.State{Used: 80, Limit: 15000}, got)
	assert.Equal(t, 7, rec.get(&rec.calls, OpAllowance), "two loads, five saves")
	assert.Zero(t, rec.get(&rec.fallbacks, OpAllowance))
}

func TestAllowanceFallsBackWhenRedisFails(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	s, rec := openStore(t, redisConfig(srv))
	ctx := context.Background()
	_, err := s.SaveAllowance(ctx, "data", allowance.State{Used: 1, Limit: 2})
	require.NoError(t, err)
	srv.Kill()
	_, found, err := s.LoadAllowance(ctx, "data")
	assert.Error(t, err)
	assert.False(t, found)
	_, err = s.SaveAllowance(ctx, "data", allowance.State{Used: 2, Limit: 2})
	assert.Error(t, err)
	assert.Equal(t, 2, rec.get(&rec.fallbacks, OpAllowance), "each counted as a decision taken alone")
}
