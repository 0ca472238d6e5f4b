package app

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/cluster"
	"github.com/restgate/gateway/gateway/cluster/redistest"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
)

// cacheReplica is one replica of the gateway of yaml (thingsConfig) sharing
// srv, on the clock now (nil: time.Now).
func cacheReplica(t *testing.T, srv *redistest.Server, yaml string, now func() time.Time) (http.Handler, *Shared) {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml+`
cluster:
  store: redis
  redis: {url: `+srv.URL()+`, keyPrefix: "cache-test:", timeout: 2s}
`), func(string) string { return "" })
	require.NoError(t, err)
	m, err := metrics.New(prometheus.NewRegistry(), metrics.BuildInfo{Version: "test"})
	require.NoError(t, err)
	store, err := cluster.Open(cfg.Cluster, m, discardLogger())
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	sh := &Shared{Logger: discardLogger(), Metrics: m, CallLog: &recordingLog{}, Cluster: store,
		Duplicates: duplicates.New(time.Minute, 100), Now: now,
		Upstreams: NewUpstreamSet(m, func(string, string) (string, error) { return "", errors.New("no sandbox") })}
	gw, err := Build(t.Context(), cfg, tabled(t, cfg), sh)
	require.NoError(t, err)
	t.Cleanup(sh.ResponseCache().Close)
	require.Eventually(t, sh.ResponseCache().SharedUp, 10*time.Second, 10*time.Millisecond, "the replica hears the others")
	return gw.Handler, sh
}

func getThing(t *testing.T, h http.Handler, path string) (status, name string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	_, env := rec, envelopeOf(t, rec)
	res, _ := env["result"].(map[string]any)
	n, _ := res["name"].(string)
	return rec.Header().Get("Cache-Status"), n
}

func TestCacheSharedByThreeReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	b := newThingsBackend(t)
	a, _ := cacheReplica(t, srv, thingsConfig(b.srv.URL, "{ttl: 1m, scope: shared}", "{}"), nil)
	bb, _ := cacheReplica(t, srv, thingsConfig(b.srv.URL, "{ttl: 1m, scope: shared}", "{}"), nil)
	c, _ := cacheReplica(t, srv, thingsConfig(b.srv.URL, "{ttl: 1m, scope: shared}", "{}"), nil)

	st, name := getThing(t, a, "/v1/things/1")
	assert.Contains(t, st, "fwd=miss")
	assert.Equal(t, "one", name)
	st, name = getThing(t, bb, "/v1/things/1")
	assert.Equal(t, "restgate; hit; ttl=60", st, "B is served what A fetched")
	assert.Equal(t, "one", name)
	getThing(t, c, "/v1/things/1")
	assert.Equal(t, int64(1), b.gets.Load(), "one backend call for three replicas")

	// a write on C invalidates the answer on all three
	rec := httptest.NewRecorder()
	c.ServeHTTP(rec, httptest.NewRequest(http.MethodPut, "/v2/things/1", strings.NewReader(`{"Name":"uno"}`)))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	for i, h := range []http.Handler{a, bb, c} {
		require.Eventually(t, func() bool { _, n := getThing(t, h, "/v1/things/1"); return n == "uno" },
			5*time.Second, 5*time.Millisecond, "replica %d serves the write", i)
	}

	// 50 concurrent misses of one key spread over the three: one backend call
	b.delay.Store(int64(200 * time.Millisecond))
	before := b.gets.Load()
	var wg sync.WaitGroup
	names := make([]string, 50)
	for i := range 50 {
		wg.Go(func() { _, names[i] = getThing(t, []http.Handler{a, bb, c}[i%3], "/v2/things/2") })
	}
	wg.Wait()
	assert.Equal(t, int64(1), b.gets.Load()-before, "one backend call for 50 misses over three replicas")
	for _, n := range names {
		assert.Equal(t, "two", n)
	}
}

