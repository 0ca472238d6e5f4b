package identity

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/envelope"
)

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

type jwks struct {
	rsa *rsa.PrivateKey
	ec  *ecdsa.PrivateKey
	srv *httptest.Server
}

func newJWKS(t *testing.T) *jwks {
	t.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	ecdhKey, err := ek.PublicKey.ECDH()
	require.NoError(t, err)
	raw := ecdhKey.Bytes() // 0x04 || X || Y
	set := map[string]any{"keys": []map[string]any{
		{"kty": "RSA", "kid": "rsa1", "alg": "RS256", "use": "sig", "n": b64(rk.N.Bytes()), "e": b64(big.NewInt(int64(rk.E)).Bytes())},
		{"kty": "EC", "kid": "ec1", "alg": "ES256", "use": "sig", "crv": "P-256", "x": b64(raw[1:33]), "y": b64(raw[33:])},
	}}
	body, err := json.Marshal(set)
	require.NoError(t, err)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return &jwks{rsa: rk, ec: ek, srv: srv}
}

func token(t *testing.T, m jwt.SigningMethod, kid string, key any, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(m, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	require.NoError(t, err)
	return s
}

func request(tok string) *http.Request {
	r := httptest.NewRequest("GET", "/v1/x", nil)
	if tok != "" {
		r.Header.Set("Authorization", "Bearer "+tok)
	}
	return r
}

func TestJWKS(t *testing.T) {
	t.Parallel()
	k := newJWKS(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	a, err := New(ctx, config.Auth{Mode: config.AuthJWT, JWT: config.JWT{JWKSURL: k.srv.URL, Issuer: "https://idp", Audience: "gateway", Leeway: 5 * time.Second}})
	require.NoError(t, err)
	now := time.Now()
	claims := func(mut func(jwt.MapClaims)) jwt.MapClaims {
		c := jwt.MapClaims{"sub": "005U", "roles": []string{"admin"}, "iss": "https://idp", "aud": "gateway", "exp": now.Add(time.Hour).Unix()}
		if mut != nil {
			mut(c)
		}
		return c
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&k.rsa.PublicKey)
	require.NoError(t, err)
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	tests := []struct {
		desc, tok, problem string
	}{
		{desc: "RS256", tok: token(t, jwt.SigningMethodRS256, "rsa1", k.rsa, claims(nil))},
		{desc: "ES256", tok: token(t, jwt.SigningMethodES256, "ec1", k.ec, claims(nil))},
		{desc: "no token", problem: "no bearer token"},
		{desc: "HMAC signed with the public key (algorithm confusion)", tok: token(t, jwt.SigningMethodHS256, "rsa1", pubPEM, claims(nil)), problem: "bad signature or algorithm"},
		{desc: "alg none", tok: token(t, jwt.SigningMethodNone, "rsa1", jwt.UnsafeAllowNoneSignatureType, claims(nil)), problem: "bad signature or algorithm"},
		{desc: "wrong issuer", tok: token(t, jwt.SigningMethodRS256, "rsa1", k.rsa, claims(func(c jwt.MapClaims) { c["iss"] = "https://evil" })), problem: "wrong issuer"},
		{desc: "wrong audience", tok: token(t, jwt.SigningMethodRS256, "rsa1", k.rsa, claims(func(c jwt.MapClaims) { c["aud"] = "other" })), problem: "wrong audience"},
		{desc: "expired beyond leeway", tok: token(t, jwt.SigningMethodRS256, "rsa1", k.rsa, claims(func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Minute).Unix() })), problem: "token expired"},
		{desc: "expired within leeway", tok: token(t, jwt.SigningMethodRS256, "rsa1", k.rsa, claims(func(c jwt.MapClaims) { c["exp"] = now.Add(-2 * time.Second).Unix() }))},
		{desc: "not yet valid", tok: token(t, jwt.SigningMethodRS256, "rsa1", k.rsa, claims(func(c jwt.MapClaims) { c["nbf"] = now.Add(time.Hour).Unix() })), problem: "token not valid yet"},
		{desc: "unknown key id", tok: token(t, jwt.SigningMethodRS256, "nope", k.rsa, claims(nil)), problem: "bad signature or algorithm"},
		{desc: "no subject", tok: token(t, jwt.SigningMethodRS256, "rsa1", k.rsa, claims(func(c jwt.MapClaims) { delete(c, "sub") })), problem: "token has no sub claim"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			id, err := a.Authenticate(request(tt.tok))
			if tt.problem == "" {
				require.NoError(t, err)
				assert.Equal(t, "005U", id.UserID)
				assert.Equal(t, []string{"admin"}, id.Roles)
				return
			}
			var e *envelope.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, envelope.AuthenticationRequired, e.ID)
			assert.Equal(t, []string{tt.problem}, e.Args)
			if tt.tok != "" {
				assert.NotContains(t, e.Error(), tt.tok, "the token is never echoed")
			}
		})
	}
}

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	sum := sha256.Sum256([]byte("s3cret-key"))
	a, err := New(context.Background(), config.Auth{Mode: config.AuthAPIKey, APIKeys: []config.APIKey{
		{SHA256: hex.EncodeToString(sum[:]), UserID: "svc-reporting", Roles: []string{"reader"}},
	}})
	require.NoError(t, err)
	tests := []struct {
		desc   string
		header map[string]string
		user   string
	}{
		{desc: "X-API-Key", header: map[string]string{"X-API-Key": "s3cret-key"}, user: "svc-reporting"},
		{desc: "Authorization ApiKey", header: map[string]string{"Authorization": "ApiKey s3cret-key"}, user: "svc-reporting"},
		{desc: "wrong key", header: map[string]string{"X-API-Key": "s3cret-kez"}},
		{desc: "the hash itself is not a key", header: map[string]string{"X-API-Key": hex.EncodeToString(sum[:])}},
		{desc: "none", header: map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest("GET", "/", nil)
			for k, v := range tt.header {
				r.Header.Set(k, v)
			}
			id, err := a.Authenticate(r)
			if tt.user == "" {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.user, id.UserID)
			assert.Equal(t, []string{"reader"}, id.Roles)
		})
	}
}

func FuzzAuthorizationHeader(f *testing.F) {
	secret := "0123456789abcdef0123456789abcdef"
	a, err := New(context.Background(), config.Auth{Mode: config.AuthJWT, JWT: config.JWT{Secret: secret, Leeway: time.Second}})
	require.NoError(f, err)
	for _, s := range []string{"", "Bearer ", "Bearer a.b.c", "bearer eyJhbGciOiJub25lIn0.e30.", "Basic dTpw", "Bearer " + string(make([]byte, 9000))} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header["Authorization"] = []string{h}
		id, err := a.Authenticate(r)
		if err == nil && id.UserID == "" {
			t.Fatalf("accepted %q without a user", h)
		}
		if err == nil {
			t.Fatalf("a fuzzed header was accepted: %q", h)
		}
	})
}
