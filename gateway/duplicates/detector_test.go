package duplicates

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type call struct {
	user, method, path, body string
	after                    time.Duration // since the start
	want                     bool
}

func TestDetectorSeen(t *testing.T) {
	t.Parallel()
	const w = time.Second
	tests := []struct {
		desc  string
		max   int
		calls []call
	}{
		{
			desc: "repeat within the window",
			calls: []call{
				{"u1", "POST", "/{version}/accounts", `{"name":"A"}`, 0, false},
				{"u1", "POST", "/{version}/accounts", `{"name":"A"}`, 500 * time.Millisecond, true},
			},
		},
		{
			desc: "repeat after the window",
			calls: []call{
				{"u1", "GET", "/r", "", 0, false},
				{"u1", "GET", "/r", "", w, false},
			},
		},
		{
			desc: "window slides with each repeat",
			calls: []call{
				{"u1", "GET", "/r", "", 0, false},
				{"u1", "GET", "/r", "", 900 * time.Millisecond, true},
				{"u1", "GET", "/r", "", 1800 * time.Millisecond, true},
				{"u1", "GET", "/r", "", 2800 * time.Millisecond, false},
			},
		},
		{
			desc: "any differing part is a different request",
			calls: []call{
				{"u1", "POST", "/r", "b", 0, false},
				{"u2", "POST", "/r", "b", 1, false},
				{"u1", "PUT", "/r", "b", 2, false},
				{"u1", "POST", "/s", "b", 3, false},
				{"u1", "POST", "/r", "c", 4, false},
				{"u1", "POST", "/r", "b", 5, true},
			},
		},
		{
			desc: "bytes shifted between parts do not collide",
			calls: []call{
				{"ab", "c", "/r", "", 0, false},
				{"a", "bc", "/r", "", 1, false},
				{"a", "b", "c/r", "", 2, false},
			},
		},
		{
			desc: "older clock reading from a racing caller",
			calls: []call{
				{"u1", "GET", "/r", "", 500 * time.Millisecond, false},
				{"u1", "GET", "/r", "", 400 * time.Millisecond, true},
				{"u1", "GET", "/r", "", 1400 * time.Millisecond, true},
			},
		},
		{
			desc: "the bound forgets the oldest request",
			max:  2,
			calls: []call{
				{"u1", "GET", "/a", "", 0, false},
				{"u1", "GET", "/b", "", 1, false},
				{"u1", "GET", "/c", "", 2, false},
				{"u1", "GET", "/a", "", 3, false},
				{"u1", "GET", "/a", "", 4, true},
			},
		},
	}
	start := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			d := New(w, tt.max)
			for i, c := range tt.calls {
				got := d.Seen(context.Background(), Request{User: c.user, Method: c.method, Path: c.path, Body: []byte(c.body)}, start.Add(c.after))
				assert.Equal(t, c.want, got, "call %d", i)
			}
		})
	}
}

func TestDetectorKeysPathAndQuery(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	d := New(time.Minute, 100)
	get := func(path, query string) Request {
		return Request{User: "u1", Method: "GET", Path: path, Query: query}
	}
	assert.False(t, d.Seen(ctx, get("/v2/accounts/001000000000001AAA", ""), now))
	assert.False(t, d.Seen(ctx, get("/v2/accounts/001000000000002AAA", ""), now), "another account is another request")
	assert.True(t, d.Seen(ctx, get("/v2/accounts/001000000000001AAA", ""), now))
	assert.False(t, d.Seen(ctx, get("/v2/accounts", "limit=2&offset=0"), now))
	assert.False(t, d.Seen(ctx, get("/v2/accounts", "limit=2&offset=2"), now), "another page is another request")
	assert.True(t, d.Seen(ctx, get("/v2/accounts", "limit=2&offset=0"), now))
	assert.False(t, d.Seen(ctx, get("/v2/accounts", "limit=2&offset=0x"), now))
	assert.False(t, d.Seen(ctx, get("/v2/accounts?", ""), now), "bytes moved from query to path do not collide")
}

