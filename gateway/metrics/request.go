package metrics

import (
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Phases of gateway_request_duration_seconds.
const (
	phaseTotal    = "total"
	phaseGateway  = "gateway"
	phaseUpstream = "upstream"
)

// requestKey is one label combination of the request histogram as the
// caller passed it, before normalisation, so a hit costs one map lookup.
type requestKey struct {
	route, method, version string
	status                 int
}

type requestObservers struct {
	// total takes the exemplars: the latency panels query that phase.
	total   exemplarObserver
	gateway prometheus.Observer
	// upstream is made on first use: routes that never call a backend
	// (settings, errors before routing) then export no empty upstream series.
	upstream atomic.Pointer[upstreamObserver]
	// labels are the normalised route, method, status and version.
	labels [4]string
}

// exemplarObserver is what a histogram child is: an Observer that also
// takes exemplars.
type exemplarObserver interface {
	prometheus.Observer
	prometheus.ExemplarObserver
}

type upstreamObserver struct{ prometheus.Observer }

func (o *requestObservers) upstreamObserver(h *prometheus.HistogramVec) prometheus.Observer {
	if u := o.upstream.Load(); u != nil {
		return u.Observer
	}
	l := o.labels
	o.upstream.CompareAndSwap(nil, &upstreamObserver{h.WithLabelValues(l[0], l[1], l[2], l[3], phaseUpstream)})
	return o.upstream.Load().Observer
}

// ObserveRequest records one answered client request.
//
// route is the matched route template ("/{version}/accounts/{accountId}"),
// or "" when no route matched; never the request's path (see
// NormalizeRoute). method is the request method, version the served API
// version ("v2", or "" when the path had none that is served), status the
// HTTP status sent. total is the wall time from receiving the request to the
// end of the answer; upstream is the time spent waiting on backends
// (upstreams.Timing). traceID, when not "", is the trace id of a request
// whose trace is recorded (sampled): it becomes the exemplar of the total
// phase's bucket, so a latency panel links a slow bucket to its trace. The
// gateway phase is total minus upstream, floored at
// zero because concurrent upstream calls can add up to more than the wall
// time. The upstream phase is recorded only for requests that called a
// backend (upstream > 0), so its count is the number of such requests.
//
// Allocation-free once a label combination has been seen, when traceID is
// "".
func (m *Metrics) ObserveRequest(route, method, version string, status int, total, upstream time.Duration, traceID string) {
	obs := m.requests.get(requestKey{route: route, method: method, version: version, status: status}, m.newRequestObservers)
	if traceID != "" {
		obs.total.ObserveWithExemplar(total.Seconds(), prometheus.Labels{exemplarTraceID: traceID})
	} else {
		obs.total.Observe(total.Seconds())
	}
	gateway := total - upstream
	if gateway < 0 {
		gateway = 0
	}
	obs.gateway.Observe(gateway.Seconds())
	if upstream > 0 {
		obs.upstreamObserver(m.requestDuration).Observe(upstream.Seconds())
	}
}

func (m *Metrics) newRequestObservers(k requestKey) *requestObservers {
	route := NormalizeRoute(k.route)
	method := normalizeMethod(k.method)
	version := normalizeVersion(k.version)
	status := normalizeStatus(k.status)
	return &requestObservers{
		total:   m.requestDuration.WithLabelValues(route, method, status, version, phaseTotal).(exemplarObserver),
		gateway: m.requestDuration.WithLabelValues(route, method, status, version, phaseGateway),
		labels:  [4]string{route, method, status, version},
	}
}

// normalizeStatus renders a valid HTTP status; anything else (0 for a
// connection closed before an answer) becomes "0".
func normalizeStatus(status int) string {
	if status < 100 || status > 599 {
		return "0"
	}
	return strconv.Itoa(status)
}

// exemplarTraceID is the exemplar label of a trace id, the name Grafana's
// exemplar links and Prometheus's documentation use.
const exemplarTraceID = "trace_id"

// statusClass is the class of an HTTP status ("4xx", "5xx"), or Other for
// a status outside 100-599.
func statusClass(status int) string {
	switch {
	case status >= 100 && status < 200:
		return "1xx"
	case status >= 200 && status < 300:
		return "2xx"
	case status >= 300 && status < 400:
		return "3xx"
	case status >= 400 && status < 500:
		return "4xx"
	case status >= 500 && status < 600:
		return "5xx"
	}
	return Other
}

// RequestStarted counts a request as in flight; pair it with RequestDone.
func (m *Metrics) RequestStarted() { m.inFlight.Inc() }

// RequestDone ends what RequestStarted began.
func (m *Metrics) RequestDone() { m.inFlight.Dec() }

// CountError counts one error answer by its response-code id
// ("URL_INVALID") and the class of its HTTP status: the error's own status,
// which is what ObserveRequest records too, also under
// errors.statusMode always200, and 499 for a client that went away. One id
// covers several classes (SOBJECT_OPERATION_FAILED is the upstream's 404 or
// a 502), so an alert on server errors selects status_class="5xx". Ids not
// of that form are counted as Other.
func (m *Metrics) CountError(id string, status int) {
	m.errors.WithLabelValues(normalizeName(id), statusClass(status)).Inc()
}

// CountDuplicate counts one duplicate request on route, a route template
// as for ObserveRequest.
func (m *Metrics) CountDuplicate(route string) {
	m.duplicates.WithLabelValues(NormalizeRoute(route)).Inc()
}

// Results of gateway_config_reloads_total.
const (
	reloadSuccess = "success"
	reloadFailure = "failure"
)

// CountReload counts one configuration reload attempt: ok when the new
// configuration replaced the old one, false when it was refused.
func (m *Metrics) CountReload(ok bool) {
	result := reloadFailure
	if ok {
		result = reloadSuccess
	}
	m.reloads.WithLabelValues(result).Inc()
}
