package sfdc

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Defaults of OrgOptions.
const (
	// DefaultSessionTTL is an org's default session timeout.
	DefaultSessionTTL = 2 * time.Hour
	// DefaultStaticToken is a session that never expires, as a token pasted
	// from a login would be for a sandbox: the shipped config's default
	// DATA_ACCESS_TOKEN.
	DefaultStaticToken = "sandbox-token"
	// DefaultVersionFloor is the oldest API version a real org still
	// serves: 21.0 to 30.0 are retired (410 GONE).
	DefaultVersionFloor = 31.0
	// NewestVersion is the newest API version the sandbox offers.
	NewestVersion = 66.0
)

// OrgOptions configure an Org; the zero value of a field is its default.
type OrgOptions struct {
	// SessionTTL is how long an issued access token lives (the org's
	// session timeout). Default 2h; tests set it short.
	SessionTTL time.Duration
	// StaticToken is a token that never expires. Default "sandbox-token".
	StaticToken string
	// VersionFloor: API versions below it answer 410 GONE. Default 31.0.
	VersionFloor float64
	// DailyAPIRequests is the org's allowance of API requests per rolling
	// 24 hours: every answer reports the usage (Sforce-Limit-Info), and
	// once it is spent every request is refused 403 REQUEST_LIMIT_EXCEEDED
	// until the window frees some. Default 15000 (a Developer Edition's);
	// the tour sets it small.
	DailyAPIRequests int
}

// Org is the state the Salesforce-style sandboxes (data API, batch upload)
// share as one org does: its OAuth token endpoint, its sessions and their
// expiry, its allowance of API requests and the API versions it serves.
// Safe for concurrent use.
type Org struct {
	opts OrgOptions
	now  func() time.Time

	mu       sync.Mutex
	sessions map[string]time.Time
	// limited is how many calls still answer REQUEST_LIMIT_EXCEEDED.
	limited int
	issued  int
	usage   usage
}

// NewOrg returns an org with opts.
func NewOrg(opts OrgOptions) *Org {
	if opts.SessionTTL <= 0 {
		opts.SessionTTL = DefaultSessionTTL
	}
	if opts.StaticToken == "" {
		opts.StaticToken = DefaultStaticToken
	}
	if opts.VersionFloor <= 0 {
		opts.VersionFloor = DefaultVersionFloor
	}
	if opts.DailyAPIRequests <= 0 {
		opts.DailyAPIRequests = DefaultDailyAPIRequests
	}
	return &Org{opts: opts, now: time.Now, sessions: map[string]time.Time{}}
}

// Expire ends every issued session at once, as an org's session timeout
// or an admin's revocation does.
func (o *Org) Expire() {
	o.mu.Lock()
	o.sessions = map[string]time.Time{}
	o.mu.Unlock()
}

// LimitNext makes the next n API calls answer 403 REQUEST_LIMIT_EXCEEDED.
func (o *Org) LimitNext(n int) {
	o.mu.Lock()
	o.limited = n
	o.mu.Unlock()
}

// Issued is how many access tokens the token endpoint issued.
func (o *Org) Issued() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.issued
}

// Authorize checks an API call as the org does and answers its refusal:
// 401 INVALID_SESSION_ID for a missing, unknown or expired bearer token,
// then 403 REQUEST_LIMIT_EXCEEDED while a limit is set (LimitNext) or the
// allowance is spent (OrgOptions.DailyAPIRequests); a call that counts is
// counted and its answer reports the usage (Sforce-Limit-Info). It reports
// whether the call may go on.
func (o *Org) Authorize(w http.ResponseWriter, r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	o.mu.Lock()
	expires, live := o.sessions[tok]
	valid := ok && (tok == o.opts.StaticToken || live && o.now().Before(expires))
	limited := valid && o.limited > 0
	if limited {
		o.limited--
	} else if valid {
		limited = !o.meter(w, r)
	}
	o.mu.Unlock()
	switch {
	case !valid:
		WriteError(w, http.StatusUnauthorized, "INVALID_SESSION_ID", "Session expired or invalid")
		return false
	case limited:
		WriteError(w, http.StatusForbidden, "REQUEST_LIMIT_EXCEEDED", "TotalRequests Limit exceeded.")
		return false
	}
	return true
}

