package config

import (
	"net/url"
	"strings"
	"time"
)

// OTLP protocols of tracing.protocol.
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// Tracing configures OpenTelemetry traces: one server span per request and
// one client span per upstream attempt, exported over OTLP. Off by default;
// the W3C trace context (traceparent) is continued, sent upstream and
// returned either way. A key left unset falls back to the standard OTEL_*
// environment variable named in its comment, then to the SDK's default.
// Every key but recordUserId needs a restart; recordUserId reloads.
type Tracing struct {
	// Enabled exports spans. Default false. OTEL_SDK_DISABLED=true turns
	// tracing off whatever this says.
	Enabled bool `yaml:"enabled"`
	// Protocol is http/protobuf or grpc. Default: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
	// then OTEL_EXPORTER_OTLP_PROTOCOL, then http/protobuf.
	Protocol string `yaml:"protocol"`
	// Endpoint is the collector's URL, http:// (no TLS) or https://. For
	// http/protobuf, a URL without a path gets /v1/traces; one with a path
	// is used as it is. For grpc only the host and port count. Default:
	// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (as it is), then
	// OTEL_EXPORTER_OTLP_ENDPOINT (with /v1/traces for http), then
	// http://localhost:4318 (http/protobuf) or http://localhost:4317 (grpc).
	Endpoint string `yaml:"endpoint"`
	// Headers are sent with every export (an API key of a hosted backend,
	// from the environment). When set they replace OTEL_EXPORTER_OTLP_HEADERS
	// and OTEL_EXPORTER_OTLP_TRACES_HEADERS.
	Headers map[string]string `yaml:"headers"`
	// Timeout bounds one export. Default: OTEL_EXPORTER_OTLP_TRACES_TIMEOUT,
	// then OTEL_EXPORTER_OTLP_TIMEOUT, then 10s.
	Timeout time.Duration `yaml:"timeout"`
	// SampleRatio is the share of traces started here (or, with
	// parentBased false, of every trace) that are recorded, from 0 to 1.
	// Default: the ratio of OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG,
	// then 1.
	SampleRatio *float64 `yaml:"sampleRatio"`
	// ParentBased follows the caller's sampled flag when a request carries
	// a traceparent, so a trace is recorded whole or not at all; the ratio
	// then applies only to traces the gateway starts. Default: as
	// OTEL_TRACES_SAMPLER says (parentbased_*), then true.
	ParentBased *bool `yaml:"parentBased"`
	// ServiceName is the spans' service.name. Default: OTEL_SERVICE_NAME,
	// then "restgate".
	ServiceName string `yaml:"serviceName"`
	// RecordUserID adds the caller's user id to each server span
	// (enduser.id). Default false: traces often leave the organisation that
	// may see user ids. Reloads.
	RecordUserID bool `yaml:"recordUserId" reload:"yes"`
}

func validateTracing(p *problems, t *Tracing) {
	switch t.Protocol {
	case "", ProtocolHTTP, ProtocolGRPC:
	default:
		p.add("tracing.protocol", "must be %s or %s, not %q", ProtocolHTTP, ProtocolGRPC, t.Protocol)
	}
	if t.Endpoint != "" {
		checkURL(p, "tracing.endpoint", t.Endpoint)
		if u, err := url.Parse(t.Endpoint); err == nil && (u.RawQuery != "" || u.Fragment != "" || u.User != nil) {
			p.add("tracing.endpoint", "must have no query, fragment or user info (put credentials in tracing.headers)")
		}
	}
	for name, value := range t.Headers {
		if name == "" || strings.ContainsAny(name, " \t\r\n:") {
			p.add("tracing.headers", "%q is not a header name", name)
		}
		if strings.ContainsAny(value, "\r\n") {
			p.add("tracing.headers."+name, "must not contain a line break")
		}
	}
	if t.Timeout < 0 {
		p.add("tracing.timeout", "must not be negative")
	}
	if r := t.SampleRatio; r != nil && !(*r >= 0 && *r <= 1) {
		p.add("tracing.sampleRatio", "must be from 0 to 1, not %v", *r)
	}
}
