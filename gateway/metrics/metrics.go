// Package metrics holds the gateway's Prometheus metrics: request latency by
// route template and phase, errors by response-code id, duplicate requests,
// upstream calls and breaker state, the call-log shipper's queue, config
// reloads and build information.
//
// Everything is registered on the prometheus.Registerer handed to New, never
// on the global registry, so a test builds as many independent sets as it
// likes and the gateway serves exactly what it registered.
//
// Label bounds: every label value comes from a bounded set. Routes are route
// templates ("/{version}/accounts/{accountId}"), never raw paths; methods are
// the standard HTTP methods; versions are "v" plus a number; ids are
// response-code ids; upstreams are configured upstream names. A value outside
// its set is replaced by a fixed placeholder (see NormalizeRoute and the
// Other* constants) rather than recorded, so a caller's bug cannot turn a
// user id or a query string into a new time series.
package metrics

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/restgate/gateway/gateway/calllog"
)

const namespace = "gateway"

// BuildInfo identifies the running binary; it becomes the labels of
// gateway_build_info.
type BuildInfo struct {
	// Version is the release version ("1.4.2", or "dev").
	Version string
	// Revision is the VCS commit the binary was built from.
	Revision string
	// GoVersion is the toolchain that built it (runtime.Version()).
	GoVersion string
}

// Metrics records everything the gateway exports. Build it with New; all
// methods are safe for concurrent use and never block on I/O.
type Metrics struct {
	requestDuration *prometheus.HistogramVec
	inFlight        prometheus.Gauge
	errors          *prometheus.CounterVec
	duplicates      *prometheus.CounterVec

	upstreamCalls     *prometheus.CounterVec
	upstreamDuration  *prometheus.HistogramVec
	breakerState      *prometheus.GaugeVec
	concurrencyLimit  *prometheus.GaugeVec
	breakerTransition *prometheus.CounterVec

	logQueueDepth    prometheus.Gauge
	logSent          prometheus.Counter
	logBatchesFailed prometheus.Counter
	logDropped       *prometheus.CounterVec
	logDiskEntries   prometheus.Gauge
	logDiskBytes     prometheus.Gauge

	reloads *prometheus.CounterVec

	cluster   *clusterMetrics
	allowance *allowanceMetrics
	quota     *quotaMetrics

	// requests and calls cache the observers of each label combination so
	// the request path does no label hashing and no allocation once warm.
	requests *observerCache[requestKey, *requestObservers]
	calls    *observerCache[callKey, callObservers]
}

// latencyBuckets spans 1 ms to 10 s: below a millisecond the gateway's own
// overhead is noise, above ten seconds the call has already timed out.
func latencyBuckets() []float64 {
	return []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
}

// New builds the gateway's metrics and registers them, together with the Go
// runtime and process collectors, on reg. It fails if any of them is already
// registered there (for instance New called twice on one registry).
func New(reg prometheus.Registerer, build BuildInfo) (*Metrics, error) {
	m := &Metrics{
		requestDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace,
			Name:      "request_duration_seconds",
			Help:      "Time to answer a client request, by route template, method, status, API version and phase (total, gateway, upstream).",
			Buckets:   latencyBuckets(),
		}, []string{"route", "method", "status", "version", "phase"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace,
			Name:      "requests_in_flight",
			Help:      "Client requests being served right now.",
		}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "errors_total",
			Help:      "Error answers by response-code id and status class (4xx, 5xx) of the error's HTTP status.",
		}, []string{"id", "status_class"}),
		duplicates: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "duplicate_requests_total",
			Help:      "Requests repeating one by the same user with the same method, path, query and body within the duplicate window.",
		}, []string{"route"}),
		upstreamCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "upstream_calls_total",
			Help:      "Finished upstream calls (retries included in one call) by upstream and outcome.",
		}, []string{"upstream", "outcome"}),
		upstreamDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace,
			Name:      "upstream_call_duration_seconds",
			Help:      "Duration of upstream calls, retries included, by upstream and outcome.",
			Buckets:   latencyBuckets(),
		}, []string{"upstream", "outcome"}),
		breakerState: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace,
			Name:      "breaker_state",
			Help:      "Circuit breaker state per upstream: 0 closed, 1 half-open, 2 open.",
		}, []string{"upstream"}),
		concurrencyLimit: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace,
			Name:      "upstream_concurrency_limit",
			Help:      "Calls in flight each upstream's concurrency limit allows now (adaptive: follows the backend's latency).",
		}, []string{"upstream"}),
		breakerTransition: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "breaker_transitions_total",
			Help:      "Circuit breaker state changes per upstream.",
		}, []string{"upstream", "from", "to"}),
		logQueueDepth: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace,
			Name:      "log_queue_depth",
			Help:      "Call-log entries accepted and neither delivered nor dropped yet: waiting, being sent, or held for a retry.",
		}),
		logSent: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "log_entries_sent_total",
			Help:      "Call-log entries the collector accepted.",
		}),
		logBatchesFailed: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "log_batches_failed_total",
			Help:      "Call-log POSTs that failed after the client's retries; the batch is held and sent again, or refused for good.",
		}),
		logDropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "log_entries_dropped_total",
			Help:      "Call-log entries that will never reach the collector, by reason: queue_full, rejected, shutdown, closed, corrupt.",
		}, []string{"reason"}),
		logDiskEntries: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace,
			Name:      "log_disk_queue_entries",
			Help:      "Call-log entries in the disk queue not yet delivered (log.queue: disk).",
		}),
		logDiskBytes: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace,
			Name:      "log_disk_queue_bytes",
			Help:      "Size of the call-log disk queue's files, bounded by log.disk.maxBytes.",
		}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "config_reloads_total",
			Help:      "Configuration reload attempts by result (success, failure).",
		}, []string{"result"}),
		cluster:   newClusterMetrics(),
		allowance: newAllowanceMetrics(),
		quota:     newQuotaMetrics(),
		requests:  newObserverCache[requestKey, *requestObservers](),
		calls:     newObserverCache[callKey, callObservers](),
	}
	buildInfo := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace: namespace,
		Name:      "build_info",
		Help:      "Always 1; the labels identify the running binary.",
		ConstLabels: prometheus.Labels{
			"version":   build.Version,
			"revision":  build.Revision,
			"goversion": build.GoVersion,
		},
	})
	buildInfo.Set(1)
	for _, reason := range calllog.DropReasons() {
		m.logDropped.WithLabelValues(reason) // every reason's series exists, at 0
	}

	all := []prometheus.Collector{
		m.requestDuration, m.inFlight, m.errors, m.duplicates,
		m.upstreamCalls, m.upstreamDuration, m.breakerState, m.concurrencyLimit, m.breakerTransition,
		m.logQueueDepth, m.logSent, m.logBatchesFailed, m.logDropped, m.logDiskEntries, m.logDiskBytes,
		m.reloads, buildInfo,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	}
	all = append(all, m.cluster.collectors()...)
	all = append(all, m.allowance.collectors()...)
	all = append(all, m.quota.collectors()...)
	for i, c := range all {
		if err := reg.Register(c); err != nil {
			// Leave reg as it was so the caller can retry or fall back.
			for _, done := range all[:i] {
				reg.Unregister(done)
			}
			return nil, fmt.Errorf("registering gateway metrics: %w", err)
		}
	}
	// Both results exist from the start so a failure-rate query never sees
	// an absent series.
	m.reloads.WithLabelValues(reloadSuccess)
	m.reloads.WithLabelValues(reloadFailure)
	return m, nil
}
