package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResponseCacheMetrics(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	m, err := NewResponseCache(reg)
	require.NoError(t, err)
	m.CacheRequest("/{version}/sobjects/{type}/describe", "hit")
	m.CacheRequest("/{version}/sobjects/{type}/describe", "hit")
	m.CacheRequest("/{version}/sobjects/{type}/describe", "miss")
	m.CacheRequest("/{version}/sobjects/{type}/describe", "made-up")
	m.CacheEviction("memory")
	m.CacheSize("memory", func() (int, int64) { return 3, 4096 })
	want := `
# HELP gateway_cache_entries Cached answers held by this replica, by tier.
# TYPE gateway_cache_entries gauge
gateway_cache_entries{tier="memory"} 3
# HELP gateway_cache_evictions_total Cached answers dropped to make room (cache.maxBytes, cache.maxEntries), by tier.
# TYPE gateway_cache_evictions_total counter
gateway_cache_evictions_total{tier="memory"} 1
`
	assert.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(want), "gateway_cache_entries", "gateway_cache_evictions_total"))
	assert.Equal(t, 2.0, testutil.ToFloat64(m.requests.WithLabelValues("/{version}/sobjects/{type}/describe", "hit")))
	assert.Equal(t, 1.0, testutil.ToFloat64(m.requests.WithLabelValues("/{version}/sobjects/{type}/describe", OtherResult)))
	assert.Equal(t, 4096.0, testutil.ToFloat64(m.bytes.WithLabelValues("memory")))
}
