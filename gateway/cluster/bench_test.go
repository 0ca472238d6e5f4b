package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/restgate/gateway/gateway/allowance"
	"github.com/restgate/gateway/gateway/cluster/redistest"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/quota"
)

// The cost of one decision in Redis, seen from the gateway: the client's
// encoding and parsing, the round trip on loopback, the guard. Redis's own
// CPU is not in it (see the load harness's -cluster).
func BenchmarkLimiterAllowRedis(b *testing.B) {
	srv := redistest.New(b)
	s, _ := openStore(b, redisConfig(srv))
	l := s.Limiter(1e9, 1e9, &localLimiter{})
	ctx := context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, _, err := l.Allow(ctx, "user-1", time.Now()); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkDuplicatesSeenRedis(b *testing.B) {
	srv := redistest.New(b)
	s, _ := openStore(b, redisConfig(srv))
	d := s.Duplicates(10*time.Second, duplicates.New(10*time.Second, 10000))
	ctx := context.Background()
	req := duplicates.Request{User: "user-1", Method: "GET", Path: "/v2/accounts", Query: "limit=20&offset=0"}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			d.Seen(ctx, req, time.Now())
		}
	})
}

// BenchmarkQuotaTakeRedis is one request counted in a day and a month of
// one consumer's quota: one script, one round trip.
func BenchmarkQuotaTakeRedis(b *testing.B) {
	srv := redistest.New(b)
	s, _ := openStore(b, redisConfig(srv))
	q := s.Quotas(quota.NewMemory(100, nil))
	ctx := context.Background()
	now := time.Now()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := q.Take(ctx, quotaRequest("user:bench", 1e15, now)); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkAllowanceLoadRedis is the read of the shared allowance every
// guarded call makes with the redis store.
func BenchmarkAllowanceLoadRedis(b *testing.B) {
	srv := redistest.New(b)
	s, _ := openStore(b, redisConfig(srv))
	ctx := context.Background()
	if _, err := s.SaveAllowance(ctx, "data", allowance.State{Used: 18, Limit: 15000}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, err := s.LoadAllowance(ctx, "data"); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
