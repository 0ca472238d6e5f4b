package cluster

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/restgate/gateway/gateway/cluster/redistest"
	"github.com/restgate/gateway/gateway/config"
)

func TestMemoryStoreIsLocal(t *testing.T) {
	t.Parallel()
	s, rec := openStore(t, config.Cluster{Store: config.StoreMemory})
	local := &localLimiter{}
	assert.Same(t, RateLimiter(local), s.Limiter(1, 1, local), "the memory store's limiter is the local one")
	assert.False(t, s.Shared())
	assert.Equal(t, StateUp, rec.state())
	assert.NoError(t, s.Close())
}

// The limit in Redis means what auth.rateLimit means for x/time/rate: a
// bucket of burst tokens refilled at the rate, starting full, and a refusal
// says how long until the next token.
func TestLimiterMatchesTokenBucket(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	s, rec := openStore(t, redisConfig(srv))
	tests := []struct {
		desc  string
		rps   float64
		burst int
	}{
		{desc: "one per 1000s, burst 3", rps: 0.001, burst: 3},
		{desc: "one per 100s, burst 1", rps: 0.01, burst: 1},
		{desc: "three per 1000s, burst 5", rps: 0.003, burst: 5},
	}
	for i, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			ctx := context.Background()
			user := "user-" + strconv.Itoa(i)
			now := time.Now()
			bucket := rate.NewLimiter(rate.Limit(tt.rps), tt.burst)
			l := s.Limiter(tt.rps, tt.burst, &localLimiter{})
			for n := range tt.burst {
				ok, wait, left, err := l.Allow(ctx, user, now)
				require.NoError(t, err)
				assert.True(t, ok, "request %d of the burst", n+1)
				assert.Zero(t, wait)
				require.True(t, bucket.AllowN(now, 1))
				// the tokens left, as x/time/rate counts them (the slow
				// rates make Redis's moving clock add little)
				assert.InDelta(t, bucket.TokensAt(now), left, 0.02, "request %d", n+1)
			}
			ok, wait, _, err := l.Allow(ctx, user, now)
			require.NoError(t, err)
			assert.False(t, ok, "past the burst")
			r := bucket.ReserveN(now, 1)
			want := r.DelayFrom(now)
			// Redis's clock moved on by the test's own duration since the
			// first request: at most a few seconds on a loaded machine
			assert.InDelta(t, want.Seconds(), wait.Seconds(), 5, "wait %s, x/time/rate says %s", wait, want)
			assert.LessOrEqual(t, wait, want)
			ok, _, _, err = l.Allow(ctx, "other-"+user, now)
			require.NoError(t, err)
			assert.True(t, ok, "each user has their own allowance")
		})
	}
	assert.Zero(t, rec.get(&rec.errors, OpRateLimit))
	assert.Zero(t, rec.get(&rec.fallbacks, OpRateLimit))
}

func TestLimiterRefillsAndForgets(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	s, _ := openStore(t, redisConfig(srv))
	rdb := direct(t, srv)
	ctx := context.Background()
	l := s.Limiter(20, 1, &localLimiter{})
	ok, _, _, err := l.Allow(ctx, "u", time.Now())
	require.NoError(t, err)
	require.True(t, ok)
	ttl, err := rdb.PTTL(ctx, "test:rl:u").Result()
	require.NoError(t, err)
	assert.Positive(t, ttl)
	assert.LessOrEqual(t, ttl, 52*time.Millisecond, "the key lives until the bucket is full again")
	ok, wait, _, err := l.Allow(ctx, "u", time.Now())
	require.NoError(t, err)
	if !ok { // unless the machine took 50ms between the two calls
		assert.Positive(t, wait)
		assert.LessOrEqual(t, wait, 50*time.Millisecond)
	}
	require.Eventually(t, func() bool {
		ok, _, _, err := l.Allow(ctx, "u", time.Now())
		return err == nil && ok
	}, 10*time.Second, 5*time.Millisecond, "a token comes back after 1/rate")
	require.Eventually(t, func() bool {
		n, err := rdb.Exists(ctx, "test:rl:u").Result()
		return err == nil && n == 0
	}, 10*time.Second, 10*time.Millisecond, "an idle user's key expires")
}

// Many callers at once, as several replicas would be: Redis's script runs
// alone, so exactly burst requests pass when no time is given to refill.
func TestLimiterIsAtomic(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	const burst = 50
	stores := make([]*Store, 3)
	for i := range stores {
		stores[i], _ = openStore(t, redisConfig(srv))
	}
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for g := range 12 {
		l := stores[g%len(stores)].Limiter(0.0001, burst, &localLimiter{})
		wg.Go(func() {
			for range 20 {
				ok, _, _, err := l.Allow(context.Background(), "shared-user", time.Now())
				assert.NoError(t, err)
				if ok {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int64(burst), allowed.Load(), "240 requests, one bucket of 50")
}
