package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/restgate/gateway/gateway/cluster/redistest"
)

// cacheConfig is the cache scenario's gateway: the shipped config's data
// upstream and its cache settings (the org's uncacheable marks ignored,
// shared, staleWhileRevalidate 1m, staleIfError 10m), the shipped cache
// bounds and Redis timeouts (unless -redis-timeout and -cache-redis-timeout
// say otherwise), the describe route cached for CACHE_TTL (the
// shipped 15m is longer than a run), and two more routes to the same
// describe: one keyed on X-Loadtest-Key, which the harness sets anew on
// every request, so that each is a miss (fetched, rendered, stored), with
// a short life so that Redis does not fill; and one without cache, as
// every request was before the cache.
const cacheConfig = `server:
  listen: ${GATEWAY_LISTEN:-}
  adminListen: ${GATEWAY_ADMIN_LISTEN:-}
  tls: {mode: "${GATEWAY_TLS:-off}"}
  dataDir: ${GATEWAY_DATA_DIR:-}
  pprof: true
versions: [v1, v2]
mapping:
  maxOutputChars: 4000000
auth:
  mode: none
cluster:
  store: ${GATEWAY_CLUSTER_STORE:-memory}
  redis:
    url: "${GATEWAY_REDIS_URL:-}"
    timeout: ${GATEWAY_REDIS_TIMEOUT:-10ms}
cache:
  redisTimeout: ${CACHE_REDIS_TIMEOUT:-100ms}
log:
  collectorURL: ${GATEWAY_LOG_COLLECTOR_URL:-}
  format: text
  batchSize: 100
  flushInterval: 1s
  level: warn
upstreams:
  data:
    url: ${DATA_URL:-}
    timeout: 15s
    auth: {bearerToken: loadtest}
    cache: {backendHeaders: ignore, scope: shared, staleWhileRevalidate: 1m, staleIfError: 10m}
    options: {apiVersion: ` + describeAPIVersion + `}
routes:
  - {path: "/{version}/sobjects/{type}/describe", kind: data, action: describe, upstream: data,
     cache: {ttl: "${CACHE_TTL:-15m}"}}
  - {path: "/{version}/miss/sobjects/{type}/describe", kind: data, action: describe, upstream: data,
     cache: {ttl: 100ms, staleWhileRevalidate: 1ms, staleIfError: 1ms, vary: [X-Loadtest-Key]}}
  - {path: "/{version}/uncached/sobjects/{type}/describe", kind: data, action: describe, upstream: data}
`

// The cache scenario's targets: the same describe through the cached
// route (hits), through the route keyed anew on every request (misses) and
// through the route without cache. Each asks another type, so that the
// backend tells their calls apart.
var cacheTargets = []struct{ name, path, typ string }{
	{"hit", "/v2/sobjects/Account/describe", "Account"},
	{"miss", "/v2/miss/sobjects/Contact/describe", "Contact"},
	{"uncached", "/v2/uncached/sobjects/Lead/describe", "Lead"},
}

// cacheTarget is one of cacheTargets under load, spread over the replicas:
// worker w asks replica w mod len(urls).
type cacheTarget struct {
	target
	typ     string
	urls    []string
	clients []*http.Client
	// unique sends X-Loadtest-Key with a new value on each request.
	unique bool
	keys   atomic.Int64
	// rounds are the measured stretches, in unix nanoseconds.
	rounds   [][2]int64
	redisCPU time.Duration
}

func (ct *cacheTarget) send(worker int) (int, int64, error) {
	i := worker % len(ct.urls)
	req, err := http.NewRequest(http.MethodGet, ct.urls[i], nil)
	if err != nil {
		return 0, 0, err
	}
	if ct.unique {
		req.Header.Set("X-Loadtest-Key", strconv.FormatInt(ct.keys.Add(1), 10))
	}
	return read(ct.clients[i].Do(req))
}

// cacheRun is what the scenario started: the backend, redis-server (with
// more than one replica) and the replicas.
type cacheRun struct {
	backend  *child
	redis    *redistest.Server
	replicas []*child
}

func (cr *cacheRun) stop() {
	cr.stopReplicas()
	if cr.redis != nil {
		cr.redis.Stop()
	}
	if cr.backend != nil {
		cr.backend.stop()
	}
}

// stopReplicas stops the replicas (which flushes their call logs); a
// second call does nothing.
func (cr *cacheRun) stopReplicas() {
	for _, r := range cr.replicas {
		r.stop()
	}
	cr.replicas = nil
}

