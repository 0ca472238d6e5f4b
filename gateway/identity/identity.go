// Package identity authenticates callers: none (loopback only, the caller is
// "anonymous"), JWT (HS256 with a shared secret, or RS256/ES256 with keys from
// a JWKS URL) or API keys kept as SHA-256 hashes. Identity headers a client
// sends are never read: the user id and roles come only from a verified
// credential.
package identity

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/envelope"
)

// Anonymous is the caller in mode none.
const Anonymous = "anonymous"

// Authenticator identifies the caller of a request.
type Authenticator interface {
	// Authenticate returns the caller, or an AUTHENTICATION_REQUIRED
	// *envelope.Error saying why not (without echoing the credential).
	Authenticate(r *http.Request) (call.Identity, error)
	// Challenge is the WWW-Authenticate value sent with a 401.
	Challenge() string
}

// New returns the Authenticator of cfg.Mode. In jwt mode with a JWKS URL it
// fetches the key set once before returning (ctx bounds that and the
// background refresh). cfg must have been validated.
func New(ctx context.Context, cfg config.Auth) (Authenticator, error) {
	switch cfg.Mode {
	case config.AuthNone:
		return none{}, nil
	case config.AuthJWT:
		return newJWT(ctx, cfg.JWT, time.Now)
	case config.AuthAPIKey:
		return newAPIKeys(cfg.APIKeys)
	}
	return nil, fmt.Errorf("auth.mode: unknown mode %q", cfg.Mode)
}

type none struct{}

func (none) Authenticate(*http.Request) (call.Identity, error) {
	return call.Identity{UserID: Anonymous}, nil
}

func (none) Challenge() string { return "" }

func denied(reason string) error { return envelope.New(envelope.AuthenticationRequired, reason) }

// jwtAuth checks bearer tokens with an algorithm allow-list: HS256 only with
// a secret, RS256/ES256 only with a JWKS, never none, so a token cannot pick
// the algorithm that verifies it. Tokens it verified are remembered
// (verifiedTokens) until they expire or their key leaves the key set.
type jwtAuth struct {
	parser *jwt.Parser
	key    jwt.Keyfunc
	// current is the key set's key of a key id now, nil when a secret
	// verifies (it changes only with a new build of the gateway).
	current func(kid string) (any, bool)
	leeway  time.Duration
	now     func() time.Time
	tokens  *verifiedTokens
}

func newJWT(ctx context.Context, cfg config.JWT, now func() time.Time) (*jwtAuth, error) {
	opts := []jwt.ParserOption{jwt.WithLeeway(cfg.Leeway), jwt.WithExpirationRequired(), jwt.WithIssuedAt(),
		jwt.WithTimeFunc(now)}
	if cfg.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(cfg.Issuer))
	}
	if cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(cfg.Audience))
	}
	a := &jwtAuth{leeway: cfg.Leeway, now: now, tokens: newVerifiedTokens(max(cfg.VerifiedTokens, 1))}
	switch {
	case cfg.JWKSURL != "":
		// keyfunc's defaults but for the refresh interval, which bounds how
		// long a removed or replaced key keeps verifying tokens; each refresh
		// replaces the whole set (jwkset v0.6 and later), so a removed key is
		// gone, and an unknown key id fetches the set at most once per five
		// minutes; the fetched set is read first (the other, given storage is
		// empty), so a key is found without making an error
		keys, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{cfg.JWKSURL}, keyfunc.Override{RefreshInterval: cfg.JWKSRefresh, PrioritizeHTTP: true})
		if err != nil {
			return nil, fmt.Errorf("auth.jwt.jwksURL: loading keys: %w", err)
		}
		a.key = keys.Keyfunc
		a.current = func(kid string) (any, bool) {
			jwk, err := keys.Storage().KeyRead(ctx, kid)
			return jwk.Key(), err == nil
		}
		opts = append(opts, jwt.WithValidMethods([]string{"RS256", "ES256"}))
	case cfg.Secret != "":
		secret := []byte(cfg.Secret)
		a.key = func(*jwt.Token) (any, error) { return secret, nil }
		opts = append(opts, jwt.WithValidMethods([]string{"HS256"}))
	default:
		return nil, errors.New("auth.jwt: jwt mode needs GATEWAY_JWT_SECRET or GATEWAY_JWKS_URL")
	}
	a.parser = jwt.NewParser(opts...)
	return a, nil
}

type claims struct {
	jwt.RegisteredClaims
	Roles []string `json:"roles"`
}

