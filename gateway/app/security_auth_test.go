package app

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
)

// attack is one way of calling without a valid credential.
type attack struct {
	desc   string
	header map[string]string
	query  string
}

func bearerHeader(tok string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + tok}
}

// attacks lists the credential attacks every route must refuse with 401.
func attacks(t *testing.T, p *idp) []attack {
	t.Helper()
	other, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	pubDER, err := x509.MarshalPKIXPublicKey(&p.rsa.PublicKey)
	require.NoError(t, err)
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	admin := []string{"admin"}
	now := time.Now()
	good := sign(t, jwt.SigningMethodRS256, "rsa1", p.rsa, claims("005U1", admin, nil))
	parts := strings.Split(good, ".")
	return []attack{
		{desc: "no token"},
		{desc: "bad signature", header: bearerHeader(sign(t, jwt.SigningMethodRS256, "rsa1", other, claims("005U1", admin, nil)))},
		{desc: "signature of another token", header: bearerHeader(parts[0] + "." + parts[1] + "." +
			strings.Split(sign(t, jwt.SigningMethodRS256, "rsa1", p.rsa, claims("other", admin, nil)), ".")[2])},
		{desc: "alg none", header: bearerHeader(sign(t, jwt.SigningMethodNone, "rsa1", jwt.UnsafeAllowNoneSignatureType, claims("005U1", admin, nil)))},
		{desc: "HMAC signed with the RSA public key", header: bearerHeader(sign(t, jwt.SigningMethodHS256, "rsa1", pubPEM, claims("005U1", admin, nil)))},
		{desc: "expired", header: bearerHeader(sign(t, jwt.SigningMethodRS256, "rsa1", p.rsa, claims("005U1", admin, func(c jwt.MapClaims) {
			c["iat"], c["exp"] = now.Add(-2*time.Hour).Unix(), now.Add(-time.Hour).Unix()
		})))},
		{desc: "not yet valid", header: bearerHeader(sign(t, jwt.SigningMethodES256, "ec1", p.ec, claims("005U1", admin, func(c jwt.MapClaims) {
			c["nbf"] = now.Add(time.Hour).Unix()
		})))},
		{desc: "wrong issuer", header: bearerHeader(sign(t, jwt.SigningMethodRS256, "rsa1", p.rsa, claims("005U1", admin, func(c jwt.MapClaims) {
			c["iss"] = "https://evil.example.test"
		})))},
		{desc: "wrong audience", header: bearerHeader(sign(t, jwt.SigningMethodES256, "ec1", p.ec, claims("005U1", admin, func(c jwt.MapClaims) {
			c["aud"] = "another-api"
		})))},
		{desc: "forged identity headers", header: map[string]string{"X-User-Id": "admin", "X-Forwarded-User": "admin",
			"X-Roles": "admin", "X-Remote-User": "admin"}},
		{desc: "token in the query string", query: "access_token=" + good},
		{desc: "basic credentials", header: map[string]string{"Authorization": "Basic YWRtaW46YWRtaW4="}},
		{desc: "token without a scheme", header: map[string]string{"Authorization": good}},
	}
}

// jwksEnv is the shipped config's environment for JWKS authentication.
func jwksEnv(t *testing.T, p *idp, backend string) map[string]string {
	return shippedEnv(t, backend, map[string]string{
		"GATEWAY_AUTH_MODE": "jwt", "GATEWAY_JWKS_URL": p.srv.URL,
		"GATEWAY_JWT_ISSUER": testIssuer, "GATEWAY_JWT_AUDIENCE": testAudience,
	})
}

func serve(h http.Handler, method, target string, header map[string]string, body string) *httptest.ResponseRecorder {
	return recorderVia(h).serve(method, target, header, body)
}

// serve sends a request with a JSON body (none when empty) through v.
func (v via) serve(method, target string, header map[string]string, body string) *httptest.ResponseRecorder {
	if body != "" {
		withType := map[string]string{"Content-Type": "application/json"}
		maps.Copy(withType, header)
		header = withType
	}
	return v.do(method, target, header, strings.NewReader(body))
}

