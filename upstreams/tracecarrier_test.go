package upstreams

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// TestTraceCarrierAgreesWithHeaderCarrier reads and writes the same keys
// through TraceCarrier and propagation.HeaderCarrier: same values, same
// header maps, whatever the key's case.
func TestTraceCarrierAgreesWithHeaderCarrier(t *testing.T) {
	t.Parallel()
	keys := []string{"traceparent", "tracestate", "Traceparent", "TRACESTATE", "baggage", "content-type",
		"x-request-id", "", "bad key", "traceparent "}
	for _, key := range keys {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			seed := func() http.Header {
				return http.Header{"Traceparent": {"00-a-b-01", "second"}, "Tracestate": {"k=v"},
					"Content-Type": {"application/json"}, "Baggage": {"a=b"}, "bad key": {"raw"}}
			}
			ours, theirs := seed(), seed()
			assert.Equal(t, propagation.HeaderCarrier(theirs).Get(key), TraceCarrier(ours).Get(key), "Get")
			TraceCarrier(ours).Set(key, "new")
			propagation.HeaderCarrier(theirs).Set(key, "new")
			assert.Equal(t, theirs, ours, "Set")
			assert.ElementsMatch(t, propagation.HeaderCarrier(theirs).Keys(), TraceCarrier(ours).Keys(), "Keys")
		})
	}
}

// TestTraceCarrierExtractsWithoutAllocating: the propagator's lookups of
// a request's traceparent and tracestate allocate nothing (http.Header.Get
// canonicalises each lowercase key into a new string), and what it
// extracts is what HeaderCarrier gives it.
func TestTraceCarrierExtractsWithoutAllocating(t *testing.T) {
	h := http.Header{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}, "Tracestate": {"k=v"}}
	c := TraceCarrier(h)
	var parent, state string
	assert.Zero(t, testing.AllocsPerRun(100, func() { parent, state = c.Get("traceparent"), c.Get("tracestate") }))
	assert.Equal(t, []string{h["Traceparent"][0], h["Tracestate"][0]}, []string{parent, state})

	prop := propagation.TraceContext{}
	ours := trace.SpanContextFromContext(prop.Extract(context.Background(), c))
	theirs := trace.SpanContextFromContext(prop.Extract(context.Background(), propagation.HeaderCarrier(h)))
	assert.True(t, ours.IsValid())
	assert.Equal(t, theirs, ours)
}
