package identity

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/envelope"
)

// rotatingJWKS serves RSA keys by key id, changed at will.
type rotatingJWKS struct {
	mu   sync.Mutex
	keys map[string]*rsa.PrivateKey
	srv  *httptest.Server
}

func newRotatingJWKS(t testing.TB, kids ...string) *rotatingJWKS {
	t.Helper()
	s := &rotatingJWKS{keys: make(map[string]*rsa.PrivateKey)}
	for _, kid := range kids {
		s.set(t, kid)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		var set []map[string]any
		for kid, k := range s.keys {
			set = append(set, map[string]any{"kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig",
				"n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())})
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": set})
	}))
	t.Cleanup(s.srv.Close)
	return s
}

// set gives kid a new key and returns it.
func (s *rotatingJWKS) set(t testing.TB, kid string) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[kid] = k
	return k
}

func (s *rotatingJWKS) remove(kid string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.keys, kid)
}

func (s *rotatingJWKS) key(kid string) *rsa.PrivateKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[kid]
}

// clock is a settable time for the parser and the cache alike.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Now().Truncate(time.Second).UnixNano()) // whole seconds, as exp is
	return c
}

func (c *clock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *clock) advance(d time.Duration) { c.ns.Add(int64(d)) }

func jwksAuth(t testing.TB, s *rotatingJWKS, c *clock, refresh time.Duration) *jwtAuth {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	a, err := newJWT(ctx, config.JWT{JWKSURL: s.srv.URL, Leeway: 5 * time.Second, JWKSRefresh: refresh, VerifiedTokens: 100}, c.now)
	require.NoError(t, err)
	return a
}

func userToken(t testing.TB, kid string, key *rsa.PrivateKey, sub string, exp time.Time) string {
	t.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"sub": sub, "roles": []string{"reader"}, "exp": exp.Unix()})
	tok.Header["kid"] = kid
	s, err := tok.SignedString(key)
	require.NoError(t, err)
	return s
}

func refusal(t *testing.T, err error) string {
	t.Helper()
	var e *envelope.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, envelope.AuthenticationRequired, e.ID)
	require.Len(t, e.Args, 1)
	return e.Args[0]
}

func TestVerifiedTokenSkipsTheSignatureCheck(t *testing.T) {
	t.Parallel()
	s := newRotatingJWKS(t, "k1")
	c := newClock()
	a := jwksAuth(t, s, c, time.Hour)
	tok := userToken(t, "k1", s.key("k1"), "005A", c.now().Add(time.Hour))
	id, err := a.Authenticate(request(tok))
	require.NoError(t, err)
	assert.Equal(t, "005A", id.UserID)

	verify := a.key
	a.key = func(*jwt.Token) (any, error) { return nil, fmt.Errorf("the signature was checked again") }
	id, err = a.Authenticate(request(tok))
	require.NoError(t, err, "a returning token is a lookup")
	assert.Equal(t, "005A", id.UserID)
	assert.Equal(t, []string{"reader"}, id.Roles)

	other := userToken(t, "k1", s.key("k1"), "005B", c.now().Add(time.Hour))
	_, err = a.Authenticate(request(other))
	assert.Equal(t, "bad signature or algorithm", refusal(t, err), "another token is checked, never taken for a remembered one")
	a.key = verify
	id, err = a.Authenticate(request(other))
	require.NoError(t, err)
	assert.Equal(t, "005B", id.UserID)
}

func TestVerifiedTokenExpiresOnTime(t *testing.T) {
	t.Parallel()
	s := newRotatingJWKS(t, "k1")
	c := newClock()
	a := jwksAuth(t, s, c, time.Hour)
	tok := userToken(t, "k1", s.key("k1"), "005A", c.now().Add(time.Minute))
	_, err := a.Authenticate(request(tok))
	require.NoError(t, err)

	c.advance(time.Minute + 5*time.Second) // exp plus the leeway: the last accepted instant
	_, err = a.Authenticate(request(tok))
	require.NoError(t, err)
	c.advance(time.Second)
	_, err = a.Authenticate(request(tok))
	assert.Equal(t, "token expired", refusal(t, err))
	_, err = a.Authenticate(request(tok))
	assert.Equal(t, "token expired", refusal(t, err), "and stays refused")
}

