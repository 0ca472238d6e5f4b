package main

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// good is a rendering of the chart with every optional resource enabled.
func good(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/good.yaml")
	require.NoError(t, err)
	return string(b)
}

// edit replaces exactly one occurrence of old in s, so a test fails loudly
// when the fixture no longer holds the text it means to break.
func edit(t *testing.T, s, old, replacement string) string {
	t.Helper()
	require.Equal(t, 1, strings.Count(s, old), "fixture must contain %q exactly once", old)
	return strings.Replace(s, old, replacement, 1)
}

func TestRunGoodManifests(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	code := run([]string{"-config", "testdata/config.yaml"}, strings.NewReader(good(t)), &stdout, &stderr)
	assert.Equal(t, 0, code, stderr.String())
	for _, kind := range []string{"apps/v1/Deployment", "v1/Service", "v1/ConfigMap", "v1/ServiceAccount",
		"autoscaling/v2/HorizontalPodAutoscaler", "policy/v1/PodDisruptionBudget",
		"networking.k8s.io/v1/NetworkPolicy", "monitoring.coreos.com/v1/ServiceMonitor",
		"monitoring.coreos.com/v1/PrometheusRule", "networking.k8s.io/v1/Ingress",
		"gateway.networking.k8s.io/v1/HTTPRoute"} {
		assert.Contains(t, stdout.String(), kind)
	}
}

