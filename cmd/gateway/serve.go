package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/restgate/gateway/gateway/activity"
	"github.com/restgate/gateway/gateway/adminapi"
	"github.com/restgate/gateway/gateway/allowance"
	"github.com/restgate/gateway/gateway/app"
	"github.com/restgate/gateway/gateway/cache"
	"github.com/restgate/gateway/gateway/calllog"
	"github.com/restgate/gateway/gateway/cluster"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
	"github.com/restgate/gateway/gateway/middleware"
	"github.com/restgate/gateway/gateway/quota"
	"github.com/restgate/gateway/gateway/reload"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/gateway/server"
	"github.com/restgate/gateway/gateway/spool"
	"github.com/restgate/gateway/upstreams"
)

// serve runs the gateway until ctx is done, then drains and flushes the call
// log. Any problem before serving (config, port in use, missing secret) is
// returned as one error naming its cause.
func serve(ctx context.Context, path string, stdout io.Writer, getenv func(string) string) error {
	started := time.Now()
	cfg, table, err := routes.Load(path, getenv, sandboxCheck(sandboxBuilt), dataDirCheck())
	if err != nil {
		return err
	}
	terminal := isTerminal(stdout)
	logger := newLogger(stdout, cfg.Log, terminal)
	if soft, hard, err := server.RaiseFileLimit(); err != nil {
		logger.Warn("the open-files limit could not be raised to its hard limit", "soft", soft, "hard", hard, "err", err)
	} else {
		logger.Info("open-files limit", "soft", soft, "hard", hard)
	}
	version, revision, goVersion := buildInfo()
	reg := prometheus.NewRegistry()
	m, err := metrics.New(reg, metrics.BuildInfo{Version: version, Revision: revision, GoVersion: goVersion})
	if err != nil {
		return err
	}
	cacheMetrics, err := metrics.NewResponseCache(reg)
	if err != nil {
		return err
	}
	shipper, err := calllog.NewShipper(shipperConfig(cfg.Log), m, m, logger)
	if err != nil {
		return fmt.Errorf("log: %w", err)
	}
	if cfg.Log.CollectorURL != "" {
		m.SetBreakerState(calllog.Upstream, "closed") // a new client's breaker
	}
	shipCtx, stopShipping := context.WithCancel(context.Background())
	defer stopShipping()
	go shipper.Run(shipCtx)

	tr, err := startTracing(ctx, cfg.Tracing, getenv, version, logger)
	if err != nil {
		return err
	}
	defer stopTracing(tr, logger)

	// Once per process, never on reload: what crashed gateways left in the
	// spool is removed, a live one's files are not (gateway/spool).
	uploads, swept, err := spool.Open(app.SpoolDir(cfg), cfg.Server.Limits.MaxSpoolBytes)
	if err != nil {
		return err
	}
	defer uploads.Close()
	if swept.Files > 0 || swept.Dirs > 0 || swept.Skipped != "" {
		logger.Info("upload spool swept of what stopped gateways left", "dirs", swept.Dirs, "files", swept.Files,
			"bytes", swept.Bytes, "skipped", swept.Skipped)
	}
	apiLimit, err := sandboxAPILimit(getenv)
	if err != nil {
		return err
	}
	sb := &sandboxes{dataDir: cfg.Server.DataDir, logger: logger, apiLimit: apiLimit}
	defer sb.close()
	store, err := cluster.Open(cfg.Cluster, m, logger)
	if err != nil {
		return err
	}
	defer store.Close()
	var callLog middleware.CallLog = shipper
	if localCalls(cfg.Log, terminal) {
		callLog = calllog.NewLocal(shipper, logger)
	}
	// The orgs' allowance and the consumers' quotas outlive reloads, in
	// the cluster store when it is Redis.
	guards := allowance.NewSet(store.Allowance(), m, logger, nil)
	consumers := quota.NewMemory(cfg.Auth.Quotas.MaxConsumers, nil)
	quotas := quota.NewCounter(store.Quotas(consumers), consumers, nil)
	m.SetQuotaSource(quotas)
	recorder := activity.FromConfig(cfg)
	shared := &app.Shared{
		Logger: logger, Metrics: m, CallLog: callLog, Cluster: store,
		Duplicates:    store.Duplicates(cfg.Log.DuplicateWindow, duplicates.New(cfg.Log.DuplicateWindow, cfg.Log.DuplicateMaxEntries)),
		Upstreams:     app.NewUpstreamSet(upstreams.LogAttempts(recorder.Observe(m), logger), sb.url),
		Tracer:        tr.Tracer(),
		Spool:         uploads,
		CacheRecorder: cacheMetrics,
		Allowances:    guards,
		Quotas:        quotas,
		Activity:      recorder,
	}
	gw, err := app.Build(ctx, cfg, table, shared)
	if err != nil {
		return err
	}
	gw.CheckVersions(ctx)
	tlsCfg, fingerprint, err := server.TLSConfig(cfg.Server.TLS, time.Now())
	if err != nil {
		return err
	}
	api := server.NewSwappable(gw.Handler)
	srv, err := server.Listen(cfg.Server, tlsCfg, api, metrics.Handler(reg), logger)
	if err != nil {
		return err
	}
	srv.HandleAdmin("POST /admin/cache/purge", cache.PurgeHandler(shared.ResponseCache))
	srv.HandleAdmin("GET /admin/quotas", quotas.Handler())
	srv.HandleAdmin("GET /admin/allowance", guards.Handler())
	if fingerprint != "" {
		logger.Info("self-signed TLS certificate generated", "sha256_fingerprint", fingerprint)
	}
	if tlsCfg == nil && !config.IsLoopback(cfg.Server.Listen) {
		logger.Warn("TLS is off on a non-loopback listener: run it only behind a TLS-terminating proxy", "listen", cfg.Server.Listen)
	}
	scheme := "https"
	if tlsCfg == nil {
		scheme = "http"
	}
	logger.Info("gateway serving", "api", scheme+"://"+srv.APIAddr(), "admin", "http://"+srv.AdminAddr(),
		"versions", cfg.Versions, "endpoints", len(gw.Table.Entries()), "auth", cfg.Auth.Mode, "cluster_store", cfg.Cluster.Store)

	r := reload.New(reload.Options{Path: path, Getenv: getenv, Serving: gw, Shared: shared, Target: api,
		Counter: m, Logger: logger, Checks: []routes.Check{sandboxCheck(sandboxBuilt)}})
	mountConsole(srv, cfg, consoleParts{build: adminapi.Build{Version: version, Revision: revision, GoVersion: goVersion},
		started: started, reloader: r, shared: shared, metrics: reg, tls: tlsCfg != nil}, logger)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				_ = r.Reload(ctx, "SIGHUP")
			}
		}
	}()
	if w, err := reload.NewWatcher(path, reload.DefaultDebounce, func() { _ = r.Reload(ctx, "file changed") }, logger); err != nil {
		logger.Warn("config file changes are not watched; reload with SIGHUP", "err", err)
	} else {
		go w.Run(ctx)
	}

	err = srv.Serve(ctx, func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), cfg.Server.Timeouts.Shutdown)
	})
	flushCtx, cancel := context.WithTimeout(context.Background(), cfg.Log.ShutdownFlush)
	defer cancel()
	if ferr := shipper.Close(flushCtx); ferr != nil {
		lost, kept := 0, 0
		if fe := (*calllog.FlushError)(nil); errors.As(ferr, &fe) {
			lost, kept = fe.Lost, fe.Kept
		}
		logger.Warn("call log not fully flushed", "lost", lost, "kept_on_disk", kept, "err", ferr)
	}
	logger.Info("gateway stopped")
	return err
}

// shipperConfig is the call log's config from the log section: the
// collector's client is log.collector with log.timeout and log.maxRetries.
func shipperConfig(l config.Log) calllog.Config {
	client := l.Collector
	client.Timeout = l.Timeout
	client.Retry.Attempts = max(l.MaxRetries, 0) + 1
	return calllog.Config{URL: l.CollectorURL, Sink: l.Sink, Format: l.Format, QueueSize: l.QueueSize,
		BatchSize: l.BatchSize, MaxBatchSize: l.MaxBatchSize, MaxBatchBytes: l.MaxBatchBytes, Senders: l.Senders,
		FlushInterval: l.FlushInterval, MaxBodyBytes: l.MaxBodyBytes, RedactFields: l.RedactFields, Client: client,
		Headers: l.Headers, Compress: l.Compress, Queue: l.Queue,
		Disk:          calllog.DiskConfig{Dir: l.Disk.Dir, MaxBytes: l.Disk.MaxBytes, Fsync: l.Disk.Fsync, FsyncInterval: l.Disk.FsyncInterval},
		Loki:          calllog.LokiConfig{Labels: l.Loki.Labels},
		Elasticsearch: calllog.ElasticsearchConfig{Index: l.Elasticsearch.Index}}
}
