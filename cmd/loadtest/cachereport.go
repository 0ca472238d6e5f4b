package main

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// cacheRoute is the hit target's route template, the route label of its
// gateway_cache_requests_total.
const cacheRoute = "/{version}/sobjects/{type}/describe"

// cacheReport is what the cache scenario measured beside each target's
// figures (report.Targets: hit, miss, uncached; CPU is the replicas'
// together).
type cacheReport struct {
	Replicas       int    `json:"replicas"`
	Clients        int    `json:"clients"`
	TTL            string `json:"ttl"`
	RedisTimeout   string `json:"redisTimeout"`
	CacheRedis     string `json:"cacheRedisTimeout"`
	BackendLatency string `json:"backendLatency"`
	DescribeFields int    `json:"describeFields"`
	// DescribeBytes is the backend's answer; AnswerBytes the gateway's.
	DescribeBytes int                 `json:"describeBytes"`
	AnswerBytes   int                 `json:"answerBytes"`
	Targets       []cacheTargetReport `json:"targets"`
	// HitVsMiss and HitVsUncached are the hit target's figures divided by
	// the miss target's and the uncached target's.
	HitVsMiss     ratios `json:"hitVsMiss"`
	HitVsUncached ratios `json:"hitVsUncached"`
	// HitKey are the backend's calls for the hit target's one key.
	HitKey keyCalls `json:"hitKey"`
	// Metrics are what the replicas counted over the run, the checks and
	// warm-ups included.
	Metrics cacheMetrics `json:"metrics"`
}

// cacheTargetReport is what a cache target cost beside the replicas' CPU.
type cacheTargetReport struct {
	Name string `json:"name"`
	// RedisCPUMicrosPerR is redis-server's CPU per request (0 with one
	// replica and no Redis).
	RedisCPUMicrosPerR float64 `json:"redisCpuMicrosPerRequest"`
	// BackendCallsPerR counts the backend's calls of the target's key
	// during its measured rounds, per request.
	BackendCallsPerR float64 `json:"backendCallsPerRequest"`
}

// keyCalls are a key's backend calls over the run: how many, over how
// long (from the first to the end of the target's last round), how many
// ttl windows that is, the most that fell within any one ttl window, and
// the shortest time between two (0 with fewer than two).
type keyCalls struct {
	Calls        int     `json:"calls"`
	Seconds      float64 `json:"seconds"`
	Windows      float64 `json:"ttlWindows"`
	PerWindow    float64 `json:"callsPerTtlWindow"`
	MaxInWindow  int     `json:"maxCallsInAnyTtlWindow"`
	MinGapMillis float64 `json:"minGapMs"`
}

func newCacheReport(o options, targets []*cacheTarget, calls map[string][]int64, m cacheMetrics, answer int) *cacheReport {
	c := &cacheReport{Replicas: o.cacheReplicas, Clients: o.cacheClients, TTL: o.cacheTTL.String(), RedisTimeout: o.redisTimeout.String(), CacheRedis: o.cacheRedis.String(),
		BackendLatency: o.describeLatency.String(), DescribeFields: o.describeFields,
		DescribeBytes: len(describeBody(targets[0].typ, o.describeFields)), AnswerBytes: answer, Metrics: m}
	byName := map[string]targetReport{}
	for _, t := range targets {
		tr := cacheTargetReport{Name: t.name}
		if t.requests > 0 {
			tr.RedisCPUMicrosPerR = float64(t.redisCPU.Microseconds()) / float64(t.requests)
			tr.BackendCallsPerR = float64(callsWithin(calls[t.typ], t.rounds)) / float64(t.requests)
		}
		c.Targets = append(c.Targets, tr)
		byName[t.name] = t.report(answer)
	}
	c.HitVsMiss = versus(byName["hit"], byName["miss"])
	c.HitVsUncached = versus(byName["hit"], byName["uncached"])
	hit := targets[0]
	c.HitKey = windows(calls[hit.typ], hit.rounds[len(hit.rounds)-1][1], o.cacheTTL)
	return c
}

// callsWithin counts the calls (sorted) that fell within one of rounds.
func callsWithin(calls []int64, rounds [][2]int64) int {
	n := 0
	for _, c := range calls {
		if slices.ContainsFunc(rounds, func(r [2]int64) bool { return c >= r[0] && c <= r[1] }) {
			n++
		}
	}
	return n
}

