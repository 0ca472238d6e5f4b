// Package app assembles a running gateway from a loaded configuration and
// its route table (routes.Load): the upstream clients, the handlers of every
// route kind, the router and the middleware chain. Build is called at start
// and on every reload; what must survive a reload (metrics, call log,
// upstream clients, the sandbox) lives in Shared.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/restgate/gateway/gateway/activity"
	"github.com/restgate/gateway/gateway/allowance"
	"github.com/restgate/gateway/gateway/cache"
	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/calllog"
	"github.com/restgate/gateway/gateway/cluster"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/identity"
	"github.com/restgate/gateway/gateway/middleware"
	"github.com/restgate/gateway/gateway/quota"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/gateway/spool"
)

// Shared are the parts that outlive one configuration.
type Shared struct {
	Logger     *slog.Logger
	Metrics    middleware.Recorder
	CallLog    middleware.CallLog
	Duplicates middleware.Duplicates
	// Cluster shares the per-user rate limit across replicas
	// (gateway/cluster); nil means each replica limits alone.
	Cluster   *cluster.Store
	Upstreams *UpstreamSet
	// Tracer starts the server span of every request (tracing.Tracing's
	// Tracer); nil when tracing is off.
	Tracer trace.Tracer
	// Spool is the process's upload spool (gateway/spool), opened once at
	// start: it sweeps what dead processes left, which a reload must not
	// do again. Nil: the first Build with a files route opens one under
	// server.dataDir/spool and keeps it.
	Spool *spool.Spool
	// Activity keeps the recent calls the operator's console shows
	// (gateway/activity); nil when recording is off.
	Activity *activity.Recorder
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Cache is the response cache (gateway/cache), kept across reloads.
	// Nil: the first Build with a cached route makes one from the
	// configuration's cache bounds, in Redis too with the redis cluster
	// store, and keeps it.
	Cache *cache.Cache
	// CacheRecorder receives the response cache's metrics; nil records
	// nothing.
	CacheRecorder cache.Recorder
	// Allowances are the guards of the orgs' API allowance, one per
	// upstream, kept across reloads (gateway/allowance). Nil: the first
	// Build makes them, shared through Cluster when it is Redis.
	Allowances *allowance.Set
	// Quotas count the consumers' quotas, across reloads (gateway/quota).
	// Nil: the first Build makes it, in Cluster when it is Redis.
	Quotas *quota.Counter

	spoolOnce     sync.Once
	spoolErr      error
	allowanceOnce sync.Once
	quotaOnce     sync.Once
	// cacheMu guards Cache once the gateway runs (ResponseCache).
	cacheMu sync.Mutex
}

// uploadSpool is sh.Spool, opened with cfg's data directory and budget when
// nil and cfg has a files route.
func (sh *Shared) uploadSpool(cfg *config.Config) (*spool.Spool, error) {
	sh.spoolOnce.Do(func() {
		if sh.Spool != nil || !slices.ContainsFunc(cfg.Routes, func(r config.Route) bool { return r.Kind == config.KindFiles }) {
			return
		}
		sh.Spool, _, sh.spoolErr = spool.Open(SpoolDir(cfg), cfg.Server.Limits.MaxSpoolBytes)
	})
	return sh.Spool, sh.spoolErr
}

// responseCache is sh.Cache, made with cfg's bounds when nil and cfg has a
// cached route.
func (sh *Shared) responseCache(cfg *config.Config, now func() time.Time) (*cache.Cache, error) {
	sh.cacheMu.Lock()
	defer sh.cacheMu.Unlock()
	if sh.Cache != nil || !slices.ContainsFunc(cfg.Routes, func(r config.Route) bool { return r.Cache != nil }) {
		return sh.Cache, nil
	}
	o := cfg.Cache
	opts := cache.Options{MaxBytes: o.MaxBytes, MaxEntries: o.MaxEntries, MaxEntryBytes: o.MaxEntryBytes,
		CoalesceWait: o.CoalesceWait, MaxRevalidations: o.MaxRevalidations, Recorder: sh.CacheRecorder,
		Logger: sh.Logger, Now: now}
	if sh.Cluster != nil && sh.Cluster.Shared() {
		tier, err := sh.Cluster.CacheTier(o.RedisTimeout)
		if err != nil {
			return nil, err
		}
		opts.Shared = tier
	}
	c, err := cache.New(opts)
	if err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	sh.Cache = c
	return c, nil
}

