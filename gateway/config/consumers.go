package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/restgate/gateway/upstreams"
)

// Quotas share the API among its consumers: calls per day and per month,
// per API key (auth.apiKeys[].quota), per user and per role, optionally
// per upstream, counted in the cluster store (cluster.store: memory or
// redis) and told to every limited caller in the RateLimit-Policy and
// RateLimit answer headers. One quota applies to a caller: its API key's,
// else its user's, else the first of roles it holds, else default. Every
// request of the caller counts, answers served from a cache included.
// docs/guides/allowance.md explains them.
type Quotas struct {
	// Users are quotas by user id: an API key's userId, a JWT's sub, or
	// anonymous (auth.mode none).
	Users map[string]Quota `yaml:"users"`
	// Roles are quotas by role, each caller holding the role counted
	// apart (a plan, not a pool). The first role of this list the caller
	// holds applies.
	Roles []RoleQuota `yaml:"roles"`
	// Default is the quota of every caller no other quota names. Default
	// none: such callers are not limited.
	Default *Quota `yaml:"default"`
	// MaxConsumers bounds the consumers whose counts a replica keeps in
	// memory (all of them with the memory store, the last ones seen with
	// redis, for /admin/quotas and the fallback while Redis fails); past it
	// the least recently seen is forgotten, and with the memory store its
	// count starts again. Default 10000; needs a restart.
	MaxConsumers int `yaml:"maxConsumers" reload:"restart"`
}

// Quota is a number of requests per window. Days and months are UTC
// calendar days and months: a day's count starts again at 00:00 UTC.
type Quota struct {
	// PerDay is the requests allowed per UTC day; 0: no daily quota.
	PerDay int64 `yaml:"perDay"`
	// PerMonth is the requests allowed per UTC calendar month; 0: no
	// monthly quota.
	PerMonth int64 `yaml:"perMonth"`
	// Upstreams are quotas of the requests of routes of one upstream, by
	// upstream name, counted besides the ones above.
	Upstreams map[string]QuotaLimits `yaml:"upstreams"`
}

// QuotaLimits are the windows of one upstream's requests in a quota.
type QuotaLimits struct {
	// PerDay is the requests allowed per UTC day; 0: none.
	PerDay int64 `yaml:"perDay"`
	// PerMonth is the requests allowed per UTC calendar month; 0: none.
	PerMonth int64 `yaml:"perMonth"`
}

// RoleQuota is the quota of every caller holding Role.
type RoleQuota struct {
	// Role is the role (an API key's roles, a JWT's roles claim).
	// Required.
	Role string `yaml:"role"`
	// PerDay is the requests allowed per UTC day; 0: none.
	PerDay int64 `yaml:"perDay"`
	// PerMonth is the requests allowed per UTC calendar month; 0: none.
	PerMonth int64 `yaml:"perMonth"`
	// Upstreams are quotas of one upstream's requests, by upstream name.
	Upstreams map[string]QuotaLimits `yaml:"upstreams"`
}

// Quota is the role's quota.
func (r RoleQuota) Quota() Quota {
	return Quota{PerDay: r.PerDay, PerMonth: r.PerMonth, Upstreams: r.Upstreams}
}

// Essential names the callers whose calls pass an upstream's allowance
// reserve (upstreams.<name>.allowance.reserve), as an essential route's
// do; an API key can also be marked essential itself.
type Essential struct {
	// Users are user ids.
	Users []string `yaml:"users"`
	// Roles are roles; a caller holding one is essential.
	Roles []string `yaml:"roles"`
}

// Any reports whether a caller is named.
func (e Essential) Any() bool { return len(e.Users) > 0 || len(e.Roles) > 0 }

// ID names the key in a caller's identity, in counts and in logs: the
// first 16 hex digits of its SHA-256 digest, in lower case (the
// configuration holds the digest, never the key).
func (k APIKey) ID() string {
	return strings.ToLower(k.SHA256[:min(16, len(k.SHA256))])
}

// Limited reports whether any quota is configured.
func (a Auth) Limited() bool {
	if len(a.Quotas.Users) > 0 || len(a.Quotas.Roles) > 0 || a.Quotas.Default != nil {
		return true
	}
	return slices.ContainsFunc(a.APIKeys, func(k APIKey) bool { return k.Quota != nil })
}

func quotaDefaults(q *Quotas) {
	setInt(&q.MaxConsumers, 10000)
}

// validateQuotas reports the problems of the quotas and essential callers
// of c, whose upstreams the per-upstream quotas must name.
func validateQuotas(p *problems, c *Config) {
	a := &c.Auth
	for i, k := range a.APIKeys {
		if k.Quota != nil {
			validateQuota(p, fmt.Sprintf("auth.apiKeys[%d].quota", i), *k.Quota, c.Upstreams)
		}
	}
	for _, user := range slices.Sorted(maps.Keys(a.Quotas.Users)) {
		if user == "" {
			p.add("auth.quotas.users", "a user id must not be empty")
		}
		validateQuota(p, "auth.quotas.users."+user, a.Quotas.Users[user], c.Upstreams)
	}
	for i, r := range a.Quotas.Roles {
		path := fmt.Sprintf("auth.quotas.roles[%d]", i)
		if r.Role == "" {
			p.add(path+".role", "required")
		}
		if slices.IndexFunc(a.Quotas.Roles, func(o RoleQuota) bool { return o.Role == r.Role }) != i {
			p.add(path+".role", "%q is listed twice: only the first would apply", r.Role)
		}
		validateQuota(p, path, r.Quota(), c.Upstreams)
	}
	if a.Quotas.Default != nil {
		validateQuota(p, "auth.quotas.default", *a.Quotas.Default, c.Upstreams)
	}
	if a.Quotas.MaxConsumers < 1 {
		p.add("auth.quotas.maxConsumers", "must be at least 1")
	}
	for i, u := range a.Essential.Users {
		if u == "" {
			p.add(fmt.Sprintf("auth.essential.users[%d]", i), "must not be empty")
		}
	}
	for i, r := range a.Essential.Roles {
		if r == "" {
			p.add(fmt.Sprintf("auth.essential.roles[%d]", i), "must not be empty")
		}
	}
}

// validateQuota reports the problems of one quota at path.
func validateQuota(p *problems, path string, q Quota, ups map[string]upstreams.Settings) {
	if q.PerDay == 0 && q.PerMonth == 0 && len(q.Upstreams) == 0 {
		p.add(path, "limits nothing: set perDay, perMonth or upstreams")
	}
	checkWindows(p, path, q.PerDay, q.PerMonth)
	for _, name := range slices.Sorted(maps.Keys(q.Upstreams)) {
		l := q.Upstreams[name]
		up := path + ".upstreams." + name
		if _, ok := ups[name]; !ok {
			p.add(up, "no upstream named %q", name)
		}
		if l.PerDay == 0 && l.PerMonth == 0 {
			p.add(up, "limits nothing: set perDay or perMonth")
		}
		checkWindows(p, up, l.PerDay, l.PerMonth)
	}
}

func checkWindows(p *problems, path string, perDay, perMonth int64) {
	if perDay < 0 {
		p.add(path+".perDay", "must not be negative")
	}
	if perMonth < 0 {
		p.add(path+".perMonth", "must not be negative")
	}
	if perDay > 0 && perMonth > 0 && perMonth < perDay {
		p.add(path+".perMonth", "%d is less than perDay (%d): the day's quota could never be used", perMonth, perDay)
	}
}
