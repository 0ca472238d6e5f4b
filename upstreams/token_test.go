package upstreams

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gojwt "github.com/golang-jwt/jwt/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeOrg is a Salesforce org as its OAuth and REST documentation shows
// it: POST /services/oauth2/token answers {access_token, instance_url, id,
// token_type, issued_at, signature} (no expires_in) or 400 {"error",
// "error_description"}; every other path wants a live bearer token and
// otherwise answers 401 [{"message":"Session expired or invalid",
// "errorCode":"INVALID_SESSION_ID"}].
type fakeOrg struct {
	srv       *httptest.Server
	key       *rsa.PrivateKey
	instance  string
	tokenHits atomic.Int64
	apiHits   atomic.Int64
	// gate, when set, holds token answers until closed.
	gate chan struct{}

	mu     sync.Mutex
	live   map[string]bool
	n      int
	failed bool
	bodies []string
}

func newFakeOrg(t *testing.T) *fakeOrg {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	o := &fakeOrg{key: key, live: map[string]bool{}}
	o.srv = httptest.NewServer(http.HandlerFunc(o.serve))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *fakeOrg) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/services/oauth2/token" {
		o.token(w, r)
		return
	}
	o.apiHits.Add(1)
	tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	o.mu.Lock()
	ok := o.live[tok]
	o.mu.Unlock()
	if !ok {
		salesforceError(401, CodeInvalidSession, "Session expired or invalid")(w, r)
		return
	}
	b, _ := io.ReadAll(r.Body)
	o.mu.Lock()
	o.bodies = append(o.bodies, string(b))
	o.mu.Unlock()
	_, _ = io.WriteString(w, `{"done":true,"host":"`+r.Host+`"}`)
}

func (o *fakeOrg) token(w http.ResponseWriter, r *http.Request) {
	o.tokenHits.Add(1)
	if o.gate != nil {
		<-o.gate
	}
	_ = r.ParseForm()
	fail := func(code, desc string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, `{"error":%q,"error_description":%q}`, code, desc)
	}
	o.mu.Lock()
	failed := o.failed
	o.mu.Unlock()
	if failed {
		fail("invalid_grant", "authentication failure")
		return
	}
	switch r.PostForm.Get("grant_type") {
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		claims := gojwt.MapClaims{}
		_, err := gojwt.ParseWithClaims(r.PostForm.Get("assertion"), claims, func(*gojwt.Token) (any, error) { return &o.key.PublicKey, nil },
			gojwt.WithValidMethods([]string{"RS256"}), gojwt.WithAudience(o.srv.URL), gojwt.WithIssuer("consumer-key"),
			gojwt.WithExpirationRequired())
		exp, _ := claims.GetExpirationTime()
		if err != nil || claims["sub"] != "integration@example.com" || exp == nil || time.Until(exp.Time) > 3*time.Minute {
			fail("invalid_grant", fmt.Sprintf("invalid assertion: %v", err))
			return
		}
	case "client_credentials":
		if r.PostForm.Get("client_id") != "consumer-key" || r.PostForm.Get("client_secret") != "consumer-secret" {
			fail("invalid_client", "invalid client credentials")
			return
		}
	case "refresh_token":
		if r.PostForm.Get("client_id") != "consumer-key" || r.PostForm.Get("refresh_token") != "5Aep-refresh" {
			fail("invalid_grant", "expired access/refresh token")
			return
		}
	default:
		fail("unsupported_grant_type", "grant type not supported")
		return
	}
	o.mu.Lock()
	o.n++
	tok := fmt.Sprintf("00Dxx0000001gPL!AR8AQ%d", o.n)
	o.live[tok] = true
	o.mu.Unlock()
	instance := o.instance
	if instance == "" {
		instance = o.srv.URL
	}
	w.Header().Set("Content-Type", "application/json;charset=UTF-8")
	_, _ = fmt.Fprintf(w, `{"access_token":%q,"signature":"d/SxeYBxH0GSVko0HMgcUxuZy0PA2cDDz1u7g7JtDHw=","scope":"api","instance_url":%q,"id":"%s/id/00Dxx0000001gPLEAY/005xx000001SwiUAAS","token_type":"Bearer","issued_at":"1700000000000"}`,
		tok, instance, o.srv.URL)
}

