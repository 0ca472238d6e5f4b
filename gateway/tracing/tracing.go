// Package tracing builds the gateway's OpenTelemetry trace pipeline from the
// tracing section of config.yaml and the standard OTEL_* environment
// variables: the SDK's TracerProvider with a sampler, a batching span
// processor and an OTLP exporter (HTTP/protobuf or gRPC). The spans
// themselves are started by gateway/middleware (one server span per
// request) and by the shared upstream client (one client span per attempt).
//
// With tracing off New returns nil: nothing is built, and the W3C trace
// context is still continued and passed on by the trace middleware.
package tracing

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/restgate/gateway/gateway/config"
)

// ScopeName is the instrumentation scope of the gateway's spans.
const ScopeName = "github.com/restgate/gateway"

// DefaultServiceName is service.name when neither tracing.serviceName nor
// OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) names the service.
const DefaultServiceName = "restgate"

// tracesPath is where an OTLP/HTTP collector takes spans.
const tracesPath = "/v1/traces"

// Tracing is a running trace pipeline. Build it with New; call Shutdown at
// exit so that the spans still batched are sent.
type Tracing struct {
	provider *sdktrace.TracerProvider
	// Settings is what New resolved, for the start log line.
	Settings Settings
}

// Settings are the resolved settings of a pipeline.
type Settings struct {
	// Protocol is config.ProtocolHTTP or config.ProtocolGRPC.
	Protocol string
	// Endpoint is the configured endpoint, or "" when the exporter reads
	// OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT or takes its default.
	Endpoint string
	// SampleRatio and ParentBased describe the sampler.
	SampleRatio float64
	ParentBased bool
}

// New builds the pipeline of cfg, or returns nil when tracing is off
// (cfg.Enabled false, or OTEL_SDK_DISABLED=true). getenv reads the OTEL_*
// variables this package resolves (protocol, sampler, SDK switch); the
// exporter and the resource read the rest (endpoint, headers, timeout,
// certificates, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) from the
// process environment themselves, so in production getenv is os.Getenv.
// Nothing is dialled here: an unreachable collector costs dropped spans,
// never a failed start or a slower request.
func New(ctx context.Context, cfg config.Tracing, getenv func(string) string, version string) (*Tracing, error) {
	if !cfg.Enabled || strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return nil, nil
	}
	s, err := resolve(cfg, getenv)
	if err != nil {
		return nil, err
	}
	exp, err := newExporter(ctx, s, cfg)
	if err != nil {
		return nil, fmt.Errorf("tracing: %w", err)
	}
	res, err := newResource(ctx, cfg.ServiceName, version)
	if err != nil {
		return nil, fmt.Errorf("tracing: resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp), // queue and batch sizes from OTEL_BSP_*
		sdktrace.WithResource(res),
		sdktrace.WithSampler(Sampler(s.SampleRatio, s.ParentBased)),
	)
	return &Tracing{provider: tp, Settings: s}, nil
}

// Sampler is the sampler of a ratio (0 to 1), following the caller's
// sampled flag when parentBased.
func Sampler(ratio float64, parentBased bool) sdktrace.Sampler {
	root := sdktrace.TraceIDRatioBased(ratio)
	if parentBased {
		return sdktrace.ParentBased(root)
	}
	return root
}

// Tracer is the tracer the gateway's spans start from; nil when t is nil
// (tracing off).
func (t *Tracing) Tracer() trace.Tracer {
	if t == nil {
		return nil
	}
	return t.provider.Tracer(ScopeName)
}

// Shutdown sends the spans still batched and stops the exporter, within
// ctx. A nil t does nothing.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil {
		return nil
	}
	return t.provider.Shutdown(ctx)
}