// windows sums up calls (sorted unix nanoseconds) up to end against ttl.
func windows(calls []int64, end int64, ttl time.Duration) keyCalls {
	k := keyCalls{Calls: len(calls)}
	if len(calls) == 0 {
		return k
	}
	k.Seconds = time.Duration(end - calls[0]).Seconds()
	k.Windows = k.Seconds / ttl.Seconds()
	if k.Windows > 0 {
		k.PerWindow = float64(k.Calls) / max(k.Windows, 1)
	}
	j := 0
	for i, c := range calls {
		for calls[j] <= c-int64(ttl) {
			j++
		}
		k.MaxInWindow = max(k.MaxInWindow, i-j+1)
		if gap := float64(c-calls[max(i-1, 0)]) / 1e6; i == 1 || (i > 1 && gap < k.MinGapMillis) {
			k.MinGapMillis = gap
		}
	}
	return k
}

// cacheMetrics are what the replicas counted, added up: the hit route's
// gateway_cache_requests_total by result, and their Redis calls of the
// cache that failed (gateway_cluster_store_errors_total{op="cache"}: a
// timeout past cluster.redis.timeout included) and the lookups answered
// without Redis (gateway_cluster_store_fallbacks_total{op="cache"}).
type cacheMetrics struct {
	Results     map[string]float64 `json:"results"`
	StoreErrors float64            `json:"storeErrors"`
	Fallbacks   float64            `json:"storeFallbacks"`
}

func scrapeCache(replicas []*child) (cacheMetrics, error) {
	out := cacheMetrics{Results: map[string]float64{}}
	for _, r := range replicas {
		resp, err := http.Get(r.admin + "/metrics")
		if err != nil {
			return out, err
		}
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err := parser.TextToMetricFamilies(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return out, fmt.Errorf("%s metrics: %w", r.name, err)
		}
		for name, f := range families {
			for _, m := range f.GetMetric() {
				labels := map[string]string{}
				for _, l := range m.GetLabel() {
					labels[l.GetName()] = l.GetValue()
				}
				v := m.GetCounter().GetValue()
				switch {
				case name == "gateway_cache_requests_total" && labels["route"] == cacheRoute:
					out.Results[labels["result"]] += v
				case name == "gateway_cluster_store_errors_total" && labels["op"] == "cache":
					out.StoreErrors += v
				case name == "gateway_cluster_store_fallbacks_total" && labels["op"] == "cache":
					out.Fallbacks += v
				}
			}
		}
	}
	return out, nil
}

// writeTable prints the cache scenario's figures.
func (c *cacheReport) writeTable(w io.Writer, targets []targetReport) {
	store := "the memory store"
	if c.Replicas > 1 {
		store = "sharing a redis-server (timeouts: the store's " + c.RedisTimeout + ", the cache's " + c.CacheRedis + ")"
	}
	fmt.Fprintf(w, "\nthe response cache: %d replicas %s, %d clients, one describe of %d fields (%d bytes from the backend after %s, %d bytes answered), ttl %s\n",
		c.Replicas, store, c.Clients, c.DescribeFields, c.DescribeBytes, c.BackendLatency, c.AnswerBytes, c.TTL)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\trequests\tnon-2xx\tfailed\treq/s\tp50 ms\tp99 ms\tp99.9 ms\tCPU µs/req\tredis µs/req\tbackend calls/req\tRSS MB\t")
	for i, t := range targets {
		ct := c.Targets[i]
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.0f\t%.3f\t%.3f\t%.3f\t%.1f\t%.1f\t%.3f\t%.1f\t\n", t.Name, t.Requests, t.Non2xx,
			t.Failures, t.RPS, t.P50Millis, t.P99Millis, t.P999Millis, t.CPUMicrosPerR, ct.RedisCPUMicrosPerR, ct.BackendCallsPerR, t.RSSMB)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "hit / miss: CPU per request %.3fx (goal at most 0.5x), p99 %.3fx; hit / uncached: CPU per request %.3fx, p99 %.3fx\n",
		c.HitVsMiss.CPUPerRequest, c.HitVsMiss.P99, c.HitVsUncached.CPUPerRequest, c.HitVsUncached.P99)
	k := c.HitKey
	fmt.Fprintf(w, "backend calls of the hit key: %d in %.1fs (%.1f ttl windows): %.2f per ttl window, at most %d within any ttl (goal 1), shortest gap %.0f ms\n",
		k.Calls, k.Seconds, k.Windows, k.PerWindow, k.MaxInWindow, k.MinGapMillis)
	r := c.Metrics.Results
	fmt.Fprintf(w, "hit route, every replica: hit %.0f, stale %.0f, coalesced %.0f, miss %.0f, revalidated %.0f; the cache's Redis calls failed %.0f, lookups without Redis %.0f\n",
		r["hit"], r["stale"], r["coalesced"], r["miss"], r["revalidated"], c.Metrics.StoreErrors, c.Metrics.Fallbacks)
}
