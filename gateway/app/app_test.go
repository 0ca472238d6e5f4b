package app

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/cache"
	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/calllog"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
)

var update = flag.Bool("update", false, "rewrite golden files")

const testSecret = "0123456789abcdef0123456789abcdef"

// recordingLog keeps the call log entries a test produced.
type recordingLog struct {
	mu      sync.Mutex
	entries []calllog.Entry
}

func (l *recordingLog) Enqueue(e calllog.Entry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, e)
}

func (l *recordingLog) all() []calllog.Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]calllog.Entry(nil), l.entries...)
}

type harness struct {
	handler   http.Handler
	log       *recordingLog
	reg       *prometheus.Registry
	upstreams *UpstreamSet
	gateway   *Gateway
	cache     *cache.Cache
}

const baseConfig = `
versions: [v1, v2, v3]
models:
  Account:
    fields: [Id, Name, Total_Assets__c, SicDesc]
    versions:
      v1: {mapKeys: {Total_Assets__c: totalassets, SicDesc: sicdesc}}
routes:
  - {path: "/{version}/settings/endpoints", kind: endpoints, summary: "Lists every endpoint"}
  - {path: "/{version}/settings/model/{objectName}", kind: model, methods: [GET, POST], summary: "Key map of a type"}
`

func newHarness(t *testing.T, yaml string, env map[string]string) *harness {
	t.Helper()
	cfg, err := config.Parse([]byte(yaml), func(k string) string { return env[k] })
	require.NoError(t, err)
	table := tabled(t, cfg)
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{Version: "test", Revision: "r", GoVersion: "go"})
	require.NoError(t, err)
	log := &recordingLog{}
	sh := &Shared{
		Logger: discardLogger(), Metrics: m, CallLog: log,
		Duplicates: duplicates.New(time.Minute, 1000),
		Upstreams: NewUpstreamSet(m, func(string, string) (string, error) {
			return "", errors.New("no sandbox in this test")
		}),
	}
	gw, err := Build(context.Background(), cfg, table, sh)
	require.NoError(t, err)
	return &harness{handler: gw.Handler, log: log, reg: reg, upstreams: sh.Upstreams, gateway: gw, cache: sh.ResponseCache()}
}

func (h *harness) do(t *testing.T, method, path, body string, header map[string]string) (*httptest.ResponseRecorder, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.handler.ServeHTTP(rec, req)
	var env map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &env), rec.Body.String())
	return rec, env
}

func responseID(env map[string]any) string {
	rc, _ := env["responseCode"].(map[string]any)
	id, _ := rc["id"].(string)
	return id
}

func TestRouting(t *testing.T) {
	t.Parallel()
	h := newHarness(t, baseConfig, nil)
	tests := []struct {
		desc, method, path string
		status             int
		id                 string
		allow              string
	}{
		{desc: "served version", method: "GET", path: "/v2/settings/endpoints", status: 200},
		{desc: "unknown version", method: "GET", path: "/v9/settings/endpoints", status: 404, id: "URL_INVALID"},
		{desc: "not a version", method: "GET", path: "/x1/settings/endpoints", status: 404, id: "URL_INVALID"},
		{desc: "no version", method: "GET", path: "/settings/endpoints", status: 404, id: "URL_INVALID"},
		{desc: "unknown path", method: "GET", path: "/v1/nothing", status: 404, id: "URL_INVALID"},
		{desc: "root", method: "GET", path: "/", status: 404, id: "URL_INVALID"},
		{desc: "trailing slash is another path", method: "GET", path: "/v1/settings/endpoints/", status: 404, id: "URL_INVALID"},
		{desc: "unclean path is not redirected", method: "GET", path: "/v1/../v1/settings/endpoints", status: 404, id: "URL_INVALID"},
		{desc: "known path, other method", method: "POST", path: "/v1/settings/endpoints", status: 405, id: "URL_INVALID", allow: "GET, HEAD, OPTIONS"},
		{desc: "405 on a parameterised path", method: "DELETE", path: "/v1/settings/model/Account", status: 405, id: "URL_INVALID", allow: "GET, HEAD, OPTIONS, POST"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			rec, env := h.do(t, tt.method, tt.path, "", nil)
			assert.Equal(t, tt.status, rec.Code)
			assert.Equal(t, tt.id, responseID(env))
			assert.Equal(t, tt.allow, rec.Header().Get("Allow"))
			assert.Equal(t, "anonymous", env["userId"])
			assert.Contains(t, rec.Header().Get("Server-Timing"), "total;dur=")
			assert.NotEmpty(t, rec.Header().Get("traceparent"))
		})
	}
}