func TestVerifiedTokenFollowsTheKeySet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		change  func(t *testing.T, s *rotatingJWKS)
		problem string
	}{
		{desc: "key removed", change: func(_ *testing.T, s *rotatingJWKS) { s.remove("k1") }, problem: "bad signature or algorithm"},
		{desc: "key revoked and replaced under the same id", change: func(t *testing.T, s *rotatingJWKS) { s.set(t, "k1") }, problem: "bad signature or algorithm"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			s := newRotatingJWKS(t, "k1", "k2")
			c := newClock()
			a := jwksAuth(t, s, c, 20*time.Millisecond)
			old := s.key("k1")
			tok := userToken(t, "k1", old, "005A", c.now().Add(time.Hour))
			kept := userToken(t, "k2", s.key("k2"), "005K", c.now().Add(time.Hour))
			for _, tk := range []string{tok, kept} {
				_, err := a.Authenticate(request(tk))
				require.NoError(t, err)
			}

			tt.change(t, s)
			// the gateway learns of the change when the key set is refreshed
			require.Eventually(t, func() bool {
				key, ok := a.current("k1")
				return !ok || key.(*rsa.PublicKey).N.Cmp(old.N) != 0
			}, 5*time.Second, 5*time.Millisecond)
			_, err := a.Authenticate(request(tok))
			assert.Equal(t, tt.problem, refusal(t, err), "refused on the first request after the refresh")

			id, err := a.Authenticate(request(kept))
			require.NoError(t, err, "tokens of the other keys keep working")
			assert.Equal(t, "005K", id.UserID)
			if k := s.key("k1"); k != nil {
				id, err := a.Authenticate(request(userToken(t, "k1", k, "005N", c.now().Add(time.Hour))))
				require.NoError(t, err, "tokens of the new key are accepted")
				assert.Equal(t, "005N", id.UserID)
			}
		})
	}
}

func TestVerifiedTokensAreBounded(t *testing.T) {
	t.Parallel()
	secret := "0123456789abcdef0123456789abcdef"
	a, err := newJWT(context.Background(), config.JWT{Secret: secret, VerifiedTokens: 50}, time.Now)
	require.NoError(t, err)
	for i := range 2000 {
		tok, err := Mint(config.JWT{Secret: secret}, fmt.Sprintf("u%d", i), nil, time.Hour, time.Now())
		require.NoError(t, err)
		id, err := a.Authenticate(request(tok))
		require.NoError(t, err)
		require.Equal(t, fmt.Sprintf("u%d", i), id.UserID)
	}
	a.tokens.cache.CleanUp()
	assert.LessOrEqual(t, a.tokens.cache.EstimatedSize(), 50)
}

// BenchmarkAuthenticate compares a token's first check (the signature
// verified) with its return (a lookup), for each accepted algorithm.
func BenchmarkAuthenticate(b *testing.B) {
	s := newRotatingJWKS(b, "k1")
	c := newClock()
	rs := jwksAuth(b, s, c, time.Hour)
	rsTok := userToken(b, "k1", s.key("k1"), "005A", c.now().Add(time.Hour))
	secret := "0123456789abcdef0123456789abcdef"
	hs, err := newJWT(context.Background(), config.JWT{Secret: secret, VerifiedTokens: 100}, c.now)
	require.NoError(b, err)
	hsTok, err := Mint(config.JWT{Secret: secret}, "005A", []string{"reader"}, time.Hour, c.now())
	require.NoError(b, err)
	for _, bc := range []struct {
		name string
		a    *jwtAuth
		tok  string
	}{{"RS256", rs, rsTok}, {"HS256", hs, hsTok}} {
		r := request(bc.tok)
		b.Run(bc.name+"/returning", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bc.a.Authenticate(r); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(bc.name+"/first", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bc.a.tokens.drop(digest(bc.tok))
				if _, err := bc.a.Authenticate(r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
