package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/cache"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
)

// thingsBackend is a backend of things: GET /things, GET /things/{id},
// POST /things, PUT /things/{id}; every GET answers Last-Modified and 304
// to an If-Modified-Since at or after it. gets counts the GETs that reached
// it; fail makes every call a 503.
type thingsBackend struct {
	mu       sync.Mutex
	things   map[string]string
	modified time.Time
	gets     atomic.Int64
	fail     atomic.Bool
	delay    atomic.Int64 // nanoseconds each GET waits
	// arrived counts the GETs that reached it, answered or not yet; while
	// hold holds a channel, each GET waits for it to close.
	arrived atomic.Int64
	hold    atomic.Pointer[chan struct{}]
	headers http.Header
	srv     *httptest.Server
}

func newThingsBackend(t testing.TB) *thingsBackend {
	t.Helper()
	b := &thingsBackend{things: map[string]string{"1": "one", "2": "two"}, modified: time.Now().Truncate(time.Second).Add(-time.Hour),
		headers: http.Header{}}
	b.srv = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *thingsBackend) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		b.arrived.Add(1)
		if gate := b.hold.Load(); gate != nil {
			<-*gate
		}
		time.Sleep(time.Duration(b.delay.Load()))
	}
	if b.fail.Load() {
		http.Error(w, `{"message":"down"}`, http.StatusServiceUnavailable)
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	id := strings.TrimPrefix(strings.TrimPrefix(r.URL.Path, "/things"), "/")
	switch r.Method {
	case http.MethodGet:
		b.gets.Add(1)
		for k, v := range b.headers {
			w.Header()[k] = v
		}
		w.Header().Set("Last-Modified", b.modified.UTC().Format(http.TimeFormat))
		if ims, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !b.modified.After(ims) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if id == "" {
			out, _ := json.Marshal(b.things)
			_, _ = fmt.Fprintf(w, `{"things":%s}`, out)
			return
		}
		name, ok := b.things[id]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"message":"no such thing"}`)
			return
		}
		_, _ = fmt.Fprintf(w, `{"id":%q,"name":%q}`, id, name)
	case http.MethodPost, http.MethodPut:
		var in struct{ ID, Name string }
		_ = json.NewDecoder(r.Body).Decode(&in)
		if id == "" {
			id = in.ID
		}
		b.things[id] = in.Name
		b.modified = b.modified.Add(time.Second)
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"id":%q}`, id)
	}
}

// thingsConfig caches the things' reads; extra is more YAML under the
// upstream.
func thingsConfig(url, routeCache, upstreamCache string) string {
	return fmt.Sprintf(`
versions: [v1, v2]
upstreams:
  things:
    url: %s
    retry: {attempts: 1}
    cache: %s
routes:
  - {path: "/{version}/things", kind: proxy, upstream: things, upstreamPath: "/things", methods: [GET, POST], cache: %s}
  - {path: "/{version}/things/{id}", kind: proxy, upstream: things, upstreamPath: "/things/{id}", methods: [GET, PUT], cache: %s}
  - {path: "/{version}/plain/{id}", kind: proxy, upstream: things, upstreamPath: "/things/{id}"}
`, url, upstreamCache, routeCache, routeCache)
}

