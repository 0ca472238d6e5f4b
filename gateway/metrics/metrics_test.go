package metrics

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the testdata/*.txt expectations from the current output")

func newTestMetrics(t testing.TB) (*Metrics, *prometheus.Registry) {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := New(reg, BuildInfo{Version: "1.2.3", Revision: "abc123", GoVersion: "go1.26.0"})
	require.NoError(t, err)
	return m, reg
}

func TestMetricsExposition(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		file   string
		names  []string
		record func(m *Metrics)
	}{
		{
			desc:  "request phases: gateway is total minus upstream, upstream only when a backend was called",
			file:  "requests.txt",
			names: []string{"gateway_request_duration_seconds"},
			record: func(m *Metrics) {
				m.ObserveRequest("/{version}/accounts", "GET", "v2", 200, 30*time.Millisecond, 20*time.Millisecond, "")
				m.ObserveRequest("/{version}/accounts", "GET", "v2", 200, 300*time.Millisecond, 200*time.Millisecond, "")
				// Parallel upstream calls can exceed the wall time: gateway time floors at zero.
				m.ObserveRequest("/{version}/accounts/{accountId}", "PUT", "v1", 404, 2*time.Millisecond, 3*time.Millisecond, "")
				// No backend called: no upstream observation.
				m.ObserveRequest("/{version}/settings/endpoints", "GET", "v3", 200, 700*time.Microsecond, 0, "")
			},
		},
		{
			desc:  "request labels outside their sets are replaced, never recorded",
			file:  "request_labels.txt",
			names: []string{"gateway_request_duration_seconds"},
			record: func(m *Metrics) {
				m.ObserveRequest("", "GET", "", 404, 1500*time.Microsecond, 0, "")
				m.ObserveRequest("/v1/accounts/001xx000003DGb2AAG", "BREW", "v1", 404, 1500*time.Microsecond, 0, "")
				m.ObserveRequest("/v1/users/jdoe", "GET", "version-one", 0, 1500*time.Microsecond, 0, "")
			},
		},
		{
			desc:  "in flight, errors by id and status class, and duplicates",
			file:  "errors.txt",
			names: []string{"gateway_requests_in_flight", "gateway_errors_total", "gateway_duplicate_requests_total"},
			record: func(m *Metrics) {
				m.RequestStarted()
				m.RequestStarted()
				m.RequestDone()
				m.CountError("URL_INVALID", 404)
				m.CountError("URL_INVALID", 404)
				m.CountError("CALLOUT_FAILED", 503)
				// One id, two classes: the upstream's 404 and a 502.
				m.CountError("SOBJECT_OPERATION_FAILED", 404)
				m.CountError("SOBJECT_OPERATION_FAILED", 502)
				m.CountError("CALLOUT_FAILED", 499)
				m.CountError("not an id; DROP TABLE", 500)
				m.CountError("REST_DISPATCHER_FAILED", 0)
				m.CountDuplicate("/{version}/accounts")
				m.CountDuplicate("/v2/accounts")
			},
		},
		{
			desc: "upstream calls and breakers",
			file: "upstreams.txt",
			names: []string{
				"gateway_upstream_calls_total", "gateway_upstream_call_duration_seconds",
				"gateway_breaker_state", "gateway_breaker_transitions_total", "gateway_upstream_concurrency_limit",
			},
			record: func(m *Metrics) {
				m.CallDone("accounts", "success", 40*time.Millisecond)
				m.CallDone("accounts", "timeout", 5*time.Second)
				m.CallDone("workflow", "rejected", 8*time.Millisecond)
				m.SetBreakerState("accounts", "closed")
				m.SetBreakerState("workflow", "closed")
				m.SetBreakerState("data", "ajar")
				m.BreakerChanged("accounts", "closed", "open")
				m.BreakerChanged("accounts", "open", "half-open")
				m.BreakerChanged("workflow", "closed", "sideways")
				m.ConcurrencyLimit("accounts", 64)
				m.ConcurrencyLimit("accounts", 57)
				m.ConcurrencyLimit("workflow", 8)
			},
		},
		{
			desc: "log shipping, reloads and build info",
			file: "logship.txt",
			names: []string{
				"gateway_log_queue_depth", "gateway_log_entries_sent_total",
				"gateway_log_batches_failed_total", "gateway_log_entries_dropped_total",
				"gateway_log_disk_queue_entries", "gateway_log_disk_queue_bytes",
				"gateway_config_reloads_total", "gateway_build_info",
			},
			record: func(m *Metrics) {
				m.QueueDepth(17)
				m.Sent(100)
				m.Sent(-3)
				m.BatchFailed()
				m.Dropped("queue_full", 5)
				m.Dropped("shutdown", 2)
				m.Dropped("rejected", -1)
				m.DiskQueue(12, 4096)
				m.CountReload(true)
				m.CountReload(true)
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			m, reg := newTestMetrics(t)
			tc.record(m)

			path := filepath.Join("testdata", tc.file)
			if *update {
				require.NoError(t, os.WriteFile(path, exposition(t, reg, tc.names), 0o644))
			}
			want, err := os.Open(path)
			require.NoError(t, err)
			defer want.Close()
			assert.NoError(t, testutil.GatherAndCompare(reg, want, tc.names...))
		})
	}
}

// exposition renders the named families in the text format, as the
// expectation files hold them.
func exposition(t *testing.T, g prometheus.Gatherer, names []string) []byte {
	t.Helper()
	families, err := g.Gather()
	require.NoError(t, err)
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range families {
		if slices.Contains(names, mf.GetName()) {
			require.NoError(t, enc.Encode(mf))
		}
	}
	return buf.Bytes()
}

func TestNewRegistersRuntimeCollectors(t *testing.T) {
	t.Parallel()
	_, reg := newTestMetrics(t)
	families, err := reg.Gather()
	require.NoError(t, err)
	var names []string
	for _, mf := range families {
		names = append(names, mf.GetName())
	}
	assert.Contains(t, names, "go_goroutines")
	assert.Contains(t, names, "process_start_time_seconds")
	assert.Contains(t, names, "gateway_build_info")
	assert.Contains(t, names, "gateway_config_reloads_total", "both reload results exist before the first reload")
}

func TestNewTwiceOnOneRegistryFailsAndLeavesItIntact(t *testing.T) {
	t.Parallel()
	m, reg := newTestMetrics(t)
	before, err := testutil.GatherAndCount(reg)
	require.NoError(t, err)

	_, err = New(reg, BuildInfo{})
	require.Error(t, err)

	m.CountError("URL_INVALID", 404)
	after, err := testutil.GatherAndCount(reg)
	require.NoError(t, err)
	assert.Equal(t, before+1, after, "the first set still serves and nothing else was added")
}
