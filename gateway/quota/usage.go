package quota

import (
	"cmp"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Counter is where quotas are counted (Store: the shared store's, or
// Local itself with the memory store) and what this replica keeps of it
// (Local). It outlives configuration reloads.
type Counter struct {
	Store Store
	Local *Memory
	now   func() time.Time
}

// NewCounter counts in store, keeping what it counts in local; store nil
// counts in local alone (the memory store). now nil means time.Now.
func NewCounter(store Store, local *Memory, now func() time.Time) *Counter {
	if store == nil {
		store = local
	}
	if now == nil {
		now = time.Now
	}
	return &Counter{Store: store, Local: local, now: now}
}

// Usage is one consumer's counts as GET /admin/quotas shows them.
type Usage struct {
	// Consumer is what is counted: "key:<key id>" or "user:<id>".
	Consumer string `json:"consumer"`
	// Quota names the policy that applies ("user:alice", "role:partner").
	Quota string `json:"quota"`
	// Windows are the windows the consumer was last counted in.
	Windows []WindowUsage `json:"windows"`
}

// WindowUsage is one window of a consumer.
type WindowUsage struct {
	Name      string `json:"name"`
	Quota     int64  `json:"quota"`
	Used      int64  `json:"used"`
	Remaining int64  `json:"remaining"`
	// ResetIn is the seconds until the window starts again.
	ResetIn int64 `json:"resetIn"`
}

// maxListed bounds one listing: every consumer listed is one read of the
// shared store.
const maxListed = 1000

// Usages lists the consumers this replica kept, most recently seen first,
// at most limit (1 to 1000), only those whose name contains match when it
// is not empty, each read again from the store (all replicas' counts with
// the redis store; an error there leaves this replica's last counts).
func (c *Counter) Usages(ctx context.Context, match string, limit int) []Usage {
	limit = min(max(limit, 1), maxListed)
	kept := c.Local.Consumers(0)
	out := make([]Usage, 0, min(len(kept), limit))
	now := c.now()
	for i := range kept {
		r := &kept[i]
		if match != "" && !strings.Contains(r.Consumer, match) {
			continue
		}
		if len(out) == limit {
			break
		}
		if c.Store != Store(c.Local) {
			_ = c.Store.Peek(ctx, r)
		}
		u := Usage{Consumer: r.Consumer, Quota: r.Policy, Windows: make([]WindowUsage, 0, len(r.Counts))}
		for _, n := range r.Counts {
			u.Windows = append(u.Windows, WindowUsage{Name: n.Name, Quota: n.Quota, Used: n.Used, Remaining: n.Remaining(),
				ResetIn: int64(math.Ceil(n.Reset.Sub(now).Seconds()))})
		}
		out = append(out, u)
	}
	return out
}

// Handler serves GET /admin/quotas[?consumer=TEXT][&limit=N]:
// {"consumers": [Usage...], "kept": n, "maxConsumers": m}, at most 100
// consumers unless limit says otherwise (at most 1000).
func (c *Counter) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		limit := 100
		if v := r.URL.Query().Get("limit"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				http.Error(w, "limit must be a positive integer", http.StatusBadRequest)
				return
			}
			limit = n
		}
		body, err := json.Marshal(struct {
			Consumers    []Usage `json:"consumers"`
			Kept         int     `json:"kept"`
			MaxConsumers int     `json:"maxConsumers"`
		}{c.Usages(r.Context(), r.URL.Query().Get("consumer"), limit), c.Local.Len(), c.Local.max})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(append(body, '\n'))
	})
}

// PolicyUse is one window of one policy as the metrics show it.
type PolicyUse struct {
	Policy, Window string
	// Used is the highest count among the policy's consumers this
	// replica kept (a key's or a user's policy has one); Quota the
	// window's quota.
	Used, Quota int64
}

// Snapshot returns, per policy and window, the highest use among the
// consumers kept, from what this replica last counted or was told: the
// bounded view the metrics export (policies come from the configuration;
// consumers can be many).
func (c *Counter) Snapshot() []PolicyUse {
	type key struct{ policy, window string }
	top := map[key]PolicyUse{}
	for _, r := range c.Local.Consumers(0) {
		for _, n := range r.Counts {
			k := key{r.Policy, n.Name}
			if u, ok := top[k]; !ok || n.Used > u.Used {
				top[k] = PolicyUse{Policy: r.Policy, Window: n.Name, Used: n.Used, Quota: n.Quota}
			}
		}
	}
	out := make([]PolicyUse, 0, len(top))
	for _, u := range top {
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b PolicyUse) int {
		return cmp.Or(cmp.Compare(a.Policy, b.Policy), cmp.Compare(a.Window, b.Window))
	})
	return out
}

// sortCounts orders a consumer's windows by name.
func sortCounts(c []Count) {
	slices.SortFunc(c, func(a, b Count) int { return cmp.Compare(a.Name, b.Name) })
}
