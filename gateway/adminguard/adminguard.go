// Package adminguard decides who may use the operator's console API on
// the admin listener, and sets the headers every answer of the console
// carries (a strict Content-Security-Policy, no framing, no sniffing, no
// referrer).
//
// On a loopback admin listener without console.token nothing more is
// asked, except that the request be addressed to a loopback name (Host
// localhost, 127.0.0.1, [::1]): a page of another site that a browser
// resolves to 127.0.0.1 (DNS rebinding) is refused. Anywhere else, and
// on loopback once console.token is set, a caller needs the bearer token
// (compared in constant time) or, when auth.mode is jwt or apikey, a
// credential of that mode holding console.adminRole. Off loopback with
// neither configured the API is locked: every request is refused 403,
// saying how to open it. Only GET and HEAD pass: nothing the console
// serves changes state, so there is nothing for a forged request to do.
package adminguard

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"strings"

	"github.com/restgate/gateway/gateway/adminapi"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/identity"
)

// Options say who may pass.
type Options struct {
	// Loopback: the admin listener binds only loopback addresses.
	Loopback bool
	// Token is console.token; "" when unset.
	Token string
	// Role is console.adminRole.
	Role string
	// Identity returns the serving configuration's auth.mode and
	// authenticator (a reload changes them).
	Identity func() (mode string, authn identity.Authenticator)
}

// Guard is the policy of Options. Build it with New.
type Guard struct {
	opts  Options
	token [sha256.Size]byte
}

// New returns the guard of opts.
func New(opts Options) *Guard {
	g := &Guard{opts: opts}
	if opts.Token != "" {
		g.token = sha256.Sum256([]byte(opts.Token))
	}
	return g
}

// Credentialed reports whether callers must show a credential.
func (g *Guard) Credentialed() bool { return !g.opts.Loopback || g.opts.Token != "" }

// Locked reports whether nobody may pass: credentials are needed and
// none is configured (no token, and auth.mode none).
func (g *Guard) Locked() bool {
	mode, _ := g.opts.Identity()
	return g.Credentialed() && g.opts.Token == "" && !rolesIn(mode)
}

// rolesIn reports whether callers of auth mode can hold a role.
func rolesIn(mode string) bool { return mode == config.AuthJWT || mode == config.AuthAPIKey }

// Role is the role that opens the console, "" when auth.mode gives
// callers none.
func (g *Guard) Role() string {
	if mode, _ := g.opts.Identity(); rolesIn(mode) {
		return g.opts.Role
	}
	return ""
}

// Protect passes to next only the requests the policy lets through,
// answering the others with the admin API's error object: 405 for a
// method other than GET and HEAD, 401 without a valid credential, 403 for
// one without the role, a locked API or a foreign Host.
func (g *Guard) Protect(next http.Handler) http.Handler {
	return Headers(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			adminapi.WriteError(w, envelope.URLInvalid, http.StatusMethodNotAllowed, "only GET and HEAD are served here: the console changes nothing")
			return
		}
		if status, id, msg := g.check(r); status != 0 {
			if status == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="restgate admin"`)
			}
			adminapi.WriteError(w, id, status, msg)
			return
		}
		next.ServeHTTP(w, r)
	}))
}

// check is 0 when r may pass, else the status, response-code id and
// message of its refusal.
func (g *Guard) check(r *http.Request) (int, string, string) {
	if !g.Credentialed() {
		if !loopbackHost(r.Host) {
			return http.StatusForbidden, envelope.AccessDenied,
				"the console on a loopback listener answers only requests addressed to localhost, 127.0.0.1 or [::1], not " + r.Host
		}
		return 0, "", ""
	}
	mode, authn := g.opts.Identity()
	if g.opts.Token == "" && !rolesIn(mode) {
		return http.StatusForbidden, envelope.AccessDenied,
			"the admin listener is not loopback and no credential opens the console: set console.token (GATEWAY_ADMIN_TOKEN), or auth.mode jwt or apikey with console.adminRole"
	}
	if g.opts.Token != "" {
		if bearer, ok := bearerToken(r); ok {
			sum := sha256.Sum256([]byte(bearer))
			if subtle.ConstantTimeCompare(sum[:], g.token[:]) == 1 {
				return 0, "", ""
			}
		}
	}
	if !rolesIn(mode) || authn == nil {
		return http.StatusUnauthorized, envelope.AuthenticationRequired, "send the console token as Authorization: Bearer"
	}
	id, err := authn.Authenticate(r)
	if err != nil {
		return http.StatusUnauthorized, envelope.AuthenticationRequired,
			"send the console token, or a credential of auth.mode " + mode + " holding the role " + g.opts.Role
	}
	if !id.HasRole([]string{g.opts.Role}) {
		return http.StatusForbidden, envelope.AccessDenied, "the caller lacks the role " + g.opts.Role
	}
	return 0, "", ""
}

func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// loopbackHost reports whether a Host header names loopback: localhost or
// a loopback IP, with or without a port.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ContentSecurityPolicy is what the console's pages may load: their own
// scripts, styles and images and the admin API, nothing inline, nothing
// from anywhere else, no framing.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; font-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Headers sets the console's security headers on every answer of next.
func Headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=(), usb=()")
		next.ServeHTTP(w, r)
	})
}