// usage is what the replicas used so far, added, their largest resident
// set, and redis-server's CPU.
func (cr *cacheRun) usage(tick time.Duration) (usage, time.Duration, error) {
	var sum usage
	for _, r := range cr.replicas {
		u, err := r.usage(tick)
		if err != nil {
			return usage{}, 0, fmt.Errorf("%s: %w", r.name, err)
		}
		sum.cpu += u.cpu
		sum.syscalls += u.syscalls
		sum.rss = max(sum.rss, u.rss)
	}
	if cr.redis == nil {
		return sum, 0, nil
	}
	u, err := processUsage(cr.redis.Pid(), tick)
	return sum, u.cpu, err
}

// measureCache runs the cache scenario: the describe backend, redis-server
// when there is more than one replica, the replicas of the gateway on
// cacheConfig, and cacheTargets driven in interleaved rounds.
func measureCache(ctx context.Context, o options, log io.Writer) (*report, error) {
	ws, err := prepare(ctx, o, log)
	if err != nil {
		return nil, err
	}
	defer ws.close()
	dir, bin, self, lines := ws.dir, ws.bin, ws.self, ws.lines
	cr := &cacheRun{}
	defer cr.stop()
	if cr.backend, err = startChild(ctx, "describe backend", childCommand(self, "-serve-data", "-host", o.host,
		"-describe-latency", o.describeLatency.String(), "-describe-fields", strconv.Itoa(o.describeFields))); err != nil {
		return nil, err
	}
	env := []string{"DATA_URL=" + cr.backend.url, "CACHE_TTL=" + o.cacheTTL.String(), "GATEWAY_LOG_COLLECTOR_URL=" + lines.url,
		"GATEWAY_REDIS_TIMEOUT=" + o.redisTimeout.String(), "CACHE_REDIS_TIMEOUT=" + o.cacheRedis.String()}
	if o.cacheReplicas > 1 {
		rdir := filepath.Join(dir, "redis")
		if err := os.MkdirAll(rdir, 0o700); err != nil {
			return nil, err
		}
		if cr.redis, err = redistest.Start(rdir); err != nil {
			return nil, fmt.Errorf("the replicas share a redis-server (apt-get install -y redis-server): %w", err)
		}
		env = append(env, "GATEWAY_CLUSTER_STORE=redis", "GATEWAY_REDIS_URL="+cr.redis.URL())
	}
	for i := range o.cacheReplicas {
		name := fmt.Sprintf("replica %d", i+1)
		g, err := runGateway(ctx, gatewayRun{bin: bin, dir: filepath.Join(dir, fmt.Sprintf("replica%d", i+1)), host: o.host,
			config: cacheConfig, name: name, log: "gateway.log", env: env, probe: ready})
		if err != nil {
			return nil, err
		}
		cr.replicas = append(cr.replicas, g)
	}
	if cr.redis != nil {
		if err := awaitSubscribers(ctx, cr.redis.URL(), len(cr.replicas)); err != nil {
			return nil, err
		}
	}
	var targets []*cacheTarget
	for _, ct := range cacheTargets {
		t := &cacheTarget{target: target{endpoint: endpoint{name: ct.name, path: ct.path}, hist: newHistogram()},
			typ: ct.typ, unique: ct.name == "miss"}
		for _, r := range cr.replicas {
			t.urls = append(t.urls, r.url+ct.path)
			t.clients = append(t.clients, newClient(o.cacheClients/len(cr.replicas)+1, false, false, nil))
		}
		targets = append(targets, t)
	}
	tick := clockTick()
	fmt.Fprintf(log, "loadtest: cache scenario: %d replicas, %d clients, ttl %s, describe of %d fields after %s\n",
		len(cr.replicas), o.cacheClients, o.cacheTTL, o.describeFields, o.describeLatency)
	for _, t := range targets {
		for i, c := range t.clients {
			if err := checkDescribe(c, t.urls[i], t.typ, o.describeFields); err != nil {
				return nil, fmt.Errorf("%s: %w", t.name, err)
			}
		}
		fmt.Fprintf(log, "loadtest: warming up %s\n", t.name)
		if r := driveWith(ctx, o.cacheClients, o.warmup, t.send); r.requests == 0 && o.warmup > 0 {
			return nil, fmt.Errorf("%s answered no request during the warm-up (%d non-2xx, %d failed)", t.name, r.non2xx, r.failures)
		}
	}
	for round := range o.rounds {
		for i := range targets {
			if err := targets[(i+round)%len(targets)].round(ctx, o, cr, tick); err != nil {
				return nil, err
			}
		}
		fmt.Fprintf(log, "loadtest: round %d/%d done\n", round+1, o.rounds)
	}
	for _, t := range targets {
		for _, c := range t.clients {
			c.CloseIdleConnections()
		}
	}
	calls, err := backendCalls(cr.backend.url)
	if err != nil {
		return nil, err
	}
	metrics, err := scrapeCache(cr.replicas)
	if err != nil {
		return nil, err
	}
	answer, err := answerSize(targets[0].clients[0], targets[0].urls[0])
	if err != nil {
		return nil, err
	}
	cr.stopReplicas()
	rep := newReport(o, nil, lines.Load())
	rep.Cache = newCacheReport(o, targets, calls, metrics, answer)
	for _, t := range targets {
		rep.Targets = append(rep.Targets, t.report(answer))
	}
	return rep, nil
}

