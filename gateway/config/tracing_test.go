package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateTracing(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, yaml, want string
	}{
		{desc: "off by default", yaml: ""},
		{desc: "every key", yaml: `tracing: {enabled: true, protocol: grpc, endpoint: "http://otel-collector:4317",
  headers: {x-api-key: k}, timeout: 5s, sampleRatio: 0.01, parentBased: false, serviceName: gw, recordUserId: true}`},
		{desc: "ratio above 1", yaml: "tracing: {sampleRatio: 1.5}", want: "tracing.sampleRatio: must be from 0 to 1"},
		{desc: "negative ratio", yaml: "tracing: {sampleRatio: -0.1}", want: "tracing.sampleRatio: must be from 0 to 1"},
		{desc: "unknown protocol", yaml: "tracing: {protocol: http/json}", want: "tracing.protocol: must be http/protobuf or grpc"},
		{desc: "endpoint without a scheme", yaml: "tracing: {endpoint: collector:4318}", want: "tracing.endpoint: must be an absolute http(s) URL"},
		{desc: "credentials in the endpoint", yaml: `tracing: {endpoint: "https://u:p@otlp.example"}`, want: "tracing.endpoint: must have no query"},
		{desc: "header name", yaml: `tracing: {headers: {"a b": x}}`, want: "tracing.headers: \"a b\" is not a header name"},
		{desc: "negative timeout", yaml: "tracing: {timeout: -1s}", want: "tracing.timeout: must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			cfg, err := Parse([]byte("versions: [v1]\n"+tt.yaml), env(nil))
			require.NoError(t, err)
			if tt.want == "" {
				assert.NoError(t, Validate(cfg))
				return
			}
			assert.ErrorContains(t, Validate(cfg), tt.want)
		})
	}
}

func TestTracingKeysAreStrict(t *testing.T) {
	t.Parallel()
	_, err := Parse([]byte("versions: [v1]\ntracing: {enabled: true, sampler: always_on}\n"), env(nil))
	assert.ErrorContains(t, err, "tracing.sampler")
}
