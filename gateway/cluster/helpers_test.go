package cluster

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/cluster/redistest"
	"github.com/restgate/gateway/gateway/config"
)

// recorder keeps what the store reported.
type recorder struct {
	mu        sync.Mutex
	calls     map[string]int
	errors    map[string]int
	fallbacks map[string]int
	states    []int
}

func newRecorder() *recorder {
	return &recorder{calls: map[string]int{}, errors: map[string]int{}, fallbacks: map[string]int{}}
}

func (r *recorder) ClusterStoreCall(op string, _ time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls[op]++
	if err != nil {
		r.errors[op]++
	}
}

func (r *recorder) ClusterStoreFallback(op string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fallbacks[op]++
}

func (r *recorder) ClusterStoreState(s int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.states = append(r.states, s)
}

func (r *recorder) get(m *map[string]int, op string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return (*m)[op]
}

func (r *recorder) state() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.states[len(r.states)-1]
}

// redisConfig is the cluster block of a redis store on srv, with a timeout
// generous enough for a loaded test machine unless a test narrows it.
func redisConfig(srv *redistest.Server) config.Cluster {
	c := config.Cluster{Store: config.StoreRedis, Redis: config.Redis{URL: srv.URL()}}
	c.Redis.Mode, c.Redis.KeyPrefix = config.RedisSingle, "test:"
	c.Redis.Timeout, c.Redis.DialTimeout = 2*time.Second, time.Second
	c.Redis.FailureThreshold, c.Redis.RetryInterval = 3, 100*time.Millisecond
	return c
}

func openStore(t testing.TB, c config.Cluster) (*Store, *recorder) {
	t.Helper()
	rec := newRecorder()
	s, err := Open(c, rec, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s, rec
}

// direct is a plain client on srv, to look at what the store wrote.
func direct(t testing.TB, srv *redistest.Server) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(srv.URL())
	require.NoError(t, err)
	c := redis.NewClient(opt)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// localLimiter counts the decisions it was asked for and allows them all.
type localLimiter struct {
	mu    sync.Mutex
	asked int
}

func (l *localLimiter) Allow(context.Context, string, time.Time) (bool, time.Duration, float64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked++
	return true, 0, 0, nil
}

func (l *localLimiter) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.asked
}
