package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// allowanceMetrics are the orgs' API allowance, per upstream (a
// configured upstream name: bounded).
type allowanceMetrics struct {
	used     *prometheus.GaugeVec
	limit    *prometheus.GaugeVec
	reserve  *prometheus.GaugeVec
	engaged  *prometheus.GaugeVec
	seen     *prometheus.GaugeVec
	exceeded *prometheus.CounterVec
	// gauges caches each upstream's children: an answer's usage is set
	// without label hashing.
	gauges *observerCache[string, allowanceGauges]
}

type allowanceGauges struct {
	used, limit, reserve, seen prometheus.Gauge
}

func newAllowanceMetrics() *allowanceMetrics {
	gauge := func(name, help string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: name, Help: help}, []string{"upstream"})
	}
	return &allowanceMetrics{
		used: gauge("upstream_allowance_used",
			"API calls the org behind the upstream counted in its rolling 24 hours, as the freshest answer any replica saw reported (Sforce-Limit-Info)."),
		limit: gauge("upstream_allowance_limit",
			"The org's allowance of API calls per rolling 24 hours, as its answers report it."),
		reserve: gauge("upstream_allowance_reserve",
			"Calls of the allowance kept for essential routes and callers (upstreams.<name>.allowance.reserve), in calls."),
		engaged: gauge("upstream_allowance_reserve_engaged",
			"1 while calls that are not essential are refused: fewer calls than the reserve remain, or the org answered REQUEST_LIMIT_EXCEEDED."),
		seen: gauge("upstream_allowance_seen_timestamp_seconds",
			"When the usage was last reported (Unix time): an idle upstream's figures age."),
		exceeded: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "upstream_allowance_exceeded_total",
			Help:      "REQUEST_LIMIT_EXCEEDED answers of the org: its allowance is spent and it refuses every integration.",
		}, []string{"upstream"}),
		gauges: newObserverCache[string, allowanceGauges](),
	}
}

func (a *allowanceMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{a.used, a.limit, a.reserve, a.engaged, a.seen, a.exceeded}
}

func (a *allowanceMetrics) of(upstream string) allowanceGauges {
	return a.gauges.get(upstream, func(u string) allowanceGauges {
		u = normalizeName(u)
		return allowanceGauges{used: a.used.WithLabelValues(u), limit: a.limit.WithLabelValues(u),
			reserve: a.reserve.WithLabelValues(u), seen: a.seen.WithLabelValues(u)}
	})
}

// AllowanceUsage sets an upstream's usage gauges (allowance.Recorder).
func (m *Metrics) AllowanceUsage(upstream string, used, limit, reserve int64, seen time.Time) {
	g := m.allowance.of(upstream)
	g.used.Set(float64(used))
	g.limit.Set(float64(limit))
	g.reserve.Set(float64(reserve))
	g.seen.Set(float64(seen.UnixMilli()) / 1000)
}

// AllowanceReserve sets whether an upstream's reserve is engaged. The
// exceeded counter's series is made at zero too, so that increase() sees
// the first REQUEST_LIMIT_EXCEEDED.
func (m *Metrics) AllowanceReserve(upstream string, engaged bool) {
	upstream = normalizeName(upstream)
	v := 0.0
	if engaged {
		v = 1
	}
	m.allowance.engaged.WithLabelValues(upstream).Set(v)
	m.allowance.exceeded.WithLabelValues(upstream)
}

// AllowanceExceeded counts one REQUEST_LIMIT_EXCEEDED of an upstream's org.
func (m *Metrics) AllowanceExceeded(upstream string) {
	m.allowance.exceeded.WithLabelValues(normalizeName(upstream)).Inc()
}