// A stale answer is revalidated once for the cluster: the replica whose
// copy went stale after another revalidated it reads the fresh one from
// Redis instead of calling the backend again; and a replica waiting on
// another's revalidation waits for its answer, not the stale one still in
// Redis.
func TestCacheRevalidatedOnceAcrossReplicas(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	b := newThingsBackend(t)
	clock := &testClock{now: time.Now()}
	// staleIfError keeps answers in Redis past staleWhileRevalidate
	const routeCache = "{ttl: 1m, staleWhileRevalidate: 1m, staleIfError: 10m, scope: shared}"
	a, _ := cacheReplica(t, srv, thingsConfig(b.srv.URL, routeCache, "{}"), clock.Now)
	bb, _ := cacheReplica(t, srv, thingsConfig(b.srv.URL, routeCache, "{}"), clock.Now)
	c, _ := cacheReplica(t, srv, thingsConfig(b.srv.URL, routeCache, "{}"), clock.Now)
	for _, h := range []http.Handler{a, bb, c} {
		getThing(t, h, "/v1/things/1")
	}
	require.Equal(t, int64(1), b.gets.Load())

	clock.add(61 * time.Second)
	st, _ := getThing(t, a, "/v1/things/1")
	assert.Contains(t, st, `detail="stale-while-revalidate"`, "A serves its stale copy and revalidates it")
	require.Eventually(t, func() bool { st, _ := getThing(t, a, "/v1/things/1"); return st == "restgate; hit; ttl=60" },
		5*time.Second, time.Millisecond, "A's revalidation lands")
	st, _ = getThing(t, bb, "/v1/things/1")
	assert.Equal(t, "restgate; hit; ttl=60", st, "B's stale copy is replaced by A's revalidated one")
	assert.Equal(t, int64(2), b.gets.Load(), "one revalidation for the cluster")

	// C waits on a revalidation in flight elsewhere: the lock is held, and
	// Redis still holds the stale answer until the holder stores the new one.
	clock.add(61 * time.Second)
	gate := make(chan struct{})
	b.hold.Store(&gate)
	release := sync.OnceFunc(func() { b.hold.Store(nil); close(gate) })
	t.Cleanup(release) // a failure before the release must not leave A's call hanging
	arrived := b.arrived.Load()
	// stale: A revalidates it in the background, holding the lock (asked
	// again until it does: the last revalidation may still be winding up)
	require.Eventually(t, func() bool { getThing(t, a, "/v1/things/1"); return b.arrived.Load() == arrived+1 },
		5*time.Second, time.Millisecond)
	gets := redisCalls(t, srv, "get")
	for range 20 {
		st, _ = getThing(t, a, "/v1/things/1")
		require.Contains(t, st, `detail="stale-while-revalidate"`)
	}
	assert.Equal(t, gets, redisCalls(t, srv, "get"), "readers served stale during A's revalidation do not each ask Redis")
	clock.add(time.Minute) // past staleWhileRevalidate: C must be answered afresh
	polls := redisCalls(t, srv, "exists")
	done := make(chan string)
	go func() { st, _ := getThing(t, c, "/v1/things/1"); done <- st }()
	require.Eventually(t, func() bool { return redisCalls(t, srv, "exists") > polls }, 5*time.Second, time.Millisecond,
		"C polls for the lock holder's answer")
	release()
	st = <-done
	assert.Contains(t, st, "collapsed", "C's request waited on A's call")
	assert.Contains(t, st, "; ttl=60", "and was answered with A's fresh answer, not the stale one")
	assert.Equal(t, int64(3), b.gets.Load())
}

// redisCalls is how many times srv has run command (INFO commandstats).
func redisCalls(t *testing.T, srv *redistest.Server, command string) int {
	t.Helper()
	opts, err := redis.ParseURL(srv.URL())
	require.NoError(t, err)
	client := redis.NewClient(opts)
	defer client.Close()
	info, err := client.Info(t.Context(), "commandstats").Result()
	require.NoError(t, err)
	for line := range strings.Lines(info) {
		if rest, ok := strings.CutPrefix(line, "cmdstat_"+command+":calls="); ok {
			n, err := strconv.Atoi(rest[:strings.IndexByte(rest, ',')])
			require.NoError(t, err)
			return n
		}
	}
	return 0
}

// While Redis is away a replica serves no answer from its memory that a
// write through another replica could have changed; the answers of a route
// no write invalidates it keeps serving, each replica fetching them once
// per ttl instead of once per request.
func TestCacheWithoutRedisKeepsOnlyWriteFreeAnswers(t *testing.T) {
	t.Parallel()
	srv := redistest.New(t)
	b := newThingsBackend(t)
	yaml := strings.Replace(thingsConfig(b.srv.URL, "{ttl: 1m, scope: shared}", "{}"), "upstreams:\n",
		"upstreams:\n  mirror: {url: "+b.srv.URL+", retry: {attempts: 1}}\n", 1) +
		`  - {path: "/{version}/mirror/{id}", kind: proxy, upstream: mirror, upstreamPath: "/things/{id}", cache: {ttl: 1m, scope: shared}}` + "\n"
	a, sh := cacheReplica(t, srv, yaml, nil)
	getThing(t, a, "/v1/mirror/1")
	getThing(t, a, "/v1/things/1")
	require.Equal(t, int64(2), b.gets.Load())

	srv.Kill()
	require.Eventually(t, func() bool { return !sh.ResponseCache().SharedUp() }, 10*time.Second, 10*time.Millisecond)
	st, name := getThing(t, a, "/v1/mirror/1")
	assert.Equal(t, "restgate; hit; ttl=60", st, "no write invalidates the mirror: its answer is served")
	assert.Equal(t, "one", name)
	for range 2 {
		st, _ = getThing(t, a, "/v1/things/1")
		assert.Contains(t, st, "fwd=miss", "a write elsewhere could have changed a thing: not served from memory")
	}
	getThing(t, a, "/v1/mirror/2")
	st, _ = getThing(t, a, "/v1/mirror/2")
	assert.Equal(t, "restgate; hit; ttl=60", st, "kept in memory while Redis is away")
	assert.Equal(t, int64(5), b.gets.Load())
}
