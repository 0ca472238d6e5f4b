package app

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
)

// corsGateway is the shipped config behind JWT, with CORS for
// https://app.example.com on every route but the messages route, which
// allows https://feed.example.com only, and the files route, which turns
// CORS off; served on a real listener.
func corsGateway(t *testing.T, on bool) (string, *http.Client) {
	t.Helper()
	env := map[string]string{"GATEWAY_AUTH_MODE": "jwt", "GATEWAY_JWT_SECRET": strings.Repeat("k", 32)}
	h := sandboxGatewayEdit(t, config.HTTP1Fast, env, func(cfg *config.Config) {
		if !on {
			return
		}
		cfg.Server.CORS = config.CORS{AllowedOrigins: []string{"https://app.example.com", "https://*.apps.example.com"},
			ExposedHeaders: []string{"Server-Timing", "Retry-After"}, AllowCredentials: true, MaxAge: 10 * time.Minute}
		for i := range cfg.Routes {
			switch cfg.Routes[i].Path {
			case "/{version}/messages":
				cfg.Routes[i].CORS = &config.CORS{AllowedOrigins: []string{"https://feed.example.com"}}
			case "/{version}/files":
				cfg.Routes[i].CORS = &config.CORS{}
			}
		}
	})
	var c config.Config
	config.Defaults(&c)
	s := listenGateway(t, c.Server, h)
	client := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(client.CloseIdleConnections)
	return "http://" + s.APIAddr(), client
}

func preflight(t *testing.T, c *http.Client, url, origin, method, headers string) *http.Response {
	t.Helper()
	req, err := http.NewRequest("OPTIONS", url, nil)
	require.NoError(t, err)
	req.Header.Set("Origin", origin)
	req.Header.Set("Access-Control-Request-Method", method)
	if headers != "" {
		req.Header.Set("Access-Control-Request-Headers", headers)
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	require.NoError(t, resp.Body.Close())
	return resp
}

// TestCORSPreflight sends browsers' preflight requests to a gateway behind
// JWT authentication: answered before authentication for an allowed
// origin, method and headers, refused (no CORS headers) otherwise, per
// route.
func TestCORSPreflight(t *testing.T) {
	t.Parallel()
	base, c := corsGateway(t, true)
	tests := []struct {
		desc, path, origin, method, headers string
		allowed                             bool
	}{
		{desc: "an allowed origin and method", path: "/v2/accounts", origin: "https://app.example.com", method: "POST",
			headers: "authorization,content-type", allowed: true},
		{desc: "a wildcard origin", path: "/v2/accounts/001000000000000AAA", origin: "https://crm.apps.example.com", method: "PUT", allowed: true},
		{desc: "a templated path", path: "/v2/tasks/7/claims", origin: "https://app.example.com", method: "DELETE", allowed: true},
		{desc: "another origin", path: "/v2/accounts", origin: "https://evil.example.net", method: "GET"},
		{desc: "a method the route does not serve", path: "/v2/accounts", origin: "https://app.example.com", method: "PATCH"},
		{desc: "a header not allowed", path: "/v2/accounts", origin: "https://app.example.com", method: "GET", headers: "x-secret"},
		{desc: "a route's own policy", path: "/v2/messages", origin: "https://feed.example.com", method: "POST", allowed: true},
		{desc: "the gateway's origin on that route", path: "/v2/messages", origin: "https://app.example.com", method: "POST"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			resp := preflight(t, c, base+tt.path, tt.origin, tt.method, tt.headers)
			assert.Equal(t, http.StatusNoContent, resp.StatusCode, "a preflight is never refused by authentication")
			if !tt.allowed {
				assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
				return
			}
			assert.Equal(t, tt.origin, resp.Header.Get("Access-Control-Allow-Origin"))
			assert.Contains(t, resp.Header.Get("Access-Control-Allow-Methods"), tt.method)
			assert.Contains(t, resp.Header.Get("Vary"), "Origin")
			if tt.path == "/v2/messages" {
				assert.Empty(t, resp.Header.Get("Access-Control-Max-Age"), "the route's policy has no max age")
				assert.Empty(t, resp.Header.Get("Access-Control-Allow-Credentials"), "nor credentials")
			} else {
				assert.Equal(t, "600", resp.Header.Get("Access-Control-Max-Age"))
				assert.Equal(t, "true", resp.Header.Get("Access-Control-Allow-Credentials"))
			}
			if tt.headers != "" {
				assert.Equal(t, tt.headers, resp.Header.Get("Access-Control-Allow-Headers"))
			}
		})
	}
	t.Run("a route with CORS off goes on to authentication", func(t *testing.T) {
		t.Parallel()
		resp := preflight(t, c, base+"/v2/files", "https://app.example.com", "POST", "")
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
	})
}

// TestCORSActualRequest: the answer of a cross-origin request carries its
// CORS headers, an error answer (401) included, so the application can
// read why it failed; a same-origin request gets none.
func TestCORSActualRequest(t *testing.T) {
	t.Parallel()
	base, c := corsGateway(t, true)
	req, err := http.NewRequest("GET", base+"/v2/accounts", nil)
	require.NoError(t, err)
	req.Header.Set("Origin", "https://app.example.com")
	resp, err := c.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, string(body))
	assert.Equal(t, "https://app.example.com", resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Equal(t, "Server-Timing, Retry-After", resp.Header.Get("Access-Control-Expose-Headers"))
	assert.Contains(t, string(body), "AUTHENTICATION_REQUIRED")

	resp, err = c.Get(base + "/v2/accounts")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
}

// TestCORSOffByDefault: without server.cors no CORS header is ever sent,
// and a preflight is an OPTIONS like any other (past authentication).
func TestCORSOffByDefault(t *testing.T) {
	t.Parallel()
	base, c := corsGateway(t, false)
	resp := preflight(t, c, base+"/v2/accounts", "https://app.example.com", "GET", "")
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
}
