package cache

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// markLife is how long a mark is kept after its last bump: longer than any
// entry lives (maxLifetime), so no entry outlives a mark that invalidates it.
const markLife = maxLifetime + time.Hour

// Marks invalidate entries without finding them. Every entry depends on a
// few marks (its route, its path and the path's ancestors, its upstream
// resource and that resource's ancestors) and remembers the sequence
// number when its fetch started; a write, a purge or a reload bumps marks
// to a new sequence number, and an entry is valid only while every mark it
// depends on is at most its own number, and it is at least the floor.
// Taking the number before the fetch makes a write that lands during the
// fetch invalidate what the fetch brings back.
//
// Marks are 64-bit hashes of what they stand for: two that collide only
// invalidate more than they must.
type marks struct {
	seq   atomic.Int64
	floor atomic.Int64
	max   int
	now   func() time.Time

	mu sync.RWMutex
	m  map[uint64]mark
}

type mark struct {
	seq int64
	at  time.Time
}

func newMarks(max int, now func() time.Time) *marks {
	return &marks{max: max, now: now, m: make(map[uint64]mark)}
}

// current is the sequence number a fetch starting now remembers.
func (m *marks) current() int64 { return m.seq.Load() }

// valid reports whether an entry fetched from seq on is still valid
// against deps.
func (m *marks) valid(seq int64, deps []uint64) bool {
	if seq < m.floor.Load() {
		return false
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, d := range deps {
		if m.m[d].seq > seq {
			return false
		}
	}
	return true
}

// bump invalidates every entry that depends on one of names and started
// before now.
func (m *marks) bump(names []uint64) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	v := m.seq.Add(1)
	for _, n := range names {
		m.m[n] = mark{seq: v, at: now}
	}
	if len(m.m) > m.max {
		m.sweep(now)
	}
}

// sweep forgets marks older than markLife; when that is not enough, every
// entry is invalidated (the floor) and every mark forgotten. Called with
// mu held.
func (m *marks) sweep(now time.Time) {
	for n, k := range m.m {
		if now.Sub(k.at) > markLife {
			delete(m.m, n)
		}
	}
	if len(m.m) > m.max {
		m.floor.Store(m.seq.Add(1))
		clear(m.m)
	}
}

// dropAll invalidates every entry started before now.
func (m *marks) dropAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.floor.Store(m.seq.Add(1))
	clear(m.m)
}

// Mark kinds, the first byte hashed.
const (
	markRoute    = 'r' // a route template: purge by route, reload
	markPath     = 'p' // a request path or an ancestor: purge by path prefix
	markResource = 's' // an upstream resource, bumped by writes at it or below
	markTree     = 't' // an upstream resource, bumped by writes at it: its descendants
)

// markOf hashes a mark (FNV-1a, 64 bits).
func markOf(kind byte, parts ...string) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	h = (h ^ uint64(kind)) * prime
	for _, p := range parts {
		for i := 0; i < len(p); i++ {
			h = (h ^ uint64(p[i])) * prime
		}
		h = (h ^ 0xff) * prime // a separator no path byte is
	}
	return h
}

// prefixes calls fn with every segment-boundary prefix of path, path
// itself included, shortest first: /v1, /v1/sobjects, /v1/sobjects/Account.
func prefixes(path string, fn func(prefix string)) {
	for i := 1; i < len(path); i++ {
		if path[i] == '/' {
			fn(path[:i])
		}
	}
	if path = strings.TrimSuffix(path, "/"); path != "" {
		fn(path)
	}
}

// readDeps are the marks an entry of route template at request path, of
// upstream resource res, depends on.
func readDeps(template, path, upstream, res string) []uint64 {
	deps := make([]uint64, 0, 10)
	deps = append(deps, markOf(markRoute, template))
	prefixes(path, func(p string) { deps = append(deps, markOf(markPath, p)) })
	if res != "" {
		deps = append(deps, markOf(markResource, upstream, res))
		prefixes(res, func(p string) { deps = append(deps, markOf(markTree, upstream, p)) })
	}
	return deps
}

// writeMarks are the marks a write at upstream resource res bumps: the
// resource and its ancestors (the item and its collection), and the tree
// below it (the items of a collection written whole).
func writeMarks(upstream, res string) []uint64 {
	var out []uint64
	prefixes(res, func(p string) { out = append(out, markOf(markResource, upstream, p)) })
	return append(out, markOf(markTree, upstream, res))
}
