package upstreams

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
	"golang.org/x/oauth2/jwt"
)

// OAuth flows of OAuthSettings.Flow.
const (
	FlowJWTBearer         = "jwt-bearer"
	FlowClientCredentials = "client-credentials"
	FlowRefreshToken      = "refresh-token"
)

// jwtAssertionLifetime is the exp of a JWT bearer assertion: Salesforce
// accepts an assertion up to three minutes after its exp, and wants exp
// close to now.
const jwtAssertionLifetime = 3 * time.Minute

// expiryMargin renews a token that states its expiry this long before it,
// so a call does not start with a token about to lapse.
const expiryMargin = 10 * time.Second

// errStaleToken is what the breaker is told of an attempt the backend
// refused with 401 before the token was renewed: the normal end of a
// session, not a failure of the backend (isExcluded).
var errStaleToken = errors.New("access token refused: renewing it")

// Tokens is the access token of one OAuth client, obtained and renewed
// through golang.org/x/oauth2 (jwt, clientcredentials, or a refresh token)
// and shared by every upstream configured with the same OAuth settings, so
// the data API and the batch upload of one org use one session.
//
// However many calls need a token at once, one request goes to the token
// endpoint and all of them wait for its answer. A token is kept until the
// backend refuses it (401) or, when the token answer stated one, until its
// expiry. Safe for concurrent use.
type Tokens struct {
	name    string
	fetch   func(ctx context.Context) (*oauth2.Token, error)
	timeout time.Duration
	now     func() time.Time

	// flow is OAuthSettings.Flow, for State.
	flow string

	mu     sync.Mutex
	cur    *accessToken
	flight *tokenFlight
	// refreshed is when the last token was obtained; lastErr and
	// lastErrAt why and when the last fetch failed ("" after a success).
	refreshed time.Time
	lastErr   string
	lastErrAt time.Time
	// refresh is the refresh token of FlowRefreshToken, replaced when the
	// token endpoint rotates it.
	refresh string
}

// accessToken is one token as calls send it.
type accessToken struct {
	// header is the Authorization value, shared by every request.
	header []string
	// instance is the token answer's instance_url, nil when absent: calls
	// then go to its scheme and host instead of the configured URL's.
	instance *url.URL
	expiry   time.Time
}

// tokenFlight is one request to the token endpoint; tok or err is set
// when done is closed.
type tokenFlight struct {
	done    chan struct{}
	started time.Time
	tok     *accessToken
	err     error
}

// ErrTokenTimeout is the Err of the KindTimeout *Error of a call that
// reached its deadline waiting for an OAuth access token: the token
// endpoint was slow, not the backend, which was not called. The breaker
// does not count such a call, nor does the concurrency limit measure it.
var ErrTokenTimeout = errors.New("no access token within the call's timeout (the backend was not called)")

// NewTokens builds the token source of o, the OAuth settings of upstream
// name (for messages), with the transport settings s (connect and answer
// timeouts, proxy). The private key of the JWT bearer flow is read here,
// once. Errors name the key path under "upstreams.<name>.auth.oauth".
func NewTokens(name string, o OAuthSettings, s Settings) (*Tokens, error) {
	path := "upstreams." + name + ".auth.oauth"
	if errs := o.validate(path); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	d := s.WithDefaults()
	hc := &http.Client{Transport: newStdTransport(d), Timeout: d.Timeout}
	t := &Tokens{name: name, timeout: d.Timeout, now: time.Now, refresh: o.RefreshToken, flow: o.Flow}
	withClient := func(ctx context.Context) context.Context { return context.WithValue(ctx, oauth2.HTTPClient, hc) }
	switch o.Flow {
	case FlowJWTBearer:
		key, err := os.ReadFile(o.PrivateKeyFile)
		if err != nil {
			return nil, &FieldError{Path: path + ".privateKeyFile", Problem: "cannot be read: " + err.Error()}
		}
		audience := o.Audience
		if audience == "" {
			u, _ := url.Parse(o.TokenURL)
			audience = u.Scheme + "://" + u.Host
		}
		cfg := &jwt.Config{Email: o.ClientID, Subject: o.Username, PrivateKey: key, TokenURL: o.TokenURL,
			Audience: audience, Expires: jwtAssertionLifetime}
		if !isRSAKey(key) {
			return nil, &FieldError{Path: path + ".privateKeyFile", Problem: "holds no RSA private key in PEM (PKCS #1 or #8)"}
		}
		t.fetch = func(ctx context.Context) (*oauth2.Token, error) { return cfg.TokenSource(withClient(ctx)).Token() }
	case FlowClientCredentials:
		cfg := &clientcredentials.Config{ClientID: o.ClientID, ClientSecret: o.ClientSecret, TokenURL: o.TokenURL,
			AuthStyle: oauth2.AuthStyleInParams}
		t.fetch = func(ctx context.Context) (*oauth2.Token, error) { return cfg.Token(withClient(ctx)) }
	case FlowRefreshToken:
		cfg := &oauth2.Config{ClientID: o.ClientID, ClientSecret: o.ClientSecret,
			Endpoint: oauth2.Endpoint{TokenURL: o.TokenURL, AuthStyle: oauth2.AuthStyleInParams}}
		t.fetch = func(ctx context.Context) (*oauth2.Token, error) {
			t.mu.Lock()
			rt := t.refresh
			t.mu.Unlock()
			tok, err := cfg.TokenSource(withClient(ctx), &oauth2.Token{RefreshToken: rt}).Token()
			if err == nil && tok.RefreshToken != "" && tok.RefreshToken != rt {
				t.mu.Lock()
				t.refresh = tok.RefreshToken
				t.mu.Unlock()
			}
			return tok, err
		}
	}
	return t, nil
}