// expire ends every session, as the org's session timeout does.
func (o *fakeOrg) expire() {
	o.mu.Lock()
	o.live = map[string]bool{}
	o.mu.Unlock()
}

func (o *fakeOrg) keyFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "key.pem")
	der := x509.MarshalPKCS1PrivateKey(o.key)
	require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: der}), 0o600))
	return path
}

func (o *fakeOrg) oauth(t *testing.T, flow string) OAuthSettings {
	s := OAuthSettings{Flow: flow, TokenURL: o.srv.URL + "/services/oauth2/token", ClientID: "consumer-key"}
	switch flow {
	case FlowJWTBearer:
		s.Username, s.PrivateKeyFile = "integration@example.com", o.keyFile(t)
	case FlowClientCredentials:
		s.ClientSecret = "consumer-secret"
	case FlowRefreshToken:
		s.RefreshToken = "5Aep-refresh"
	}
	return s
}

func newTokenClient(t *testing.T, url string, o OAuthSettings) (*Client, *recorder) {
	t.Helper()
	return newTokenClientWith(t, testSettings(url), o)
}

// newTokenClientWith is newTokenClient with settings s.
func newTokenClientWith(t *testing.T, s Settings, o OAuthSettings) (*Client, *recorder) {
	t.Helper()
	s.Auth.OAuth = o
	tokens, err := NewTokens("test", o, s)
	require.NoError(t, err)
	rec := &recorder{}
	c, err := NewClient("test", s, rec, WithTokens(tokens))
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return c, rec
}

func TestTokenFlowsRenewAnEndedSession(t *testing.T) {
	t.Parallel()
	for _, flow := range []string{FlowJWTBearer, FlowClientCredentials, FlowRefreshToken} {
		t.Run(flow, func(t *testing.T) {
			t.Parallel()
			org := newFakeOrg(t)
			c, rec := newTokenClient(t, org.srv.URL, org.oauth(t, flow))
			status, _, err := fetch(context.Background(), c, http.MethodGet, org.srv.URL+"/services/data/v62.0/query", "")
			require.NoError(t, err)
			assert.Equal(t, 200, status)
			assert.EqualValues(t, 1, org.tokenHits.Load())

			org.expire()
			// A POST is sent again too: the backend refused it before running it.
			status, _, err = fetch(context.Background(), c, http.MethodPost, org.srv.URL+"/services/data/v62.0/sobjects/Account", `{"Name":"Acme"}`)
			require.NoError(t, err)
			assert.Equal(t, 200, status)
			assert.EqualValues(t, 2, org.tokenHits.Load(), "one renewal")
			assert.EqualValues(t, 3, org.apiHits.Load(), "the refused attempt and the one sent again")
			org.mu.Lock()
			assert.Equal(t, `{"Name":"Acme"}`, org.bodies[len(org.bodies)-1], "the body is sent whole again")
			org.mu.Unlock()
			assert.Equal(t, "closed", c.BreakerState())
			outcomes, _ := rec.seen()
			assert.Equal(t, []string{"success", "success"}, outcomes)
		})
	}
}

func TestOneRenewalForConcurrentCallers(t *testing.T) {
	t.Parallel()
	org := newFakeOrg(t)
	org.gate = make(chan struct{})
	c, _ := newTokenClient(t, org.srv.URL, org.oauth(t, FlowClientCredentials))
	const callers = 20
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := fetch(context.Background(), c, http.MethodGet, org.srv.URL+"/x", "")
			errs <- err
		}()
	}
	require.Eventually(t, func() bool { return org.tokenHits.Load() == 1 }, 10*time.Second, time.Millisecond)
	close(org.gate)
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
	assert.EqualValues(t, 1, org.tokenHits.Load(), "every caller waited for the one token request")
}

