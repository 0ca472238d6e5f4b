package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/cluster/redistest"
)

// TestCacheTierHasItsOwnTimeoutAndGuard: a Redis too slow for the rate
// limit's timeout, which makes the store decide alone, still serves the
// response cache's calls within their longer timeout, on their own
// connections and failure count.
func TestCacheTierHasItsOwnTimeoutAndGuard(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	c := redisConfig(srv)
	c.Redis.Timeout, c.Redis.RetryInterval = 20*time.Millisecond, time.Hour
	s, rec := openStore(t, c)
	tier, err := s.CacheTier(30 * time.Second)
	require.NoError(t, err)
	again, err := s.CacheTier(time.Second)
	require.NoError(t, err)
	assert.Same(t, tier, again, "one tier per store")
	ctx := context.Background()
	require.NoError(t, tier.Store(ctx, "e:k", []byte("answer"), time.Minute))

	srv.Pause()
	lim := s.Limiter(10, 10, &localLimiter{})
	require.Eventually(t, func() bool {
		_, _, _, _ = lim.Allow(ctx, "u", time.Now())
		return rec.state() == StateDown
	}, 30*time.Second, time.Millisecond, "the rate limit's calls time out and the store decides alone")

	got := make(chan []byte)
	go func() {
		value, _, _, err := tier.Lookup(ctx, "e:k", "", nil)
		assert.NoError(t, err)
		got <- value
	}()
	srv.Resume()
	assert.Equal(t, []byte("answer"), <-got, "the cache waited for Redis within its own timeout")
	assert.Equal(t, StateDown, rec.state(), "while the rate limit's guard stays open")
	assert.Zero(t, rec.get(&rec.fallbacks, OpCache))
}
