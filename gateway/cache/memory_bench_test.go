package cache

import (
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/ristretto/v2"

	"github.com/restgate/gateway/gateway/call"
)

// The memory tier's library, measured before it was chosen: otter v2 as
// New builds it against ristretto v2 built alike (the same byte bound, each
// answer weighing what Entry.size says, at least maxBytes / maxEntries),
// both used as the cache uses them: a lookup, and on a miss the answer
// stored. Figures: docs/internals/performance.md (the response cache).
//
//	go test ./gateway/cache/ -run XXX -bench BenchmarkMemoryTier -benchtime 2s -count 3

// tierBytes and tierEntries are the shipped bounds (cache.maxBytes,
// cache.maxEntries); tierKeys answers of tierSizes' sizes weigh about
// 400 MB, six times the bound.
const (
	tierBytes   = 64 << 20
	tierEntries = 10000
	tierKeys    = 20000
)

// tierSizes are the answers' body sizes, one key in 20 each: a describe
// (about 180 KB), process definitions and record type lists (40 KB), and
// the small answers of settings, versions and a type's basics.
var tierSizes = [20]int{180_000, 40_000, 40_000, 40_000, 40_000, 8_000, 8_000, 8_000, 8_000, 8_000,
	4_000, 4_000, 4_000, 4_000, 4_000, 2_000, 2_000, 2_000, 2_000, 2_000}

// memoryTier is a cache library as the memory tier uses it.
type memoryTier interface {
	get(key string) bool
	set(key string, e *Entry)
	// resident is the weight held.
	resident() int64
	close()
}

type otterTier struct{ c *Cache }

func (o otterTier) get(key string) bool      { _, ok := o.c.mem.GetIfPresent(key); return ok }
func (o otterTier) set(key string, e *Entry) { o.c.mem.Set(key, e) }
func (o otterTier) resident() int64 {
	o.c.mem.CleanUp()
	return int64(o.c.mem.WeightedSize())
}
func (o otterTier) close() { o.c.Close() }

type ristrettoTier struct {
	c *ristretto.Cache[string, *Entry]
}

func (r ristrettoTier) get(key string) bool { _, ok := r.c.Get(key); return ok }
func (r ristrettoTier) set(key string, e *Entry) {
	r.c.SetWithTTL(key, e, int64(max(e.size(), tierBytes/tierEntries)), time.Until(e.Until))
}
func (r ristrettoTier) resident() int64 {
	r.c.Wait()
	return int64(r.c.Metrics.CostAdded() - r.c.Metrics.CostEvicted())
}
func (r ristrettoTier) close() { r.c.Close() }

func newTier(tb testing.TB, name string) memoryTier {
	switch name {
	case "otter":
		c, err := New(Options{MaxBytes: tierBytes, MaxEntries: tierEntries, MaxEntryBytes: 1 << 20, CoalesceWait: time.Second})
		if err != nil {
			tb.Fatal(err)
		}
		return otterTier{c}
	default:
		c, err := ristretto.NewCache(&ristretto.Config[string, *Entry]{NumCounters: 10 * tierEntries, MaxCost: tierBytes,
			BufferItems: 64, IgnoreInternalCost: true, Metrics: true})
		if err != nil {
			tb.Fatal(err)
		}
		return ristrettoTier{c}
	}
}

// tierTrace is the keys (as keyOf makes them) and answers of the
// benchmark, made once.
type tierTrace struct {
	keys    []string
	entries []*Entry
}

func newTierTrace() *tierTrace {
	t := &tierTrace{}
	until := time.Now().Add(time.Hour)
	for i := range tierKeys {
		t.keys = append(t.keys, fmt.Sprintf("a1b2c3d4e5f6:%032x", uint64(i)*0x9e3779b97f4a7c15))
		a := call.Rendered{Status: 200, Body: make([]byte, tierSizes[i%len(tierSizes)])}
		t.entries = append(t.entries, &Entry{Answer: a, ETag: etagOf(&a), Fresh: until, Until: until})
	}
	return t
}

// zipf draws key indexes as clients ask: a few keys most of the time.
func zipf(seed uint64) *rand.Zipf {
	return rand.NewZipf(rand.New(rand.NewPCG(seed, seed^0xda3e39cb94b95bdb)), 1.1, 1, tierKeys-1)
}

// BenchmarkMemoryTier measures lookups, read-through misses and stored
// answers of parallel clients over skewed keys (hit% is the lookups
// answered), then the weight held, which must be within the bound. The
// setN mixes store a new answer for every Nth request besides (a
// revalidation's).
func BenchmarkMemoryTier(b *testing.B) {
	trace := newTierTrace()
	for _, lib := range []string{"otter", "ristretto"} {
		for _, mix := range []struct {
			name  string
			every int
		}{{"read-through", 0}, {"set20", 20}, {"set2", 2}} {
			b.Run(lib+"/"+mix.name, func(b *testing.B) {
				tier := newTier(b, lib)
				defer tier.close()
				warm := zipf(0)
				for range 4 * tierEntries {
					i := warm.Uint64()
					if !tier.get(trace.keys[i]) {
						tier.set(trace.keys[i], trace.entries[i])
					}
				}
				var hits, seed atomic.Uint64
				b.ReportAllocs()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					keys := zipf(seed.Add(1))
					n := 0
					for pb.Next() {
						i := keys.Uint64()
						n++
						switch {
						case tier.get(trace.keys[i]):
							hits.Add(1)
							if mix.every > 0 && n%mix.every == 0 {
								tier.set(trace.keys[i], trace.entries[i])
							}
						default:
							tier.set(trace.keys[i], trace.entries[i])
						}
					}
				})
				b.StopTimer()
				b.ReportMetric(100*float64(hits.Load())/float64(b.N), "hit%")
				held := tier.resident()
				b.ReportMetric(float64(held)/(1<<20), "MB-held")
				if held > tierBytes {
					b.Fatalf("%s holds %d bytes, over its bound of %d", lib, held, tierBytes)
				}
			})
		}
	}
}

// BenchmarkMemoryTierStoredThenAsked measures what a replica's next
// request finds right after the backend's answer was stored (a cold key,
// once per key): "seen%" is how often it is there. An answer not there is
// one more backend call.
func BenchmarkMemoryTierStoredThenAsked(b *testing.B) {
	trace := newTierTrace()
	for _, lib := range []string{"otter", "ristretto"} {
		b.Run(lib, func(b *testing.B) {
			tier := newTier(b, lib)
			defer tier.close()
			seen := 0
			b.ReportAllocs()
			for n := range b.N {
				i := n % tierKeys
				tier.set(trace.keys[i], trace.entries[i])
				if tier.get(trace.keys[i]) {
					seen++
				}
			}
			b.ReportMetric(100*float64(seen)/float64(b.N), "seen%")
		})
	}
}
