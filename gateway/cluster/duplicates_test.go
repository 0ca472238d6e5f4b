package cluster

import (
	"context"
	"encoding/hex"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/cluster/redistest"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
)

func TestMemoryStoreDuplicatesAreLocal(t *testing.T) {
	t.Parallel()
	s, _ := openStore(t, config.Cluster{Store: config.StoreMemory})
	local := duplicates.New(time.Second, 10)
	assert.Same(t, DuplicateDetector(local), s.Duplicates(time.Second, local))
}

// Two replicas share one Redis: a request seen by one is a duplicate on the
// other, and the window slides as the in-memory detector's does.
func TestDuplicatesAcrossReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	a, rec := openStore(t, redisConfig(srv))
	b, _ := openStore(t, redisConfig(srv))
	const window = time.Minute
	da := a.Duplicates(window, duplicates.New(window, 100))
	db := b.Duplicates(window, duplicates.New(window, 100))
	ctx := context.Background()
	now := time.Now()
	get := duplicates.Request{User: "u1", Method: "GET", Path: "/v2/accounts/001000000000001AAA"}
	assert.False(t, da.Seen(ctx, get, now), "first sighting")
	assert.True(t, db.Seen(ctx, get, now), "the same request on another replica")
	assert.True(t, da.Seen(ctx, get, now))
	other := get
	other.Path = "/v2/accounts/001000000000002AAA"
	assert.False(t, db.Seen(ctx, other, now), "another account")
	other = get
	other.User = "u2"
	assert.False(t, db.Seen(ctx, other, now), "another user")
	other = get
	other.Query = "fields=Name"
	assert.False(t, db.Seen(ctx, other, now), "another query")
	assert.Zero(t, rec.get(&rec.errors, OpDuplicates))
	assert.Zero(t, rec.get(&rec.fallbacks, OpDuplicates))

	rdb := direct(t, srv)
	digest := get.Digest()
	keys, err := rdb.Keys(ctx, "test:dup:*").Result()
	require.NoError(t, err)
	assert.Len(t, keys, 4)
	assert.Contains(t, keys, "test:dup:"+hex.EncodeToString(digest[:]), "keyed by the digest: no user id or body in Redis")
	ttl, err := rdb.PTTL(ctx, "test:dup:"+hex.EncodeToString(digest[:])).Result()
	require.NoError(t, err)
	assert.Greater(t, ttl, window-10*time.Second)
	assert.LessOrEqual(t, ttl, window, "Redis forgets a request one window after its last sighting")
}

func TestDuplicatesWindowExpiresInRedis(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	s, _ := openStore(t, redisConfig(srv))
	const window = 300 * time.Millisecond
	d := s.Duplicates(window, duplicates.New(window, 100))
	ctx := context.Background()
	req := duplicates.Request{User: "u", Method: "POST", Path: "/v2/accounts", Body: []byte(`{"name":"A"}`)}
	require.False(t, d.Seen(ctx, req, time.Now()))
	rdb := direct(t, srv)
	require.Eventually(t, func() bool {
		n, err := rdb.DBSize(ctx).Result()
		return err == nil && n == 0
	}, 10*time.Second, 20*time.Millisecond)
	assert.False(t, d.Seen(ctx, req, time.Now().Add(time.Hour)), "new again once the window passed")
}

func TestDuplicatesZeroWindowIsLocal(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	s, _ := openStore(t, redisConfig(srv))
	local := duplicates.New(0, 10)
	assert.Same(t, DuplicateDetector(local), s.Duplicates(0, local), "nothing to share: the detector reports nothing")
}
