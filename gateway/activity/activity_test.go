package activity

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/calllog"
)

// clock is a settable test clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// start is a minute's start, so that ticks and minutes line up in tests.
var start = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

func newTestRecorder(t *testing.T, cfg Config) (*Recorder, *clock) {
	t.Helper()
	c := &clock{t: start}
	cfg.Now = c.now
	if cfg.MaxSeries == 0 {
		cfg.MaxSeries = 64
	}
	if cfg.MaxErrorSeries == 0 {
		cfg.MaxErrorSeries = 64
	}
	return New(cfg), c
}

// call is a GET of route that ended now and took total.
func call(now time.Time, route string, total time.Duration, status int) *Call {
	return &Call{Start: now.Add(-total), End: now, Method: "GET", Route: route, Version: "v1",
		Path: strings.ReplaceAll(route, "{version}", "v1"), User: "u1", TraceID: "t", Total: total, Status: status}
}

func TestBucketsCoverEveryDurationInOrder(t *testing.T) {
	t.Parallel()
	prev := 0
	for us := uint64(0); us < 1<<29; us = us*11/10 + 1 {
		d := time.Duration(us) * time.Microsecond
		b := bucketOf(d)
		require.GreaterOrEqual(t, b, prev, "buckets grow with the duration (%s)", d)
		lo, hi := bucketBounds(b)
		if b > 0 && b < buckets-1 {
			assert.True(t, float64(us) >= lo && float64(us) < hi, "%s in bucket %d [%v, %v)", d, b, lo, hi)
			assert.LessOrEqual(t, hi-lo, 0.25*max(lo, 16)+1e-9, "a bucket is at most a quarter of its lower bound wide")
		}
		prev = b
	}
	assert.Equal(t, 0, bucketOf(-time.Second), "a negative duration counts as 0")
	assert.Equal(t, buckets-1, bucketOf(time.Hour))
}

func TestQuantilesAreWithinABucket(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		values func(i int) time.Duration
		n      int
	}{
		{"uniform 1-100 ms", func(i int) time.Duration { return time.Duration(1+i%100) * time.Millisecond }, 10000},
		{"constant 250 µs", func(int) time.Duration { return 250 * time.Microsecond }, 1000},
		{"two modes", func(i int) time.Duration {
			if i%10 == 0 {
				return 2 * time.Second
			}
			return 3 * time.Millisecond
		}, 1000},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			var h histogram
			exact := make([]float64, tt.n)
			for i := range tt.n {
				d := tt.values(i)
				h[bucketOf(d)]++
				exact[i] = float64(d) / 1e6
			}
			for _, q := range []float64{0.5, 0.95, 0.99} {
				got, ok := h.quantile(q)
				require.True(t, ok)
				want := nth(exact, q)
				assert.InEpsilon(t, want, got, 0.25, "q%.2f", q)
			}
		})
	}
	var empty histogram
	_, ok := empty.quantile(0.5)
	assert.False(t, ok)
}

