package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/restgate/gateway/gateway/app/apptest"
)

// tokenTTL is how long the harness's tokens are valid: longer than any run
// (maxRun).
const tokenTTL = 2 * maxRun

// targetGatewayRS256 is the gateway verifying RS256 tokens from a key set
// the harness serves (-rs256), beside the gateway verifying HS256 ones.
const targetGatewayRS256 = "gateway-rs256"

// bearer hands out the Authorization values of a set of tokens in turn:
// every target's client presents them, so each target reads the same
// requests, and the gateways see apptest.Users callers each coming back
// thousands of times in a run.
type bearer struct {
	values [][]string
	next   atomic.Uint64
}

func newBearer(tokens []string) *bearer {
	b := &bearer{values: make([][]string, len(tokens))}
	for i, t := range tokens {
		b.values[i] = []string{"Bearer " + t}
	}
	return b
}

// take is the next token's Authorization value.
func (b *bearer) take() []string {
	return b.values[(b.next.Add(1)-1)%uint64(len(b.values))]
}

// hsBearer is the tokens the gateways' AccountsConfig verifies with
// apptest.JWTSecret (HS256), one per user.
func hsBearer() (*bearer, error) {
	tokens, err := apptest.Tokens(apptest.Users, tokenTTL, time.Now())
	if err != nil {
		return nil, err
	}
	return newBearer(tokens), nil
}

// jwksKeyID names the key of the harness's key set.
const jwksKeyID = "loadtest-rs256"

// keySet is an identity provider's JWKS endpoint on loopback: one RSA key
// (2048 bits, as identity providers issue), served as a key set, and the
// RS256 tokens it signs for the same users as hsBearer's.
type keySet struct {
	key *rsa.PrivateKey
	url string
	srv *http.Server
}

// startKeySet serves a new key's set on host.
func startKeySet(host string) (*keySet, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "RSA", "kid": jwksKeyID, "alg": "RS256", "use": "sig",
		"n": base64.RawURLEncoding.EncodeToString(key.N.Bytes()),
		"e": base64.RawURLEncoding.EncodeToString(big.NewInt(int64(key.E)).Bytes()),
	}}})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, err
	}
	ks := &keySet{key: key, url: "http://" + ln.Addr().String() + "/jwks.json"}
	ks.srv = &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	})}
	go func() {
		if err := ks.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "loadtest: key set:", err)
		}
	}()
	return ks, nil
}

func (ks *keySet) stop() { _ = ks.srv.Close() }

// tokens signs n RS256 tokens with the key set's key, one per user, with
// the claims of apptest.Tokens.
func (ks *keySet) tokens(n int) ([]string, error) {
	now := time.Now()
	tokens := make([]string, n)
	for i := range tokens {
		tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"sub": apptest.UserID(i), "roles": []string{"reader"},
			"iat": now.Unix(), "exp": now.Add(tokenTTL).Unix()})
		tok.Header["kid"] = jwksKeyID
		s, err := tok.SignedString(ks.key)
		if err != nil {
			return nil, err
		}
		tokens[i] = s
	}
	return tokens, nil
}

// rs256Env makes a gateway verify RS256 tokens of the key set at url
// instead of HS256 ones.
func rs256Env(url string) []string {
	return []string{"GATEWAY_JWT_SECRET=", "GATEWAY_JWKS_URL=" + url}
}

// startRS256Gateway starts the gateway of AccountsConfig verifying RS256
// tokens from ks (a gateway like target gateway's but for the key set);
// its endpoint presents ks's tokens of apptest.Users users.
func startRS256Gateway(ctx context.Context, ks *keySet, bin, dir, host, backend, collector string, env []string) (endpoint, error) {
	tokens, err := ks.tokens(apptest.Users)
	if err != nil {
		return endpoint{}, err
	}
	auth := newBearer(tokens)
	g, err := startGatewayOn(ctx, apptest.AccountsConfig, auth, bin, dir, host, "fast", false, backend, collector,
		append(append([]string(nil), env...), rs256Env(ks.url)...))
	if err != nil {
		return endpoint{}, err
	}
	return endpoint{name: targetGatewayRS256, base: g.url, path: gatewayPath, proc: g, auth: auth}, nil
}
