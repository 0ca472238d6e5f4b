package desync

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/app"
	"github.com/restgate/gateway/gateway/calllog"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/duplicates"
	"github.com/restgate/gateway/gateway/metrics"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/gateway/server"
)

// engines are the two positions of the engine switches.
var engines = []string{config.HTTP1Fast, config.HTTP1Std}

// shippedConfig is the config the gateway ships with.
const shippedConfig = "../../config.yaml"

// discardLog is a call log that keeps nothing.
type discardLog struct{}

func (discardLog) Enqueue(calllog.Entry) {}

// startGateway runs the shipped config (auth none, plain HTTP) with every
// upstream at backend, on engine for its API listener and its upstream
// transports, and returns the listener's address. The accounts breaker
// never opens: a hostile backend's failures must reach the caller as
// they are, not as an open breaker.
func startGateway(t *testing.T, engine, backend string) string {
	t.Helper()
	env := map[string]string{"GATEWAY_TLS": "off", "GATEWAY_DATA_DIR": t.TempDir(),
		"ACCOUNTS_URL": backend, "WORKFLOW_URL": backend, "DATA_URL": backend, "FILES_URL": backend, "FEED_URL": backend}
	cfg, err := config.Load(shippedConfig, func(k string) string { return env[k] })
	require.NoError(t, err)
	cfg.Server.HTTP1 = engine
	for name, s := range cfg.Upstreams {
		s.Transport = engine
		s.Breaker.ConsecutiveFailures = 1 << 30
		s.Breaker.MinRequests = math.MaxUint32 // the ratio rule out of reach too
		cfg.Upstreams[name] = s
	}
	require.NoError(t, config.Validate(cfg))
	table, err := routes.Build(cfg)
	require.NoError(t, err)

	m, err := metrics.New(prometheus.NewRegistry(), metrics.BuildInfo{})
	require.NoError(t, err)
	logger := slog.New(slog.DiscardHandler)
	sh := &app.Shared{Logger: logger, Metrics: m, CallLog: discardLog{}, Duplicates: duplicates.New(time.Minute, 1000),
		Upstreams: app.NewUpstreamSet(m, func(string, string) (string, error) { return "", errors.New("no sandbox here") })}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	gw, err := app.Build(ctx, cfg, table, sh)
	require.NoError(t, err)

	cfg.Server.Listen, cfg.Server.AdminListen = "127.0.0.1:0", "127.0.0.1:0"
	s, err := server.Listen(cfg.Server, nil, gw.Handler, http.NotFoundHandler(), logger)
	require.NoError(t, err)
	serveCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- s.Serve(serveCtx, func() (context.Context, context.CancelFunc) {
			// connections a proxy keeps open are closed when idle; a
			// request cut in the middle by an attack waits for its head
			// timeout at most
			return context.WithTimeout(context.Background(), 10*time.Second)
		})
	}()
	t.Cleanup(func() {
		stop()
		assert.NoError(t, <-done)
	})
	return s.APIAddr()
}
