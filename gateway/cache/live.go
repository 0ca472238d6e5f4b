package cache

import (
	"strings"
	"sync"
)

// live counts, per route fingerprint, the builds whose routes serve it: a
// reload builds the new configuration beside the one serving, so an
// unchanged route has two until the old build is released. A fingerprint
// no build serves is retired: its answers are dropped from memory and no
// longer stored.
type live struct {
	// mu is held for reading across a memory store (keep), so that a
	// retirement, which takes it for writing, finds every answer stored
	// before it and none is stored after it.
	mu sync.RWMutex
	n  map[string]int
}

// hold counts one more build serving fps.
func (l *live) hold(fps []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = make(map[string]int)
	}
	for _, fp := range fps {
		l.n[fp]++
	}
}

// release counts one build fewer serving fps and returns those no build
// serves any more.
func (l *live) release(fps []string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var retired []string
	for _, fp := range fps {
		if l.n[fp]--; l.n[fp] <= 0 {
			delete(l.n, fp)
			retired = append(retired, fp)
		}
	}
	return retired
}

// fingerprintOf is the route fingerprint a key starts with (keyOf).
func fingerprintOf(key string) string {
	fp, _, _ := strings.Cut(key, ":")
	return fp
}

// keep stores e under lk's key in the memory tier, remembering seq, unless
// the tier may not hold it now (memoryUsable) or no build serves the key's
// route any more (a request of a build a reload replaced, still running).
func (c *Cache) keep(lk *lookup, e *Entry, seq int64) bool {
	if !c.memoryUsable(lk) {
		return false
	}
	c.live.mu.RLock()
	defer c.live.mu.RUnlock()
	if c.live.n[fingerprintOf(lk.key)] == 0 {
		return false
	}
	local := *e
	local.seq = seq
	c.mem.Set(lk.key, &local)
	return true
}

// retire drops from memory every answer of the routes whose fingerprints
// are fps. Their copies in Redis are left to expire by their TTL: another
// replica may still serve the old configuration (a rolling change) and
// read them, and finding them there would mean scanning Redis's keys.
func (c *Cache) retire(fps []string) {
	if len(fps) == 0 {
		return
	}
	gone := make(map[string]bool, len(fps))
	for _, fp := range fps {
		gone[fp] = true
	}
	for key := range c.mem.Keys() {
		if gone[fingerprintOf(key)] {
			c.mem.Invalidate(key)
		}
	}
	// the weight gauge reads what maintenance has applied
	c.mem.CleanUp()
}