func TestCacheHitMissAndHeaders(t *testing.T) {
	t.Parallel()
	b := newThingsBackend(t)
	h := newHarness(t, thingsConfig(b.srv.URL, "{ttl: 1m, scope: shared}", "{}"), nil)

	rec, env := h.do(t, http.MethodGet, "/v1/things/1", "", map[string]string{"X-Test": "a"})
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, `restgate; fwd=miss; fwd-status=200; stored; ttl=60`, rec.Header().Get("Cache-Status"))
	assert.Equal(t, "0", rec.Header().Get("Age"))
	etag := rec.Header().Get("ETag")
	assert.True(t, strings.HasPrefix(etag, `W/"`), etag)
	assert.Equal(t, "private, no-cache", rec.Header().Get("Cache-Control"))
	assert.Equal(t, map[string]any{"id": "1", "name": "one"}, env["result"])
	firstStamp := env["timeStamp"]

	rec, env = h.do(t, http.MethodGet, "/v1/things/1", "", nil)
	assert.Equal(t, `restgate; hit; ttl=60`, rec.Header().Get("Cache-Status"))
	assert.Equal(t, etag, rec.Header().Get("ETag"), "the ETag follows the result, not the clock")
	assert.Equal(t, map[string]any{"id": "1", "name": "one"}, env["result"])
	assert.Equal(t, "anonymous", env["userId"])
	assert.NotNil(t, env["totalTime"])
	_ = firstStamp
	assert.Equal(t, int64(1), b.gets.Load(), "the hit never reached the backend")

	// the other version is another key
	h.do(t, http.MethodGet, "/v2/things/1", "", nil)
	assert.Equal(t, int64(2), b.gets.Load())

	// If-None-Match with the ETag: 304, no body
	req := httptest.NewRequest(http.MethodGet, "/v1/things/1", nil)
	req.Header.Set("If-None-Match", etag)
	rr := httptest.NewRecorder()
	h.handler.ServeHTTP(rr, req)
	assert.Equal(t, http.StatusNotModified, rr.Code)
	assert.Empty(t, rr.Body.Bytes())
	assert.Equal(t, etag, rr.Header().Get("ETag"))

	// an uncached route of the same backend calls it every time
	h.do(t, http.MethodGet, "/v1/plain/1", "", nil)
	rec, _ = h.do(t, http.MethodGet, "/v1/plain/1", "", nil)
	assert.Empty(t, rec.Header().Get("Cache-Status"))
	assert.Equal(t, int64(4), b.gets.Load())
}

func TestCacheWriteInvalidatesItemAndCollection(t *testing.T) {
	t.Parallel()
	b := newThingsBackend(t)
	h := newHarness(t, thingsConfig(b.srv.URL, "{ttl: 1m, scope: shared}", "{}"), nil)
	h.do(t, http.MethodGet, "/v1/things", "", nil)
	h.do(t, http.MethodGet, "/v2/things/1", "", nil)
	h.do(t, http.MethodGet, "/v2/things/2", "", nil)
	require.Equal(t, int64(3), b.gets.Load())

	rec, _ := h.do(t, http.MethodPut, "/v1/things/1", `{"Name":"uno"}`, map[string]string{"Content-Type": "application/json"})
	require.Equal(t, http.StatusOK, rec.Code)

	_, env := h.do(t, http.MethodGet, "/v2/things/1", "", nil)
	assert.Equal(t, "uno", env["result"].(map[string]any)["name"], "the item, written through v1, is fetched again in v2")
	_, env = h.do(t, http.MethodGet, "/v1/things", "", nil)
	assert.Equal(t, "uno", env["result"].(map[string]any)["things"].(map[string]any)["1"], "and so is its collection")
	rec, _ = h.do(t, http.MethodGet, "/v2/things/2", "", nil)
	assert.Equal(t, `restgate; hit; ttl=60`, rec.Header().Get("Cache-Status"), "another item stays")
	assert.Equal(t, int64(5), b.gets.Load())

	// a POST on the collection invalidates its items too
	h.do(t, http.MethodPost, "/v1/things", `{"ID":"3","Name":"three"}`, map[string]string{"Content-Type": "application/json"})
	rec, _ = h.do(t, http.MethodGet, "/v2/things/2", "", nil)
	assert.Contains(t, rec.Header().Get("Cache-Status"), "fwd=miss")
}

func TestCacheScopeUserKeepsAnswersApart(t *testing.T) {
	t.Parallel()
	b := newThingsBackend(t)
	h := newHarness(t, thingsConfig(b.srv.URL, "{ttl: 1m}", "{}"), nil)
	// auth none: every caller is anonymous, so one user; a second key is
	// the version. The per-user key is proven by the property test.
	h.do(t, http.MethodGet, "/v1/things/1", "", nil)
	rec, _ := h.do(t, http.MethodGet, "/v1/things/1", "", nil)
	assert.Equal(t, `restgate; hit; ttl=60`, rec.Header().Get("Cache-Status"))
}