func TestTokenFailureIsTheGatewaysNotTheClients(t *testing.T) {
	t.Parallel()
	org := newFakeOrg(t)
	c, rec := newTokenClient(t, org.srv.URL, org.oauth(t, FlowRefreshToken))
	org.mu.Lock()
	org.failed = true
	org.mu.Unlock()
	_, _, err := fetch(context.Background(), c, http.MethodGet, org.srv.URL+"/x", "")
	ue := AsError(err)
	require.NotNil(t, ue)
	assert.Equal(t, KindCredentials, ue.Kind)
	assert.Equal(t, http.StatusBadGateway, StatusFor(err), "never a 401 to the client")
	assert.Contains(t, ue.Message, "invalid_grant", "the reason reaches the log")
	assert.EqualValues(t, 0, org.apiHits.Load())
	outcomes, _ := rec.seen()
	assert.Equal(t, []string{"credentials"}, outcomes)
}

func TestRenewedTokenRefusedAgainIsCounted(t *testing.T) {
	t.Parallel()
	org := newFakeOrg(t)
	// The org issues tokens but its API refuses them all (a user without API access).
	api := httptest.NewServer(salesforceError(401, CodeInvalidSession, "Session expired or invalid"))
	t.Cleanup(api.Close)
	org.instance = api.URL
	c, _ := newTokenClient(t, org.srv.URL, org.oauth(t, FlowClientCredentials))
	_, _, err := fetch(context.Background(), c, http.MethodGet, org.srv.URL+"/x", "")
	assert.Equal(t, KindCredentials, kindOf(err))
	assert.EqualValues(t, 2, org.tokenHits.Load(), "renewed once, not in a loop")
}

func TestInstanceURLReplacesTheConfiguredHost(t *testing.T) {
	t.Parallel()
	org := newFakeOrg(t)
	instance := newFake(t, func(w http.ResponseWriter, r *http.Request) { org.serve(w, r) })
	org.instance = instance.srv.URL
	// The configured url is the login host; calls go to the instance.
	c, _ := newTokenClient(t, org.srv.URL, org.oauth(t, FlowJWTBearer))
	_, body, err := fetch(context.Background(), c, http.MethodGet, org.srv.URL+"/services/data/v62.0/", "")
	require.NoError(t, err)
	assert.Contains(t, body, strings.TrimPrefix(instance.srv.URL, "http://"))
	assert.EqualValues(t, 1, instance.hits.Load())
}

func TestUnreplayableBodyIsNotLost(t *testing.T) {
	t.Parallel()
	org := newFakeOrg(t)
	c, _ := newTokenClient(t, org.srv.URL, org.oauth(t, FlowClientCredentials))
	_, _, err := fetch(context.Background(), c, http.MethodGet, org.srv.URL+"/x", "")
	require.NoError(t, err)
	org.expire()
	req, err := http.NewRequest(http.MethodPost, org.srv.URL+"/x", io.NopCloser(strings.NewReader("once")))
	require.NoError(t, err)
	_, err = c.Do(req)
	ue := AsError(err)
	require.NotNil(t, ue)
	assert.Equal(t, KindCredentials, ue.Kind)
	assert.Contains(t, ue.Message, "cannot be sent again")
}

func TestNewTokensChecksItsSettings(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.pem")
	require.NoError(t, os.WriteFile(bad, []byte("not a key"), 0o600))
	for _, tt := range []struct {
		desc string
		o    OAuthSettings
		want string
	}{
		{"unknown flow", OAuthSettings{Flow: "password"}, "upstreams.d.auth.oauth.flow"},
		{"jwt without key", OAuthSettings{Flow: FlowJWTBearer, TokenURL: "https://login.example.com/t", ClientID: "c", Username: "u"},
			"upstreams.d.auth.oauth.privateKeyFile: required"},
		{"unreadable key", OAuthSettings{Flow: FlowJWTBearer, TokenURL: "https://login.example.com/t", ClientID: "c", Username: "u",
			PrivateKeyFile: bad}, "privateKeyFile: holds no RSA private key"},
		{"client credentials without secret", OAuthSettings{Flow: FlowClientCredentials, TokenURL: "https://login.example.com/t", ClientID: "c"},
			"clientSecret: required"},
		{"refresh without url", OAuthSettings{Flow: FlowRefreshToken, ClientID: "c", RefreshToken: "r"}, "tokenURL: must be"},
	} {
		_, err := NewTokens("d", tt.o, Settings{})
		require.Error(t, err, tt.desc)
		assert.Contains(t, err.Error(), tt.want, tt.desc)
	}
}