func envelopeOf(t *testing.T, rec *httptest.ResponseRecorder) map[string]any {
	t.Helper()
	var env map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &env), rec.Body.String())
	return env
}

func TestAttackMatrixEveryRouteRefusesBadCredentials(t *testing.T) {
	t.Parallel()
	p := newIDP(t)
	backend := newCountingBackend(t)
	gw := buildShipped(t, jwksEnv(t, p, backend.srv.URL), nil, nil)
	before := backend.hits.Load()
	entries := gw.table.Entries()
	require.NotEmpty(t, entries)
	ways := vias(t, gw.handler)
	for _, a := range attacks(t, p) {
		t.Run(a.desc, func(t *testing.T) {
			t.Parallel()
			for _, way := range ways {
				for _, e := range entries {
					for _, v := range servedVersions(gw.table, e.Route) {
						target := pathFor(e.Route.Template, v)
						if a.query != "" {
							target += "?" + a.query
						}
						rec := way.serve(e.Method, target, a.header, `{"Name":"Acme"}`)
						what := way.name + ": " + e.Method + " " + target
						require.Equal(t, http.StatusUnauthorized, rec.Code, what)
						assert.Equal(t, "AUTHENTICATION_REQUIRED", responseID(envelopeOf(t, rec)), what)
						assert.Equal(t, `Bearer realm="gateway"`, rec.Header().Get("WWW-Authenticate"), what)
					}
				}
			}
		})
	}
	t.Cleanup(func() {
		assert.Equal(t, before, backend.hits.Load(), "no refused request reached a backend")
	})
}

func TestRolesThroughTheShippedConfig(t *testing.T) {
	t.Parallel()
	p := newIDP(t)
	backend := newCountingBackend(t)
	gw := buildShipped(t, jwksEnv(t, p, backend.srv.URL), nil, nil)
	user := bearerHeader(sign(t, jwt.SigningMethodES256, "ec1", p.ec, claims("005U2", []string{"reader", "Admin"}, nil)))
	admin := bearerHeader(sign(t, jwt.SigningMethodRS256, "rsa1", p.rsa, claims("005U1", []string{"admin"}, nil)))

	for _, way := range vias(t, gw.handler) {
		before := backend.hits.Load()
		for _, v := range []string{"v1", "v2", "v3"} {
			rec := way.serve("DELETE", "/"+v+"/accounts", user, "")
			assert.Equal(t, http.StatusForbidden, rec.Code, way.name+" "+v)
			assert.Equal(t, "ACCESS_DENIED", responseID(envelopeOf(t, rec)), v)
			assert.Empty(t, rec.Header().Get("WWW-Authenticate"), "a 403 is not a challenge")
		}
		assert.Equal(t, before, backend.hits.Load(), "a refused role never reaches the backend")

		rec := way.serve("DELETE", "/v2/accounts", admin, "")
		assert.NotContains(t, []int{401, 403}, rec.Code, rec.Body.String())
		assert.Equal(t, before+1, backend.hits.Load(), "the admin's delete reached the backend")
		assert.Equal(t, "005U1", envelopeOf(t, rec)["userId"])
	}
}

func TestValidTokenPassesTheAuthLayerOnEveryRoute(t *testing.T) {
	t.Parallel()
	p := newIDP(t)
	backend := newCountingBackend(t)
	gw := buildShipped(t, jwksEnv(t, p, backend.srv.URL), nil, nil)
	tokens := map[string]map[string]string{
		"RS256": bearerHeader(sign(t, jwt.SigningMethodRS256, "rsa1", p.rsa, claims("005U1", []string{"admin"}, nil))),
		"ES256": bearerHeader(sign(t, jwt.SigningMethodES256, "ec1", p.ec, claims("005U1", []string{"admin"}, nil))),
	}
	for _, way := range vias(t, gw.handler) {
		for alg, h := range tokens {
			for _, e := range gw.table.Entries() {
				target := pathFor(e.Route.Template, "v2")
				rec := way.serve(e.Method, target, h, `{"Name":"Acme"}`)
				what := way.name + ": " + alg + " " + e.Method + " " + target
				assert.NotContains(t, []int{0, 401, 403}, rec.Code, what+": "+rec.Body.String())
				if e.Route.Spec.Kind == "openapi" {
					continue // the document is answered raw
				}
				assert.Equal(t, "005U1", envelopeOf(t, rec)["userId"], what)
			}
		}
	}
	assert.Positive(t, backend.hits.Load(), "authenticated calls reach the backends")
}

