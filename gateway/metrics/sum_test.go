package metrics

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSumReadsTheHandlersScrape reads figures off what Handler serves, as
// the load harness and the process tests do.
func TestSumReadsTheHandlersScrape(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	calls := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "calls_total", Help: "h"}, []string{"route"})
	depth := prometheus.NewGauge(prometheus.GaugeOpts{Name: "depth", Help: "h"})
	latency := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "latency_seconds", Help: "h"})
	reg.MustRegister(calls, depth, latency)
	calls.WithLabelValues("/a").Add(2)
	calls.WithLabelValues("/b").Add(3.5)
	depth.Set(-4)
	latency.Observe(1)
	srv := httptest.NewServer(Handler(reg))
	t.Cleanup(srv.Close)

	tests := []struct {
		name    string
		want    float64
		found   bool
		wantErr string
	}{
		{name: "calls_total", want: 5.5, found: true},
		{name: "depth", want: -4, found: true},
		{name: "absent_total"},
		{name: "latency_seconds", wantErr: "latency_seconds is a HISTOGRAM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, err := srv.Client().Get(srv.URL + "/metrics")
			require.NoError(t, err)
			defer resp.Body.Close()
			got, found, err := Sum(resp.Body, tt.name)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.found, found)
			assert.InDelta(t, tt.want, got, 1e-9)
		})
	}
}

func TestSumRefusesWhatIsNoScrape(t *testing.T) {
	t.Parallel()
	_, _, err := Sum(strings.NewReader("calls_total{route=\"/a\" 2\n"), "calls_total")
	require.ErrorContains(t, err, "metrics: ")
}
