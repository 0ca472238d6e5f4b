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
	total, gateway prometheus.Observer
	// upstream is made on first use: routes that never call a backend
	// (settings, errors before routing) then export no empty upstream series.
	upstream atomic.Pointer[upstreamObserver]
	// labels are the normalised route, method, status and version.
	labels [4]string
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
// (upstreams.Timing). The gateway phase is total minus upstream, floored at
// zero because concurrent upstream calls can add up to more than the wall
// time. The upstream phase is recorded only for requests that called a
// backend (upstream > 0), so its count is the number of such requests.
//
// Allocation-free once a label combination has been seen.
func (m *Metrics) ObserveRequest(route, method, version string, status int, total, upstream time.Duration) {
	obs := m.requests.get(requestKey{route: route, method: method, version: version, status: status}, m.newRequestObservers)
	obs.total.Observe(total.Seconds())
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
		total:   m.requestDuration.WithLabelValues(route, method, status, version, phaseTotal),
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

// RequestStarted counts a request as in flight; pair it with RequestDone.
func (m *Metrics) RequestStarted() { m.inFlight.Inc() }

// RequestDone ends what RequestStarted began.
func (m *Metrics) RequestDone() { m.inFlight.Dec() }

// CountError counts one error answer by its response-code id
// ("URL_INVALID"). Ids not of that form are counted as Other.
func (m *Metrics) CountError(id string) {
	m.errors.WithLabelValues(normalizeName(id)).Inc()
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
