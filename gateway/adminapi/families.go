package adminapi

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// Metric names the API reads from the registry. The cache and allowance
// families are read when some part of the gateway registers them; the
// API shows their figures then and says nothing of them otherwise.
const (
	metricInFlight         = "gateway_requests_in_flight"
	metricClusterState     = "gateway_cluster_store_state"
	metricClusterErrors    = "gateway_cluster_store_errors_total"
	metricClusterFallbacks = "gateway_cluster_store_fallbacks_total"
	metricLogDepth         = "gateway_log_queue_depth"
	metricLogSent          = "gateway_log_entries_sent_total"
	metricLogFailed        = "gateway_log_batches_failed_total"
	metricLogDropped       = "gateway_log_entries_dropped_total"
	metricLogDiskEntries   = "gateway_log_disk_queue_entries"
	metricLogDiskBytes     = "gateway_log_disk_queue_bytes"
	metricCacheRequests    = "gateway_cache_requests_total"
	metricCacheBytes       = "gateway_cache_bytes"
	metricCacheEntries     = "gateway_cache_entries"
	metricCacheEvictions   = "gateway_cache_evictions_total"
	metricAllowanceUsed    = "gateway_upstream_allowance_used"
	metricAllowanceLimit   = "gateway_upstream_allowance_limit"
)

// families are the gathered metric families by name. A registry whose
// gathering partly fails still gives what it gathered.
type families map[string]*dto.MetricFamily

func gather(g prometheus.Gatherer) families {
	out := families{}
	if g == nil {
		return out
	}
	list, _ := g.Gather()
	for _, f := range list {
		out[f.GetName()] = f
	}
	return out
}

// has reports whether the family name was gathered.
func (f families) has(name string) bool { return f[name] != nil }

// sum is the sum of every series of name (0 when absent).
func (f families) sum(name string) float64 {
	var total float64
	for _, m := range f.metrics(name) {
		total += value(m)
	}
	return total
}

// by sums the series of name by the value of label.
func (f families) by(name, label string) map[string]float64 {
	out := map[string]float64{}
	for _, m := range f.metrics(name) {
		out[labelValue(m, label)] += value(m)
	}
	return out
}

// by2 sums the series of name by the values of two labels, outer first.
func (f families) by2(name, outer, inner string) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	for _, m := range f.metrics(name) {
		o := labelValue(m, outer)
		if out[o] == nil {
			out[o] = map[string]float64{}
		}
		out[o][labelValue(m, inner)] += value(m)
	}
	return out
}

func (f families) metrics(name string) []*dto.Metric {
	if fam := f[name]; fam != nil {
		return fam.GetMetric()
	}
	return nil
}

// value is a counter's, gauge's or untyped metric's value; histograms and
// summaries count their observations.
func value(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Untyped != nil:
		return m.Untyped.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	case m.Summary != nil:
		return float64(m.Summary.GetSampleCount())
	}
	return 0
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
