package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Hostile values the browser test sends through the gateway: each must
// show on the console as the text it is, run nothing and add no element.
const (
	hostileUser   = `"><img src=x onerror=alert(1)>`
	hostileScript = `<script>alert('user')</script>`
	hostileUni    = "Zoë 🚀 \u202eevil"
	hostileName   = `<img src=x onerror=alert(2)>`
	hostileText   = `</pre><script>alert(3)</script>`
	// hostileAnswer is a backend's error text: the gateway drops its markup
	// before it reaches a message (envelope.ClientReason).
	hostileAnswer = `<svg onload=alert(5)>`
)

// consoleConfig has a fast, a slow and a broken backend, and callers by
// API key whose user ids are hostile.
func consoleConfig(api, admin, dir, fast, slow, broken, consoleKeys, extra string) string {
	key := func(k, user string) string {
		sum := sha256.Sum256([]byte(k))
		u, _ := json.Marshal(user)
		return fmt.Sprintf("    - {sha256: %s, userId: %s}\n", hex.EncodeToString(sum[:]), u)
	}
	return fmt.Sprintf(`server:
  listen: %s
  adminListen: %s
  tls: {mode: "off"}
  dataDir: %s
versions: [v1, v2]
auth:
  mode: apikey
  apiKeys:
%s%s%s%slog:
  slowThreshold: 200ms
  level: warn
console:
  traceURL: "http://127.0.0.1:16686/trace/{traceId}"
  slowCalls: 100
%smodels:
  Account: {fields: [Id, Name, Description]}
upstreams:
  accounts: {url: %s, retry: {attempts: 1}}
  reports: {url: %s, retry: {attempts: 1}}
  orders: {url: %s, retry: {attempts: 1}, breaker: {consecutiveFailures: 100}}
routes:
  - {path: "/{version}/accounts", kind: proxy, upstream: accounts, upstreamPath: "/accounts", model: Account, methods: [GET, POST]}
  - {path: "/{version}/reports", kind: proxy, upstream: reports, upstreamPath: "/reports", model: Account}
  - {path: "/{version}/orders", kind: proxy, upstream: orders, upstreamPath: "/orders", model: Account, methods: [GET, POST]}
%s`, api, admin, dir, key("key-ann", "ann"), key("key-img", hostileUser), key("key-script", hostileScript), key("key-uni", hostileUni),
		consoleKeys, fast, slow, broken, extra)
}

// consoleGateway runs the gateway of consoleConfig in a child process
// with backends of its own.
type consoleGateway struct {
	*gatewayProcess
	path   string
	config func(extra string) string
}

