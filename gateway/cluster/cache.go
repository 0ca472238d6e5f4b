package cluster

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sony/gobreaker/v2"
)

// OpCache is the op label of the response cache's calls to Redis.
const OpCache = "cache"

// markLife is how long a response-cache mark lives in Redis: longer than
// any answer it can invalidate (gateway/cache keeps none past 24 hours).
const markLife = 25 * time.Hour

// CacheTier is the response cache's shared tier in Redis (gateway/cache's
// Shared): answers under <keyPrefix>cache:e:..., the locks of the answers
// being fetched, the invalidation marks and their sequence in one hash slot
// ({m}, so that one script bumps them in Redis Cluster too), and a pub/sub
// channel that tells every replica which marks were bumped. Every call
// goes through a guard of the tier's own: bounded by cache.redisTimeout,
// counted, and not made while Redis is down for the cache. The tier has
// its own connections too, so that a Redis slow for one of the rate
// limit's 10 ms decisions still serves the cache's lookups, which save a
// backend call, and the other way round.
type CacheTier struct {
	client  redis.UniversalClient
	guard   *guard
	prefix  string
	channel string
	// id starts this replica's notes, so that it does not apply its own.
	id   [8]byte
	bump *redis.Script
	// subscribed: the channel is heard (Listen).
	subscribed atomic.Bool
}

// bumpSource sets the marks KEYS[2:] (or, with none, the floor) to the
// next sequence number and publishes ARGV[2] on ARGV[3], atomically.
const bumpSource = `
local v = redis.call('INCR', KEYS[1])
if #KEYS == 1 then
  redis.call('SET', ARGV[4], v)
else
  for i = 2, #KEYS do redis.call('SET', KEYS[i], v, 'PX', ARGV[1]) end
end
redis.call('PUBLISH', ARGV[3], ARGV[2])
return v
`

// CacheTier returns the response cache's Redis tier, whose calls wait on
// Redis at most timeout (cache.redisTimeout); nil with the memory store.
// The tier is made at the first call, with its own connections, and closed
// with the store.
func (s *Store) CacheTier(timeout time.Duration) (*CacheTier, error) {
	if s.client == nil {
		return nil, nil
	}
	var err error
	s.cacheOnce.Do(func() {
		r := s.redis
		r.Timeout = timeout
		var client redis.UniversalClient
		if client, err = newClient(r); err != nil {
			return
		}
		t := &CacheTier{client: client, prefix: s.prefix + "cache:", channel: s.prefix + "cache:notes",
			bump: redis.NewScript(bumpSource)}
		t.guard = newGuardOf(guardOf{name: "cluster-store-cache", timeout: timeout, threshold: r.FailureThreshold,
			retry: r.RetryInterval, rec: s.rec, logger: s.logger, state: func(int) {},
			down: "shared store down for the response cache: each replica keeps its answers to itself",
			back: "shared store back for the response cache: answers are shared again"})
		_, _ = rand.Read(t.id[:])
		s.cache = t
	})
	if err != nil {
		return nil, fmt.Errorf("cluster.redis: %w", err)
	}
	return s.cache, nil
}

func (t *CacheTier) markKey(m uint64) string {
	return t.prefix + "{m}:" + strconv.FormatUint(m, 36)
}

func (t *CacheTier) seqKey() string   { return t.prefix + "{m}:seq" }
func (t *CacheTier) floorKey() string { return t.prefix + "{m}:floor" }