// resolve applies the environment's protocol and sampler where cfg leaves
// them unset.
func resolve(cfg config.Tracing, getenv func(string) string) (Settings, error) {
	s := Settings{Protocol: cfg.Protocol, Endpoint: cfg.Endpoint, SampleRatio: 1, ParentBased: true}
	if s.Protocol == "" {
		s.Protocol = firstEnv(getenv, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
		switch s.Protocol {
		case "":
			s.Protocol = config.ProtocolHTTP
		case config.ProtocolHTTP, config.ProtocolGRPC:
		default:
			return s, fmt.Errorf("tracing: OTEL_EXPORTER_OTLP_PROTOCOL %q: the gateway exports %s or %s",
				s.Protocol, config.ProtocolHTTP, config.ProtocolGRPC)
		}
	}
	if name := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER")); name != "" {
		ratio, parent, err := envSampler(name, strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG")))
		if err != nil {
			return s, fmt.Errorf("tracing: %w", err)
		}
		s.SampleRatio, s.ParentBased = ratio, parent
	}
	if cfg.SampleRatio != nil {
		s.SampleRatio = *cfg.SampleRatio
	}
	if cfg.ParentBased != nil {
		s.ParentBased = *cfg.ParentBased
	}
	return s, nil
}

// envSampler reads OTEL_TRACES_SAMPLER and its argument as the SDK
// specification defines them; samplers the gateway does not build
// (jaeger_remote, xray, ...) are refused rather than silently replaced.
func envSampler(name, arg string) (ratio float64, parentBased bool, err error) {
	base, parentBased := strings.CutPrefix(name, "parentbased_")
	switch base {
	case "always_on":
		return 1, parentBased, nil
	case "always_off":
		return 0, parentBased, nil
	case "traceidratio":
		if arg == "" {
			return 1, parentBased, nil
		}
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || !(r >= 0 && r <= 1) {
			return 0, false, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG %q is not a ratio from 0 to 1", arg)
		}
		return r, parentBased, nil
	}
	return 0, false, fmt.Errorf("OTEL_TRACES_SAMPLER %q: the gateway builds always_on, always_off, traceidratio "+
		"and their parentbased_ forms", name)
}

func firstEnv(getenv func(string) string, names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(getenv(n)); v != "" {
			return v
		}
	}
	return ""
}

// newExporter builds the OTLP exporter of s; what cfg leaves unset the
// exporter reads from the OTEL_EXPORTER_OTLP_* variables itself.
func newExporter(ctx context.Context, s Settings, cfg config.Tracing) (*otlptrace.Exporter, error) {
	if s.Protocol == config.ProtocolGRPC {
		var opts []otlptracegrpc.Option
		if cfg.Endpoint != "" {
			opts = append(opts, otlptracegrpc.WithEndpointURL(cfg.Endpoint))
		}
		if len(cfg.Headers) > 0 {
			opts = append(opts, otlptracegrpc.WithHeaders(cfg.Headers))
		}
		if cfg.Timeout > 0 {
			opts = append(opts, otlptracegrpc.WithTimeout(cfg.Timeout))
		}
		return otlptracegrpc.New(ctx, opts...)
	}
	var opts []otlptracehttp.Option
	if cfg.Endpoint != "" {
		u, err := httpEndpoint(cfg.Endpoint)
		if err != nil {
			return nil, err
		}
		opts = append(opts, otlptracehttp.WithEndpointURL(u))
	}
	if len(cfg.Headers) > 0 {
		opts = append(opts, otlptracehttp.WithHeaders(cfg.Headers))
	}
	if cfg.Timeout > 0 {
		opts = append(opts, otlptracehttp.WithTimeout(cfg.Timeout))
	}
	return otlptracehttp.New(ctx, opts...)
}

// httpEndpoint is the URL spans are posted to: raw with /v1/traces when it
// has no path of its own.
func httpEndpoint(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", errors.New("tracing.endpoint must be an absolute http(s) URL")
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = tracesPath
	}
	return u.String(), nil
}

// newResource describes the gateway: service.name from serviceName, else
// OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES, else DefaultServiceName;
// service.version; the SDK's name and version.
func newResource(ctx context.Context, serviceName, version string) (*resource.Resource, error) {
	opts := []resource.Option{
		resource.WithSchemaURL(semconv.SchemaURL),
		resource.WithAttributes(semconv.ServiceName(DefaultServiceName), semconv.ServiceVersion(version)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(),
	}
	if serviceName != "" {
		opts = append(opts, resource.WithAttributes(semconv.ServiceName(serviceName)))
	}
	return resource.New(ctx, opts...)
}
