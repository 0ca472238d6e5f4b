package metrics

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Not parallel: testing.AllocsPerRun refuses to run beside parallel tests,
// whose allocations it would count.
func TestObserveRequestAllocatesNothingOnceWarm(t *testing.T) {
	tests := []struct {
		desc     string
		upstream time.Duration
	}{
		{desc: "with upstream time", upstream: 3 * time.Millisecond},
		{desc: "without upstream time", upstream: 0},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			m, _ := newTestMetrics(t)
			observe := func() {
				m.ObserveRequest("/{version}/accounts/{accountId}", "GET", "v2", 200, 5*time.Millisecond, tc.upstream, "")
			}
			observe()
			assert.Zero(t, testing.AllocsPerRun(100, observe))
		})
	}
}

func TestObserveRequestConcurrent(t *testing.T) {
	t.Parallel()
	m, reg := newTestMetrics(t)
	const workers, perWorker = 8, 200
	routes := []string{"/{version}/accounts", "/{version}/tasks/{taskId}", "/v1/raw/path"}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range perWorker {
				m.RequestStarted()
				m.ObserveRequest(routes[(w+i)%len(routes)], "GET", "v1", 200, time.Millisecond, time.Microsecond, "")
				m.RequestDone()
			}
		})
	}
	wg.Wait()

	assert.Equal(t, 0.0, testutil.ToFloat64(m.inFlight))
	var total uint64
	for _, route := range []string{"/{version}/accounts", "/{version}/tasks/{taskId}", NonTemplateRoute} {
		h, err := m.requestDuration.GetMetricWithLabelValues(route, "GET", "200", "v1", phaseTotal)
		require.NoError(t, err)
		total += histogramCount(t, h)
	}
	assert.Equal(t, uint64(workers*perWorker), total)
	n, err := testutil.GatherAndCount(reg, "gateway_request_duration_seconds")
	require.NoError(t, err)
	assert.Equal(t, 3*3, n, "three routes, three phases each")
}

func TestObserveRequestBeyondTheCacheStillCounts(t *testing.T) {
	t.Parallel()
	m, _ := newTestMetrics(t)
	for i := range maxCachedLabels + 10 {
		m.ObserveRequest(fmt.Sprintf("/{version}/r%d", i), "GET", "v1", 200, time.Millisecond, 0, "")
	}
	m.requests.mu.RLock()
	cached := len(m.requests.m)
	m.requests.mu.RUnlock()
	assert.Equal(t, maxCachedLabels, cached)

	last := fmt.Sprintf("/{version}/r%d", maxCachedLabels+9)
	m.ObserveRequest(last, "GET", "v1", 200, time.Millisecond, 0, "")
	h, err := m.requestDuration.GetMetricWithLabelValues(last, "GET", "200", "v1", phaseTotal)
	require.NoError(t, err)
	assert.Equal(t, uint64(2), histogramCount(t, h))
}

func histogramCount(t *testing.T, o prometheus.Observer) uint64 {
	t.Helper()
	h, ok := o.(prometheus.Metric)
	require.True(t, ok)
	var pb dto.Metric
	require.NoError(t, h.Write(&pb))
	return pb.GetHistogram().GetSampleCount()
}

func BenchmarkObserveRequest(b *testing.B) {
	m, _ := newTestMetrics(b)
	m.ObserveRequest("/{version}/accounts/{accountId}", "GET", "v2", 200, 5*time.Millisecond, 3*time.Millisecond, "")
	b.ReportAllocs()
	for b.Loop() {
		m.ObserveRequest("/{version}/accounts/{accountId}", "GET", "v2", 200, 5*time.Millisecond, 3*time.Millisecond, "")
	}
}

func BenchmarkObserveRequestParallel(b *testing.B) {
	m, _ := newTestMetrics(b)
	routes := []string{"/{version}/accounts", "/{version}/accounts/{accountId}", "/{version}/tasks", "/{version}/query"}
	for _, r := range routes {
		m.ObserveRequest(r, "GET", "v2", 200, 5*time.Millisecond, 3*time.Millisecond, "")
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			m.ObserveRequest(routes[i%len(routes)], "GET", "v2", 200, 5*time.Millisecond, 3*time.Millisecond, "")
			i++
		}
	})
}

func BenchmarkCallDone(b *testing.B) {
	m, _ := newTestMetrics(b)
	b.ReportAllocs()
	for b.Loop() {
		m.CallDone("accounts", "success", 3*time.Millisecond)
	}
}
