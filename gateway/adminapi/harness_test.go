package adminapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/activity"
	"github.com/restgate/gateway/gateway/adminapi"
	"github.com/restgate/gateway/gateway/app"
	"github.com/restgate/gateway/gateway/calllog"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
	"github.com/restgate/gateway/gateway/reload"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/gateway/server"
)

// testConfig has a fast, a slow and a broken backend, and one reached
// with an OAuth token; {{...}} are filled in by newGateway.
const testConfig = `
server: {listen: "127.0.0.1:0", adminListen: "127.0.0.1:0", tls: {mode: "off"}}
versions: [v1, v2]
models:
  Account: {fields: [Id, Name, Password, Pin]}
log:
  redactFields: [password, pin]
  maxBodyBytes: 64
  slowThreshold: 50ms
console:
  traceURL: "https://jaeger.example.com/trace/{traceId}"
upstreams:
  fast: {url: "{{FAST}}", retry: {attempts: 1}}
  slow: {url: "{{SLOW}}", retry: {attempts: 1}}
  broken: {url: "{{BROKEN}}", retry: {attempts: 1}, breaker: {consecutiveFailures: 2, openTimeout: 1h}}
  oauth:
    url: "{{FAST}}"
    retry: {attempts: 1}
    auth: {oauth: {flow: client-credentials, tokenURL: "{{TOKEN}}", clientID: gateway, clientSecret: the-client-secret}}
routes:
  - {path: "/{version}/fast", kind: proxy, upstream: fast, upstreamPath: "/x", model: Account, methods: [GET, POST]}
  - {path: "/{version}/slow", kind: proxy, upstream: slow, upstreamPath: "/x", model: Account}
  - {path: "/{version}/broken", kind: proxy, upstream: broken, upstreamPath: "/x", model: Account, methods: [GET, POST]}
  - {path: "/{version}/token", kind: proxy, upstream: oauth, upstreamPath: "/x", model: Account}
  - {path: "/{version}/settings/endpoints", kind: endpoints}
`

// testGateway is a gateway built from testConfig with the console's
// recording, its API handler and what it reads.
type testGateway struct {
	api      http.Handler // the gateway's API
	admin    http.Handler // the admin API
	reg      *prometheus.Registry
	metrics  *metrics.Metrics
	reloader *reload.Reloader
	path     string
	config   string
	tokens   *atomic.Int32
}

func newGateway(t testing.TB, extraMetrics ...prometheus.Collector) *testGateway {
	t.Helper()
	backend := func(delay time.Duration, status int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			if delay > 0 {
				time.Sleep(delay) // the slow backend is what the test measures, not a wait for another event
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`[{"Id":"001","Name":"Acme"}]`))
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	var tokens atomic.Int32
	token := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		tokens.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"the-access-token","token_type":"Bearer","expires_in":3600}`))
	}))
	t.Cleanup(token.Close)
	text := strings.NewReplacer("{{FAST}}", backend(0, 200), "{{SLOW}}", backend(120*time.Millisecond, 200),
		"{{BROKEN}}", backend(0, 500), "{{TOKEN}}", token.URL).Replace(testConfig)
	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(text), 0o600))

	cfg, table, err := routes.Load(path, nil)
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{Version: "1.2.3", Revision: "abc", GoVersion: "go1.26"})
	require.NoError(t, err)
	for _, c := range extraMetrics {
		require.NoError(t, reg.Register(c))
	}
	logger := slog.New(slog.DiscardHandler)
	rec := activity.FromConfig(cfg)
	sh := &app.Shared{Logger: logger, Metrics: m, CallLog: nopLog{}, Duplicates: duplicates.New(time.Minute, 100),
		Upstreams: app.NewUpstreamSet(rec.Observe(m), func(string, string) (string, error) { return "", os.ErrNotExist }),
		Activity:  rec}
	gw, err := app.Build(context.Background(), cfg, table, sh)
	require.NoError(t, err)
	swap := server.NewSwappable(gw.Handler)
	r := reload.New(reload.Options{Path: path, Serving: gw, Shared: sh, Target: swap, Counter: m, Logger: logger})
	admin := adminapi.Handler(adminapi.Sources{
		Build:     adminapi.Build{Version: "1.2.3", Revision: "abc", GoVersion: "go1.26"},
		Started:   time.Now(),
		Listeners: adminapi.Listeners{API: "http://127.0.0.1:8443", Admin: "http://127.0.0.1:9090"},
		Access:    func() adminapi.Access { return adminapi.Access{Loopback: true} },
		Serving:   r.Serving, Reloads: r.Status, Upstreams: sh.Upstreams, Metrics: reg, Activity: rec,
	})
	return &testGateway{api: swap, admin: admin, reg: reg, metrics: m, reloader: r, path: path, config: text, tokens: &tokens}
}

type nopLog struct{}

func (nopLog) Enqueue(calllog.Entry) {}

// call sends one request through the gateway's API and returns its status.
func (g *testGateway) call(t testing.TB, method, path, body string, header ...string) int {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	g.api.ServeHTTP(rec, req)
	return rec.Code
}

// get asks the admin API for path.
func (g *testGateway) get(t testing.TB, method, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	g.admin.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}
