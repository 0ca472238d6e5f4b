package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/restgate/gateway/gateway/cluster/redistest"
	"github.com/restgate/gateway/gateway/duplicates"
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
