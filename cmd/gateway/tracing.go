package main

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/otel"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/tracing"
)

// startTracing builds the trace pipeline of cfg (nil when tracing is off)
// and sends the SDK's own errors (a collector that refuses or cannot be
// reached) to the gateway's log. The error handler is the SDK's one
// process-wide setting; the process has one pipeline.
func startTracing(ctx context.Context, cfg config.Tracing, getenv func(string) string, version string, logger *slog.Logger) (*tracing.Tracing, error) {
	tr, err := tracing.New(ctx, cfg, getenv, version)
	if err != nil || tr == nil {
		return nil, err
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		logger.Warn("trace export failed; spans are dropped, requests are not affected", "err", err)
	}))
	s := tr.Settings
	endpoint := s.Endpoint
	if endpoint == "" {
		endpoint = "from OTEL_EXPORTER_OTLP_* or the exporter's default"
	}
	logger.Info("tracing on", "protocol", s.Protocol, "endpoint", endpoint, "sample_ratio", s.SampleRatio,
		"parent_based", s.ParentBased)
	return tr, nil
}

// stopTracing sends the spans still batched, within a few seconds.
func stopTracing(tr *tracing.Tracing, logger *slog.Logger) {
	if tr == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tr.Shutdown(ctx); err != nil {
		logger.Warn("spans not fully exported at exit", "err", err)
	}
}
