package cluster

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/cluster/redistest"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
)

// exercise takes a limit of 3 and a duplicate through s: every answer must
// come from Redis.
func exercise(t *testing.T, s *Store, rec *recorder, user string) {
	t.Helper()
	ctx := context.Background()
	l := s.Limiter(0.001, 3, &localLimiter{})
	for i := range 3 {
		ok, _, _, err := l.Allow(ctx, user, time.Now())
		require.NoError(t, err)
		assert.True(t, ok, "request %d", i)
	}
	ok, wait, _, err := l.Allow(ctx, user, time.Now())
	require.NoError(t, err)
	assert.False(t, ok)
	assert.Greater(t, wait, 900*time.Second)
	d := s.Duplicates(time.Minute, duplicates.New(time.Minute, 10))
	req := duplicates.Request{User: user, Method: "GET", Path: "/v2/accounts"}
	assert.False(t, d.Seen(ctx, req, time.Now()))
	assert.True(t, d.Seen(ctx, req, time.Now()))
	assert.Zero(t, rec.get(&rec.errors, OpRateLimit)+rec.get(&rec.errors, OpDuplicates))
	assert.Zero(t, rec.get(&rec.fallbacks, OpRateLimit)+rec.get(&rec.fallbacks, OpDuplicates))
}

func TestSentinelMode(t *testing.T) {
	t.Parallel()
	master := redistest.New(t)
	sentinel := redistest.NewSentinel(t, "gw", master.Addr)
	c := redisConfig(master)
	c.Redis.URL = "redis://"
	c.Redis.Mode, c.Redis.Addrs, c.Redis.MasterName = config.RedisSentinel, sentinel.Addr, "gw"
	s, rec := openStore(t, c)
	exercise(t, s, rec, "sentinel-user")
	n, err := direct(t, master).Exists(context.Background(), "test:rl:sentinel-user").Result()
	require.NoError(t, err)
	assert.Equal(t, int64(1), n, "the sentinel led the client to the master")
}

func TestClusterMode(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a three-node Redis Cluster")
	}
	nodes := redistest.NewCluster(t, 3)
	c := redisConfig(nodes[0])
	c.Redis.URL = "redis://"
	addrs := make([]string, len(nodes))
	for i, n := range nodes {
		addrs[i] = n.Addr
	}
	c.Redis.Mode, c.Redis.Addrs = config.RedisCluster, strings.Join(addrs, ",")
	s, rec := openStore(t, c)
	// users whose keys hash to different slots, so different nodes
	for _, user := range []string{"alice", "bob", "carol", "dave"} {
		exercise(t, s, rec, user)
	}
}

func TestClusterModeRefusesADatabase(t *testing.T) {
	t.Parallel()
	_, err := Open(config.Cluster{Store: config.StoreRedis, Redis: config.Redis{URL: "redis://:pw@/3",
		Mode: config.RedisCluster, Addrs: "a:1"}}, newRecorder(), nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "only database 0")
	assert.NotContains(t, err.Error(), "pw")
}

// rediss:// to a Redis whose certificate a private CA signed: trusted
// through tlsCAFile, refused without it (decided locally, never in clear).
func TestTLS(t *testing.T) {
	t.Parallel()
	srv, caFile := redistest.NewTLS(t)
	c := redisConfig(srv)
	c.Redis.URL = "rediss://" + srv.Addr + "/0"
	c.Redis.TLSCAFile = caFile
	s, rec := openStore(t, c)
	exercise(t, s, rec, "tls-user")

	c.Redis.TLSCAFile = ""
	untrusting, rec := openStore(t, c)
	ok, _, _, err := untrusting.Limiter(0.001, 1, &localLimiter{}).Allow(context.Background(), "tls-user", time.Now())
	require.NoError(t, err)
	assert.True(t, ok, "decided locally: the tls-user's allowance in Redis is spent")
	assert.Equal(t, 1, rec.get(&rec.errors, OpRateLimit), "an unknown CA is an error")

	c.Redis.TLSCAFile = filepath.Join(t.TempDir(), "missing.pem")
	_, err = Open(c, newRecorder(), slog.New(slog.DiscardHandler))
	assert.ErrorContains(t, err, "cluster.redis: tlsCAFile")
}