// Versions are the API versions the org offers: from the floor to
// NewestVersion.
func (o *Org) Versions() []float64 {
	var out []float64
	for v := o.opts.VersionFloor; v <= NewestVersion; v++ {
		out = append(out, v)
	}
	return out
}

// CheckVersion answers a call to API version v ("v35.0") as the org does
// when it cannot serve it: 410 GONE below the floor, 404 NOT_FOUND for a
// version it does not know. It returns the version's number and whether
// the call may go on.
func (o *Org) CheckVersion(w http.ResponseWriter, v string) (float64, bool) {
	n, err := strconv.ParseFloat(strings.TrimPrefix(v, "v"), 64)
	if !strings.HasPrefix(v, "v") || err != nil || n > NewestVersion || n != float64(int(n)) {
		WriteError(w, http.StatusNotFound, "NOT_FOUND", "The requested resource does not exist")
		return 0, false
	}
	if n < o.opts.VersionFloor {
		WriteError(w, http.StatusGone, "GONE", fmt.Sprintf("API version %.1f is retired and no longer available", n))
		return 0, false
	}
	return n, true
}

// ServeToken is POST /services/oauth2/token for the three flows the
// gateway uses: urn:ietf:params:oauth:grant-type:jwt-bearer (an assertion
// with iss, sub, aud and an exp at most three minutes ahead; its signature
// is not checked, the sandbox knowing no certificate), client_credentials
// (client_id and client_secret) and refresh_token (client_id and
// refresh_token). The answer is Salesforce's: access_token, signature,
// scope, instance_url (this host), id, token_type, issued_at, and no
// expires_in; a refusal is 400 {"error", "error_description"}.
func (o *Org) ServeToken(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.ParseForm() != nil {
		tokenError(w, "invalid_request", "the token request must be a form POST")
		return
	}
	f := r.PostForm
	switch f.Get("grant_type") {
	case "urn:ietf:params:oauth:grant-type:jwt-bearer":
		claims := jwt.MapClaims{}
		if _, _, err := jwt.NewParser().ParseUnverified(f.Get("assertion"), claims); err != nil {
			tokenError(w, "invalid_grant", "invalid assertion")
			return
		}
		exp, _ := claims.GetExpirationTime()
		iss, _ := claims.GetIssuer()
		sub, _ := claims.GetSubject()
		aud, _ := claims.GetAudience()
		if exp == nil || iss == "" || sub == "" || len(aud) == 0 || exp.Before(o.now()) || exp.Sub(o.now()) > 3*time.Minute+30*time.Second {
			tokenError(w, "invalid_grant", "invalid assertion: iss, sub, aud and an exp within three minutes are required")
			return
		}
	case "client_credentials":
		if f.Get("client_id") == "" || f.Get("client_secret") == "" {
			tokenError(w, "invalid_client", "invalid client credentials")
			return
		}
	case "refresh_token":
		if f.Get("client_id") == "" || f.Get("refresh_token") == "" {
			tokenError(w, "invalid_grant", "expired access/refresh token")
			return
		}
	default:
		tokenError(w, "unsupported_grant_type", "grant type not supported")
		return
	}
	var buf [12]byte
	_, _ = rand.Read(buf[:])
	tok := "00Dxx0000001gPL!" + hex.EncodeToString(buf[:])
	now := o.now()
	o.mu.Lock()
	o.sessions[tok] = now.Add(o.opts.SessionTTL)
	o.issued++
	o.mu.Unlock()
	instance := "http://" + r.Host
	WriteJSON(w, http.StatusOK, map[string]string{
		"access_token": tok, "signature": "sandbox", "scope": "api", "instance_url": instance,
		"id": instance + "/id/00Dxx0000001gPLEAY/005xx000001SwiUAAS", "token_type": "Bearer",
		"issued_at": strconv.FormatInt(now.UnixMilli(), 10),
	})
}

func tokenError(w http.ResponseWriter, code, desc string) {
	WriteJSON(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": desc})
}
