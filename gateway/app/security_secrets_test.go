package app

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/calllog"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/metrics"
	"github.com/restgate/gateway/gateway/middleware"
)

// lockedBuffer is a bytes.Buffer a logger writes from many goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// collector receives the call log batches as the real stores do: bodies
// gunzipped, kept per path (each sink posts to its own), and the headers
// that came with them.
type collector struct {
	srv     *httptest.Server
	mu      sync.Mutex
	bodies  map[string]*bytes.Buffer
	headers []http.Header
}

func newCollector(t *testing.T) *collector {
	t.Helper()
	c := &collector{bodies: map[string]*bytes.Buffer{}}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, _ := io.ReadAll(body)
		c.mu.Lock()
		if c.bodies[r.URL.Path] == nil {
			c.bodies[r.URL.Path] = &bytes.Buffer{}
		}
		c.bodies[r.URL.Path].Write(b)
		c.bodies[r.URL.Path].WriteByte('\n')
		c.headers = append(c.headers, r.Header.Clone())
		c.mu.Unlock()
		if r.URL.Path == "/_bulk" {
			_, _ = w.Write([]byte(`{"took":1,"errors":false,"items":[]}`))
		}
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// String is every body received, all sinks together.
func (c *collector) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var all strings.Builder
	for _, b := range c.bodies {
		all.Write(b.Bytes())
	}
	return all.String()
}

// body is what the sink posting to path received.
func (c *collector) body(path string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bodies[path] == nil {
		return ""
	}
	return c.bodies[path].String()
}

// callLogSinks are the call log's shapes the secrets scenario ships to:
// each sink, gzipped or not, each posting to its own path.
var callLogSinks = []calllog.Config{
	{URL: "/text", Format: "text"},
	{URL: "/jsonl", Format: "jsonl", Compress: "gzip"},
	{URL: "/fluentbit", Format: "json"},
	{URL: "/loki/api/v1/push", Sink: calllog.SinkLoki, Format: "jsonl", Compress: "gzip"},
	{URL: "/_bulk", Sink: calllog.SinkElasticsearch},
	{URL: "/v1/logs", Sink: calllog.SinkOTLP, Format: "text", Compress: "gzip"},
}

// shippers hands every entry to each shipper.
type shippers []*calllog.Shipper

func (s shippers) Enqueue(e calllog.Entry) {
	for _, sh := range s {
		sh.Enqueue(e)
	}
}

func randomSecret(t *testing.T, prefix string) string {
	t.Helper()
	b := make([]byte, 20)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return prefix + hex.EncodeToString(b)
}

// secretSet are the values that must reach nothing but the upstreams.
type secretSet struct {
	jwtSecret, workflowPassword, dataToken, gatewayKey, apiKey, collectorToken string
}

func newSecretSet(t *testing.T) secretSet {
	return secretSet{
		jwtSecret: randomSecret(t, "jwtsecret"), workflowPassword: randomSecret(t, "wfpass"),
		dataToken: randomSecret(t, "datatoken"), gatewayKey: randomSecret(t, "gwkey"), apiKey: randomSecret(t, "apikey"),
		collectorToken: randomSecret(t, "colltoken"),
	}
}

// forbidden lists every form of the secrets that may appear nowhere: the
// values, and the Basic credentials the workflow password travels in.
func (s secretSet) forbidden() map[string]string {
	return map[string]string{
		"JWT secret": s.jwtSecret, "workflow password": s.workflowPassword, "data token": s.dataToken,
		"gateway key": s.gatewayKey, "API key": s.apiKey, "collector token (log.headers)": s.collectorToken,
		"workflow Basic credentials": base64.StdEncoding.EncodeToString([]byte("admin:" + s.workflowPassword)),
	}
}

// observed is everything the gateway let out while serving.
type observed struct {
	mu    sync.Mutex
	parts map[string]*strings.Builder
}

func (o *observed) add(where, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.parts == nil {
		o.parts = make(map[string]*strings.Builder)
	}
	if o.parts[where] == nil {
		o.parts[where] = &strings.Builder{}
	}
	o.parts[where].WriteString(text)
	o.parts[where].WriteByte('\n')
}

func (o *observed) addAnswer(rec *httptest.ResponseRecorder) {
	var h strings.Builder
	for k, vs := range rec.Header() {
		h.WriteString(k + ": " + strings.Join(vs, ", ") + "\n")
	}
	o.add("answer headers", h.String())
	o.add("answer bodies", rec.Body.String())
}

func TestSecretsReachOnlyTheUpstreams(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"jwt HS256", "apikey"} {
		for _, expose := range []string{"false", "true"} {
			t.Run(mode+" exposeSystemMessages "+expose, func(t *testing.T) {
				t.Parallel()
				secretsScenario(t, mode, expose)
			})
		}
	}
}