// round drives t for one measured stretch, reading what the replicas and
// redis-server used before and after.
func (t *cacheTarget) round(ctx context.Context, o options, cr *cacheRun, tick time.Duration) error {
	u0, r0, err := cr.usage(tick)
	if err != nil {
		return err
	}
	start := time.Now().UnixNano()
	r := driveWith(ctx, o.cacheClients, o.duration, t.send)
	end := time.Now().UnixNano()
	u1, r1, err := cr.usage(tick)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	t.rounds = append(t.rounds, [2]int64{start, end})
	t.add(r, u0, u1)
	t.redisCPU += r1 - r0
	return nil
}

// cacheNotes is the channel of the replicas' invalidations (the shipped
// cluster.redis.keyPrefix, then gateway/cluster's name).
const cacheNotes = "restgate:cache:notes"

// awaitSubscribers waits until n replicas listen to the others'
// invalidations: until then a replica serves nothing from its memory, and
// a run's first requests would each call the backend.
func awaitSubscribers(ctx context.Context, url string, n int) error {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return err
	}
	client := redis.NewClient(opts)
	defer client.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		subs, err := client.PubSubNumSub(ctx, cacheNotes).Result()
		if err == nil && subs[cacheNotes] >= int64(n) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d replicas did not all subscribe to %s within 10s (%v, %v)", n, cacheNotes, subs, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ready asks a replica's admin listener whether it serves; checkDescribe
// then asks its API.
func ready(_, admin string) error {
	client := &http.Client{Timeout: checkTimeout}
	resp, err := client.Get(admin + "/readyz")
	if err != nil {
		return err
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s/readyz: status %d", admin, resp.StatusCode)
	}
	return nil
}

// checkDescribe asks url once and checks that the answer is the envelope
// of typ's describe with its fields.
func checkDescribe(client *http.Client, url, typ string, fields int) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("X-Loadtest-Key", "check")
	body, err := getOK(client, req)
	if err != nil {
		return err
	}
	var env struct {
		Result struct {
			Name   string            `json:"name"`
			Fields []json.RawMessage `json:"fields"`
		} `json:"result"`
	}
	switch {
	case json.Unmarshal(body, &env) != nil:
		return fmt.Errorf("GET %s: not an envelope: %.300s", url, body)
	case env.Result.Name != typ || len(env.Result.Fields) != fields:
		return fmt.Errorf("GET %s: the describe of %q with %d fields, want %q with %d", url, env.Result.Name,
			len(env.Result.Fields), typ, fields)
	}
	return nil
}

// answerSize is the size of the gateway's answer at url.
func answerSize(client *http.Client, url string) (int, error) {
	_, n, err := get(client, url)
	return int(n), err
}

// backendCalls reads when the describe backend was called, per type.
func backendCalls(base string) (map[string][]int64, error) {
	resp, err := http.Get(base + callsPath)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var calls map[string][]int64
	if err := json.NewDecoder(resp.Body).Decode(&calls); err != nil {
		return nil, fmt.Errorf("describe backend calls: %w", err)
	}
	for _, list := range calls {
		slices.Sort(list)
	}
	return calls, nil
}

// workspace is what every run starts from: its temporary directory (kept
// with -keep), the gateway binary (-gateway-bin, or built into it), the
// harness's own executable (its children re-execute it) and the call log
// collector.
type workspace struct {
	dir, bin, self string
	lines          *collector
	close          func()
}

// prepare makes the run's workspace; close undoes it.
func prepare(ctx context.Context, o options, log io.Writer) (*workspace, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	ws := &workspace{self: self, bin: o.gatewayBin}
	if ws.dir, err = os.MkdirTemp("", "loadtest-"); err != nil {
		return nil, err
	}
	removeDir := func() { _ = os.RemoveAll(ws.dir) }
	if o.keep {
		fmt.Fprintf(log, "loadtest: files in %s\n", ws.dir)
		removeDir = func() {}
	}
	if ws.bin == "" {
		fmt.Fprintln(log, "loadtest: building the gateway")
		if ws.bin, err = buildGateway(ctx, ws.dir, "gateway.bin", log); err != nil {
			removeDir()
			return nil, err
		}
	}
	lines, err := startCollector(ctx, self, o.host)
	if err != nil {
		removeDir()
		return nil, err
	}
	ws.lines = lines
	ws.close = func() { lines.stop(); removeDir() }
	return ws, nil
}

var errNoCacheScenario = errors.New("-cache runs the cache scenario alone: no -records, -conns, -tls, -cluster, -tracing or -gzip")
