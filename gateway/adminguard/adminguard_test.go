package adminguard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/identity"
)

const (
	token  = "0123456789abcdef0123456789abcdef-console"
	secret = "jwt-secret-jwt-secret-jwt-secret-0123"
	apiKey = "an-api-key-of-the-admin"
)

func authenticator(t *testing.T, mode string) identity.Authenticator {
	t.Helper()
	sum := sha256.Sum256([]byte(apiKey))
	a, err := identity.New(context.Background(), config.Auth{Mode: mode, JWT: config.JWT{Secret: secret, Leeway: time.Second},
		APIKeys: []config.APIKey{{SHA256: hex.EncodeToString(sum[:]), UserID: "ops", Roles: []string{"admin"}}}})
	require.NoError(t, err)
	return a
}

func jwtFor(t *testing.T, roles ...string) string {
	t.Helper()
	tok, err := identity.Mint(config.JWT{Secret: secret}, "ann", roles, time.Hour, time.Now())
	require.NoError(t, err)
	return tok
}

func TestWhoMayPass(t *testing.T) {
	t.Parallel()
	admin, reader := jwtFor(t, "admin"), jwtFor(t, "reader")
	tests := []struct {
		desc     string
		loopback bool
		token    string
		mode     string
		host     string
		header   map[string]string
		status   int
		id       string
	}{
		{desc: "loopback, nothing configured", loopback: true, mode: "none", host: "127.0.0.1:9090", status: 200},
		{desc: "loopback by name", loopback: true, mode: "none", host: "localhost:9090", status: 200},
		{desc: "loopback IPv6", loopback: true, mode: "none", host: "[::1]:9090", status: 200},
		{desc: "loopback, a rebound name", loopback: true, mode: "none", host: "attacker.example:9090", status: 403, id: "ACCESS_DENIED"},
		{desc: "loopback with a token: required", loopback: true, token: token, mode: "none", host: "127.0.0.1", status: 401, id: "AUTHENTICATION_REQUIRED"},
		{desc: "loopback with the token", loopback: true, token: token, mode: "none", host: "127.0.0.1",
			header: map[string]string{"Authorization": "Bearer " + token}, status: 200},
		{desc: "elsewhere, nothing configured: locked", mode: "none", host: "10.0.0.5:9090",
			header: map[string]string{"Authorization": "Bearer " + token}, status: 403, id: "ACCESS_DENIED"},
		{desc: "elsewhere, no credential", token: token, mode: "none", host: "gw:9090", status: 401, id: "AUTHENTICATION_REQUIRED"},
		{desc: "elsewhere, the token", token: token, mode: "none", host: "gw:9090",
			header: map[string]string{"Authorization": "bearer " + token}, status: 200},
		{desc: "elsewhere, a wrong token", token: token, mode: "none", host: "gw:9090",
			header: map[string]string{"Authorization": "Bearer " + token + "x"}, status: 401, id: "AUTHENTICATION_REQUIRED"},
		{desc: "elsewhere, the token as basic auth", token: token, mode: "none", host: "gw:9090",
			header: map[string]string{"Authorization": "Basic " + token}, status: 401, id: "AUTHENTICATION_REQUIRED"},
		{desc: "jwt with the role", mode: "jwt", host: "gw", header: map[string]string{"Authorization": "Bearer " + admin}, status: 200},
		{desc: "jwt without the role", mode: "jwt", host: "gw", header: map[string]string{"Authorization": "Bearer " + reader}, status: 403, id: "ACCESS_DENIED"},
		{desc: "jwt forged", mode: "jwt", host: "gw", header: map[string]string{"Authorization": "Bearer " + admin[:len(admin)-2] + "xx"},
			status: 401, id: "AUTHENTICATION_REQUIRED"},
		{desc: "jwt mode and the token", token: token, mode: "jwt", host: "gw", header: map[string]string{"Authorization": "Bearer " + token}, status: 200},
		{desc: "jwt mode, no credential", token: token, mode: "jwt", host: "gw", status: 401, id: "AUTHENTICATION_REQUIRED"},
		{desc: "api key with the role", mode: "apikey", host: "gw", header: map[string]string{"X-API-Key": apiKey}, status: 200},
		{desc: "unknown api key", mode: "apikey", host: "gw", header: map[string]string{"X-API-Key": "nope"}, status: 401, id: "AUTHENTICATION_REQUIRED"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			authn := authenticator(t, tt.mode)
			g := New(Options{Loopback: tt.loopback, Token: tt.token, Role: "admin",
				Identity: func() (string, identity.Authenticator) { return tt.mode, authn }})
			h := g.Protect(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("{}")) }))
			req := httptest.NewRequest("GET", "/admin/api/v1/overview", nil)
			req.Host = tt.host
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Equal(t, tt.status, rec.Code, rec.Body.String())
			assert.Equal(t, ContentSecurityPolicy, rec.Header().Get("Content-Security-Policy"), "refusals carry the headers too")
			if tt.id == "" {
				return
			}
			var e struct{ Error struct{ ID, Message string } }
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &e))
			assert.Equal(t, tt.id, e.Error.ID)
			assert.NotContains(t, e.Error.Message, token, "a refusal never echoes a credential")
			if tt.status == 401 {
				assert.Equal(t, `Bearer realm="restgate admin"`, rec.Header().Get("WWW-Authenticate"))
			}
		})
	}
}

func TestOnlyReadsPass(t *testing.T) {
	t.Parallel()
	g := New(Options{Loopback: true, Role: "admin", Identity: func() (string, identity.Authenticator) { return "none", nil }})
	reached := false
	h := g.Protect(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true }))
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(m, "http://127.0.0.1/admin/api/v1/overview", strings.NewReader("{}")))
		assert.Equal(t, http.StatusMethodNotAllowed, rec.Code, m)
		assert.Equal(t, "GET, HEAD", rec.Header().Get("Allow"))
	}
	assert.False(t, reached)
}

func TestHeaders(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	Headers(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	h := rec.Header()
	csp := h.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "object-src 'none'"} {
		assert.Contains(t, csp, want)
	}
	assert.NotContains(t, csp, "unsafe-inline")
	assert.NotContains(t, csp, "unsafe-eval")
	assert.Equal(t, "DENY", h.Get("X-Frame-Options"))
	assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
	assert.Equal(t, "no-referrer", h.Get("Referrer-Policy"))
}

func TestLockedAndRole(t *testing.T) {
	t.Parallel()
	mode := "none"
	g := New(Options{Role: "ops", Identity: func() (string, identity.Authenticator) { return mode, nil }})
	assert.True(t, g.Credentialed())
	assert.True(t, g.Locked())
	assert.Empty(t, g.Role())
	mode = "jwt"
	assert.False(t, g.Locked(), "a reload to jwt opens it to the role")
	assert.Equal(t, "ops", g.Role())
	l := New(Options{Loopback: true, Role: "ops", Identity: func() (string, identity.Authenticator) { return "none", nil }})
	assert.False(t, l.Credentialed())
	assert.False(t, l.Locked())
}