// startConsoleGateway starts it with consoleKeys under console: and env
// added to its environment.
func startConsoleGateway(t *testing.T, consoleKeys string, env ...string) *consoleGateway {
	t.Helper()
	backend := func(delay time.Duration, status int, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			if delay > 0 {
				time.Sleep(delay) // the slow backend is the subject: a slow call
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	fast := backend(0, 200, `[{"Id":"001","Name":"Acme","Description":"Anvils"}]`)
	slow := backend(350*time.Millisecond, 200, `[{"Id":"r1","Name":"Quarterly"}]`)
	broken := backend(0, 500, `{"message":"`+hostileAnswer+`"}`)
	dir := t.TempDir()
	g := &consoleGateway{path: filepath.Join(dir, "config.yaml")}
	g.gatewayProcess = startProcess(t, dir, func(api, admin string) string {
		g.config = func(extra string) string {
			return consoleConfig(api, admin, dir, fast, slow, broken, consoleKeys, extra)
		}
		return g.config("")
	}, env...)
	return g
}

// send makes one API call as the caller of key.
func (g *consoleGateway) send(t *testing.T, method, path, key, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, "http://"+g.api+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("X-API-Key", key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// traffic is what every panel shows: calls, a slow one, duplicates, 502s,
// and the hostile values in paths, user ids, bodies and answers.
func (g *consoleGateway) traffic(t *testing.T) {
	t.Helper()
	for range 8 {
		require.Equal(t, 200, g.send(t, "GET", "/v1/accounts", "key-ann", ""))
	}
	require.Equal(t, 200, g.send(t, "GET", "/v2/accounts", "key-uni", ""))
	require.Equal(t, 200, g.send(t, "GET", "/v1/reports", "key-uni", ""))
	require.Equal(t, 200, g.send(t, "POST", "/v1/accounts", "key-img", `{"name":"Acme","description":"same twice"}`))
	require.Equal(t, 200, g.send(t, "POST", "/v1/accounts", "key-img", `{"name":"Acme","description":"same twice"}`))
	require.Equal(t, 502, g.send(t, "GET", "/v2/orders", "key-ann", ""))
	// the last of their codes, so the errors page shows their messages
	require.Equal(t, 502, g.send(t, "POST", "/v1/orders", "key-script", `{"name":"`+hostileName+`","description":"`+hostileText+`"}`))
	require.Equal(t, 404, g.send(t, "GET", "/v1/%3Cscript%3Ealert(4)%3C%2Fscript%3E", "key-ann", ""))
	require.Equal(t, 401, g.send(t, "GET", "/v1/accounts", "wrong-key", ""))
}

// reloads waits for the admin API to list n reloads.
func (g *consoleGateway) reloads(t *testing.T, n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + g.admin + "/admin/api/v1/reloads")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var s struct{ Reloads []json.RawMessage }
		return json.NewDecoder(resp.Body).Decode(&s) == nil && len(s.Reloads) >= n
	}, 20*time.Second, 50*time.Millisecond, "the watcher reloads the file")
}

// consolePages are the console's pages: nav name, what shows it has
// data, and the screenshot's name.
var consolePages = []struct {
	page, ready, shot string
}{
	{"overview", `document.querySelector('main .content .card') && /refused/.test(document.querySelector('main').textContent) && /applied/.test(document.querySelector('main').textContent)`, "overview"},
	{"routes", `[...document.querySelectorAll('main tbody tr')].some(tr => /\/\{version\}\/accounts/.test(tr.textContent) && !/ 0\/s/.test(' ' + tr.cells[5].textContent))`, "routes"},
	{"upstreams", `/breaker open|breaker closed/.test(document.querySelector('main').textContent) && document.querySelectorAll('main section.card').length === 3`, "upstreams"},
	{"slow", `[...document.querySelectorAll('main tbody tr')].some(tr => tr.textContent.includes('/v1/reports'))`, "slow-calls"},
	{"duplicates", `document.querySelector('main').textContent.includes('× 1') && document.querySelector('main tbody tr') !== null`, "duplicates"},
	{"errors", `document.querySelector('main').textContent.includes('CALLOUT_FAILED') && document.querySelector('main').textContent.includes('502')`, "errors"},
}

// hostileShown are the texts each page must show as they are.
var hostileShown = map[string][]string{
	"slow":       {hostileUni, hostileScript, hostileName, hostileText},
	"duplicates": {hostileUser},
	"errors":     {"/v1/<script>alert(4)</script>", hostileScript, hostileName, hostileText},
}

// TestConsoleInABrowser loads the console in headless chromium against a
// gateway that served traffic: every panel shows it, with zero console
// errors and zero failed requests; reloads appear while the page polls;
// hostile values render as text; axe-core finds no serious or critical
// violation; a phone-sized screen needs no sideways scroll of the page.
// With -update it writes the screenshots of docs/getting-started/console.
func TestConsoleInABrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the gateway and a browser")
	}
	axe := axeSource(t)
	b := newBrowser(t, 1280, 900)
	g := startConsoleGateway(t, "")
	g.traffic(t)
	shots := filepath.Join("..", "..", "docs", "getting-started", "console")

	b.run(t, "open the console", chromedp.Navigate("http://"+g.admin+"/"))
	b.until(t, "the overview", `document.querySelector('main .content .card') !== null`)
	// a refused reload, then an applied one, shown while the page polls
	require.NoError(t, os.WriteFile(g.path, []byte(g.config("colour: red\n")), 0o600))
	g.reloads(t, 1)
	require.NoError(t, os.WriteFile(g.path, []byte(strings.Replace(g.config(""), "versions: [v1, v2]", "versions: [v1, v2, v3]", 1)), 0o600))
	g.reloads(t, 2)

	for _, p := range consolePages {
		t.Run(p.page, func(t *testing.T) {
			b.run(t, "open "+p.page, chromedp.Click(`#nav a[data-page="`+p.page+`"]`, chromedp.ByQuery))
			b.until(t, p.page+" shows data", p.ready)
			var text string
			b.run(t, "read", chromedp.Evaluate(`document.querySelector('main').textContent`, &text))
			for _, s := range hostileShown[p.page] {
				assert.Contains(t, text, s, "shown as text")
			}
			var page struct {
				Injected int      `json:"injected"`
				Alerts   int      `json:"alerts"`
				CSP      []string `json:"csp"`
			}
			b.eval(t, `({injected: document.querySelectorAll('main img, main script, main iframe, main object, main embed, main svg[onload], [onerror], [onload], [onclick]').length,
				alerts: window.__alerts, csp: window.__csp})`, &page)
			assert.Zero(t, page.Injected, "no element injected")
			assert.Zero(t, page.Alerts, "no script ran")
			assert.Empty(t, page.CSP, "nothing the policy had to block")
			var serious []string
			b.eval(t, axe+`; axe.run(document, {resultTypes: ['violations']}).then(r => r.violations
				.filter(v => v.impact === 'serious' || v.impact === 'critical')
				.map(v => v.id + ' (' + v.impact + '): ' + v.help + ' at ' + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')))`, &serious)
			assert.Empty(t, serious, "axe-core: serious or critical violations")
			if *update {
				b.screenshot(t, filepath.Join(shots, p.shot+".png"), false)
			}
		})
	}

	t.Run("phone", func(t *testing.T) {
		b.run(t, "phone size", chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2)), chromedp.Click(`#nav a[data-page="overview"]`, chromedp.ByQuery))
		for _, page := range []string{"overview", "routes", "slow"} {
			b.run(t, "open "+page, chromedp.Click(`#nav a[data-page="`+page+`"]`, chromedp.ByQuery))
			b.until(t, page+" on a phone", `document.querySelector('main .content').childElementCount > 0 && document.querySelector('main h1').textContent !== ''`)
			var overflow bool
			b.eval(t, `document.documentElement.scrollWidth > window.innerWidth`, &overflow)
			assert.False(t, overflow, "%s: the page itself does not scroll sideways (its tables do)", page)
		}
		if *update {
			b.run(t, "overview", chromedp.Click(`#nav a[data-page="overview"]`, chromedp.ByQuery))
			b.until(t, "overview", consolePages[0].ready)
			b.screenshot(t, filepath.Join(shots, "phone.png"), true)
		}
	})
	var alerts int
	b.eval(t, `window.__alerts`, &alerts)
	assert.Zero(t, alerts)
	assert.Empty(t, b.seen(), "console errors, exceptions and failed requests")
}

