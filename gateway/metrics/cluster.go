package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Operations of the shared store (gateway/cluster's op names); any other
// is recorded as OtherOp.
const (
	clusterOpRateLimit  = "ratelimit"
	clusterOpDuplicates = "duplicates"
	clusterOpCache      = "cache"
	clusterOpQuota      = "quota"
	clusterOpAllowance  = "allowance"
	// OtherOp replaces a cluster store operation outside the known set.
	OtherOp = "other"
)

// clusterMetrics are the shared store's: calls to Redis, their failures,
// the decisions taken locally instead, and the store's state.
type clusterMetrics struct {
	duration  *prometheus.HistogramVec
	errors    *prometheus.CounterVec
	fallbacks *prometheus.CounterVec
	state     prometheus.Gauge
	// ops caches the children of the two known operations: the request
	// path does no label hashing.
	ops map[string]clusterOp
}

type clusterOp struct {
	duration          prometheus.Observer
	errors, fallbacks prometheus.Counter
}

func newClusterMetrics() *clusterMetrics {
	c := &clusterMetrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace,
			Name:      "cluster_store_call_duration_seconds",
			Help:      "Duration of calls to the shared store (Redis) by operation (ratelimit, duplicates, quota, allowance), failed ones included.",
			Buckets:   []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1},
		}, []string{"op"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "cluster_store_errors_total",
			Help:      "Calls to the shared store that failed (error, refusal or no answer within cluster.redis.timeout) by operation.",
		}, []string{"op"}),
		fallbacks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "cluster_store_fallbacks_total",
			Help:      "Decisions a replica took alone, in memory, because the shared store failed or was down, by operation.",
		}, []string{"op"}),
		state: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace,
			Name:      "cluster_store_state",
			Help:      "State of the shared store as this replica sees it: 0 up (or the memory store), 1 probing, 2 down (deciding alone).",
		}),
		ops: map[string]clusterOp{},
	}
	for _, op := range []string{clusterOpRateLimit, clusterOpDuplicates, clusterOpCache, clusterOpQuota, clusterOpAllowance, OtherOp} {
		c.ops[op] = clusterOp{duration: c.duration.WithLabelValues(op), errors: c.errors.WithLabelValues(op),
			fallbacks: c.fallbacks.WithLabelValues(op)}
	}
	return c
}

func (c *clusterMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{c.duration, c.errors, c.fallbacks, c.state}
}

func (c *clusterMetrics) op(name string) clusterOp {
	if o, ok := c.ops[name]; ok {
		return o
	}
	return c.ops[OtherOp]
}

// ClusterStoreCall observes one call to the shared store, and counts it as
// an error when err is not nil.
func (m *Metrics) ClusterStoreCall(op string, d time.Duration, err error) {
	o := m.cluster.op(op)
	o.duration.Observe(d.Seconds())
	if err != nil {
		o.errors.Inc()
	}
}

// ClusterStoreFallback counts one decision taken by this replica alone.
func (m *Metrics) ClusterStoreFallback(op string) { m.cluster.op(op).fallbacks.Inc() }

// ClusterStoreState sets the shared store's state gauge: 0 up, 1 probing,
// 2 down.
func (m *Metrics) ClusterStoreState(state int) { m.cluster.state.Set(float64(state)) }
