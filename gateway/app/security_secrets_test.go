package app

import (
	"bytes"
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

// collector receives the call log batches as the real one does.
type collector struct {
	srv  *httptest.Server
	mu   sync.Mutex
	body bytes.Buffer
}

func newCollector(t *testing.T) *collector {
	t.Helper()
	c := &collector{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		c.body.Write(b)
		c.body.WriteByte('\n')
		c.mu.Unlock()
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *collector) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.body.String()
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
	jwtSecret, workflowPassword, dataToken, gatewayKey, apiKey string
}

func newSecretSet(t *testing.T) secretSet {
	return secretSet{
		jwtSecret: randomSecret(t, "jwtsecret"), workflowPassword: randomSecret(t, "wfpass"),
		dataToken: randomSecret(t, "datatoken"), gatewayKey: randomSecret(t, "gwkey"), apiKey: randomSecret(t, "apikey"),
	}
}

// forbidden lists every form of the secrets that may appear nowhere: the
// values, and the Basic credentials the workflow password travels in.
func (s secretSet) forbidden() map[string]string {
	return map[string]string{
		"JWT secret": s.jwtSecret, "workflow password": s.workflowPassword, "data token": s.dataToken,
		"gateway key": s.gatewayKey, "API key": s.apiKey,
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
	for _, format := range []string{"text", "jsonl"} {
		sh, err := calllog.NewShipper(calllog.Config{URL: coll.srv.URL, Format: format, FlushInterval: 10 * time.Millisecond},
			nil, nil, logger)
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

	require.Contains(t, seen.parts["call log"].String(), "[REDACTED]", "the call log carried the bodies, masked")
	require.Contains(t, seen.parts["call log"].String(), `"route":"/{version}/accounts"`, "the JSON lines arrived")
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
