package cluster

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/cluster/redistest"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/quota"
)

// quotaRequest is one request of consumer counted in a day of quota q and
// a month of quota 10*q.
func quotaRequest(consumer string, q int64, now time.Time) *quota.Request {
	y, m, d := now.UTC().Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	return &quota.Request{Consumer: consumer, Policy: "default", Counts: []quota.Count{
		{Name: "day", Quota: q, Window: 86400, Reset: day.AddDate(0, 0, 1), Key: "{" + consumer + "}:day:" + day.Format("20060102")},
		{Name: "month", Quota: 10 * q, Window: 30 * 86400, Reset: day.AddDate(0, 1, 0), Key: "{" + consumer + "}:month:" + day.Format("200601")},
	}}
}

func TestMemoryStoreCountsLocally(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, config.Cluster{Store: config.StoreMemory})
	local := quota.NewMemory(10, nil)
	assert.Same(t, quota.Store(local), s.Quotas(local))
}

// Replicas sharing Redis count one quota: however the requests are spread
// and however many arrive at once, exactly the quota is allowed.
func TestQuotaHeldAcrossReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	var replicas []quota.Store
	var locals []*quota.Memory
	for range 3 {
		s, _ := openStore(t, redisConfig(srv))
		local := quota.NewMemory(100, nil)
		replicas = append(replicas, s.Quotas(local))
		locals = append(locals, local)
	}
	const limit = 150
	now := time.Now()
	var allowed, refused atomic.Int64
	var wg sync.WaitGroup
	for g := range 12 {
		wg.Go(func() {
			for range 20 {
				spent, err := replicas[g%3].Take(context.Background(), quotaRequest("key:abc", limit, now))
				if !assert.NoError(t, err) {
					return
				}
				if spent < 0 {
					allowed.Add(1)
				} else {
					refused.Add(1)
					assert.Equal(t, 0, spent, "the day is what runs out")
				}
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int64(limit), allowed.Load(), "240 requests over three replicas, a quota of 150")
	assert.Equal(t, int64(240-limit), refused.Load())

	peek := quotaRequest("key:abc", limit, now)
	require.NoError(t, replicas[1].Peek(context.Background(), peek))
	assert.Equal(t, int64(limit), peek.Counts[0].Used)
	assert.Equal(t, int64(limit), peek.Counts[1].Used, "a refused request is counted in no window")
	kept := locals[2].Consumers(0)
	require.Len(t, kept, 1)
	assert.Equal(t, "key:abc", kept[0].Consumer, "each replica keeps the consumers it counted")

	ttl := direct(t, srv).PTTL(context.Background(), "test:q:"+peek.Counts[0].Key).Val()
	assert.InDelta(t, (time.Until(peek.Counts[0].Reset) + clockMargin).Seconds(), ttl.Seconds(), 5,
		"kept past the window's end by the clock margin")
}

func TestQuotaWhenRedisFails(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("open: goes on from the last counts", func(t *testing.T) {
		t.Parallel()
		srv := redistest.New(t)
		s, rec := openStore(t, redisConfig(srv))
		local := quota.NewMemory(10, nil)
		q := s.Quotas(local)
		now := time.Now()
		for range 4 {
			spent, err := q.Take(ctx, quotaRequest("user:u", 5, now))
			require.NoError(t, err)
			require.Equal(t, -1, spent)
		}
		srv.Kill()
		spent, err := q.Take(ctx, quotaRequest("user:u", 5, now))
		require.NoError(t, err)
		assert.Equal(t, -1, spent, "the fifth, counted by the replica from the 4 Redis counted")
		spent, err = q.Take(ctx, quotaRequest("user:u", 5, now))
		require.NoError(t, err)
		assert.Equal(t, 0, spent, "the sixth is refused by the replica alone")
		assert.Equal(t, 2, rec.get(&rec.fallbacks, OpQuota))
	})
	t.Run("closed", func(t *testing.T) {
		t.Parallel()
		srv := redistest.New(t)
		c := redisConfig(srv)
		c.FailClosed = true
		s, _ := openStore(t, c)
		q := s.Quotas(quota.NewMemory(10, nil))
		srv.Kill()
		_, err := q.Take(ctx, quotaRequest("user:u", 5, time.Now()))
		assert.Error(t, err, "no decision: the caller answers 503")
	})
}