func TestAPIKeyAttacksOnEveryRoute(t *testing.T) {
	t.Parallel()
	backend := newCountingBackend(t)
	env := shippedEnv(t, backend.srv.URL, nil)
	cfg, err := config.Load(shippedConfig, func(k string) string { return env[k] })
	require.NoError(t, err)
	const key = "k3y-0f-the-batch-service-0123456789abcdef"
	sum := sha256.Sum256([]byte(key))
	digest := hex.EncodeToString(sum[:])
	cfg.Auth.Mode = config.AuthAPIKey
	cfg.Auth.APIKeys = []config.APIKey{{SHA256: digest, UserID: "svc-batch"}}
	require.NoError(t, config.Validate(cfg))
	gw := buildFrom(t, cfg, nil, nil)

	tests := []struct {
		desc   string
		header map[string]string
	}{
		{desc: "no key"},
		{desc: "wrong key", header: map[string]string{"X-API-Key": key + "x"}},
		{desc: "the configured digest presented as the key", header: map[string]string{"X-API-Key": digest}},
		{desc: "the key as a bearer token", header: bearerHeader(key)},
		{desc: "key with a prefix", header: map[string]string{"Authorization": "ApiKey x" + key}},
		{desc: "forged identity headers", header: map[string]string{"X-User-Id": "svc-batch", "X-Roles": "admin"}},
	}
	before := backend.hits.Load()
	ways := vias(t, gw.handler)
	for _, way := range ways {
		for _, tt := range tests {
			for _, e := range gw.table.Entries() {
				target := pathFor(e.Route.Template, "v2")
				rec := way.serve(e.Method, target, tt.header, "")
				require.Equal(t, http.StatusUnauthorized, rec.Code, way.name+": "+tt.desc+": "+e.Method+" "+target)
				assert.Equal(t, "AUTHENTICATION_REQUIRED", responseID(envelopeOf(t, rec)))
				assert.Equal(t, `ApiKey realm="gateway"`, rec.Header().Get("WWW-Authenticate"))
			}
		}
	}
	assert.Equal(t, before, backend.hits.Load(), "no refused request reached a backend")

	for _, way := range ways {
		for _, h := range []map[string]string{{"X-API-Key": key}, {"Authorization": "ApiKey " + key}} {
			rec := way.serve("GET", "/v2/settings/endpoints", h, "")
			assert.Equal(t, http.StatusOK, rec.Code, way.name)
			assert.Equal(t, "svc-batch", envelopeOf(t, rec)["userId"])
		}
		rec := way.serve("DELETE", "/v2/accounts", map[string]string{"X-API-Key": key}, "")
		assert.Equal(t, http.StatusForbidden, rec.Code, "a key without the admin role")
		assert.Equal(t, "ACCESS_DENIED", responseID(envelopeOf(t, rec)))
	}
}

func TestJWKSOverPlainHTTPOnlyOnLoopback(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, url string
		ok        bool
	}{
		{desc: "https", url: "https://idp.example.test/.well-known/jwks.json", ok: true},
		{desc: "http on loopback", url: "http://127.0.0.1:8080/jwks", ok: true},
		{desc: "http on localhost", url: "http://localhost/jwks", ok: true},
		{desc: "http elsewhere", url: "http://idp.example.test/jwks"},
		{desc: "http on a private address", url: "http://10.0.0.7:8080/jwks"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			env := shippedEnv(t, "http://127.0.0.1:1", map[string]string{"GATEWAY_AUTH_MODE": "jwt", "GATEWAY_JWKS_URL": tt.url})
			cfg, err := config.Load(shippedConfig, func(k string) string { return env[k] })
			require.NoError(t, err)
			err = config.Validate(cfg)
			if tt.ok {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), "auth.jwt.jwksURL: must be https")
		})
	}
}
