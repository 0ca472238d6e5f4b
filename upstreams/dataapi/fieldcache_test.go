package dataapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/upstreams"
)

// describeFake answers describes: 404 for type "Nope", 500 while failing is
// set, else two fields named after the type. It counts requests per type and
// holds each answer until release is closed (nil: no wait).
type describeFake struct {
	srv     *httptest.Server
	mu      sync.Mutex
	calls   map[string]int
	release chan struct{}
	failing atomic.Bool
}

func newDescribeFake(t *testing.T, release chan struct{}) *describeFake {
	t.Helper()
	d := &describeFake{calls: map[string]int{}, release: release}
	d.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		typ := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/services/data/v35.0/sobjects/"), "/describe")
		d.mu.Lock()
		d.calls[typ]++
		d.mu.Unlock()
		if d.release != nil {
			<-d.release
		}
		switch {
		case typ == "Nope":
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `[{"errorCode":"NOT_FOUND","message":"The requested resource does not exist"}]`)
		case d.failing.Load():
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, `[{"errorCode":"UNKNOWN_EXCEPTION","message":"boom"}]`)
		default:
			_, _ = fmt.Fprintf(w, `{"name":%q,"fields":[{"name":"Id","type":"id"},{"name":"%s_Name","type":"string"}]}`, typ, typ)
		}
	}))
	t.Cleanup(d.srv.Close)
	return d
}

func (d *describeFake) count(typ string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.calls[typ]
}

// fakeClock is a settable clock for the cache's TTLs.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newTestCache(t *testing.T, d *describeFake, ttl time.Duration) (*FieldCache, *fakeClock) {
	t.Helper()
	c, err := New(d.srv.URL, "v35.0", d.srv.Client())
	require.NoError(t, err)
	f := NewFieldCache(c, ttl)
	clock := &fakeClock{now: time.Unix(1_700_000_000, 0)}
	f.now = clock.Now
	return f, clock
}

func TestFieldCacheOneCallForConcurrentCallers(t *testing.T) {
	t.Parallel()
	const callers = 100
	release := make(chan struct{})
	d := newDescribeFake(t, release)
	f, _ := newTestCache(t, d, time.Minute)
	var waiting atomic.Int32
	f.onWait = func() {
		// The answer is held until every caller waits, so none of them can
		// be served from an already-filled cache.
		if waiting.Add(1) == callers {
			close(release)
		}
	}
	var wg sync.WaitGroup
	results := make([][]string, callers)
	errs := make([]error, callers)
	for i := range callers {
		wg.Go(func() { results[i], errs[i] = f.Fields(context.Background(), "Account") })
	}
	wg.Wait()
	assert.Equal(t, 1, d.count("Account"))
	for i := range callers {
		require.NoError(t, errs[i])
		assert.Equal(t, []string{"Id", "Account_Name"}, results[i])
	}
	results[0][0] = "changed"
	again, err := f.Fields(context.Background(), "Account")
	require.NoError(t, err)
	assert.Equal(t, "Id", again[0], "callers get their own slice")
}

func TestFieldCacheExpiry(t *testing.T) {
	t.Parallel()
	d := newDescribeFake(t, nil)
	f, clock := newTestCache(t, d, time.Minute)
	ctx := context.Background()
	tests := []struct {
		desc    string
		advance time.Duration
		calls   int
	}{
		{desc: "first call asks", calls: 1},
		{desc: "within the TTL it is cached", advance: 59 * time.Second, calls: 1},
		{desc: "after the TTL it asks again", advance: time.Second, calls: 2},
	}
	for _, tt := range tests {
		clock.Advance(tt.advance)
		_, err := f.Fields(ctx, "Contact")
		require.NoError(t, err, tt.desc)
		assert.Equal(t, tt.calls, d.count("Contact"), tt.desc)
	}
}

func TestFieldCacheNotFound(t *testing.T) {
	t.Parallel()
	d := newDescribeFake(t, nil)
	f, clock := newTestCache(t, d, time.Hour)
	ctx := context.Background()
	for range 3 {
		_, err := f.Fields(ctx, "Nope")
		ue := upstreams.AsError(err)
		require.NotNil(t, ue)
		assert.Equal(t, http.StatusNotFound, ue.Status)
		assert.Equal(t, "NOT_FOUND", ue.Code)
	}
	assert.Equal(t, 1, d.count("Nope"), "a 404 is remembered briefly")
	clock.Advance(maxNotFoundTTL)
	_, err := f.Fields(ctx, "Nope")
	require.Error(t, err)
	assert.Equal(t, 2, d.count("Nope"), "but not for the whole TTL")
}

func TestFieldCacheDoesNotKeepFailures(t *testing.T) {
	t.Parallel()
	d := newDescribeFake(t, nil)
	f, _ := newTestCache(t, d, time.Hour)
	ctx := context.Background()
	d.failing.Store(true)
	_, err := f.Fields(ctx, "Account")
	ue := upstreams.AsError(err)
	require.NotNil(t, ue)
	assert.Equal(t, upstreams.KindFailed, ue.Kind)
	d.failing.Store(false)
	fields, err := f.Fields(ctx, "Account")
	require.NoError(t, err)
	assert.Equal(t, []string{"Id", "Account_Name"}, fields)
	assert.Equal(t, 2, d.count("Account"))
}

func TestFieldCacheIsBounded(t *testing.T) {
	t.Parallel()
	d := newDescribeFake(t, nil)
	f, clock := newTestCache(t, d, time.Hour)
	f.maxTypes = 4
	ctx := context.Background()
	for i := range 10 {
		clock.Advance(time.Second)
		_, err := f.Fields(ctx, fmt.Sprintf("T%d", i))
		require.NoError(t, err)
		f.mu.Lock()
		n := len(f.entries)
		f.mu.Unlock()
		assert.LessOrEqual(t, n, 4)
	}
	_, err := f.Fields(ctx, "T9")
	require.NoError(t, err)
	assert.Equal(t, 1, d.count("T9"), "the newest stays")
	_, err = f.Fields(ctx, "T0")
	require.NoError(t, err)
	assert.Equal(t, 2, d.count("T0"), "the oldest was evicted")
}

func TestFieldCacheCallerGivesUp(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	d := newDescribeFake(t, release)
	f, _ := newTestCache(t, d, time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	f.onWait = cancel
	_, err := f.Fields(ctx, "Account")
	ue := upstreams.AsError(err)
	require.NotNil(t, ue)
	assert.Equal(t, upstreams.KindCanceled, ue.Kind)
	close(release)
	f.onWait = nil
	fields, err := f.Fields(context.Background(), "Account")
	require.NoError(t, err)
	assert.Len(t, fields, 2)
	assert.Equal(t, 1, d.count("Account"), "the shared call went on without the caller")
}

func BenchmarkFieldCacheHit(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"fields":[{"name":"Id"},{"name":"Name"},{"name":"BillingCity"}]}`)
	}))
	defer srv.Close()
	c, err := New(srv.URL, "v35.0", srv.Client())
	require.NoError(b, err)
	f := NewFieldCache(c, time.Hour)
	ctx := context.Background()
	_, err = f.Fields(ctx, "Account")
	require.NoError(b, err)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := f.Fields(ctx, "Account"); err != nil {
			b.Fatal(err)
		}
	}
}
