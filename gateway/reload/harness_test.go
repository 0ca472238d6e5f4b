package reload_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/restgate/gateway/gateway/app"
	"github.com/restgate/gateway/gateway/calllog"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
	"github.com/restgate/gateway/gateway/reload"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/gateway/server"
)

// baseYAML is a config with only self-describing routes; upstream fake is
// an httptest backend ({{FAKE}}) whose client must survive reloads.
const baseYAML = `
server: {listen: "127.0.0.1:0", adminListen: "127.0.0.1:0", tls: {mode: "off"}}
versions: [v1, v2]
models:
  Thing:
    fields: [Id, Display_Name__c]
upstreams:
  fake:
    url: {{FAKE}}
    breaker: {consecutiveFailures: 1, openTimeout: 1h}
    retry: {attempts: 1}
routes:
  - {path: "/{version}/settings/endpoints", kind: endpoints, summary: "{{SUMMARY}}"}
  - {path: "/{version}/settings/model/{objectName}", kind: model, summary: "Key map of a type"}
`

// addedRoute is a route a reload adds.
const addedRoute = `  - {path: "/{version}/types/{objectName}", kind: model, summary: "Added by a reload"}
`

func configText(fake, summary string, extra ...string) string {
	s := strings.ReplaceAll(baseYAML, "{{FAKE}}", fake)
	s = strings.ReplaceAll(s, "{{SUMMARY}}", summary)
	return s + strings.Join(extra, "")
}

// countingCounter counts reloads.
type countingCounter struct{ ok, failed atomic.Int64 }

func (c *countingCounter) CountReload(ok bool) {
	if ok {
		c.ok.Add(1)
	} else {
		c.failed.Add(1)
	}
}

type nopLog struct{}

func (nopLog) Enqueue(calllog.Entry) {}

// gateway is a running gateway built from a config file.
type gateway struct {
	path     string
	fake     string
	shared   *app.Shared
	api      *server.Swappable
	reloader *reload.Reloader
	counter  *countingCounter
	srv      *httptest.Server
	// spans holds the server span of every request.
	spans *tracetest.InMemoryExporter
}

// newGateway builds the config file at path and serves it through a
// Swappable behind an httptest server, with a Reloader on the same file.
func newGateway(t *testing.T, path, fake string) *gateway {
	t.Helper()
	return newLoggedGateway(t, path, fake, discard())
}

// newLoggedGateway is newGateway whose requests and reloads log to logger.
func newLoggedGateway(t *testing.T, path, fake string, logger *slog.Logger) *gateway {
	t.Helper()
	m, err := metrics.New(prometheus.NewRegistry(), metrics.BuildInfo{})
	require.NoError(t, err)
	// Every request is traced into memory, so a test can see what a
	// reload changes in the server spans.
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	sh := &app.Shared{Logger: logger, Metrics: m, CallLog: nopLog{}, Duplicates: duplicates.New(time.Minute, 100),
		Upstreams: app.NewUpstreamSet(m, func(string, string) (string, error) { return "", os.ErrNotExist }),
		Tracer:    tp.Tracer("reload-test")}
	cfg, table, err := routes.Load(path, nil)
	require.NoError(t, err)
	gw, err := app.Build(context.Background(), cfg, table, sh)
	require.NoError(t, err)
	g := &gateway{path: path, fake: fake, shared: sh, api: server.NewSwappable(gw.Handler), counter: &countingCounter{},
		spans: spans}
	g.reloader = reload.New(reload.Options{Path: path, Serving: gw, Shared: sh, Target: g.api, Counter: g.counter, Logger: logger})
	g.srv = httptest.NewServer(g.api)
	t.Cleanup(g.srv.Close)
	return g
}

func fakeBackend(t *testing.T, status int) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{}`))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

// get sends GET path and decodes the envelope.
func (g *gateway) get(t *testing.T, path string) (int, map[string]any) {
	t.Helper()
	resp, err := g.srv.Client().Get(g.srv.URL + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	var env map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&env))
	return resp.StatusCode, env
}

// status is the status of GET path, 0 when the request fails; unlike get
// it may be polled from another goroutine.
func (g *gateway) status(path string) int {
	resp, err := g.srv.Client().Get(g.srv.URL + path)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// listed returns the uris of the endpoint listing of v1.
func (g *gateway) listed(t *testing.T) []string {
	t.Helper()
	status, env := g.get(t, "/v1/settings/endpoints")
	require.Equal(t, 200, status)
	var uris []string
	for _, rec := range env["result"].([]any) {
		uris = append(uris, rec.(map[string]any)["path"].(map[string]any)["uri"].(string))
	}
	return uris
}

// startWatcher runs a watcher on g's path that reloads g.
func startWatcher(t *testing.T, g *gateway) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	w, err := reload.NewWatcher(g.path, 50*time.Millisecond, func() { _ = g.reloader.Reload(ctx, "file changed") }, discard())
	require.NoError(t, err)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); w.Run(ctx) }()
	t.Cleanup(func() { cancel(); wg.Wait() })
}

// startCountingWatcher is startWatcher whose every reload, once it
// returned, is reported on the channel.
func startCountingWatcher(t *testing.T, g *gateway) <-chan struct{} {
	t.Helper()
	reloaded := make(chan struct{}, 16)
	ctx, cancel := context.WithCancel(context.Background())
	w, err := reload.NewWatcher(g.path, 50*time.Millisecond, func() {
		_ = g.reloader.Reload(ctx, "file changed")
		reloaded <- struct{}{}
	}, discard())
	require.NoError(t, err)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); w.Run(ctx) }()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return reloaded
}

// lastSpanHas reports whether the last server span recorded has the
// attribute key.
func (g *gateway) lastSpanHas(t *testing.T, key string) bool {
	t.Helper()
	spans := g.spans.GetSpans()
	require.NotEmpty(t, spans)
	for _, kv := range spans[len(spans)-1].Attributes {
		if string(kv.Key) == key {
			return true
		}
	}
	return false
}