func (a *jwtAuth) Authenticate(r *http.Request) (call.Identity, error) {
	raw, ok := bearer(r)
	if !ok {
		return call.Identity{}, denied("no bearer token")
	}
	sum := digest(raw)
	if v, ok := a.tokens.get(sum); ok {
		if !a.now().After(v.until) && a.keyHolds(v) {
			return v.id, nil
		}
		// expired, or its key left or changed: checked again below, which
		// says why it is refused, or remembers it with the new key
		a.tokens.drop(sum)
	}
	var c claims
	v := &verified{}
	_, err := a.parser.ParseWithClaims(raw, &c, func(t *jwt.Token) (any, error) {
		key, err := a.key(t)
		v.kid, _ = t.Header["kid"].(string)
		v.key = key
		return key, err
	})
	if err != nil {
		return call.Identity{}, denied(tokenProblem(err))
	}
	if c.Subject == "" {
		return call.Identity{}, denied("token has no sub claim")
	}
	v.id = call.Identity{UserID: c.Subject, Roles: c.Roles}
	// exp is required, so the parser has checked that it is there
	v.until = c.ExpiresAt.Add(a.leeway)
	if a.current == nil {
		v.key = nil
	}
	a.tokens.put(sum, v)
	return v.id, nil
}

// keyHolds reports whether the key that verified v is still the key set's
// key of v's key id (always, for a shared secret).
func (a *jwtAuth) keyHolds(v *verified) bool {
	if a.current == nil {
		return true
	}
	key, ok := a.current(v.kid)
	return ok && sameKey(v.key, key)
}

func (a *jwtAuth) Challenge() string { return `Bearer realm="gateway"` }

// tokenProblem names the failed check without quoting the token.
func tokenProblem(err error) string {
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return "token expired"
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return "token not valid yet"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return "wrong issuer"
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return "wrong audience"
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return "token lacks a required claim"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		return "bad signature or algorithm"
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "malformed token"
	}
	return "invalid token"
}

func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok = strings.TrimSpace(tok)
	return tok, tok != "" && len(tok) <= 8192
}

// apiKeys holds SHA-256 digests only; the presented key is hashed and
// compared in constant time against every configured digest.
type apiKeys struct {
	keys []apiKey
}

type apiKey struct {
	digest [sha256.Size]byte
	id     call.Identity
}

func newAPIKeys(cfg []config.APIKey) (*apiKeys, error) {
	a := &apiKeys{}
	for i, k := range cfg {
		d, err := hex.DecodeString(k.SHA256)
		if err != nil || len(d) != sha256.Size {
			return nil, fmt.Errorf("auth.apiKeys[%d].sha256: not a SHA-256 hex digest", i)
		}
		var ak apiKey
		copy(ak.digest[:], d)
		ak.id = call.Identity{UserID: k.UserID, Roles: k.Roles, Key: k.ID()}
		a.keys = append(a.keys, ak)
	}
	return a, nil
}

func (a *apiKeys) Authenticate(r *http.Request) (call.Identity, error) {
	key := r.Header.Get("X-API-Key")
	if key == "" {
		if scheme, v, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "ApiKey") {
			key = strings.TrimSpace(v)
		}
	}
	if key == "" {
		return call.Identity{}, denied("no API key")
	}
	sum := sha256.Sum256([]byte(key))
	match := -1
	for i := range a.keys {
		if subtle.ConstantTimeCompare(sum[:], a.keys[i].digest[:]) == 1 {
			match = i
		}
	}
	if match < 0 {
		return call.Identity{}, denied("unknown API key")
	}
	return a.keys[match].id, nil
}

func (a *apiKeys) Challenge() string { return `ApiKey realm="gateway"` }

// compile-time checks
var (
	_ Authenticator = none{}
	_ Authenticator = (*jwtAuth)(nil)
	_ Authenticator = (*apiKeys)(nil)
)

// Mint signs an HS256 token with cfg.Secret that this package's jwt mode
// accepts: sub, roles, iat and exp (now plus ttl), and cfg's issuer and
// audience when set. It is the development aid behind `gateway token`;
// production tokens come from an identity provider.
func Mint(cfg config.JWT, sub string, roles []string, ttl time.Duration, now time.Time) (string, error) {
	if cfg.Secret == "" {
		return "", errors.New("auth.jwt.secret is empty: set GATEWAY_JWT_SECRET (32 bytes or more) to mint HS256 tokens")
	}
	if sub == "" {
		return "", errors.New("a token needs a subject")
	}
	if ttl <= 0 {
		return "", fmt.Errorf("the lifetime must be positive, not %s", ttl)
	}
	c := claims{RegisteredClaims: jwt.RegisteredClaims{
		Subject:   sub,
		Issuer:    cfg.Issuer,
		IssuedAt:  jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(ttl)),
	}, Roles: roles}
	if cfg.Audience != "" {
		c.Audience = jwt.ClaimStrings{cfg.Audience}
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString([]byte(cfg.Secret))
}
