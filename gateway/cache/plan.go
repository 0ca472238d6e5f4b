package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/upstreams"
)

// Plan is what the cache does with each route of one configuration: which
// routes are cached and how, which writes invalidate which reads. Built
// with NewPlan from a loaded configuration; read-only.
type Plan struct {
	routes map[*routes.Route]*RoutePlan
	order  []*RoutePlan
}

// RoutePlan is one route's part of a Plan.
type RoutePlan struct {
	Route *routes.Route
	// Cached says GET answers are kept, with Policy.
	Cached bool
	Policy Policy
	// Writes says the route's POST, PUT, PATCH or DELETE invalidate.
	Writes bool
	// Written says some route's writes invalidate a cached route's
	// answers (InvalidatedBy lists them). The answers of a route no write
	// invalidates are served from memory while the shared tier is down:
	// only a purge can be missed then, and the purge says so.
	Written bool
	// Resource is the upstream resource the route reads or writes: the
	// path of a proxy route's upstreamPath, otherwise the route's
	// template without its version ({accountId} and such left in). Reads
	// and writes of one upstream relate when one's resource is the
	// other's, or under it.
	Resource string
	// Fingerprint changes whenever anything that shapes the route's
	// answers changes (the route, its upstream, its models, the mapping
	// bounds, the routes its links point to): it is part of every key,
	// so that a reload that changes it leaves the old answers unread.
	Fingerprint string
	proxy       bool
}

// NewPlan plans cfg's routes, as table built them.
func NewPlan(cfg *config.Config, table *routes.Table) *Plan {
	p := &Plan{routes: make(map[*routes.Route]*RoutePlan, len(table.Routes))}
	for _, rt := range table.Routes {
		rp := &RoutePlan{Route: rt, Resource: resourceTemplate(rt.Spec), proxy: rt.Spec.Kind == config.KindProxy}
		up := cfg.Upstreams[rt.Spec.Upstream]
		if pol, ok := rt.Spec.Policy(up.Cache); ok {
			rp.Cached = true
			rp.Policy = Policy{TTL: min(pol.TTL, maxLifetime), StaleWhileRevalidate: pol.StaleWhileRevalidate,
				StaleIfError: pol.StaleIfError, ClientMaxAge: pol.ClientMaxAge, NotFoundTTL: min(pol.NotFoundTTL, pol.TTL, maxLifetime),
				Shared:      pol.Scope == upstreams.CacheScopeShared,
				ObeyBackend: up.Cache.BackendHeaders != upstreams.BackendHeadersIgnore}
			for _, h := range pol.Vary {
				rp.Policy.Vary = append(rp.Policy.Vary, http.CanonicalHeaderKey(h))
			}
			slices.Sort(rp.Policy.Vary)
			rp.Fingerprint = fingerprint(cfg, table, rt, rp.Policy)
		}
		rp.Writes = rt.Spec.Upstream != "" && slices.ContainsFunc(rt.Spec.Methods, writes)
		p.routes[rt] = rp
		p.order = append(p.order, rp)
	}
	for _, rp := range p.order {
		rp.Written = rp.Cached && len(p.InvalidatedBy(rp)) > 0
	}
	return p
}

// Of returns rt's plan; nil for a route not of the plan's table.
func (p *Plan) Of(rt *routes.Route) *RoutePlan { return p.routes[rt] }

// Routes lists the plan's routes in config order.
func (p *Plan) Routes() []*RoutePlan { return p.order }

// InvalidatedBy lists the routes whose writes invalidate rp's answers,
// "METHOD template" each, in config order.
func (p *Plan) InvalidatedBy(rp *RoutePlan) []string {
	var out []string
	for _, w := range p.order {
		if !w.Writes || w.Route.Spec.Upstream != rp.Route.Spec.Upstream || !related(w.Resource, rp.Resource) {
			continue
		}
		for _, m := range w.Route.Spec.Methods {
			if writes(m) {
				out = append(out, m+" "+w.Route.Template)
			}
		}
	}
	return out
}

func writes(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// resourceTemplate is route's Resource.
func resourceTemplate(r config.Route) string {
	if r.Kind == config.KindProxy && r.UpstreamPath != "" {
		path, _, _ := strings.Cut(r.UpstreamPath, "?")
		return path
	}
	return strings.TrimPrefix(r.Path, "/{version}")
}

// related reports whether two resource templates can name resources one of
// which is the other or under it: segment by segment, a {parameter}
// matches any segment.
func related(a, b string) bool {
	as, bs := strings.Split(strings.Trim(a, "/"), "/"), strings.Split(strings.Trim(b, "/"), "/")
	for i := range min(len(as), len(bs)) {
		if as[i] != bs[i] && !isParam(as[i]) && !isParam(bs[i]) {
			return false
		}
	}
	return true
}

func isParam(seg string) bool { return strings.HasPrefix(seg, "{") && strings.HasSuffix(seg, "}") }

// fingerprint hashes what shapes rt's answers.
func fingerprint(cfg *config.Config, table *routes.Table, rt *routes.Route, pol Policy) string {
	type shape struct{ Path, Kind, Action, Upstream, UpstreamPath string }
	var siblings []shape
	for _, o := range table.Routes {
		if o.Spec.Upstream == rt.Spec.Upstream {
			siblings = append(siblings, shape{o.Spec.Path, o.Spec.Kind, o.Spec.Action, o.Spec.Upstream, o.Spec.UpstreamPath})
		}
	}
	models := map[string]config.Model{}
	for name, m := range cfg.Models {
		if name == rt.Spec.Model || rt.Spec.Kind == config.KindData || rt.Spec.Kind == config.KindModel {
			models[name] = m
		}
	}
	b, _ := json.Marshal(struct {
		Route     config.Route
		Policy    Policy
		Upstream  upstreams.Settings
		Models    map[string]config.Model
		Mapping   config.Mapping
		Versions  []string
		Siblings  []shape
		PublicURL string
	}{rt.Spec, pol, cfg.Upstreams[rt.Spec.Upstream], models, cfg.Mapping, cfg.Versions, siblings, cfg.Server.PublicURL})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}
