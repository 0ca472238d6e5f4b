package app

import (
	"context"
	"net/http"
	"time"

	"github.com/restgate/gateway/gateway/allowance"
	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/handlers/data"
	"github.com/restgate/gateway/gateway/middleware"
	"github.com/restgate/gateway/gateway/quota"
	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/dataapi"
)

// allowances is sh.Allowances, made at the first Build when the caller
// gave none (tests): with the metrics when sh.Metrics records them.
func (sh *Shared) allowances() *allowance.Set {
	sh.allowanceOnce.Do(func() {
		if sh.Allowances != nil {
			return
		}
		var shared allowance.Shared
		if sh.Cluster != nil {
			shared = sh.Cluster.Allowance()
		}
		rec, ok := sh.Metrics.(allowance.Recorder)
		if !ok {
			rec = nopAllowance{}
		}
		sh.Allowances = allowance.NewSet(shared, rec, sh.Logger, sh.Now)
	})
	return sh.Allowances
}

// quotas is sh.Quotas, made at the first Build when the caller gave none,
// with cfg's bound of consumers and the cluster store when there is one.
func (sh *Shared) quotas(cfg *config.Config) *quota.Counter {
	sh.quotaOnce.Do(func() {
		if sh.Quotas != nil {
			return
		}
		local := quota.NewMemory(cfg.Auth.Quotas.MaxConsumers, sh.Now)
		var store quota.Store
		if sh.Cluster != nil {
			store = sh.Cluster.Quotas(local)
		}
		sh.Quotas = quota.NewCounter(store, local, sh.Now)
	})
	return sh.Quotas
}

// guarded reports whether an upstream's client consults an allowance
// guard: the upstreams of data and files routes (a Salesforce org, whose
// answers report its usage) and any upstream with an allowance configured.
func guarded(refusalKind string, s upstreams.Settings) bool {
	return refusalKind == config.KindData || refusalKind == config.KindFiles || s.Allowance.Configured()
}

// pollAllowances starts, until ctx ends, the idle poll of the org's usage
// of every guarded upstream with allowance.poll set: GET
// /services/data/{apiVersion}/limits through the upstream's client.
func pollAllowances(ctx context.Context, cfg *config.Config, ups map[string]Upstream, set *allowance.Set) {
	kinds := refusalKinds(cfg)
	for name, up := range ups {
		s := up.Client.Settings()
		if s.Allowance.Poll <= 0 || !guarded(kinds[name], s) {
			continue
		}
		version := s.Options[data.OptionAPIVersion]
		if version == "" {
			version = data.DefaultAPIVersion
		}
		c, err := dataapi.New(up.BaseURL, version, up.Client)
		if err != nil {
			continue // the route table refused it already
		}
		go set.Guard(name, s.Allowance).Poll(ctx, s.Allowance.Poll, c.Limits)
	}
}

// quotaLayer is the chain's quota layer: essential callers marked, limited
// callers counted (middleware.Quota); nil when cfg names neither.
func quotaLayer(cfg *config.Config, sh *Shared, w *call.Writer, route middleware.RouteOf, now func() time.Time) func(http.Handler) http.Handler {
	a := cfg.Auth
	essentialKeys := false
	for _, k := range a.APIKeys {
		essentialKeys = essentialKeys || k.Essential
	}
	if !a.Limited() && !a.Essential.Any() && !essentialKeys {
		return nil
	}
	rec, ok := sh.Metrics.(middleware.QuotaRecorder)
	if !ok {
		rec = nopQuota{}
	}
	d := middleware.QuotaDeps{Policies: quota.NewPolicies(a), Counter: sh.quotas(cfg), Route: route, Writer: w,
		Metrics: rec, Now: now}
	return func(h http.Handler) http.Handler { return middleware.Quota(h, d) }
}

type nopAllowance struct{}

func (nopAllowance) AllowanceUsage(string, int64, int64, int64, time.Time) {}
func (nopAllowance) AllowanceReserve(string, bool)                         {}
func (nopAllowance) AllowanceExceeded(string)                              {}

type nopQuota struct{}

func (nopQuota) QuotaDecision(string, bool) {}
