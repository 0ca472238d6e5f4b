package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
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

// testAdmin is an admin listener of a test: a mux behind httptest.
type testAdmin struct{ *http.ServeMux }

func (a testAdmin) HandleAdmin(pattern string, h http.Handler) { a.Handle(pattern, h) }
func (testAdmin) APIAddr() string                              { return "127.0.0.1:8443" }
func (testAdmin) AdminAddr() string                            { return "127.0.0.1:9090" }

type discardCalls struct{}

func (discardCalls) Enqueue(calllog.Entry) {}

// TestConsoleShowsCacheAndAllowance: the response cache's and the API
// allowance's figures appear on the console, from the metrics the cache
// and the allowance guard record as traffic goes through them.
func TestConsoleShowsCacheAndAllowance(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	axe := axeSource(t)
	b := newBrowser(t, 1280, 900)
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Sforce-Limit-Info", "api-usage=13500/15000")
		_, _ = w.Write([]byte(`[{"Id":"001","Name":"Acme"}]`))
	}))
	t.Cleanup(backend.Close)
	dir := t.TempDir()
	path := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(`server: {tls: {mode: "off"}, dataDir: %s}
versions: [v1]
models:
  Account: {fields: [Id, Name]}
upstreams:
  salesforce: {url: %s, allowance: {reserve: 5%%}}
routes:
  - {path: "/{version}/accounts", kind: proxy, upstream: salesforce, upstreamPath: "/a", model: Account,
     cache: {ttl: 1h, scope: shared}}
`, dir, backend.URL)), 0o600))
	cfg, table, err := routes.Load(path, nil)
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{Version: "test"})
	require.NoError(t, err)
	cacheMetrics, err := metrics.NewResponseCache(reg)
	require.NoError(t, err)
	logger := slog.New(slog.DiscardHandler)
	rec := activity.FromConfig(cfg)
	sh := &app.Shared{Logger: logger, Metrics: m, CallLog: discardCalls{}, Duplicates: duplicates.New(time.Minute, 10),
		Upstreams: app.NewUpstreamSet(rec.Observe(m), func(string, string) (string, error) { return "", os.ErrNotExist }),
		Activity:  rec, CacheRecorder: cacheMetrics}
	gw, err := app.Build(context.Background(), cfg, table, sh)
	require.NoError(t, err)
	r := reload.New(reload.Options{Path: path, Serving: gw, Shared: sh, Target: server.NewSwappable(gw.Handler), Counter: m})
	admin := testAdmin{http.NewServeMux()}
	mountConsole(admin, cfg, consoleParts{build: adminapi.Build{Version: "test"}, started: time.Now(), reloader: r,
		shared: sh, metrics: reg}, logger)
	srv := httptest.NewServer(admin)
	t.Cleanup(srv.Close)
	for range 10 {
		w := httptest.NewRecorder()
		gw.Handler.ServeHTTP(w, httptest.NewRequest("GET", "/v1/accounts", nil))
		require.Equal(t, 200, w.Code)
	}

	b.run(t, "open", chromedp.Navigate(srv.URL+"/"))
	for _, p := range []struct{ page, ready string }{
		{"overview", `/Response cache/.test(document.querySelector('main').textContent) && /hit 9, miss 1/.test(document.querySelector('main').textContent) && /90.0%/.test(document.querySelector('main').textContent)`},
		{"routes", `/hit 9, miss 1/.test(document.querySelector('main tbody')?.textContent ?? '')`},
		{"upstreams", `document.querySelector('main meter') !== null && /13,500 used of 15,000 \(90.0%\)/.test(document.querySelector('main').textContent)`},
	} {
		b.run(t, "open "+p.page, chromedp.Click(`#nav a[data-page="`+p.page+`"]`, chromedp.ByQuery))
		b.until(t, p.page+" shows the figures", p.ready)
		var serious []string
		b.eval(t, axe+`; axe.run(document, {resultTypes: ['violations']}).then(r => r.violations
			.filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id + ': ' + v.help))`, &serious)
		assert.Empty(t, serious, p.page)
	}
	assert.Empty(t, b.seen(), "console errors, exceptions and failed requests")
}
