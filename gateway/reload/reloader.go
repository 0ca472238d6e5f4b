// Package reload applies a changed config.yaml to the running gateway: the
// Reloader loads, validates and builds the new configuration aside and swaps
// it in atomically only when all of it built, and the Watcher notices the
// file changing (an editor's write or rename, a Kubernetes ConfigMap's
// ..data symlink swap) and asks for a reload. A request keeps the handler it
// started on, so a reload drops nothing; upstream clients whose settings did
// not change are kept, with their breaker state and connections.
package reload

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/restgate/gateway/gateway/app"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/gateway/server"
)

// Counter counts reload outcomes (the gateway's metrics implement it).
type Counter interface {
	CountReload(ok bool)
}

// Options configure a Reloader. Every field is required except Getenv and
// Logger.
type Options struct {
	// Path is the config file.
	Path string
	// Getenv expands ${VAR}; nil reads nothing (every variable is empty).
	Getenv func(string) string
	// Serving is the gateway serving now. A reload closes it once it is
	// swapped out. Its configuration is the one the process started with:
	// the keys that need a restart (config.ReloadRestart) keep its values,
	// and a reload that changes them warns, naming each.
	Serving *app.Gateway
	// Checks are checks of a loaded configuration beyond Validate's (as
	// serve's: the sandbox check of a binary built without it).
	Checks []routes.Check
	// Shared are the parts every build reuses (upstream clients, metrics,
	// call log).
	Shared *app.Shared
	// Target is the API listener's handler, swapped on success.
	Target *server.Swappable
	// Counter counts every reload, refused ones included.
	Counter Counter
	// Logger receives every problem of a refused config.
	Logger *slog.Logger
	// Now is the clock of Status; nil means time.Now.
	Now func() time.Time
}

// Reloader applies a new config to the running gateway. Safe for concurrent
// use: reloads run one at a time, in the order they were asked for.
type Reloader struct {
	mu      sync.Mutex
	opts    Options
	serving *app.Gateway
	// started is the configuration the process started with.
	started *config.Config
	// last is the digest of the file's content last loaded, and settled
	// says its outcome cannot change by loading it again: it was applied,
	// or refused for what it says. A build that failed on something
	// outside the file (a key set that could not be fetched) is not
	// settled, so asking again retries it.
	last    [sha256.Size]byte
	settled bool
	// current is serving, readable without waiting for a reload under way.
	current atomic.Pointer[app.Gateway]

	hmu    sync.Mutex
	status Status
}

// New returns a Reloader. The file's content at this point is taken as
// the serving configuration's: loading the same bytes again changes
// nothing and is skipped.
func New(opts Options) *Reloader {
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	r := &Reloader{opts: opts, serving: opts.Serving, started: opts.Serving.Config}
	r.current.Store(opts.Serving)
	r.status = Status{Path: opts.Path, LoadedAt: opts.Now()}
	if data, err := os.ReadFile(opts.Path); err == nil {
		r.last, r.settled = sha256.Sum256(data), true
		r.status.Revision = revision(r.last)
	}
	return r
}

// Reload loads, validates and builds the config file; only a gateway that
// built completely replaces the serving one. A refused config is logged
// with every problem (cause names what asked for the reload), counted, and
// returned; the old one keeps serving.
//
// Content already loaded is not loaded again: one change that both the
// file watcher and a SIGHUP report is one reload, counted once, whichever
// comes first, and a refused file asked for again stays refused without
// another count. Only a build that failed on something outside the file
// is retried on the same content.
func (r *Reloader) Reload(ctx context.Context, cause string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	data, err := os.ReadFile(r.opts.Path)
	if err != nil {
		r.opts.Counter.CountReload(false)
		r.opts.Logger.Error("config reload refused; the previous config keeps serving",
			"cause", cause, "path", r.opts.Path, "err", err)
		err = fmt.Errorf("reading config: %w", err)
		r.record(Attempt{Time: r.opts.Now(), Cause: cause, Problems: config.Problems(err)})
		return err
	}
	sum := sha256.Sum256(data)
	if r.settled && sum == r.last {
		r.opts.Logger.Info("config unchanged since it was last loaded; nothing to reload", "cause", cause, "path", r.opts.Path)
		return nil
	}
	r.last = sum
	gw, restart, err := r.build(ctx, data)
	attempt := Attempt{Time: r.opts.Now(), Cause: cause, Revision: revision(sum), Restart: restart}
	if err != nil {
		r.opts.Counter.CountReload(false)
		attempt.Problems = config.Problems(err)
		r.record(attempt)
		r.opts.Logger.Error("config reload refused; the previous config keeps serving",
			"cause", cause, "path", r.opts.Path, "problems", attempt.Problems)
		return err
	}
	if len(restart) > 0 {
		r.opts.Logger.Warn("changed settings that take effect only after a restart; until then they keep their start values",
			"cause", cause, "keys", restart)
	}
	r.opts.Target.Swap(gw.Handler)
	r.serving.Close()
	r.serving = gw
	r.current.Store(gw)
	r.opts.Counter.CountReload(true)
	attempt.Applied = true
	r.record(attempt)
	r.opts.Logger.Info("config reloaded", "cause", cause, "path", r.opts.Path, "endpoints", len(gw.Table.Entries()))
	return nil
}

// Current is the config serving now.
func (r *Reloader) Current() *config.Config {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.serving.Config
}

// Serving is the gateway serving now (its configuration, route table and
// authenticator). Unlike Current it does not wait for a reload under way:
// it returns the one serving until that reload swaps.
func (r *Reloader) Serving() *app.Gateway { return r.current.Load() }

// build loads the file's data as the start does (routes.Load) and
// assembles its gateway aside, with the start values of the keys that need
// a restart; restart lists those whose value the file changed. It records
// whether the outcome is settled: a file refused for what it says stays
// refused, a build that failed may succeed later.
func (r *Reloader) build(ctx context.Context, data []byte) (gw *app.Gateway, restart []string, err error) {
	r.settled = true
	cfg, table, err := routes.Parse(data, r.opts.Getenv, r.opts.Checks...)
	if err != nil {
		return nil, nil, err
	}
	restart = config.RestartChanges(r.started, cfg)
	config.KeepRestart(cfg, r.started)
	gw, err = app.Build(ctx, cfg, table, r.opts.Shared)
	r.settled = err == nil
	return gw, restart, err
}

// ErrNotWatched is returned by NewWatcher when the config file's directory
// cannot be watched; the gateway then reloads on SIGHUP only.
var ErrNotWatched = errors.New("reload: the config directory cannot be watched")
