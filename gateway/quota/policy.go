// Package quota shares the API among its consumers: requests per UTC day
// and month, per API key, user or role (auth.apiKeys[].quota, auth.quotas),
// optionally per upstream, counted in a Store (this replica's Memory, or
// Redis through gateway/cluster) atomically: a request is counted in every
// window of its policy or in none. It also says which callers are
// essential (auth.essential, auth.apiKeys[].essential): their calls pass
// an upstream's allowance reserve.
package quota

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/config"
)

// Policy is the quota that applies to a caller: its windows, overall and
// per upstream.
type Policy struct {
	// Name names the policy in metrics and the admin listing, from a
	// bounded set (the configuration's): "key:<user>:<key digest>",
	// "user:<id>", "role:<role>" or "default".
	Name      string
	day       int64
	month     int64
	upstreams map[string]config.QuotaLimits
}

func newPolicy(name string, q config.Quota) *Policy {
	return &Policy{Name: name, day: q.PerDay, month: q.PerMonth, upstreams: q.Upstreams}
}

// PerUpstream reports whether the policy counts some upstream's requests
// apart, so that the caller must say which upstream a request goes to.
func (p *Policy) PerUpstream() bool { return len(p.upstreams) > 0 }

// Policies resolves callers to their quota and says which are essential.
// Built from one configuration; safe for concurrent use.
type Policies struct {
	keys           map[string]*Policy
	users          map[string]*Policy
	roles          []rolePolicy
	def            *Policy
	essentialKeys  map[string]bool
	essentialUsers map[string]bool
	essentialRoles []string
}

type rolePolicy struct {
	role   string
	policy *Policy
}

// NewPolicies reads the quotas and essential callers of a (validated).
func NewPolicies(a config.Auth) *Policies {
	p := &Policies{keys: map[string]*Policy{}, users: map[string]*Policy{}, essentialKeys: map[string]bool{},
		essentialUsers: map[string]bool{}, essentialRoles: a.Essential.Roles}
	for _, k := range a.APIKeys {
		id := k.ID()
		if k.Quota != nil {
			p.keys[id] = newPolicy("key:"+k.UserID+":"+id[:min(8, len(id))], *k.Quota)
		}
		if k.Essential {
			p.essentialKeys[id] = true
		}
	}
	for _, user := range slices.Sorted(maps.Keys(a.Quotas.Users)) {
		p.users[user] = newPolicy("user:"+user, a.Quotas.Users[user])
	}
	for _, r := range a.Quotas.Roles {
		p.roles = append(p.roles, rolePolicy{role: r.Role, policy: newPolicy("role:"+r.Role, r.Quota())})
	}
	if a.Quotas.Default != nil {
		p.def = newPolicy("default", *a.Quotas.Default)
	}
	for _, u := range a.Essential.Users {
		p.essentialUsers[u] = true
	}
	return p
}

// Resolve returns the policy of the caller id (nil: not limited), the
// consumer it is counted as, and whether the caller is essential. The
// policy is its API key's, else its user's, else that of the first role
// of auth.quotas.roles it holds, else the default; a key's quota counts
// per key ("key:<digest>"), every other per user ("user:<id>").
func (p *Policies) Resolve(id call.Identity) (pol *Policy, consumer string, essential bool) {
	essential = p.essentialKeys[id.Key] || p.essentialUsers[id.UserID] || id.HasRole(p.essentialRoles)
	if pol = p.keys[id.Key]; pol != nil && id.Key != "" {
		return pol, "key:" + id.Key, essential
	}
	pol = p.users[id.UserID]
	for i := 0; pol == nil && i < len(p.roles); i++ {
		if slices.Contains(id.Roles, p.roles[i].role) {
			pol = p.roles[i].policy
		}
	}
	if pol == nil {
		pol = p.def
	}
	if pol == nil {
		return nil, "", essential
	}
	return pol, userConsumer(id.UserID), essential
}

// maxConsumerLen bounds a consumer's name in keys: a longer user id (a
// JWT's sub is the issuer's to choose) is named by its digest.
const maxConsumerLen = 128

func userConsumer(user string) string {
	if len(user) <= maxConsumerLen {
		return "user:" + user
	}
	sum := sha256.Sum256([]byte(user))
	return "user#" + hex.EncodeToString(sum[:16])
}

// Windows of a count.
const (
	Day   = "day"
	Month = "month"
)

// Count is one window a request is counted in.
type Count struct {
	// Name names the window in the RateLimit fields: "day", "month", or
	// "<upstream>-day", "<upstream>-month".
	Name string
	// Quota is the requests the window allows; Window its length in
	// seconds (a month's varies); Reset when it starts again.
	Quota  int64
	Window int64
	Reset  time.Time
	// Key names the count in a store: the consumer (in braces, so that
	// Redis Cluster keeps one consumer's counts in one slot), the window's
	// name and its start.
	Key string
	// Used is the count after the request (Store.Take) or now
	// (Store.Peek).
	Used int64
}

// Remaining is what the window still allows.
func (c *Count) Remaining() int64 { return max(c.Quota-c.Used, 0) }

// Counts appends to dst the windows a request of consumer to upstream
// ("" when the request has no upstream) is counted in at now. Their keys
// share one string.
func (p *Policy) Counts(dst []Count, consumer, upstream string, now time.Time) []Count {
	now = now.UTC()
	y, m, d := now.Date()
	day := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	month := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC)
	nextDay, nextMonth := day.AddDate(0, 0, 1), month.AddDate(0, 1, 0)
	dayID, monthID := int64(y*10000+int(m)*100+d), int64(y*100+int(m))
	type window struct {
		name, suffix string
		quota, id    int64
		start, reset time.Time
	}
	var windows [maxWindows]window
	n := 0
	add := func(name, suffix string, quota int64, start, reset time.Time, id int64) {
		if quota > 0 {
			windows[n] = window{name: name, suffix: suffix, quota: quota, id: id, start: start, reset: reset}
			n++
		}
	}
	add(Day, "", p.day, day, nextDay, dayID)
	add(Month, "", p.month, month, nextMonth, monthID)
	if l, ok := p.upstreams[upstream]; ok && upstream != "" {
		add(upstream, "-"+Day, l.PerDay, day, nextDay, dayID)
		add(upstream, "-"+Month, l.PerMonth, month, nextMonth, monthID)
	}
	// "{consumer}:name:id" for each window, in one buffer; a count's name
	// is the middle of its key
	type span struct{ start, name, end int }
	var spans [maxWindows]span
	var room [256]byte
	buf := room[:0]
	for i := range n {
		w := &windows[i]
		sp := &spans[i]
		sp.start = len(buf)
		buf = append(append(append(buf, '{'), consumer...), "}:"...)
		sp.name = len(buf)
		buf = append(append(append(buf, w.name...), w.suffix...), ':')
		buf = strconv.AppendInt(buf, w.id, 10)
		sp.end = len(buf)
	}
	keys := string(buf)
	for i := range n {
		w, sp := &windows[i], spans[i]
		dst = append(dst, Count{Name: keys[sp.name : sp.name+len(w.name)+len(w.suffix)], Quota: w.quota,
			Window: int64(w.reset.Sub(w.start) / time.Second), Reset: w.reset, Key: keys[sp.start:sp.end]})
	}
	return dst
}

// maxWindows is the most windows of a request: a day and a month, overall
// and for its upstream.
const maxWindows = 4