// Lookup implements gateway/cache's Shared.
func (t *CacheTier) Lookup(ctx context.Context, key, lock string, marks []uint64) ([]byte, int64, bool, error) {
	var value []byte
	var newest int64
	var locked bool
	err := t.guard.run(ctx, OpCache, func(ctx context.Context) error {
		keys := make([]string, 0, len(marks)+1)
		keys = append(keys, t.floorKey())
		for _, m := range marks {
			keys = append(keys, t.markKey(m))
		}
		pipe := t.client.Pipeline()
		get := pipe.Get(ctx, t.prefix+key)
		var exists *redis.IntCmd
		if lock != "" {
			exists = pipe.Exists(ctx, t.prefix+lock)
		}
		mget := pipe.MGet(ctx, keys...)
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		b, err := get.Bytes()
		switch {
		case errors.Is(err, redis.Nil):
		case err != nil:
			return err
		default:
			value = b
		}
		if exists != nil {
			locked = exists.Val() > 0
		}
		for _, v := range mget.Val() {
			if s, ok := v.(string); ok {
				if n, err := strconv.ParseInt(s, 10, 64); err == nil {
					newest = max(newest, n)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.guard.rec.ClusterStoreFallback(OpCache)
	}
	return value, newest, locked, err
}

// Store implements gateway/cache's Shared.
func (t *CacheTier) Store(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	return t.guard.run(ctx, OpCache, func(ctx context.Context) error {
		return t.client.Set(ctx, t.prefix+key, value, max(ttl, time.Millisecond)).Err()
	})
}

// Lock implements gateway/cache's Shared.
func (t *CacheTier) Lock(ctx context.Context, lock string, ttl time.Duration) (bool, int64, error) {
	var taken bool
	var seq int64
	err := t.guard.run(ctx, OpCache, func(ctx context.Context) error {
		pipe := t.client.Pipeline()
		set := pipe.SetArgs(ctx, t.prefix+lock, "1", redis.SetArgs{Mode: "NX", TTL: ttl})
		get := pipe.Get(ctx, t.seqKey())
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		taken = set.Val() == "OK"
		if n, err := get.Int64(); err == nil {
			seq = n
		}
		return nil
	})
	return taken, seq, err
}

// Unlock implements gateway/cache's Shared.
func (t *CacheTier) Unlock(ctx context.Context, lock string) {
	_ = t.guard.run(ctx, OpCache, func(ctx context.Context) error {
		return t.client.Del(ctx, t.prefix+lock).Err()
	})
}

// Bump implements gateway/cache's Shared.
func (t *CacheTier) Bump(ctx context.Context, marks []uint64) error {
	keys := make([]string, 0, len(marks)+1)
	keys = append(keys, t.seqKey())
	note := make([]byte, 0, 8+8*len(marks))
	note = append(note, t.id[:]...)
	for _, m := range marks {
		keys = append(keys, t.markKey(m))
		note = binary.BigEndian.AppendUint64(note, m)
	}
	return t.guard.run(ctx, OpCache, func(ctx context.Context) error {
		return t.bump.Run(ctx, t.client, keys, markLife.Milliseconds(), note, t.channel, t.floorKey()).Err()
	})
}

// listenTimeout is how long Listen waits for a note before it pings, and
// then for the ping's answer before it calls the channel lost.
const listenTimeout = time.Second

// Listen implements gateway/cache's Shared: it hears the notes of the other
// replicas until ctx ends, through go-redis's reconnecting subscription.
// After each (re)subscription it calls heard(nil): notes sent while it was
// not listening are lost, so every answer this replica holds is dropped.
func (t *CacheTier) Listen(ctx context.Context, heard func(marks []uint64)) {
	ps := t.client.Subscribe(ctx, t.channel)
	defer func() { _ = ps.Close() }()
	pinged := false
	for ctx.Err() == nil {
		msg, err := ps.ReceiveTimeout(ctx, listenTimeout)
		if err != nil {
			var ne interface{ Timeout() bool }
			if errors.As(err, &ne) && ne.Timeout() && !pinged {
				pinged = ps.Ping(ctx) == nil
				continue
			}
			t.subscribed.Store(false)
			pinged = false
			sleep(ctx, listenTimeout)
			continue
		}
		pinged = false
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				heard(nil)
				t.subscribed.Store(true)
			}
		case *redis.Message:
			note := []byte(m.Payload)
			if len(note) < 8 || string(note[:8]) == string(t.id[:]) {
				continue
			}
			heard(decodeMarks(note[8:]))
		}
	}
	t.subscribed.Store(false)
}

// decodeMarks reads a note's marks; none is nil (the floor: all).
func decodeMarks(b []byte) []uint64 {
	if len(b) < 8 {
		return nil
	}
	out := make([]uint64, 0, len(b)/8)
	for i := 0; i+8 <= len(b); i += 8 {
		out = append(out, binary.BigEndian.Uint64(b[i:]))
	}
	return out
}

// Up implements gateway/cache's Shared: the channel is heard and Redis is
// not known to be down.
func (t *CacheTier) Up() bool {
	return t.subscribed.Load() && t.guard.cb.State() != gobreaker.StateOpen
}

func sleep(ctx context.Context, d time.Duration) {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
}