// nth is the exact q-quantile of values.
func nth(values []float64, q float64) float64 {
	s := append([]float64(nil), values...)
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	i := int(q*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func TestRoutesCountEveryWindow(t *testing.T) {
	t.Parallel()
	r, c := newTestRecorder(t, Config{})
	const route = "/{version}/accounts"
	// ten minutes ago: 10 answers, 2 of them 5xx
	c.add(5 * time.Minute)
	for i := range 10 {
		status := 200
		if i < 2 {
			status = 502
		}
		r.Record(call(c.now(), route, 10*time.Millisecond, status))
	}
	// now: 4 answers, one 404, and an unmatched request of an odd method
	c.add(10 * time.Minute)
	for i := range 4 {
		status := 200
		if i == 0 {
			status = 404
		}
		r.Record(call(c.now(), route, 100*time.Millisecond, status))
	}
	odd := call(c.now(), "", time.Millisecond, 404)
	odd.Method = "BREW"
	r.Record(odd)
	c.add(time.Second)

	routes, total := r.Routes()
	require.Len(t, routes, 2)
	assert.Equal(t, RouteKey{Method: "GET", Route: route}, routes[0].RouteKey)
	assert.Equal(t, RouteKey{Method: "OTHER", Route: Unmatched}, routes[1].RouteKey, "any method outside the standard ones is OTHER")

	w := routes[0].Windows
	require.Len(t, w, 3)
	assert.Equal(t, []string{"1m", "5m", "15m"}, []string{w[0].Window, w[1].Window, w[2].Window})
	assert.Equal(t, uint64(4), w[0].Count)
	assert.Equal(t, uint64(1), w[0].ClientErrors)
	assert.Equal(t, uint64(0), w[0].Errors)
	assert.Equal(t, uint64(4), w[1].Count, "ten minutes ago is outside 5m")
	assert.Equal(t, uint64(14), w[2].Count)
	assert.Equal(t, uint64(2), w[2].Errors)
	assert.InDelta(t, 2.0/14, w[2].ErrorRatio, 1e-9)
	require.NotNil(t, w[0].P50)
	assert.InEpsilon(t, 100, *w[0].P50, 0.25)
	assert.InDelta(t, 4/w[0].Seconds, w[0].Rate, 1e-9)
	assert.InDelta(t, 61, w[0].Seconds, 1e-9, "one minute and the current tick so far")
	assert.InDelta(t, 15*60+1, w[2].Seconds, 1e-9, "the recording started 15 minutes and a second ago")

	series := routes[0].Series
	require.Len(t, series, 15, "a point a minute")
	assert.Equal(t, uint64(4), series[14].Count, "the current minute is last")
	assert.Equal(t, uint64(10), series[4].Count, "ten minutes before it")
	assert.Equal(t, uint64(2), series[4].Errors)
	assert.Nil(t, series[13].P99, "no latency in an empty minute")

	assert.Equal(t, uint64(5), total.Windows[0].Count, "the total holds every route")
	assert.Equal(t, uint64(15), total.Windows[2].Count)
}

func TestOldTicksAreForgotten(t *testing.T) {
	t.Parallel()
	r, c := newTestRecorder(t, Config{})
	r.Record(call(c.now(), "/{version}/a", time.Millisecond, 200))
	c.add(16 * time.Minute)
	r.Record(call(c.now(), "/{version}/a", time.Millisecond, 200))
	routes, _ := r.Routes()
	require.Len(t, routes, 1)
	assert.Equal(t, uint64(1), routes[0].Windows[2].Count, "a slot reused 16 minutes later starts from zero")
	// a clock that steps back does not count into a newer slot
	old := call(c.now().Add(-15*time.Minute-30*time.Second), "/{version}/a", time.Millisecond, 200)
	r.Record(old)
	routes, _ = r.Routes()
	assert.Equal(t, uint64(1), routes[0].Windows[2].Count)
}

func TestSeriesAreBounded(t *testing.T) {
	t.Parallel()
	r, c := newTestRecorder(t, Config{MaxSeries: 3})
	for i := range 10 {
		r.Record(call(c.now(), fmt.Sprintf("/{version}/r%d", i), time.Millisecond, 200))
	}
	routes, total := r.Routes()
	assert.Len(t, routes, 4, "three series and the overflow")
	assert.Equal(t, overflowRoute, routes[0].Route)
	assert.Equal(t, uint64(7), routes[0].Windows[0].Count)
	assert.Equal(t, uint64(10), total.Windows[0].Count)
}

func TestSlowCallsKeepTheSlowestOfEachMinuteMasked(t *testing.T) {
	t.Parallel()
	mask := calllog.NewMasker(nil, 40)
	r, c := newTestRecorder(t, Config{SlowCalls: 3, Masker: mask})
	body := []byte(`{"user":"ann","password":"hunter2","note":"` + strings.Repeat("x", 100) + `"}`)
	for _, ms := range []int{5, 50, 1, 30, 70, 2} {
		cl := call(c.now(), "/{version}/accounts", time.Duration(ms)*time.Millisecond, 200)
		cl.Body = body
		cl.SystemMessage = "not kept"
		r.Record(cl)
	}
	body[0] = 'X' // the caller reuses its buffer
	c.add(time.Minute)
	r.Record(call(c.now(), "/{version}/accounts", 3*time.Millisecond, 200))

	got := r.SlowCalls(Windows()[2], 10)
	require.Len(t, got, 4)
	assert.Equal(t, []float64{70, 50, 30, 3}, []float64{got[0].TotalMs, got[1].TotalMs, got[2].TotalMs, got[3].TotalMs},
		"the three slowest of the first minute, then the one of the second")
	want := string(mask.Append(nil, []byte(`{"user":"ann","password":"hunter2","note":"`+strings.Repeat("x", 100)+`"}`)))
	assert.Equal(t, want, got[0].Body, "masked and cut exactly as the call log writes it")
	assert.NotContains(t, got[0].Body, "hunter2")
	assert.Contains(t, got[0].Body, "[truncated ")

	assert.Len(t, r.SlowCalls(Windows()[0], 10), 1, "1m holds only the last minute's")
	assert.Len(t, r.SlowCalls(Windows()[2], 2), 2, "limit")

	off, _ := newTestRecorder(t, Config{SlowCalls: 0})
	off.Record(call(start, "/{version}/a", time.Second, 200))
	assert.Empty(t, off.SlowCalls(Windows()[2], 10))
}

func TestDuplicatesRankUsersWithTheirRoutes(t *testing.T) {
	t.Parallel()
	r, c := newTestRecorder(t, Config{DuplicateUsers: 2})
	dup := func(user, route string) {
		cl := call(c.now(), route, time.Millisecond, 200)
		cl.User, cl.Duplicate = user, true
		r.Record(cl)
	}
	for range 5 {
		dup("ann", "/{version}/accounts")
	}
	dup("ann", "/{version}/contacts")
	dup("bob", "/{version}/accounts")
	// a third user in a full tick takes the place of the least counted
	for range 3 {
		dup("eve", "/{version}/tasks")
	}
	r.Record(call(c.now(), "/{version}/accounts", time.Millisecond, 200)) // not a duplicate

	got := r.Duplicates(Windows()[0], 10)
	require.Len(t, got, 2)
	assert.Equal(t, "ann", got[0].User)
	assert.Equal(t, uint64(6), got[0].Count)
	assert.Equal(t, []DuplicateRoute{{"GET", "/{version}/accounts", 5}, {"GET", "/{version}/contacts", 1}}, got[0].Routes)
	assert.Equal(t, "eve", got[1].User)
	assert.Equal(t, uint64(4), got[1].Count, "eve inherited bob's one")
	assert.Equal(t, uint64(1), got[1].Overcount)

	c.add(20 * time.Minute)
	assert.Empty(t, r.Duplicates(Windows()[2], 10), "gone after the window")
}

func TestErrorsByCodeSplitByRouteAndUpstream(t *testing.T) {
	t.Parallel()
	r, c := newTestRecorder(t, Config{})
	fail := func(code, route, upstream, msg string) {
		cl := call(c.now(), route, time.Millisecond, 502)
		cl.Code, cl.ErrorUpstream, cl.SystemMessage = code, upstream, msg
		r.Record(cl)
	}
	fail("CALLOUT_FAILED", "/{version}/accounts", "accounts", "first")
	c.add(10 * time.Minute)
	fail("CALLOUT_FAILED", "/{version}/accounts", "accounts", "second")
	fail("CALLOUT_FAILED", "/{version}/contacts", "data", strings.Repeat("é", 3000))
	fail("URL_INVALID", "", "", "Invalid URL")

	got := r.Errors()
	require.Len(t, got, 2)
	cf := got[0]
	assert.Equal(t, "CALLOUT_FAILED", cf.Code)
	assert.Equal(t, []WindowCount{{"1m", 2}, {"5m", 2}, {"15m", 3}}, cf.Counts)
	require.Len(t, cf.ByRoute, 2)
	assert.Equal(t, ErrorSplit{Method: "GET", Route: "/{version}/accounts", Counts: []WindowCount{{"1m", 1}, {"5m", 1}, {"15m", 2}}}, cf.ByRoute[0])
	require.Len(t, cf.ByUpstream, 2)
	assert.Equal(t, "accounts", cf.ByUpstream[0].Upstream)
	require.NotNil(t, cf.Last)
	assert.Equal(t, "data", cf.Last.Upstream)
	assert.LessOrEqual(t, len(cf.Last.SystemMessage), maxMessageBytes+40, "the message is cut")
	assert.True(t, strings.HasSuffix(cf.Last.SystemMessage, "bytes]"))
	assert.Equal(t, Unmatched, got[1].Last.Route)
	assert.Empty(t, got[1].ByUpstream)

	c.add(16 * time.Minute)
	assert.Empty(t, r.Errors(), "nothing in the last 15 minutes")
}

func TestNilRecorderRecordsNothing(t *testing.T) {
	t.Parallel()
	var r *Recorder
	r.Record(call(start, "/{version}/a", time.Second, 500))
	routes, total := r.Routes()
	assert.Nil(t, routes)
	assert.Nil(t, total.Windows)
	assert.Nil(t, r.SlowCalls(Windows()[0], 1))
	assert.Nil(t, r.Duplicates(Windows()[0], 1))
	assert.Nil(t, r.Errors())
	assert.Empty(t, r.Upstreams([]string{"a"}))
	next := &countingObserver{}
	assert.Same(t, next, r.Observe(next), "recording off adds nothing to the upstream client")
}

func TestWindowNamed(t *testing.T) {
	t.Parallel()
	w, err := WindowNamed("5m")
	require.NoError(t, err)
	assert.Equal(t, 5*time.Minute, w.Duration())
	_, err = WindowNamed("2m")
	assert.EqualError(t, err, `must be 1m, 5m or 15m, not "2m"`)
}

func TestConcurrentRecordingAndReading(t *testing.T) {
	t.Parallel()
	r := New(Config{SlowCalls: 5, DuplicateUsers: 4, MaxSeries: 8, MaxErrorSeries: 8})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 2000 {
				cl := call(time.Now(), fmt.Sprintf("/{version}/r%d", i%5), time.Duration(i)*time.Microsecond, 200+100*(i%4))
				cl.Duplicate = i%7 == 0
				cl.User = fmt.Sprint("u", g)
				if cl.Status >= 400 {
					cl.Code = "CALLOUT_FAILED"
				}
				r.Record(cl)
			}
		})
	}
	wg.Go(func() {
		for range 50 {
			r.Routes()
			r.SlowCalls(Windows()[0], 10)
			r.Duplicates(Windows()[0], 10)
			r.Errors()
		}
	})
	wg.Wait()
	_, total := r.Routes()
	assert.Equal(t, uint64(8000), total.Windows[0].Count)
}
