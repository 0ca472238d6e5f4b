package app

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/calllog"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
	"github.com/restgate/gateway/gateway/middleware"
	"github.com/restgate/gateway/gateway/routes"
)

// shippedConfig is the path of the config the gateway ships with.
const shippedConfig = "../../config.yaml"

// Identity-provider settings of the security tests.
const (
	testIssuer   = "https://idp.example.test"
	testAudience = "gateway-api"
)

// idp serves a JWKS with one RSA and one EC signing key, as an identity
// provider does.
type idp struct {
	rsa *rsa.PrivateKey
	ec  *ecdsa.PrivateKey
	srv *httptest.Server
}

func newIDP(t *testing.T) *idp {
	t.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	pub, err := ek.PublicKey.ECDH()
	require.NoError(t, err)
	raw := pub.Bytes() // 0x04 || X || Y
	b64 := base64.RawURLEncoding.EncodeToString
	body, err := json.Marshal(map[string]any{"keys": []map[string]any{
		{"kty": "RSA", "kid": "rsa1", "alg": "RS256", "use": "sig", "n": b64(rk.N.Bytes()), "e": b64(big.NewInt(int64(rk.E)).Bytes())},
		{"kty": "EC", "kid": "ec1", "alg": "ES256", "use": "sig", "crv": "P-256", "x": b64(raw[1:33]), "y": b64(raw[33:])},
	}})
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return &idp{rsa: rk, ec: ek, srv: srv}
}

// claims are valid claims for user with roles; mut changes them.
func claims(user string, roles []string, mut func(jwt.MapClaims)) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{"sub": user, "roles": roles, "iss": testIssuer, "aud": testAudience,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
	if mut != nil {
		mut(c)
	}
	return c
}

func sign(t *testing.T, m jwt.SigningMethod, kid string, key any, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(m, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	require.NoError(t, err)
	return s
}

// backendRequest is what a fake backend received.
type backendRequest struct {
	Method, Path string
	Header       http.Header
	Body         string
}

// countingBackend stands in for every upstream. It counts and keeps what
// reaches it, and answers a plain JSON document so handlers get that far.
type countingBackend struct {
	srv  *httptest.Server
	hits atomic.Int64
	mu   sync.Mutex
	seen []backendRequest
	// status, when set, is answered instead of 200.
	status atomic.Int32
}

func newCountingBackend(t *testing.T) *countingBackend {
	t.Helper()
	b := &countingBackend{}
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.hits.Add(1)
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		b.mu.Lock()
		b.seen = append(b.seen, backendRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: string(body)})
		b.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if s := b.status.Load(); s != 0 {
			w.WriteHeader(int(s))
			_, _ = w.Write([]byte(`[{"errorCode":"FAILED","message":"backend says no"}]`))
			return
		}
		_, _ = w.Write([]byte(`{"Id":"001000000000001AAA","Name":"Acme","records":[],"data":[],"size":0,"total":0}`))
	}))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *countingBackend) requests() []backendRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]backendRequest(nil), b.seen...)
}

// shippedEnv is the environment of the shipped config with every upstream
// pointed at backend and TLS off; extra adds or overrides variables.
func shippedEnv(t *testing.T, backend string, extra map[string]string) map[string]string {
	env := map[string]string{
		"GATEWAY_TLS":      "off",
		"GATEWAY_DATA_DIR": t.TempDir(),
		"ACCOUNTS_URL":     backend, "WORKFLOW_URL": backend, "DATA_URL": backend,
		"FILES_URL": backend, "FEED_URL": backend,
	}
	maps.Copy(env, extra)
	return env
}

// builtGateway is the shipped config built with observable shared parts.
type builtGateway struct {
	handler http.Handler
	table   *routes.Table
	reg     *prometheus.Registry
	log     *recordingLog
}

// buildShipped loads and builds the shipped config under env. logger and
// extra (another call log that sees every entry) may be nil.
func buildShipped(t *testing.T, env map[string]string, logger *slog.Logger, extra middleware.CallLog) *builtGateway {
	t.Helper()
	cfg, err := config.Load(shippedConfig, func(k string) string { return env[k] })
	require.NoError(t, err)
	require.NoError(t, config.Validate(cfg))
	return buildFrom(t, cfg, logger, extra)
}

// teeLog hands every entry to the recorder and, when set, to extra.
type teeLog struct {
	rec   *recordingLog
	extra middleware.CallLog
}

func (l teeLog) Enqueue(e calllog.Entry) {
	l.rec.Enqueue(e)
	if l.extra != nil {
		l.extra.Enqueue(e)
	}
}

func buildFrom(t *testing.T, cfg *config.Config, logger *slog.Logger, extra middleware.CallLog) *builtGateway {
	t.Helper()
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{Version: "test", Revision: "r", GoVersion: "go"})
	require.NoError(t, err)
	if logger == nil {
		logger = discardLogger()
	}
	rec := &recordingLog{}
	sh := &Shared{
		Logger: logger, Metrics: m, CallLog: teeLog{rec: rec, extra: extra},
		Duplicates: duplicates.New(time.Minute, 1000),
		Upstreams: NewUpstreamSet(m, func(string, string) (string, error) {
			return "", errors.New("no sandbox in this test")
		}),
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	gw, err := Build(ctx, cfg, tabled(t, cfg), sh)
	require.NoError(t, err)
	return &builtGateway{handler: gw.Handler, table: gw.Table, reg: reg, log: rec}
}

// pathFor fills a template's version and parameters with valid-looking
// values.
func pathFor(template, version string) string {
	values := map[string]string{
		"accountId": "001000000000001AAA", "objectName": "Account", "username": "kermit",
		"taskId": "42", "apiVersion": "v35.0", "type": "Account", "locator": "01gD0000002HU6KIAW-2000",
	}
	segs := strings.Split(template, "/")
	for i, s := range segs {
		if !strings.HasPrefix(s, "{") {
			continue
		}
		name := strings.Trim(s, "{}")
		switch v, ok := values[name]; {
		case name == "version":
			segs[i] = version
		case ok:
			segs[i] = v
		default:
			segs[i] = "x1"
		}
	}
	return strings.Join(segs, "/")
}

// servedVersions lists the versions rt serves, in table order.
func servedVersions(tb *routes.Table, rt *routes.Route) []string {
	var out []string
	for _, v := range tb.Versions {
		if rt.Serves(v) {
			out = append(out, v)
		}
	}
	return out
}