func TestCacheObeysBackendHeaders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		desc, cacheControl, backendHeaders, status string
		gets                                       int64
	}{
		{desc: "no-store is not kept", cacheControl: "no-store", status: `restgate; fwd=miss; fwd-status=200; detail="no-store"`, gets: 2},
		{desc: "private is not shared", cacheControl: "private", status: `restgate; fwd=miss; fwd-status=200; detail="private"`, gets: 2},
		{desc: "max-age shortens the ttl", cacheControl: "max-age=30", status: `restgate; fwd=miss; fwd-status=200; stored; ttl=30`, gets: 1},
		{desc: "Salesforce's marks ignored when told", cacheControl: "no-cache,must-revalidate,max-age=0,no-store,private",
			backendHeaders: "ignore", status: `restgate; fwd=miss; fwd-status=200; stored; ttl=60`, gets: 1},
	} {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			b := newThingsBackend(t)
			b.headers.Set("Cache-Control", tc.cacheControl)
			up := "{}"
			if tc.backendHeaders != "" {
				up = "{backendHeaders: " + tc.backendHeaders + "}"
			}
			h := newHarness(t, thingsConfig(b.srv.URL, "{ttl: 1m, scope: shared}", up), nil)
			rec, _ := h.do(t, http.MethodGet, "/v1/things/1", "", nil)
			assert.Equal(t, tc.status, rec.Header().Get("Cache-Status"))
			h.do(t, http.MethodGet, "/v1/things/1", "", nil)
			assert.Equal(t, tc.gets, b.gets.Load())
		})
	}
}

func TestCachePurgeByRouteAndPrefix(t *testing.T) {
	t.Parallel()
	b := newThingsBackend(t)
	cfg, err := config.Parse([]byte(thingsConfig(b.srv.URL, "{ttl: 1m, scope: shared}", "{}")), func(string) string { return "" })
	require.NoError(t, err)
	m, err := metrics.New(prometheus.NewRegistry(), metrics.BuildInfo{Version: "test"})
	require.NoError(t, err)
	sh := &Shared{Logger: discardLogger(), Metrics: m, CallLog: &recordingLog{}, Duplicates: duplicates.New(time.Minute, 100),
		Upstreams: NewUpstreamSet(m, func(string, string) (string, error) { return "", errors.New("none") })}
	gw, err := Build(context.Background(), cfg, tabled(t, cfg), sh)
	require.NoError(t, err)
	get := func(path string) string {
		rec := httptest.NewRecorder()
		gw.Handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		return rec.Header().Get("Cache-Status")
	}
	purge := func(query string) int {
		rec := httptest.NewRecorder()
		cache.PurgeHandler(sh.ResponseCache).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/admin/cache/purge?"+query, nil))
		return rec.Code
	}
	for _, p := range []string{"/v1/things", "/v1/things/1", "/v2/things/1"} {
		get(p)
	}
	require.Equal(t, http.StatusOK, purge("prefix=/v1/things/1"))
	assert.Contains(t, get("/v1/things/1"), "fwd=miss")
	assert.Contains(t, get("/v2/things/1"), "hit", "another path stays")
	assert.Contains(t, get("/v1/things"), "hit", "a prefix purges whole segments at and under it")

	require.Equal(t, http.StatusOK, purge("route="+url.QueryEscape("/{version}/things/{id}")))
	assert.Contains(t, get("/v2/things/1"), "fwd=miss")
	assert.Contains(t, get("/v1/things"), "hit")

	require.Equal(t, http.StatusOK, purge(""))
	assert.Contains(t, get("/v1/things"), "fwd=miss")
	assert.Equal(t, http.StatusBadRequest, purge("route=things"))
}