// TestConsoleSignIn: once console.token is set the console asks for it,
// keeps it in the tab, and shows the figures.
func TestConsoleSignIn(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the gateway and a browser")
	}
	const token = "a-console-token-of-at-least-32-bytes-0123"
	b := newBrowser(t, 1024, 768)
	b.allow(http.StatusUnauthorized) // the API's answers before signing in
	g := startConsoleGateway(t, "  token: ${GATEWAY_ADMIN_TOKEN}\n", "GATEWAY_ADMIN_TOKEN="+token)

	b.run(t, "open", chromedp.Navigate("http://"+g.admin+"/"))
	b.until(t, "the sign-in form", `document.querySelector('#credential') !== null`)
	b.run(t, "sign in", chromedp.SendKeys("#credential", token, chromedp.ByID), chromedp.Click(`form.signin button[type="submit"]`, chromedp.ByQuery))
	b.until(t, "the overview", `document.querySelector('main .content .card') !== null`)
	var stored string
	b.eval(t, `sessionStorage.getItem('restgate-console-credential')`, &stored)
	assert.Equal(t, token, stored, "kept in the tab's session storage only")
	for _, p := range b.seen() {
		assert.Contains(t, p, "401", "only the answers before signing in failed")
	}
}

// adminConfig is a gateway whose admin listener is admin, with console
// keys of its own.
const adminConfig = `server:
  listen: %s
  adminListen: %s
  tls: {mode: "off"}
  dataDir: %s
versions: [v1]
console:
%s
routes:
  - {path: "/{version}/settings/endpoints", kind: endpoints}
`

// Off loopback the console is locked until a credential is configured;
// the probes and the metrics answer as before either way.
func TestConsoleOffLoopback(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the gateway")
	}
	t.Parallel()
	const token = "0123456789abcdef0123456789abcdef-admin"
	tests := []struct {
		desc, console string
		env           []string
		// page is the status of GET /, api of the API without and with
		// the token.
		page, api, withToken int
		log                  string
	}{
		{desc: "no credential: locked", console: "  adminRole: admin", page: 200, api: 403, withToken: 403,
			log: "the console is locked"},
		{desc: "the token", console: "  token: ${GATEWAY_ADMIN_TOKEN}", env: []string{"GATEWAY_ADMIN_TOKEN=" + token},
			page: 200, api: 401, withToken: 200, log: `"msg":"console"`},
		{desc: "console off", console: "  enabled: false", page: 404, api: 404, withToken: 404},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			g := startProcess(t, dir, func(api, admin string) string {
				_, port, _ := strings.Cut(admin, ":")
				return fmt.Sprintf(adminConfig, api, "0.0.0.0:"+port, dir, tt.console)
			}, tt.env...)
			get := func(path, bearer string) int {
				req, err := http.NewRequest("GET", "http://"+g.admin+path, nil)
				require.NoError(t, err)
				if bearer != "" {
					req.Header.Set("Authorization", "Bearer "+bearer)
				}
				resp, err := http.DefaultClient.Do(req)
				require.NoError(t, err)
				resp.Body.Close()
				return resp.StatusCode
			}
			for _, path := range []string{"/metrics", "/healthz", "/readyz"} {
				assert.Equal(t, 200, get(path, ""), "%s is never guarded", path)
			}
			assert.Equal(t, tt.page, get("/", ""))
			assert.Equal(t, tt.api, get("/admin/api/v1/overview", ""))
			assert.Equal(t, tt.withToken, get("/admin/api/v1/overview", token))
			if tt.log != "" {
				assert.Contains(t, g.out.String(), tt.log)
			}
		})
	}
}
