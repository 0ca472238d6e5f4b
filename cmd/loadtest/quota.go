package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/restgate/gateway/gateway/app/apptest"
)

// quotaEndpoints are the gateways of -quota and their endpoints.
type quotaEndpoints struct {
	gateways  []*child
	endpoints []endpoint
}

// startQuotaGateways starts the gateway on apptest.QuotaConfig (a quota
// counting every request, the upstream guarded by an org allowance) with
// env, the memory store's twin of target gateway; and with shared (the
// -cluster run) its twin on the redis store, beside gateway-redis.
func startQuotaGateways(ctx context.Context, bin, dir, host, backend, collector string, env []string, shared *clusterRun) (quotaEndpoints, error) {
	var q quotaEndpoints
	auth, err := hsBearer()
	if err != nil {
		return q, err
	}
	gw, err := startGatewayOn(ctx, apptest.QuotaConfig(), auth, bin, filepath.Join(dir, "gateway-quota"), host, "fast", false, backend, collector, env)
	if err != nil {
		return q, err
	}
	q.gateways = append(q.gateways, gw)
	q.endpoints = append(q.endpoints, endpoint{name: targetGatewayQuota, base: gw.url, path: gatewayPath, proc: gw})
	if shared == nil {
		return q, nil
	}
	redisEnv := append(append([]string(nil), env...), "GATEWAY_CLUSTER_STORE=redis", "GATEWAY_REDIS_URL="+shared.redis.URL())
	rgw, err := startGatewayOn(ctx, apptest.QuotaConfig(), auth, bin, filepath.Join(dir, "redis-gateway-quota"), host, "fast", false, backend, collector, redisEnv)
	if err != nil {
		return q, err
	}
	q.gateways = append(q.gateways, rgw)
	q.endpoints = append(q.endpoints, endpoint{name: targetGatewayRedisQuota, base: rgw.url, path: gatewayPath, proc: rgw})
	return q, nil
}

// scrape reads, from gateway-quota, the requests its quota counted and
// the usage its upstream's answers reported: proof that both paths ran.
func (q quotaEndpoints) scrape() (*quotaReport, error) {
	gw := q.gateways[0]
	counted, err := scrape(gw.admin, "gateway_quota_requests_total")
	if err != nil {
		return nil, err
	}
	used, err := scrape(gw.admin, "gateway_upstream_allowance_used")
	if err != nil {
		return nil, err
	}
	return &quotaReport{QuotaCounted: counted, AllowanceUsed: used}, nil
}

// quotaReport compares the gateways counting quotas and guarding an
// allowance with the same gateways without (the first scenario).
type quotaReport struct {
	// QuotaCounted are the requests gateway-quota counted in its quota
	// (warm-up included); AllowanceUsed the usage its upstream reported.
	QuotaCounted  float64 `json:"quotaCounted"`
	AllowanceUsed float64 `json:"allowanceUsed"`
	// QuotaVsGateway are gateway-quota's figures divided by gateway's.
	QuotaVsGateway ratios `json:"quotaVsGateway"`
	// RedisQuotaVsRedis are gateway-redis-quota's divided by
	// gateway-redis's, with -cluster.
	RedisQuotaVsRedis *ratios `json:"redisQuotaVsRedis,omitempty"`
}

// addQuota completes q (nil without -quota) with the ratios and keeps it.
func (r *report) addQuota(q *quotaReport) {
	if q == nil {
		return
	}
	quota, _ := r.target(targetGatewayQuota)
	gw, _ := r.target(targetGateway)
	q.QuotaVsGateway = versus(quota, gw)
	if rq, ok := r.target(targetGatewayRedisQuota); ok {
		redis, _ := r.target(targetGatewayRedis)
		v := versus(rq, redis)
		q.RedisQuotaVsRedis = &v
	}
	r.Quota = q
}

// writeTable prints the ratios; nothing without -quota.
func (q *quotaReport) writeTable(w io.Writer) {
	if q == nil {
		return
	}
	g := q.QuotaVsGateway
	fmt.Fprintf(w, "gateway-quota / gateway (quota counted, allowance guarded): CPU per request %.2fx, p50 %.2fx, p99 %.2fx, req/s %.2fx; %.0f requests counted, usage %.0f read\n",
		g.CPUPerRequest, g.P50, g.P99, g.RPS, q.QuotaCounted, q.AllowanceUsed)
	if r := q.RedisQuotaVsRedis; r != nil {
		fmt.Fprintf(w, "gateway-redis-quota / gateway-redis: CPU per request %.2fx, p50 %.2fx, p99 %.2fx, req/s %.2fx\n",
			r.CPUPerRequest, r.P50, r.P99, r.RPS)
	}
}
