package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// callKey is one label combination of the upstream call metrics as the
// caller passed it.
type callKey struct{ upstream, outcome string }

type callObservers struct {
	calls    prometheus.Counter
	duration prometheus.Observer
}

// CallDone records one finished upstream call, retries included, with its
// outcome: "success" or an upstreams.Kind's String() ("rejected", "failed",
// "timeout", "open", ...). upstream is the configured upstream name. With
// BreakerChanged it makes *Metrics an upstreams.Observer.
// Allocation-free once a combination has been seen.
func (m *Metrics) CallDone(upstream, outcome string, d time.Duration) {
	obs := m.calls.get(callKey{upstream, outcome}, m.newCallObservers)
	obs.calls.Inc()
	obs.duration.Observe(d.Seconds())
}

func (m *Metrics) newCallObservers(k callKey) callObservers {
	upstream, outcome := normalizeName(k.upstream), normalizeName(k.outcome)
	return callObservers{
		calls:    m.upstreamCalls.WithLabelValues(upstream, outcome),
		duration: m.upstreamDuration.WithLabelValues(upstream, outcome),
	}
}

// BreakerChanged records a breaker transition and sets the upstream's state
// gauge to the new state. States are "closed", "half-open" and "open"; any
// other is counted as Other and leaves the gauge unchanged.
func (m *Metrics) BreakerChanged(upstream, from, to string) {
	upstream = normalizeName(upstream)
	m.breakerTransition.WithLabelValues(upstream, normalizeState(from), normalizeState(to)).Inc()
	if v, ok := breakerValue(to); ok {
		m.breakerState.WithLabelValues(upstream).Set(v)
	}
}

// SetBreakerState sets an upstream's state gauge without counting a
// transition. Call it once per upstream when its breaker is built (with
// "closed"), so the series exists before the first transition; an unknown
// state is ignored. It also makes the upstream's four transition series
// (closed -> open, open -> half-open, half-open -> open, half-open ->
// closed) exist at zero, so that increase() over a window sees the first
// transition too: an alert counting trips would otherwise miss one.
func (m *Metrics) SetBreakerState(upstream, state string) {
	upstream = normalizeName(upstream)
	if v, ok := breakerValue(state); ok {
		m.breakerState.WithLabelValues(upstream).Set(v)
	}
	for _, t := range [][2]string{{breakerClosed, breakerOpen}, {breakerOpen, breakerHalfOpen},
		{breakerHalfOpen, breakerOpen}, {breakerHalfOpen, breakerClosed}} {
		m.breakerTransition.WithLabelValues(upstream, t[0], t[1])
	}
}

// ConcurrencyLimit sets the calls in flight an upstream's concurrency
// limit allows; the shared client reports it when the limit is built and
// each time it moves.
func (m *Metrics) ConcurrencyLimit(upstream string, limit int) {
	m.concurrencyLimit.WithLabelValues(normalizeName(upstream)).Set(float64(limit))
}
