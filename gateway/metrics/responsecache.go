package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// Results of gateway_cache_requests_total (gateway/cache's Result*); any
// other is recorded as OtherResult.
var cacheResults = []string{"hit", "miss", "stale", "revalidated", "coalesced", "bypass"}

// OtherResult replaces a cache result outside the known set.
const OtherResult = "other"

// ResponseCache holds the response cache's metrics (gateway/cache's
// Recorder): requests of cached routes by result, the memory tier's
// entries and bytes, and its evictions. Build it with NewResponseCache;
// safe for concurrent use.
type ResponseCache struct {
	requests  *prometheus.CounterVec
	evictions *prometheus.CounterVec
	entries   *prometheus.GaugeVec
	bytes     *prometheus.GaugeVec

	mu    sync.Mutex
	sizes map[string]func() (int, int64)
	// counters caches the children of each (route, result).
	counters sync.Map
}

type cacheKey struct{ route, result string }

// NewResponseCache registers the response cache's metrics on reg:
// gateway_cache_requests_total{route,result}, gateway_cache_entries{tier},
// gateway_cache_bytes{tier} and gateway_cache_evictions_total{tier}.
func NewResponseCache(reg prometheus.Registerer) (*ResponseCache, error) {
	m := &ResponseCache{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "cache_requests_total",
			Help:      "Requests of cached routes by route template and result: hit, miss, stale (served stale while revalidating or because the backend failed), revalidated (the backend answered 304), coalesced (another request's backend call answered), bypass (not cacheable).",
		}, []string{"route", "result"}),
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace,
			Name:      "cache_evictions_total",
			Help:      "Cached answers dropped to make room (cache.maxBytes, cache.maxEntries), by tier.",
		}, []string{"tier"}),
		entries: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace,
			Name:      "cache_entries",
			Help:      "Cached answers held by this replica, by tier.",
		}, []string{"tier"}),
		bytes: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Namespace: namespace,
			Name:      "cache_bytes",
			Help:      "Bytes of cached answers held by this replica, by tier (each answer weighs at least cache.maxBytes / cache.maxEntries).",
		}, []string{"tier"}),
		sizes: map[string]func() (int, int64){},
	}
	for _, c := range []prometheus.Collector{m.requests, m.evictions, m} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// CacheRequest counts a request of a cached route.
func (m *ResponseCache) CacheRequest(route, result string) {
	k := cacheKey{NormalizeRoute(route), result}
	if c, ok := m.counters.Load(k); ok {
		c.(prometheus.Counter).Inc()
		return
	}
	label := OtherResult
	for _, r := range cacheResults {
		if r == result {
			label = r
		}
	}
	c, _ := m.counters.LoadOrStore(k, m.requests.WithLabelValues(k.route, label))
	c.(prometheus.Counter).Inc()
}

// CacheEviction counts an answer dropped from tier to make room.
func (m *ResponseCache) CacheEviction(tier string) { m.evictions.WithLabelValues(tier).Inc() }

// CacheSize makes size the source of tier's entries and bytes, read at
// each scrape.
func (m *ResponseCache) CacheSize(tier string, size func() (int, int64)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sizes[tier] = size
}

// Describe and Collect make m the collector of the size gauges, set from
// the sources at each scrape.
func (m *ResponseCache) Describe(ch chan<- *prometheus.Desc) {
	m.entries.Describe(ch)
	m.bytes.Describe(ch)
}

// Collect reads the sizes and sends the gauges.
func (m *ResponseCache) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	for tier, size := range m.sizes {
		n, b := size()
		m.entries.WithLabelValues(tier).Set(float64(n))
		m.bytes.WithLabelValues(tier).Set(float64(b))
	}
	m.mu.Unlock()
	m.entries.Collect(ch)
	m.bytes.Collect(ch)
}
