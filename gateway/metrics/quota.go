package metrics

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/restgate/gateway/gateway/quota"
)

// quotaMetrics are the consumers' quotas, by policy: a name from the
// configuration ("user:alice", "role:partner", "default"), so bounded
// however many consumers there are; /admin/quotas lists the consumers.
type quotaMetrics struct {
	decisions *prometheus.CounterVec
	used      *prometheus.Desc
	limit     *prometheus.Desc
	// source is the quota counter whose consumers the gauges read at
	// scrape time (SetQuotaSource); nil: none yet.
	source atomic.Pointer[quota.Counter]
	// children caches the decision counters of each policy.
	children *observerCache[quotaKey, prometheus.Counter]
}

type quotaKey struct {
	policy  string
	allowed bool
}

func newQuotaMetrics() *quotaMetrics {
	return &quotaMetrics{
		decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "quota_requests_total",
			Help:      "Requests of limited callers by quota policy and result: allowed, or refused (RATE_LIMITED 429) because a window is used up.",
		}, []string{"quota", "result"}),
		used: prometheus.NewDesc(namespace+"_quota_used",
			"Requests counted in the current window by quota policy and window: the highest count among the policy's consumers this replica saw (a key's or a user's policy has one); /admin/quotas lists each consumer.",
			[]string{"quota", "window"}, nil),
		limit: prometheus.NewDesc(namespace+"_quota_limit",
			"Requests a window of the quota policy allows.", []string{"quota", "window"}, nil),
		children: newObserverCache[quotaKey, prometheus.Counter](),
	}
}

// Describe implements prometheus.Collector for the two gauges.
func (q *quotaMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- q.used
	ch <- q.limit
}

// Collect reads the quota counter's consumers.
func (q *quotaMetrics) Collect(ch chan<- prometheus.Metric) {
	c := q.source.Load()
	if c == nil {
		return
	}
	for _, u := range c.Snapshot() {
		ch <- prometheus.MustNewConstMetric(q.used, prometheus.GaugeValue, float64(u.Used), u.Policy, u.Window)
		ch <- prometheus.MustNewConstMetric(q.limit, prometheus.GaugeValue, float64(u.Quota), u.Policy, u.Window)
	}
}

func (q *quotaMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{q.decisions, q}
}

// SetQuotaSource makes the quota gauges read c's consumers at each scrape.
func (m *Metrics) SetQuotaSource(c *quota.Counter) { m.quota.source.Store(c) }

// QuotaDecision counts one request of a limited caller
// (middleware.QuotaRecorder). Allocation-free once a policy was seen.
func (m *Metrics) QuotaDecision(policy string, allowed bool) {
	m.quota.children.get(quotaKey{policy, allowed}, func(k quotaKey) prometheus.Counter {
		result := "refused"
		if k.allowed {
			result = "allowed"
		}
		return m.quota.decisions.WithLabelValues(k.policy, result)
	}).Inc()
}
