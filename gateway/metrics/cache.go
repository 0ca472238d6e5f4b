package metrics

import "sync"

// maxCachedLabels bounds each observer cache. Labels are bounded by
// construction (templates x methods x statuses x versions; upstreams x
// outcomes), so this is only a backstop: past it, observations still
// count, through the slower uncached path.
const maxCachedLabels = 8192

// observerCache keeps what was resolved for each label combination as the
// caller passed it (before normalisation), so a hot path does one map lookup
// instead of hashing label values into a vector.
type observerCache[K comparable, V any] struct {
	mu sync.RWMutex
	m  map[K]V
}

func newObserverCache[K comparable, V any]() *observerCache[K, V] {
	return &observerCache[K, V]{m: make(map[K]V)}
}

// get returns k's value, making it with make on first use.
func (c *observerCache[K, V]) get(k K, make func(K) V) V {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = make(k)
	c.mu.Lock()
	defer c.mu.Unlock()
	if cached, ok := c.m[k]; ok {
		return cached
	}
	if len(c.m) < maxCachedLabels {
		c.m[k] = v
	}
	return v
}
