package reload_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
)

// records keeps the log records of a gateway.
type records struct {
	mu   sync.Mutex
	list []slog.Record
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.list = append(r.list, rec.Clone())
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

// find returns the attributes of the records whose message starts with msg.
func (r *records) find(msg string) []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]any
	for _, rec := range r.list {
		if strings.HasPrefix(rec.Message, msg) {
			attrs := map[string]any{}
			rec.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value.Any(); return true })
			out = append(out, attrs)
		}
	}
	return out
}

// exchange sends a GET of path with body and header and returns the
// answer and its body, as sent (not decompressed).
func (g *gateway) exchange(t *testing.T, path, body string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, g.srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := g.srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, b
}

// TestReloadAppliesTheKeysThatSayTheyReload checks the reference's reload
// column against the reloader: each key that reloads although its section
// is read at start (server, log, tracing, cluster) is changed by a reload and the
// change is seen in the next request. The table must name every such key.
func TestReloadAppliesTheKeysThatSayTheyReload(t *testing.T) {
	t.Parallel()
	deep := `{"id":{"b":{"c":{"d":1}}}}`
	tests := map[string]struct {
		// setting is added to the server, log or tracing section
		section, setting string
		// before and after: the status of GET path with body
		path, body    string
		before, after int
		// logged: after the reload the request logs this warning
		logged string
		// header is sent with the request; seenHeader is an answer header
		// and seenBody a text of the answer absent before the reload and
		// present after; route is added to the routes both times
		header               map[string]string
		seenHeader, seenBody string
		route                string
		// spanAttr: after the reload, and not before, the request's server
		// span has this attribute
		spanAttr string
	}{
		"server.limits.maxBodyBytes": {section: "server", setting: "limits: {maxBodyBytes: 8}",
			path: "/v1/settings/model/Thing", body: `{"id": "x"}`, before: 200, after: http.StatusRequestEntityTooLarge},
		"server.limits.maxURLLength": {section: "server", setting: "limits: {maxURLLength: 64}",
			path: "/v1/settings/model/" + strings.Repeat("q", 80), before: http.StatusNotFound, after: http.StatusRequestEntityTooLarge},
		"server.limits.maxJSONDepth": {section: "server", setting: "limits: {maxJSONDepth: 2}",
			path: "/v1/settings/model/Thing", body: deep, before: 200, after: http.StatusBadRequest},
		"log.slowThreshold": {section: "log", setting: "slowThreshold: 1ns",
			path: "/v1/settings/endpoints", before: 200, after: 200, logged: "slow call"},
		"server.publicURL": {section: "server", setting: `publicURL: "https://api.example.com"`,
			path: "/v1/settings/openapi", before: 200, after: 200, seenBody: "https://api.example.com",
			route: `  - {path: "/{version}/settings/openapi", kind: openapi}` + "\n"},
		"server.contact.name": {section: "server", setting: `contact: {name: "Platform team"}`,
			path: "/v1/settings/openapi", before: 200, after: 200, seenBody: "Platform team",
			route: `  - {path: "/{version}/settings/openapi", kind: openapi}` + "\n"},
		"server.contact.url": {section: "server", setting: `contact: {url: "https://api.example.com/support"}`,
			path: "/v1/settings/openapi", before: 200, after: 200, seenBody: "https://api.example.com/support",
			route: `  - {path: "/{version}/settings/openapi", kind: openapi}` + "\n"},
		"server.contact.email": {section: "server", setting: `contact: {email: "api@example.com"}`,
			path: "/v1/settings/openapi", before: 200, after: 200, seenBody: "api@example.com",
			route: `  - {path: "/{version}/settings/openapi", kind: openapi}` + "\n"},
		"server.compression.enabled": {section: "server", setting: "compression: {enabled: true, minBytes: 1}",
			path: "/v1/settings/endpoints", before: 200, after: 200,
			header: map[string]string{"Accept-Encoding": "gzip"}, seenHeader: "Content-Encoding"},
		"tracing.recordUserId": {section: "tracing", setting: "recordUserId: true",
			path: "/v1/settings/endpoints", before: 200, after: 200, spanAttr: "enduser.id"},
	}
	for key, setting := range map[string]string{
		"server.compression.level":    "compression: {enabled: true, minBytes: 1, level: 9}",
		"server.compression.minBytes": "compression: {enabled: true, minBytes: 10}",
		"server.compression.zstd":     "compression: {enabled: true, minBytes: 1, zstd: true}",
	} {
		tt := tests["server.compression.enabled"]
		tt.setting = setting
		if key == "server.compression.zstd" {
			tt.header = map[string]string{"Accept-Encoding": "zstd"}
		}
		tests[key] = tt
	}
	for key, setting := range map[string]string{
		"server.cors.allowedOrigins":   `cors: {allowedOrigins: ["https://app.example.com"]}`,
		"server.cors.allowedMethods":   `cors: {allowedOrigins: ["https://app.example.com"], allowedMethods: [GET]}`,
		"server.cors.allowedHeaders":   `cors: {allowedOrigins: ["https://app.example.com"], allowedHeaders: [Authorization]}`,
		"server.cors.exposedHeaders":   `cors: {allowedOrigins: ["https://app.example.com"], exposedHeaders: [Server-Timing]}`,
		"server.cors.allowCredentials": `cors: {allowedOrigins: ["https://app.example.com"], allowCredentials: true}`,
		"server.cors.maxAge":           `cors: {allowedOrigins: ["https://app.example.com"], maxAge: 1m}`,
	} {
		tt := tests["server.compression.enabled"]
		tt.setting, tt.header, tt.seenHeader = setting, map[string]string{"Origin": "https://app.example.com"}, "Access-Control-Allow-Origin"
		tests[key] = tt
	}
	var want []string
	for _, k := range config.Keys() {
		top, _, _ := strings.Cut(k.Path, ".")
		if k.Reload && !k.Section && !config.Reloads(top) {
			want = append(want, k.Path)
		}
	}
	var have []string
	for k := range tests {
		have = append(have, k)
	}
	slices.Sort(want)
	slices.Sort(have)
	require.Equal(t, want, have, "every key that reloads inside a section read at start has a case here")

	for key, tt := range tests {
		t.Run(key, func(t *testing.T) {
			t.Parallel()
			fake := fakeBackend(t, 200)
			path := filepath.Join(t.TempDir(), "config.yaml")
			writeFile(t, path, configText(fake, "v0", tt.route))
			logs := &records{}
			g := newLoggedGateway(t, path, fake, slog.New(logs))
			resp, answer := g.exchange(t, tt.path, tt.body, tt.header)
			assert.Equal(t, tt.before, resp.StatusCode, "before the reload")
			if tt.logged != "" {
				assert.Empty(t, logs.find(tt.logged), "before the reload")
			}
			if tt.spanAttr != "" {
				assert.False(t, g.lastSpanHas(t, tt.spanAttr), "before the reload")
			}
			if tt.seenHeader != "" {
				assert.Empty(t, resp.Header.Get(tt.seenHeader), "before the reload")
			}
			if tt.seenBody != "" {
				assert.NotContains(t, string(answer), tt.seenBody, "before the reload")
			}

			text := configText(fake, "v0", tt.route)
			if tt.section == "server" {
				text = strings.Replace(text, `tls: {mode: "off"}}`, `tls: {mode: "off"}, `+tt.setting+"}", 1)
			} else {
				text += tt.section + ": {" + tt.setting + "}\n"
			}
			writeFile(t, path, text)
			require.NoError(t, g.reloader.Reload(context.Background(), "test"))
			assert.Empty(t, logs.find("changed settings that take effect only after a restart"), "nothing needs a restart")
			resp, answer = g.exchange(t, tt.path, tt.body, tt.header)
			assert.Equal(t, tt.after, resp.StatusCode, "after the reload")
			if tt.logged != "" {
				assert.NotEmpty(t, logs.find(tt.logged), "after the reload")
			}
			if tt.spanAttr != "" {
				assert.True(t, g.lastSpanHas(t, tt.spanAttr), "after the reload")
			}
			if tt.seenHeader != "" {
				assert.NotEmpty(t, resp.Header.Get(tt.seenHeader), "after the reload")
			}
			if tt.seenBody != "" {
				assert.Contains(t, string(answer), tt.seenBody, "after the reload")
			}
		})
	}
}

