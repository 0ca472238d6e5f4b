package config

import (
	"net/url"
	"strings"
)

// Console configures the operator's console on the admin listener
// (server.adminListen): the page at GET /, its assets under /ui/ and its
// JSON API under /admin/api/v1/ (docs/getting-started/console.md). On a
// loopback admin listener it needs nothing more; on any other the console
// and its API answer only callers with credentials (token, or a JWT or API
// key holding adminRole), and without any configured they answer 403 and
// the start logs a warning. /metrics, /healthz and /readyz are never
// guarded. Every key needs a restart.
type Console struct {
	// Enabled serves the console and its API. Default true.
	Enabled *bool `yaml:"enabled"`
	// Record keeps the recent calls in memory for the console: the routes'
	// rates, error ratios and latencies, the slowest calls, the users
	// sending duplicates, the errors by response code. Default true. Off,
	// the console still shows the gateway's state, upstreams and reloads.
	// Its cost per request is measured in docs/internals/performance.md.
	Record *bool `yaml:"record"`
	// Token is a bearer token that opens the console and its API (sent as
	// Authorization: Bearer followed by the token), from
	// GATEWAY_ADMIN_TOKEN; at least 32 bytes. Once set it is required on a
	// loopback listener too. Default empty.
	Token string `yaml:"token"`
	// AdminRole is the role a caller authenticated the way auth.mode says
	// (a JWT, an API key) must hold to use the console. Default admin.
	AdminRole string `yaml:"adminRole"`
	// TraceURL links a slow call's trace id to a tracing UI; {traceId} in
	// it is replaced by the id (https://jaeger.example.com/trace/{traceId}).
	// Default empty: no link.
	TraceURL string `yaml:"traceURL"`
	// SlowCalls is how many of the slowest calls of each minute are kept,
	// for the last 16 minutes, with their bodies masked as the call log
	// masks them (each up to log.maxBodyBytes). Default 10, at most 100.
	SlowCalls int `yaml:"slowCalls"`
	// DuplicateUsers is how many users sending duplicate requests are kept
	// per 15 seconds, each with up to 4 routes. Default 32, at most 1000.
	DuplicateUsers int `yaml:"duplicateUsers"`
	// MaxSeries bounds the route series (one per method and route) and,
	// apart, the upstream series, about 24 KiB each; past it new ones are
	// counted together as (other). Default 256, at most 4096.
	MaxSeries int `yaml:"maxSeries"`
	// MaxErrorSeries bounds the error counts (one per response code,
	// route and upstream), about 1 KiB each. Default 512, at most 8192.
	MaxErrorSeries int `yaml:"maxErrorSeries"`
}

// MinConsoleToken is the shortest console.token accepted.
const MinConsoleToken = 32

func consoleDefaults(c *Console) {
	on := true
	if c.Enabled == nil {
		c.Enabled = &on
	}
	if c.Record == nil {
		c.Record = &on
	}
	setStr(&c.AdminRole, "admin")
	setInt(&c.SlowCalls, 10)
	setInt(&c.DuplicateUsers, 32)
	setInt(&c.MaxSeries, 256)
	setInt(&c.MaxErrorSeries, 512)
}

// On reports whether the console is served (Enabled, default true).
func (c Console) On() bool { return c.Enabled == nil || *c.Enabled }

// Recording reports whether the recent calls are recorded (Record,
// default true) for a console that is served.
func (c Console) Recording() bool { return c.On() && (c.Record == nil || *c.Record) }

func validateConsole(p *problems, c *Console) {
	if c.Token != "" && len(c.Token) < MinConsoleToken {
		// never echo the token
		p.add("console.token", "must be at least %d bytes (openssl rand -hex 32)", MinConsoleToken)
	}
	if strings.TrimSpace(c.AdminRole) == "" {
		p.add("console.adminRole", "must not be blank")
	}
	if c.TraceURL != "" {
		if u, err := url.Parse(strings.ReplaceAll(c.TraceURL, "{traceId}", "0")); err != nil ||
			(u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			p.add("console.traceURL", "must be an absolute http(s) URL")
		} else if !strings.Contains(c.TraceURL, "{traceId}") {
			p.add("console.traceURL", "must hold {traceId}, where the trace id goes")
		}
	}
	for _, b := range []struct {
		key       string
		v, lo, hi int
	}{
		{"console.slowCalls", c.SlowCalls, 0, 100},
		{"console.duplicateUsers", c.DuplicateUsers, 0, 1000},
		{"console.maxSeries", c.MaxSeries, 1, 4096},
		{"console.maxErrorSeries", c.MaxErrorSeries, 1, 8192},
	} {
		if b.v < b.lo || b.v > b.hi {
			p.add(b.key, "must be from %d to %d, not %d", b.lo, b.hi, b.v)
		}
	}
}