func TestServerTimingMatchesTotalTime(t *testing.T) {
	t.Parallel()
	h := newHarness(t, baseConfig, nil)
	rec, env := h.do(t, "GET", "/v1/settings/endpoints", "", nil)
	total := rec.Header().Get("Server-Timing")
	m := regexp.MustCompile(`total;dur=([0-9.]+)`).FindStringSubmatch(total)
	require.Len(t, m, 2)
	ms, ok := env["totalTime"].(float64)
	require.True(t, ok)
	assert.InDelta(t, ms, mustFloat(t, m[1]), 0.0005)
}

func TestEndpointListingGolden(t *testing.T) {
	t.Parallel()
	h := newHarness(t, baseConfig, nil)
	rec, env := h.do(t, "GET", "/v1/settings/endpoints", "", nil)
	require.Equal(t, 200, rec.Code)
	_, hasFlag := env["mapKeysFlag"]
	assert.False(t, hasFlag, "the listing omits mapKeysFlag")
	_, hasNulls := env["serializeNulls"]
	assert.False(t, hasNulls, "the listing omits serializeNulls")
	got, err := json.MarshalIndent(env["result"], "", "  ")
	require.NoError(t, err)
	goldenFile(t, "endpoints_v1.json", got)
}

func TestPanicIsEnveloped(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse([]byte(baseConfig), func(string) string { return "" })
	require.NoError(t, err)
	log := &recordingLog{}
	m, err := metrics.New(prometheus.NewRegistry(), metrics.BuildInfo{})
	require.NoError(t, err)
	sh := &Shared{Logger: discardLogger(), Metrics: m, CallLog: log, Duplicates: duplicates.New(time.Minute, 10)}
	w := call.NewWriter(call.WriterConfig{Catalog: testCatalog()})
	panicky := http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("kaboom") })
	h := chain(panicky, cfg, sh, noneAuth(t), w, time.Now, edges{})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/x", nil))
	assert.Equal(t, 500, rec.Code)
	var env map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &env))
	assert.Equal(t, "REST_DISPATCHER_FAILED", responseID(env))
	assert.NotContains(t, rec.Body.String(), "kaboom", "no internals reach the client")
	entries := log.all()
	require.Len(t, entries, 1)
	assert.Equal(t, 500, entries[0].Status)
	assert.Equal(t, "REST_DISPATCHER_FAILED", entries[0].ResponseCode)
}