// isRSAKey reports whether key is what x/oauth2/jwt signs with: an RSA
// private key in PEM, PKCS #1 or #8. Checked at start so that a wrong file
// is a configuration error, not a failure of every call.
func isRSAKey(key []byte) bool {
	block, _ := pem.Decode(key)
	if block == nil {
		return false
	}
	if _, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return true
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	_, ok := k.(*rsa.PrivateKey)
	return err == nil && ok
}

// token returns the current token, fetching one when there is none (or it
// expired). Callers that arrive while a fetch is under way wait for it,
// until ctx ends or deadline (the call's own) passes; the fetch goes on for
// the others, bounded by the upstream's timeout. A failed fetch is a
// KindCredentials *Error naming the reason; a wait that reached deadline,
// or ctx's, a KindTimeout *Error wrapping ErrTokenTimeout that says how
// long the token endpoint has been asked.
func (t *Tokens) token(ctx context.Context, deadline time.Time) (*accessToken, *Error) {
	t.mu.Lock()
	if c := t.cur; c != nil && (c.expiry.IsZero() || t.now().Before(c.expiry.Add(-expiryMargin))) {
		t.mu.Unlock()
		return c, nil
	}
	f := t.flight
	if f == nil {
		f = &tokenFlight{done: make(chan struct{}), started: time.Now()}
		t.flight = f
		go t.run(context.WithoutCancel(ctx), f)
	}
	t.mu.Unlock()
	// The call's deadline is not always ctx's: a transport that enforces
	// it itself leaves ctx without one.
	var expired <-chan time.Time
	if !deadline.IsZero() {
		timer := time.NewTimer(time.Until(deadline))
		defer timer.Stop()
		expired = timer.C
	}
	select {
	case <-f.done:
		if f.err != nil {
			return nil, &Error{Upstream: t.name, Kind: KindCredentials,
				Message: "no access token: " + TrimMessage(f.err.Error()), Err: f.err}
		}
		return f.tok, nil
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, &Error{Upstream: t.name, Kind: KindCanceled, Err: ctx.Err()}
		}
	case <-expired:
	}
	return nil, &Error{Upstream: t.name, Kind: KindTimeout, Err: ErrTokenTimeout,
		Message: fmt.Sprintf("the token endpoint has not answered after %v", time.Since(f.started).Round(time.Millisecond))}
}

// run makes one request to the token endpoint for flight f.
func (t *Tokens) run(ctx context.Context, f *tokenFlight) {
	ctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	tok, err := t.fetch(ctx)
	var at *accessToken
	if err == nil {
		at, err = newAccessToken(tok)
	}
	t.mu.Lock()
	if err == nil {
		t.cur, t.refreshed, t.lastErr = at, t.now(), ""
	} else {
		t.lastErr, t.lastErrAt = TrimMessage(err.Error()), t.now()
	}
	t.flight = nil
	t.mu.Unlock()
	f.tok, f.err = at, err
	close(f.done)
}

// newAccessToken checks a token answer and prepares what calls send.
func newAccessToken(tok *oauth2.Token) (*accessToken, error) {
	if tok.AccessToken == "" {
		return nil, errors.New("the token endpoint answered no access_token")
	}
	at := &accessToken{header: []string{"Bearer " + tok.AccessToken}, expiry: tok.Expiry}
	if s, _ := tok.Extra("instance_url").(string); s != "" {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
			return nil, fmt.Errorf("the token endpoint answered an instance_url that is not an http(s) origin: %q", TrimMessage(s))
		}
		at.instance = &url.URL{Scheme: u.Scheme, Host: u.Host}
	}
	return at, nil
}

// invalidate drops old, a token the backend refused, so the next call
// fetches another; a token already replaced by another caller's fetch is
// kept.
func (t *Tokens) invalidate(old *accessToken) {
	t.mu.Lock()
	if t.cur == old {
		t.cur = nil
	}
	t.mu.Unlock()
}

// apply sets tok on the attempt's request: the Authorization header and,
// when the token named an instance, that scheme and host (on a copy of the
// URL: the caller's request is not changed).
func (tok *accessToken) apply(out *http.Request) {
	out.Header["Authorization"] = tok.header
	if tok.instance != nil && (out.URL.Scheme != tok.instance.Scheme || out.URL.Host != tok.instance.Host) {
		u := *out.URL
		u.Scheme, u.Host = tok.instance.Scheme, tok.instance.Host
		out.URL, out.Host = &u, ""
	}
}