// ResponseCache is the response cache once a build made one, else nil
// (the admin purge reads it).
func (sh *Shared) ResponseCache() *cache.Cache {
	sh.cacheMu.Lock()
	defer sh.cacheMu.Unlock()
	return sh.Cache
}

// SpoolDir is where cfg's uploads wait on disk: server.dataDir/spool.
func SpoolDir(cfg *config.Config) string { return filepath.Join(cfg.Server.DataDir, "spool") }

// Gateway is one built configuration, ready to serve.
type Gateway struct {
	Config  *config.Config
	Table   *routes.Table
	Handler http.Handler
	// Authenticator identifies callers the way the configuration's
	// auth.mode says (the operator's console accepts one holding its
	// admin role).
	Authenticator identity.Authenticator
	// stop ends what the build started in the background (the JWKS
	// refresh) and releases its routes' cached answers.
	stop context.CancelFunc
	// checkVersions is CheckVersions.
	checkVersions func(context.Context)
}

// CheckVersions checks, in the background, the API version of every data
// upstream against the versions its backend offers, logging a warning when
// it is not offered or is retired or announced for retirement. The gateway
// runs it once at start.
func (g *Gateway) CheckVersions(ctx context.Context) {
	if g != nil && g.checkVersions != nil {
		g.checkVersions(ctx)
	}
}

// Close stops the background work of a gateway that no longer serves new
// requests (after a reload swapped it out). Requests still running on it
// finish normally: cached keys keep verifying tokens. The cached answers of
// its routes that the serving gateway does not share (their configuration
// changed) are dropped from memory.
func (g *Gateway) Close() {
	if g != nil && g.stop != nil {
		g.stop()
	}
}

// Build assembles the gateway of cfg and its route table, both as
// routes.Load returns them (cfg validated, table built from cfg). Every
// problem found while building (upstream clients, credentials, handlers) is
// returned with its key path.
func Build(ctx context.Context, cfg *config.Config, table *routes.Table, sh *Shared) (*Gateway, error) {
	now := sh.Now
	if now == nil {
		now = time.Now
	}
	ups, err := sh.Upstreams.ResolveFor(cfg.Upstreams, refusalKinds(cfg), sh.allowances())
	if err != nil {
		return nil, err
	}
	bgCtx, stop := context.WithCancel(ctx)
	authn, err := identity.New(bgCtx, cfg.Auth)
	if err != nil {
		stop()
		return nil, err
	}
	redactor := calllog.NewRedactor(cfg.Log.RedactFields)
	w := call.NewWriter(call.WriterConfig{
		Catalog:              envelope.NewCatalog(),
		Always200:            cfg.Errors.StatusMode == config.StatusAlways200,
		ExposeSystemMessages: cfg.Errors.ExposeSystemMessages,
		MaxOutput:            cfg.Mapping.MaxOutputChars,
		MaxDepth:             cfg.Mapping.MaxDepth,
		Challenge:            authn.Challenge(),
		Redact:               func(b []byte) []byte { return redactor.Append(nil, b) },
		Logger:               sh.Logger,
		Now:                  now,
	})
	for name, m := range table.Models {
		if len(m.TieBreaks) > 0 && sh.Logger != nil {
			sh.Logger.Warn("derived field names collide: tie-breaks applied (override with models.<type>.versions.<version>.mapKeys)",
				"type", name, "tiebreaks", m.TieBreaks)
		}
	}
	if _, err := sh.uploadSpool(cfg); err != nil {
		stop()
		return nil, err
	}
	rc, err := sh.responseCache(cfg, now)
	if err != nil {
		stop()
		return nil, err
	}
	var wrap func(*routes.Route, string, call.Handler) call.Handler
	if rc != nil {
		cached := rc.Routes(cache.NewPlan(cfg, table), w)
		wrap = cached.Wrap
		// a failed build, or the build a reload replaced, releases its
		// routes' answers: those no other build serves leave memory
		cancel := stop
		stop = func() { cancel(); cached.Release() }
	}
	env := newKindEnv(cfg, table, ups, sh)
	mux, err := router.New(table, router.Options{Kinds: env.kinds(), Writer: w,
		MaxBodyBytes: cfg.Server.Limits.MaxBodyBytes, Logger: sh.Logger, Contracts: env.contracts(), Wrap: wrap})
	if err != nil {
		stop()
		return nil, err
	}

	pollAllowances(bgCtx, cfg, ups, sh.allowances())
	compress, err := middleware.Compress(cfg.Server.Compression)
	if err != nil {
		stop()
		return nil, fmt.Errorf("server.compression: %w", err)
	}
	h := chain(mux, cfg, sh, authn, w, now, edges{compress: compress, route: mux.Route,
		cors: middleware.NewCORSPolicies(table, cfg.Server.CORS)})
	return &Gateway{Config: cfg, Table: table, Handler: h, Authenticator: authn, stop: stop, checkVersions: env.checkVersions}, nil
}