func secretsScenario(t *testing.T, mode, expose string) {
	s := newSecretSet(t)
	backend := newCountingBackend(t)
	env := shippedEnv(t, backend.srv.URL, map[string]string{
		"GATEWAY_EXPOSE_SYSTEM_MESSAGES": expose, "GATEWAY_LOG_LEVEL": "debug",
		"WORKFLOW_PASSWORD": s.workflowPassword, "DATA_ACCESS_TOKEN": s.dataToken, "DATA_GATEWAY_KEY": s.gatewayKey,
	})
	if mode == "jwt HS256" {
		env["GATEWAY_AUTH_MODE"], env["GATEWAY_JWT_SECRET"] = "jwt", s.jwtSecret
	}
	cfg, err := config.Load(shippedConfig, func(k string) string { return env[k] })
	require.NoError(t, err)
	var creds map[string]string
	if mode == "apikey" {
		sum := sha256.Sum256([]byte(s.apiKey))
		cfg.Auth.Mode = config.AuthAPIKey
		cfg.Auth.APIKeys = []config.APIKey{{SHA256: hex.EncodeToString(sum[:]), UserID: "svc-batch", Roles: []string{"admin"}}}
		creds = map[string]string{"X-API-Key": s.apiKey}
	} else {
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": "005U1", "roles": []string{"admin"},
			"exp": time.Now().Add(time.Hour).Unix()}).SignedString([]byte(s.jwtSecret))
		require.NoError(t, err)
		creds = bearerHeader(tok)
	}
	require.NoError(t, config.Validate(cfg))

	var logs lockedBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	coll := newCollector(t)
	var ships shippers
	for _, sink := range callLogSinks {
		sink.URL = coll.srv.URL + sink.URL
		sink.FlushInterval = 10 * time.Millisecond
		sink.Headers = map[string]string{"Authorization": "Bearer " + s.collectorToken, "X-Scope-OrgID": "tenant-a"}
		sh, err := calllog.NewShipper(sink, nil, nil, logger)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		go sh.Run(ctx)
		ships = append(ships, sh)
	}
	gw := buildFrom(t, cfg, logger, middleware.CallLog(ships))

	var seen observed
	clientSecretBody := `{"Name":"Acme","password":"` + s.workflowPassword + `","token":"` + s.dataToken +
		`","nested":{"apiKey":"` + s.apiKey + `","secret":"` + s.jwtSecret + `"}}`
	bodies := []string{"", `{"Name":"Acme"}`, clientSecretBody, "[" + clientSecretBody + "]", "not json password=" + s.workflowPassword}
	headerSets := []map[string]string{creds, nil, {"Authorization": "Bearer " + s.jwtSecret, "X-API-Key": s.dataToken}}
	for _, status := range []int32{0, 400, 500} {
		backend.status.Store(status)
		for _, e := range gw.table.Entries() {
			for _, v := range []string{"v1", "v2"} {
				if !e.Route.Serves(v) {
					continue
				}
				target := pathFor(e.Route.Template, v)
				for _, h := range headerSets {
					for _, body := range bodies {
						seen.addAnswer(serve(gw.handler, e.Method, target, h, body))
					}
				}
			}
		}
	}
	for _, sh := range ships {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		require.NoError(t, sh.Close(ctx))
		cancel()
	}
	seen.add("call log", coll.String())
	seen.add("local log", logs.String())
	rec := httptest.NewRecorder()
	metrics.Handler(gw.reg).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	require.Equal(t, 200, rec.Code)
	seen.add("metrics", rec.Body.String())
	for _, v := range []string{"v1", "v2", "v3"} {
		seen.addAnswer(serve(gw.handler, "GET", "/"+v+"/settings/endpoints", creds, ""))
		seen.addAnswer(serve(gw.handler, "GET", "/"+v+"/settings/openapi", creds, ""))
	}

	for _, sink := range callLogSinks {
		require.Contains(t, coll.body(sink.URL), "[REDACTED]", "the %s sink carried the bodies, masked", sink.URL)
	}
	require.Contains(t, seen.parts["call log"].String(), `"route":"/{version}/accounts"`, "the JSON lines arrived")
	coll.mu.Lock()
	for _, h := range coll.headers {
		assert.Equal(t, "Bearer "+s.collectorToken, h.Get("Authorization"), "log.headers reach the collector")
	}
	coll.mu.Unlock()
	if expose == "true" {
		assert.Contains(t, seen.parts["answer bodies"].String(), "formattedSystemMessage")
	}
	for where, text := range seen.parts {
		for name, secret := range s.forbidden() {
			assert.NotContains(t, text.String(), secret, "the %s appears in the %s", name, where)
		}
	}
	assertCredentialsReachedUpstreams(t, backend.requests(), s, creds)
}

// assertCredentialsReachedUpstreams checks the upstream credentials were
// sent where they belong, and the caller's own credentials never were.
func assertCredentialsReachedUpstreams(t *testing.T, reqs []backendRequest, s secretSet, creds map[string]string) {
	t.Helper()
	var workflow, data int
	for _, r := range reqs {
		user, pass, basic := (&http.Request{Header: r.Header}).BasicAuth()
		switch {
		case basic:
			assert.Equal(t, "admin", user)
			assert.Equal(t, s.workflowPassword, pass)
			workflow++
		case r.Header.Get("Authorization") == "Bearer "+s.dataToken:
			data++
		}
		if r.Header.Get("X-Gateway-Key") != "" {
			assert.Equal(t, s.gatewayKey, r.Header.Get("X-Gateway-Key"))
		}
		for k, v := range creds {
			for hk, hv := range r.Header {
				assert.NotContains(t, strings.Join(hv, ","), strings.TrimPrefix(v, "Bearer "),
					"the caller's %s was forwarded to %s %s as %s", k, r.Method, r.Path, hk)
			}
		}
	}
	assert.Positive(t, workflow, "the workflow password reached the workflow upstream")
	assert.Positive(t, data, "the data token reached the data upstream")
}