func TestRunRefusesBadManifests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		mutate  func(t *testing.T, s string) string
		wantErr error
		wantMsg string
	}{
		{desc: "unknown field in a Deployment spec", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "  revisionHistoryLimit: 5\n", "  revisionHistoryLimit: 5\n  replica: 3\n")
		}, wantMsg: `unknown field "replica"`},
		{desc: "misplaced field in a container", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "          imagePullPolicy: IfNotPresent\n", "          imagePullPolicy: IfNotPresent\n          livenesProbe: {}\n")
		}, wantMsg: `unknown field "livenesProbe"`},
		{desc: "unknown field in the ServiceMonitor", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "      scheme: http\n", "      scheme: http\n      honorLabel: true\n")
		}, wantMsg: `unknown field`},
		{desc: "wrong value type", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "  minReplicas: 2\n", "  minReplicas: two\n")
		}, wantMsg: "minReplicas"},
		{desc: "unknown kind", mutate: func(t *testing.T, s string) string {
			return s + "---\napiVersion: v1\nkind: Secret\nmetadata: {name: leaked}\nstringData: {jwt-secret: x}\n"
		}, wantErr: ErrUnknownKind},
		{desc: "old API version", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "apiVersion: policy/v1\n", "apiVersion: policy/v1beta1\n")
		}, wantErr: ErrUnknownKind},
		{desc: "writable root filesystem", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false")
		}, wantErr: ErrRule, wantMsg: "readOnlyRootFilesystem"},
		{desc: "config mounted with subPath", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "              mountPath: /etc/gateway\n", "              mountPath: /etc/gateway/config.yaml\n              subPath: config.yaml\n")
		}, wantErr: ErrRule, wantMsg: "subPath"},
		{desc: "credential as a literal value", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "            - name: GATEWAY_JWT_SECRET\n              valueFrom:\n                secretKeyRef:\n                  name: gateway-credentials\n                  key: jwt-secret\n                  optional: false\n",
				"            - name: GATEWAY_JWT_SECRET\n              value: 0123456789abcdef0123456789abcdef\n")
		}, wantErr: ErrRule, wantMsg: "GATEWAY_JWT_SECRET must come from a secretKeyRef"},
		{desc: "Redis URL (it holds the password) as a literal value", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "            - name: GATEWAY_MEMORY_LIMIT\n",
				"            - name: GATEWAY_REDIS_URL\n              value: redis://:hunter2@redis:6379/0\n            - name: GATEWAY_MEMORY_LIMIT\n")
		}, wantErr: ErrRule, wantMsg: "GATEWAY_REDIS_URL must come from a secretKeyRef"},
		{desc: "grace period shorter than the drain", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "terminationGracePeriodSeconds: 40", "terminationGracePeriodSeconds: 10")
		}, wantErr: ErrRule, wantMsg: "terminationGracePeriodSeconds"},
		{desc: "ServiceMonitor scrapes a port no Service has", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "    - port: admin\n      path: /metrics\n", "    - port: metrics\n      path: /metrics\n")
		}, wantErr: ErrRule, wantMsg: `port named "metrics"`},
		{desc: "HPA scales another Deployment", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "    kind: Deployment\n    name: gw-gateway\n", "    kind: Deployment\n    name: other\n")
		}, wantErr: ErrRule, wantMsg: "scales Deployment/other"},
		{desc: "unknown field in a PrometheusRule's rule", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "          for: 15m\n", "          for: 15m\n          severity: page\n")
		}, wantMsg: `unknown field "severity"`},
		{desc: "a rule both recording and alerting", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "        - alert: GatewayBreakerOpen\n", "        - alert: GatewayBreakerOpen\n          record: gateway:breaker:open\n")
		}, wantErr: ErrRule, wantMsg: "exactly one of record and alert"},
		{desc: "a duration Prometheus cannot read", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "          for: 15m\n", "          for: 15 minutes\n")
		}, wantErr: ErrRule, wantMsg: `"15 minutes" is not a Prometheus duration`},
		{desc: "two groups of one name", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "    - name: gateway.alerts\n", "    - name: gateway.recording\n")
		}, wantErr: ErrRule, wantMsg: "repeated"},
		{desc: "no documents", mutate: func(t *testing.T, s string) string { return "# nothing\n---\n" }},
		{desc: "an empty map is null", mutate: func(t *testing.T, s string) string {
			// The pod template's annotations emptied: what the chart rendered without podAnnotations.
			start := strings.Index(s, "      annotations:\n        checksum/config:")
			require.Positive(t, start)
			end := start + strings.Index(s[start:], "      labels:\n")
			return s[:start] + "      annotations:\n" + s[end:]
		}, wantErr: ErrNull, wantMsg: "null value at /spec/template/metadata/annotations"},
		{desc: "an explicit null in a list", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "    - name: public\n", "    - ~\n    - name: public\n")
		}, wantErr: ErrNull, wantMsg: "gateway/templates/httproute.yaml: null value at /spec/parentRefs/0"},
		{desc: "a null under a key with a slash", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "        example.com/team: api\n", "        example.com/team: null\n")
		}, wantErr: ErrNull, wantMsg: "null value at /spec/template/metadata/annotations/example.com~1team"},
		{desc: "the Ingress leads to the admin port by name", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "                port:\n                  name: api\n", "                port:\n                  name: admin\n")
		}, wantErr: ErrRule, wantMsg: `Ingress gw-gateway host "api.example.com" path "/": leads to the admin listener`},
		{desc: "the Ingress leads to the admin port by number", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "                port:\n                  name: api\n", "                port:\n                  number: 9090\n")
		}, wantErr: ErrRule, wantMsg: "leads to the admin listener (Service gw-gateway port admin)"},
		{desc: "the Ingress has a default backend on the admin port", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "spec:\n  rules:\n    - http:\n", "spec:\n  defaultBackend:\n    service: {name: gw-gateway, port: {name: admin}}\n  rules:\n    - http:\n")
		}, wantErr: ErrRule, wantMsg: "Ingress gw-gateway defaultBackend: leads to the admin listener"},
		{desc: "the Ingress leads to a port the Service lacks", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "                port:\n                  name: api\n", "                port:\n                  name: https\n")
		}, wantErr: ErrRule, wantMsg: "Service gw-gateway has no port https"},
		{desc: "the Ingress leads to a Service not rendered", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "              service:\n                name: gw-gateway\n", "              service:\n                name: gw-admin\n")
		}, wantErr: ErrRule, wantMsg: `leads to Service "gw-admin", which is not rendered`},
		{desc: "the HTTPRoute leads to the admin port", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "          port: 8443\n", "          port: 9090\n")
		}, wantErr: ErrRule, wantMsg: "HTTPRoute gw-gateway rule 0 backendRef: leads to the admin listener"},
		{desc: "the HTTPRoute mirrors to the admin port", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "          port: 8443\n", "          port: 8443\n      filters:\n        - type: RequestMirror\n          requestMirror:\n            backendRef: {name: gw-gateway, port: 9090}\n")
		}, wantErr: ErrRule, wantMsg: "HTTPRoute gw-gateway rule 0 requestMirror: leads to the admin listener"},
		{desc: "the HTTPRoute leads to another kind", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "        - name: gw-gateway\n          port: 8443\n", "        - name: gw-gateway\n          kind: ServiceImport\n          group: multicluster.x-k8s.io\n          port: 8443\n")
		}, wantErr: ErrRule, wantMsg: "backend gw-gateway is not a Service"},
		{desc: "the HTTPRoute leads to another namespace", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "        - name: gw-gateway\n          port: 8443\n", "        - name: gw-gateway\n          namespace: monitoring\n          port: 8443\n")
		}, wantErr: ErrRule, wantMsg: "names namespace monitoring"},
		{desc: "the HTTPRoute's backend has no port", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "        - name: gw-gateway\n          port: 8443\n", "        - name: gw-gateway\n")
		}, wantErr: ErrRule, wantMsg: "backend gw-gateway has no port"},
		{desc: "the Service's api port targets the admin container port", mutate: func(t *testing.T, s string) string {
			return edit(t, s, "      targetPort: api\n", "      targetPort: 9090\n")
		}, wantErr: ErrRule, wantMsg: "leads to the admin listener (Service gw-gateway port api)"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			in := tc.mutate(t, good(t))
			var stdout, stderr bytes.Buffer
			assert.Equal(t, 1, run(nil, strings.NewReader(in), &stdout, &stderr))
			assert.Contains(t, stderr.String(), tc.wantMsg)
			if tc.wantErr != nil {
				_, err := Validate([]byte(in))
				assert.True(t, errors.Is(err, tc.wantErr), "got %v", err)
			}
		})
	}
}