func TestDigest(t *testing.T) {
	t.Parallel()
	base := Request{User: "u1", Method: "POST", Path: "/v2/accounts", Query: "a=1", Body: []byte(`{"name":"A"}`)}
	assert.Equal(t, base.Digest(), base.Digest(), "the same in every process")
	variants := []Request{
		{User: "u2", Method: "POST", Path: "/v2/accounts", Query: "a=1", Body: []byte(`{"name":"A"}`)},
		{User: "u1", Method: "PUT", Path: "/v2/accounts", Query: "a=1", Body: []byte(`{"name":"A"}`)},
		{User: "u1", Method: "POST", Path: "/v2/accounts/1", Query: "a=1", Body: []byte(`{"name":"A"}`)},
		{User: "u1", Method: "POST", Path: "/v2/accounts", Query: "a=2", Body: []byte(`{"name":"A"}`)},
		{User: "u1", Method: "POST", Path: "/v2/accounts", Query: "a=1", Body: []byte(`{"name":"B"}`)},
		{User: "u1P", Method: "OST", Path: "/v2/accounts", Query: "a=1", Body: []byte(`{"name":"A"}`)},
	}
	seen := map[Digest]int{base.Digest(): -1}
	for i, v := range variants {
		d := v.Digest()
		prev, dup := seen[d]
		assert.False(t, dup, "variant %d shares a digest with %d", i, prev)
		seen[d] = i
	}
}

func TestDetectorZeroWindow(t *testing.T) {
	t.Parallel()
	d := New(0, 10)
	now := time.Now()
	assert.False(t, d.Seen(context.Background(), Request{User: "u", Method: "GET", Path: "/r"}, now))
	assert.False(t, d.Seen(context.Background(), Request{User: "u", Method: "GET", Path: "/r"}, now))
	assert.Zero(t, d.Len())
}

func TestDetectorMemoryBound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		max     int
		calls   int
		wantLen int
	}{
		{desc: "below the bound", max: 100, calls: 50, wantLen: 50},
		{desc: "far past the bound", max: 100, calls: 10000, wantLen: 100},
		{desc: "default bound", max: 0, calls: DefaultMaxEntries + 5, wantLen: DefaultMaxEntries},
	}
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			d := New(time.Hour, tt.max)
			for i := range tt.calls {
				d.Seen(context.Background(), Request{User: "u", Method: "GET", Path: "/r/" + strconv.Itoa(i)}, now)
			}
			assert.Equal(t, tt.wantLen, d.Len())
		})
	}
}

func TestDetectorSweepsExpired(t *testing.T) {
	t.Parallel()
	d := New(time.Second, 1000)
	start := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	for i := range 100 {
		d.Seen(context.Background(), Request{User: "u", Method: "GET", Path: "/r/" + strconv.Itoa(i)}, start)
	}
	require.Equal(t, 100, d.Len())
	later := start.Add(2 * time.Second)
	for range 100/sweepBudget + 1 {
		d.Seen(context.Background(), Request{User: "other", Method: "GET", Path: "/same"}, later)
	}
	assert.Equal(t, 1, d.Len(), "expired requests are swept a few per call")
}

func TestDetectorConcurrent(t *testing.T) {
	t.Parallel()
	d := New(time.Minute, 1024)
	now := time.Now()
	var wg sync.WaitGroup
	dups := make([]int, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 1000 {
				if d.Seen(context.Background(), Request{User: "u", Method: "GET", Path: "/r/" + strconv.Itoa(i%16)}, now) {
					dups[g]++
				}
			}
		})
	}
	wg.Wait()
	total := 0
	for _, n := range dups {
		total += n
	}
	assert.Equal(t, 8*1000-16, total, "only the first of each of the 16 requests is new")
	assert.Equal(t, 16, d.Len())
}

