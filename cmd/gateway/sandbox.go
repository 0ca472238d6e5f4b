package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/upstreams"
)

// errNoSandbox is what an upstream whose url is "sandbox" gets from a
// binary built with -tags nosandbox.
var errNoSandbox = errors.New(`"sandbox" needs a build with the sandbox (this binary was built with -tags nosandbox)`)

// sandboxServer is the running embedded sandbox (sandbox.Server).
type sandboxServer interface {
	URL(name, flavour string) (string, error)
	Close(ctx context.Context) error
}

// sandboxes starts the embedded reference backends the first time an
// upstream asks for them (startSandbox: sandbox.Start, or errNoSandbox in a
// build without the sandbox).
type sandboxes struct {
	mu      sync.Mutex
	dataDir string
	logger  *slog.Logger
	// apiLimit is the sandbox org's allowance of API requests per 24
	// hours (GATEWAY_SANDBOX_API_LIMIT); 0: its default.
	apiLimit int
	srv      sandboxServer
}

// sandboxAPILimit reads GATEWAY_SANDBOX_API_LIMIT, the sandbox org's
// allowance of API requests per rolling 24 hours: empty is the default
// (15000, a Developer Edition's).
func sandboxAPILimit(getenv func(string) string) (int, error) {
	v := strings.TrimSpace(getenv("GATEWAY_SANDBOX_API_LIMIT"))
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("GATEWAY_SANDBOX_API_LIMIT: must be a positive number of API requests per 24 hours, not %q", v)
	}
	return n, nil
}

func (s *sandboxes) url(name, flavour string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv == nil {
		srv, err := startSandbox(s.dataDir, s.logger, s.apiLimit)
		if err != nil {
			return "", err
		}
		s.srv = srv
	}
	return s.srv.URL(name, flavour)
}

func (s *sandboxes) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.srv.Close(ctx)
	}
}

// sandboxCheck is the routes.Check of a binary whose sandbox is built or
// not: without it, every upstream whose url is "sandbox" is a problem at
// its key path (in name order).
func sandboxCheck(built bool) routes.Check {
	return func(cfg *config.Config) []error { return sandboxProblems(cfg.Upstreams, built) }
}

// sandboxProblems lists, by key path and in name order, every upstream of
// ups whose url is "sandbox" (or a flavour of it) when built says this
// binary has no sandbox;
// nil otherwise.
func sandboxProblems(ups map[string]upstreams.Settings, built bool) []error {
	if built {
		return nil
	}
	var names []string
	for name, s := range ups {
		if _, ok := upstreams.SandboxFlavour(s.URL); ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var problems []error
	for _, name := range names {
		problems = append(problems, fmt.Errorf("upstreams.%s.url: %w", name, errNoSandbox))
	}
	return problems
}