func TestJWTIdentity(t *testing.T) {
	t.Parallel()
	h := newHarness(t, baseConfig+"auth: {mode: jwt, jwt: {secret: "+testSecret+"}}\n", nil)
	now := time.Now()
	sign := func(method jwt.SigningMethod, key any, claims jwt.MapClaims) string {
		s, err := jwt.NewWithClaims(method, claims).SignedString(key)
		require.NoError(t, err)
		return s
	}
	good := jwt.MapClaims{"sub": "005U1", "roles": []string{"admin"}, "exp": now.Add(time.Hour).Unix()}
	tests := []struct {
		desc   string
		header map[string]string
		status int
		user   string
	}{
		{desc: "valid token", header: map[string]string{"Authorization": "Bearer " + sign(jwt.SigningMethodHS256, []byte(testSecret), good)}, status: 200, user: "005U1"},
		{desc: "no token", status: 401},
		{desc: "forged identity header is ignored", header: map[string]string{"X-User-Id": "admin"}, status: 401},
		{desc: "bad signature", header: map[string]string{"Authorization": "Bearer " + sign(jwt.SigningMethodHS256, []byte("another-secret-another-secret-xx"), good)}, status: 401},
		{desc: "alg none", header: map[string]string{"Authorization": "Bearer " + sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, good)}, status: 401},
		{desc: "other algorithm", header: map[string]string{"Authorization": "Bearer " + sign(jwt.SigningMethodHS512, []byte(testSecret), good)}, status: 401},
		{desc: "expired", header: map[string]string{"Authorization": "Bearer " + sign(jwt.SigningMethodHS256, []byte(testSecret), jwt.MapClaims{"sub": "u", "exp": now.Add(-time.Hour).Unix()})}, status: 401},
		{desc: "not yet valid", header: map[string]string{"Authorization": "Bearer " + sign(jwt.SigningMethodHS256, []byte(testSecret), jwt.MapClaims{"sub": "u", "exp": now.Add(2 * time.Hour).Unix(), "nbf": now.Add(time.Hour).Unix()})}, status: 401},
		{desc: "no exp", header: map[string]string{"Authorization": "Bearer " + sign(jwt.SigningMethodHS256, []byte(testSecret), jwt.MapClaims{"sub": "u"})}, status: 401},
		{desc: "garbage", header: map[string]string{"Authorization": "Bearer a.b.c"}, status: 401},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			rec, env := h.do(t, "GET", "/v1/settings/endpoints", "", tt.header)
			assert.Equal(t, tt.status, rec.Code)
			if tt.status == 401 {
				assert.Equal(t, "AUTHENTICATION_REQUIRED", responseID(env))
				assert.Equal(t, `Bearer realm="gateway"`, rec.Header().Get("WWW-Authenticate"))
				assert.Equal(t, "", env["userId"])
				return
			}
			assert.Equal(t, tt.user, env["userId"])
		})
	}
}

func TestStatusModeAlways200(t *testing.T) {
	t.Parallel()
	h := newHarness(t, baseConfig+"errors: {statusMode: always200, exposeSystemMessages: true}\n", nil)
	rec, env := h.do(t, "GET", "/v1/missing", "", nil)
	assert.Equal(t, 200, rec.Code)
	assert.Equal(t, "URL_INVALID", responseID(env))
	rc := env["responseCode"].(map[string]any)
	assert.Contains(t, rc["formattedSystemMessage"], "Path: /v1/missing")
}

func TestSystemMessagesHiddenByDefault(t *testing.T) {
	t.Parallel()
	h := newHarness(t, baseConfig, nil)
	_, env := h.do(t, "GET", "/v1/missing", "", nil)
	rc := env["responseCode"].(map[string]any)
	assert.NotContains(t, rc, "systemTemplate")
	assert.NotContains(t, rc, "formattedSystemMessage")
}

func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, baseConfig+"auth: {rateLimit: {requestsPerSecond: 1, burst: 2}}\n", nil)
	for i := range 2 {
		rec, _ := h.do(t, "GET", "/v1/settings/endpoints", "", nil)
		require.Equal(t, 200, rec.Code)
		// the limit describes itself (draft-ietf-httpapi-ratelimit-headers):
		// two requests per two seconds, the tokens left, a second to the next
		assert.Equal(t, []string{`"rate";q=2;w=2`}, rec.Header().Values("RateLimit-Policy"))
		assert.Equal(t, []string{`"rate";r=` + strconv.Itoa(1-i) + `;t=1`}, rec.Header().Values("RateLimit"))
	}
	rec, env := h.do(t, "GET", "/v1/settings/endpoints", "", nil)
	assert.Equal(t, 429, rec.Code)
	assert.Equal(t, "RATE_LIMITED", responseID(env))
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	assert.Equal(t, `"rate";r=0;t=1`, rec.Header().Get("RateLimit"))
}