// TestReloadNamesTheKeysThatNeedARestart: a reload that changes keys that
// need a restart warns naming exactly those, applies the rest, and keeps
// their start values in the configuration it serves.
func TestReloadNamesTheKeysThatNeedARestart(t *testing.T) {
	t.Parallel()
	fake := fakeBackend(t, 200)
	path := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, path, configText(fake, "v0"))
	logs := &records{}
	g := newLoggedGateway(t, path, fake, slog.New(logs))
	started := g.reloader.Current()

	text := strings.Replace(configText(fake, "v1"), `listen: "127.0.0.1:0"`, `listen: "127.0.0.1:1"`, 1)
	text += "log: {level: debug, duplicateWindow: 1m, slowThreshold: 2s}\ncluster: {redis: {poolSize: 3}}\nerrors: {statusMode: always200}\n"
	writeFile(t, path, text)
	require.NoError(t, g.reloader.Reload(context.Background(), "test"))

	warnings := logs.find("changed settings that take effect only after a restart")
	require.Len(t, warnings, 1)
	assert.Equal(t, []string{"server.listen", "log.duplicateWindow", "log.level", "cluster.redis.poolSize"}, warnings[0]["keys"])
	cur := g.reloader.Current()
	assert.Equal(t, started.Server.Listen, cur.Server.Listen)
	assert.Equal(t, started.Log.Level, cur.Log.Level)
	assert.Equal(t, started.Cluster, cur.Cluster)
	assert.Equal(t, 2*time.Second, cur.Log.SlowThreshold, "applied")
	assert.Equal(t, config.StatusAlways200, cur.Errors.StatusMode, "applied")
	_, env := g.get(t, "/v1/settings/endpoints")
	assert.Contains(t, fmt.Sprint(env["result"]), "summary:v1", "the routes of the new file serve")
}