// FuzzDetector checks that a request is always a duplicate of itself right
// away, and that the bound holds whatever the input.
func FuzzDetector(f *testing.F) {
	f.Add("u", "GET", "/r", "", []byte("{}"), int64(0))
	f.Add("", "", "", "", []byte{}, int64(-5))
	f.Add("a\x00b", "POST", "/v1/x", "a=1&b=2", []byte("\xff"), int64(1<<40))
	f.Fuzz(func(t *testing.T, user, method, path, query string, body []byte, offset int64) {
		d := New(time.Second, 4)
		now := time.Unix(0, offset)
		req := Request{User: user, Method: method, Path: path, Query: query, Body: body}
		first := d.Seen(context.Background(), req, now)
		assert.False(t, first)
		assert.True(t, d.Seen(context.Background(), req, now))
		req.User += "x"
		d.Seen(context.Background(), req, now)
		assert.LessOrEqual(t, d.Len(), 4)
	})
}

func BenchmarkSeen(b *testing.B) {
	d := New(time.Second, 10000)
	body := []byte(`{"name":"Acme","industry":"Manufacturing","phone":"555-0100"}`)
	routes := make([]string, 20000)
	for i := range routes {
		routes[i] = "/v1/accounts/" + strconv.Itoa(i)
	}
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	// Fill the table so the benchmark measures the steady state: every call
	// evicts or sweeps as well as inserts.
	for i := range routes {
		d.Seen(context.Background(), Request{User: "user-1", Method: "POST", Path: routes[i], Body: body}, now)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		now = now.Add(time.Microsecond)
		d.Seen(context.Background(), Request{User: "user-1", Method: "POST", Path: routes[i%len(routes)], Body: body}, now)
		i++
	}
}

func BenchmarkSeenParallel(b *testing.B) {
	d := New(time.Second, 10000)
	body := []byte(`{"name":"Acme"}`)
	now := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			d.Seen(context.Background(), Request{User: "user-1", Method: "POST", Path: "/v1/accounts", Body: body}, now)
		}
	})
}

// TestDetectorGrowsWithUse: memory follows the requests remembered, not the
// bound, and growing the ring (also when it has wrapped) keeps arrival
// order: the oldest request is the one forgotten, and expired ones are all
// swept.
func TestDetectorGrowsWithUse(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	req := func(prefix string, i int) Request {
		return Request{User: "u", Method: "GET", Path: "/" + prefix + "/" + strconv.Itoa(i)}
	}
	start := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

	t.Run("bounded", func(t *testing.T) {
		t.Parallel()
		d := New(time.Hour, 100)
		assert.Empty(t, d.order, "nothing allocated up front")
		for i := range 70 {
			d.Seen(ctx, req("r", i), start)
		}
		assert.Len(t, d.order, 100, "64, then doubled, at most the bound")
		for i := 70; i < 101; i++ {
			d.Seen(ctx, req("r", i), start)
		}
		assert.Equal(t, 100, d.Len())
		assert.True(t, d.Seen(ctx, req("r", 1), start), "r1 is remembered")
		assert.False(t, d.Seen(ctx, req("r", 0), start), "r0, the oldest, was forgotten")
	})
	t.Run("wrapped", func(t *testing.T) {
		t.Parallel()
		d := New(time.Second, 1000)
		for i := range 50 {
			d.Seen(ctx, req("old", i), start)
		}
		// new/i a millisecond after new/i-1: the old ones are swept as
		// they go, so the ring wraps, then grows
		later := start.Add(2 * time.Second)
		for i := range 100 {
			d.Seen(ctx, req("new", i), later.Add(time.Duration(i)*time.Millisecond))
		}
		assert.Len(t, d.order, 128)
		assert.Equal(t, 100, d.Len(), "the old ones were swept")
		// new/0 to new/50 have expired, the rest not: a sweep in arrival
		// order removes exactly those
		end := later.Add(time.Second + 50*time.Millisecond)
		for range 100/sweepBudget + 1 {
			d.Seen(ctx, Request{User: "other", Method: "GET", Path: "/same"}, end)
		}
		assert.Equal(t, 49+1, d.Len(), "the ring kept arrival order")
	})
}