func TestDocumentErrorNamesTheTemplate(t *testing.T) {
	t.Parallel()
	in := edit(t, good(t), "  revisionHistoryLimit: 5\n", "  revisionHistoryLimit: 5\n  replica: 3\n")
	_, err := Decode([]byte(in))
	var de *DocumentError
	require.True(t, errors.As(err, &de))
	assert.Equal(t, "gateway/templates/deployment.yaml", de.Source)
}

func TestConfigMustEqualTheFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		file string
		want int
	}{
		{desc: "the shipped copy", file: "testdata/config.yaml", want: 0},
		{desc: "another file", file: "testdata/good.yaml", want: 1},
		{desc: "a missing file", file: "testdata/missing.yaml", want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			assert.Equal(t, tc.want, run([]string{"-config", tc.file}, strings.NewReader(good(t)), &stdout, &stderr), stderr.String())
		})
	}
}

func TestRulesMustEqualTheFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		manifest func(t testing.TB) string
		file     string
		want     int
	}{
		{desc: "the shipped copy", manifest: good, file: "testdata/prometheus-rules.yaml", want: 0},
		{desc: "an edited rule", file: "testdata/prometheus-rules.yaml", want: 1, manifest: func(t testing.TB) string {
			return strings.Replace(good(t), "          for: 15m\n", "          for: 20m\n", 1)
		}},
		{desc: "no PrometheusRule rendered", file: "testdata/prometheus-rules.yaml", want: 1, manifest: func(t testing.TB) string {
			g := good(t)
			return g[:strings.Index(g, "---\n# Source: gateway/templates/prometheusrule.yaml")]
		}},
		{desc: "a missing file", manifest: good, file: "testdata/missing.yaml", want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run([]string{"-rules", tc.file}, strings.NewReader(tc.manifest(t)), &stdout, &stderr)
			assert.Equal(t, tc.want, code, stderr.String())
		})
	}
}
