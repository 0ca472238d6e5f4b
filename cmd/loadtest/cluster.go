package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/restgate/gateway/gateway/cluster/redistest"
	"github.com/restgate/gateway/gateway/metrics"
)

// rateLimitEnv turns the per-user rate limit on at a rate the harness never
// reaches, so that every request pays for a decision and none is refused.
func rateLimitEnv() []string {
	return []string{"GATEWAY_RATE_LIMIT_RPS=1000000000", "GATEWAY_RATE_LIMIT_BURST=1000000000"}
}

// clusterRun is the gateway on the redis store and its redis-server.
type clusterRun struct {
	redis *redistest.Server
	gw    *child
	// stopGateway stops gw; a second call does nothing.
	stopGateway func()
	redis0      usage // what redis-server had used before the first round
}

// startClusterGateway starts a redis-server on loopback and a second
// gateway, identical to the first but for cluster.store: redis (with the
// shipped timeout, so a slow answer falls back as in production).
func startClusterGateway(ctx context.Context, bin, dir, host, backend, collector string) (*clusterRun, error) {
	rdir := filepath.Join(dir, "redis")
	if err := os.MkdirAll(rdir, 0o700); err != nil {
		return nil, err
	}
	redis, err := redistest.Start(rdir)
	if err != nil {
		return nil, err
	}
	env := append(rateLimitEnv(), "GATEWAY_CLUSTER_STORE=redis", "GATEWAY_REDIS_URL="+redis.URL())
	gw, err := startGateway(ctx, bin, filepath.Join(dir, "redis-gateway"), host, "fast", false, backend, collector, env)
	if err != nil {
		redis.Stop()
		return nil, err
	}
	return &clusterRun{redis: redis, gw: gw, stopGateway: sync1(gw.stop)}, nil
}

func (c *clusterRun) stop() {
	c.stopGateway()
	c.redis.Stop()
}

// clusterReport is what the redis store cost beside the gateway's own
// figures: Redis's CPU per request, and the decisions taken locally because
// Redis did not answer within the timeout.
type clusterReport struct {
	RedisCPUMicrosPerR float64 `json:"redisCpuMicrosPerRequest"`
	StoreErrors        float64 `json:"storeErrors"`
	LocalDecisions     float64 `json:"localDecisions"`
	// RedisVsMemory are gateway-redis's figures divided by gateway's.
	RedisVsMemory ratios `json:"redisVsMemory"`
}

func (c *clusterRun) report(t *target, tick time.Duration) (*clusterReport, error) {
	u, err := processUsage(c.redis.Pid(), tick)
	if err != nil {
		return nil, err
	}
	r := &clusterReport{}
	if t.requests > 0 {
		// warm-up requests are in Redis's CPU too: an upper bound
		r.RedisCPUMicrosPerR = float64((u.cpu - c.redis0.cpu).Microseconds()) / float64(t.requests)
	}
	if r.StoreErrors, err = scrape(c.gw.admin, "gateway_cluster_store_errors_total"); err != nil {
		return nil, err
	}
	if r.LocalDecisions, err = scrape(c.gw.admin, "gateway_cluster_store_fallbacks_total"); err != nil {
		return nil, err
	}
	return r, nil
}

// scrape adds every sample of a metric family on a gateway's /metrics.
func scrape(admin, name string) (float64, error) {
	resp, err := http.Get(admin + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sum, _, err := metrics.Sum(resp.Body, name)
	return sum, err
}