// edges are the layers of chain made from the configuration before it:
// compression (nil: none) and the CORS policies with the router's
// route lookup (none: CORS off).
type edges struct {
	compress func(http.Handler) http.Handler
	route    middleware.RouteOf
	cors     middleware.CORSPolicies
}

// chain is the one place the middleware order is decided. The first layer
// listed is the outermost: it sees the request first and the answer last.
func chain(routes http.Handler, cfg *config.Config, sh *Shared, authn identity.Authenticator, w *call.Writer, now func() time.Time, e edges) http.Handler {
	if e.compress == nil {
		e.compress = func(h http.Handler) http.Handler { return h }
	}
	layers := []func(http.Handler) http.Handler{
		// the Call and its trace id exist before anything else runs
		func(h http.Handler) http.Handler {
			return middleware.Traced(h, middleware.TraceDeps{Now: now, Tracer: sh.Tracer,
				RecordUserID: cfg.Tracing.RecordUserID})
		},
		// metrics and the call log see every answer, errors of the layers below included
		func(h http.Handler) http.Handler {
			return middleware.Observe(h, middleware.ObserveDeps{Metrics: sh.Metrics, Log: sh.CallLog,
				Duplicates: sh.Duplicates, Activity: sh.Activity, Logger: sh.Logger, Slow: cfg.Log.SlowThreshold, Now: now})
		},
		// every answer below, errors included, compressed when the client accepts it
		e.compress,
		// a panic anywhere below is an enveloped 500, never a dropped connection
		func(h http.Handler) http.Handler { return middleware.Recover(h, w, sh.Logger) },
		func(h http.Handler) http.Handler { return middleware.LimitURL(h, cfg.Server.Limits.MaxURLLength, w) },
		func(h http.Handler) http.Handler {
			return middleware.LimitHeaders(h, cfg.Server.Limits.MaxHeaderBytes, w)
		},
		// a browser's preflight carries no credentials: answered before authentication
		func(h http.Handler) http.Handler { return middleware.CORS(h, e.route, e.cors) },
		func(h http.Handler) http.Handler { return middleware.Authenticate(h, authn, w) },
	}
	if rl := cfg.Auth.RateLimit; rl.RequestsPerSecond > 0 {
		// per verified user, so it must come after authentication
		var limiter middleware.Limiter = middleware.NewRateLimiter(rl.RequestsPerSecond, rl.Burst, rl.MaxUsers)
		if sh.Cluster != nil {
			limiter = sh.Cluster.Limiter(rl.RequestsPerSecond, rl.Burst, limiter)
		}
		policy := middleware.RatePolicy{RequestsPerSecond: rl.RequestsPerSecond, Burst: rl.Burst}
		layers = append(layers, func(h http.Handler) http.Handler { return middleware.RateLimit(h, limiter, policy, w, now) })
	}
	if q := quotaLayer(cfg, sh, w, e.route, now); q != nil {
		// per verified caller, after the rate limit: a request the rate
		// limit refuses uses none of the quota
		layers = append(layers, q)
	}
	h := routes
	for i := len(layers) - 1; i >= 0; i-- {
		h = layers[i](h)
	}
	return h
}
