package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chartDir is the chart these tests install; ciValues its values files,
// each a whole install (the five backend URLs included).
const (
	chartDir = "../helm/gateway"
	ciValues = "../helm/gateway/ci"
)

// helmBinary is the helm of $HELM (deploy/ci.sh builds v3.22.0 and sets
// it). Without it the tests skip, or fail under CI=true.
func helmBinary(t *testing.T) string {
	t.Helper()
	h := os.Getenv("HELM")
	if h == "" {
		if p, err := exec.LookPath("helm"); err == nil {
			h = p
		}
	}
	if h == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("helm not found: set HELM to a helm v3.22 binary (deploy/ci.sh builds one)")
		}
		t.Skip("helm not found: set HELM to a helm v3.22 binary (deploy/ci.sh builds one) to test the chart")
	}
	return h
}

// apiServer stands in for a cluster's API server: it answers what helm
// reads before it installs (version, discovery, the release history) and
// records every request that would change something, which must never
// come for values the chart refuses.
type apiServer struct {
	kubeconfig string
	mu         sync.Mutex
	writes     []string
}

// discovery is what the stand-in API server serves: group version ->
// kind -> resource, the kinds the chart renders (with the Gateway API and
// Prometheus Operator CRDs installed).
var discovery = map[string]map[string]string{
	"v1":                           {"Secret": "secrets", "Service": "services", "ConfigMap": "configmaps", "ServiceAccount": "serviceaccounts"},
	"apps/v1":                      {"Deployment": "deployments"},
	"autoscaling/v2":               {"HorizontalPodAutoscaler": "horizontalpodautoscalers"},
	"policy/v1":                    {"PodDisruptionBudget": "poddisruptionbudgets"},
	"networking.k8s.io/v1":         {"NetworkPolicy": "networkpolicies", "Ingress": "ingresses"},
	"gateway.networking.k8s.io/v1": {"HTTPRoute": "httproutes"},
	"monitoring.coreos.com/v1":     {"ServiceMonitor": "servicemonitors", "PrometheusRule": "prometheusrules"},
}

func newAPIServer(t *testing.T) *apiServer {
	t.Helper()
	s := &apiServer{}
	answers := map[string]any{
		"/version":                           map[string]any{"major": "1", "minor": "37", "gitVersion": "v1.37.2"},
		"/api":                               map[string]any{"kind": "APIVersions", "versions": []string{"v1"}, "serverAddressByClientCIDRs": []any{}},
		"/api/v1/namespaces/default/secrets": map[string]any{"kind": "SecretList", "apiVersion": "v1", "metadata": map[string]any{}, "items": []any{}},
	}
	var groups []any
	for gv, kinds := range discovery {
		var resources []any
		for kind, name := range kinds {
			resources = append(resources, map[string]any{"name": name, "singularName": strings.ToLower(kind), "namespaced": true,
				"kind": kind, "verbs": []string{"get", "list", "create", "update", "patch", "delete"}})
		}
		list := map[string]any{"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}
		group, version, grouped := strings.Cut(gv, "/")
		if !grouped {
			answers["/api/"+gv] = list
			continue
		}
		answers["/apis/"+gv] = list
		v := map[string]any{"groupVersion": gv, "version": version}
		groups = append(groups, map[string]any{"name": group, "versions": []any{v}, "preferredVersion": v})
	}
	answers["/apis"] = map[string]any{"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			s.mu.Lock()
			s.writes = append(s.writes, r.Method+" "+r.URL.Path)
			s.mu.Unlock()
			http.Error(w, "this API server takes no writes", http.StatusForbidden)
			return
		}
		answer, ok := answers[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(answer)
	}))
	t.Cleanup(srv.Close)
	s.kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	config := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"" + srv.URL + "\"}}]\n" +
		"contexts: [{name: c, context: {cluster: c, user: u, namespace: default}}]\ncurrent-context: c\nusers: [{name: u, user: {}}]\n"
	require.NoError(t, os.WriteFile(s.kubeconfig, []byte(config), 0o600))
	return s
}

func (s *apiServer) writesSeen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.writes...)
}

// helm runs helm with its state in a temporary home and kubeconfig, and
// returns its exit error and its output (stdout and stderr).
func helm(t *testing.T, bin, kubeconfig string, args ...string) (string, error) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "HELM_CACHE_HOME="+home, "HELM_CONFIG_HOME="+home, "HELM_DATA_HOME="+home)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

// TestChartRefusesBadValues checks that helm lint, helm template and a real
// helm install refuse each value naming its path, and that the install
// sends nothing to the cluster first.
func TestChartRefusesBadValues(t *testing.T) {
	t.Parallel()
	bin := helmBinary(t)
	api := newAPIServer(t)
	urls := []string{"-f", filepath.Join(ciValues, "default-values.yaml")}
	tests := []struct {
		desc       string
		args       []string
		wantMsg    string
		lintPasses bool
	}{
		{desc: "no backend URLs", wantMsg: "at '/env': missing properties 'ACCOUNTS_URL', 'WORKFLOW_URL', 'DATA_URL', 'FILES_URL', 'FEED_URL'"},
		{desc: "replicaCount while autoscaling", args: append(urls, "--set", "replicaCount=3"), wantMsg: "at '/replicaCount': false schema"},
		{desc: "a misspelt value", args: append(urls, "--set", "ingres.enabled=true"), wantMsg: "at '': additional properties 'ingres' not allowed"},
		{desc: "a misspelt nested value", args: append(urls, "--set", "autoscaling.minReplica=3"), wantMsg: "at '/autoscaling': additional properties 'minReplica' not allowed"},
		{desc: "a mistyped value", args: append(urls, "--set", "autoscaling.enabled=false", "--set", "replicaCount=two"), wantMsg: "at '/replicaCount': got string, want integer"},
		{desc: "a sandbox URL", args: append(urls, "--set", "env.FEED_URL=sandbox"), wantMsg: "at '/env/FEED_URL': 'sandbox' does not match pattern"},
		{desc: "an empty URL", args: append(urls, "--set", "env.FEED_URL="), wantMsg: "at '/env/FEED_URL': '' does not match pattern"},
		{desc: "an environment variable the chart sets", args: append(urls, "--set", "env.GATEWAY_TLS=off"), wantMsg: "at '/env/GATEWAY_TLS': false schema"},
		{desc: "a credential as plain environment", args: append(urls, "--set", "env.GATEWAY_JWT_SECRET=s3cret"), wantMsg: "at '/env/GATEWAY_JWT_SECRET': false schema"},
		{desc: "the console's token as plain environment", args: append(urls, "--set", "env.GATEWAY_ADMIN_TOKEN=0123456789abcdef0123456789abcdef"), wantMsg: "at '/env/GATEWAY_ADMIN_TOKEN': false schema"},
		{desc: "auth none", args: append(urls, "--set", "auth.mode=none"), wantMsg: "at '/auth/mode': value must be one of 'jwt', 'apikey'"},
		{desc: "an unknown TLS mode", args: append(urls, "--set", "tls.mode=plain"), wantMsg: "at '/tls/mode': value must be one of 'auto', 'off', 'files'"},
		{desc: "TLS files without a Secret", args: append(urls, "--set", "tls.mode=files"), wantMsg: "at '/tls/secretName': minLength: got 0, want 1"},
		{desc: "Redis without a Secret", args: append(urls, "--set", "cluster.store=redis"), wantMsg: "at '/cluster/redis/existingSecret': minLength: got 0, want 1"},
		{desc: "an unknown store", args: append(urls, "--set", "cluster.store=etcd"), wantMsg: "at '/cluster/store': value must be one of 'memory', 'redis'"},
		{desc: "sentinel mode without sentinels", args: append(urls, "--set", "cluster.store=redis", "--set", "cluster.redis.existingSecret=r", "--set", "cluster.redis.mode=sentinel"),
			wantMsg: "at '/cluster/redis/addrs': minLength: got 0, want 1"},
		{desc: "credentials without their Secret", args: append(urls, "--set", "secrets.existingSecret="), wantMsg: "at '/secrets/existingSecret': minLength: got 0, want 1"},
		{desc: "no concurrent uploads", args: append(urls, "--set", "uploads.maxConcurrent=0"), wantMsg: "at '/uploads/maxConcurrent': minimum: got 0, want 1"},
		// Two values compared: beyond a JSON schema, so a template check, which helm lint
		// (3.22) reports as "[INFO] Fail:" without failing.
		{desc: "a spool smaller than an upload", args: append(urls, "--set", "uploads.spoolMiB=512"), wantMsg: "uploads.spoolMiB (512) must be at least uploads.maxMiB (1024)",
			lintPasses: true},
		{desc: "jwt-bearer without its key", args: append(urls, "--set", "env.DATA_OAUTH_FLOW=jwt-bearer"), wantMsg: "at '/oauth/privateKeySecretKey': minLength: got 0, want 1"},
		{desc: "ephemeral storage set by hand", args: append(urls, "--set", "resources.requests.ephemeral-storage=1Gi"), wantMsg: "at '/resources/requests': additional properties 'ephemeral-storage' not allowed"},
		{desc: "an Ingress without hosts", args: append(urls, "--set", "ingress.enabled=true"), wantMsg: "at '/ingress/hosts': minItems: got 0, want 1"},
		{desc: "an Ingress path type", args: append(urls, "--set", "ingress.enabled=true", "--set-json", `ingress.hosts=[{"host":"a.example.com","paths":[{"path":"/","pathType":"Regex"}]}]`),
			wantMsg: "at '/ingress/hosts/0/paths/0/pathType': value must be one of 'Prefix', 'Exact', 'ImplementationSpecific'"},
		{desc: "an HTTPRoute without a Gateway", args: append(urls, "--set", "httpRoute.enabled=true"), wantMsg: "at '/httpRoute/parentRefs': minItems: got 0, want 1"},
		{desc: "a misspelt parentRef", args: append(urls, "--set", "httpRoute.enabled=true", "--set-json", `httpRoute.parentRefs=[{"nam":"public"}]`),
			wantMsg: "at '/httpRoute/parentRefs/0': missing property 'name'"},
		{desc: "an unknown anti-affinity", args: append(urls, "--set", "podAntiAffinity.mode=strict"), wantMsg: "at '/podAntiAffinity/mode': value must be one of 'soft', 'hard', 'none'"},
		{desc: "a list for a map", args: append(urls, "--set-json", "podAnnotations=[]"), wantMsg: "at '/podAnnotations': got array, want object"},
		{desc: "a misspelt field of a Kubernetes object", args: append(urls, "--set", "securityContext.readOnlyRootFilesytem=true"),
			wantMsg: "at '/securityContext': additional properties 'readOnlyRootFilesytem' not allowed"},
		{desc: "a mistyped field of a Kubernetes object", args: append(urls, "--set", "podSecurityContext.runAsUser=nonroot"),
			wantMsg: "at '/podSecurityContext/runAsUser': got string, want integer"},
		{desc: "a misspelt toleration", args: append(urls, "--set", "tolerations[0].efect=NoSchedule"),
			wantMsg: "at '/tolerations/0': additional properties 'efect' not allowed"},
		{desc: "a misspelt NetworkPolicy peer", args: append(urls, "--set-json", `networkPolicy.adminFrom=[{"namespaceSelecter":{}}]`),
			wantMsg: "at '/networkPolicy/adminFrom/0': additional properties 'namespaceSelecter' not allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			commands := map[string][]string{
				"lint":     append([]string{"lint", "--strict", chartDir}, tc.args...),
				"template": append([]string{"template", "gw", chartDir}, tc.args...),
				"install":  append([]string{"install", "gw", chartDir}, tc.args...),
			}
			for name, args := range commands {
				out, err := helm(t, bin, api.kubeconfig, args...)
				if name == "lint" && tc.lintPasses {
					assert.NoError(t, err, out)
					assert.Contains(t, out, "[INFO] Fail: "+tc.wantMsg)
					continue
				}
				assert.Error(t, err, "helm %s accepted %v:\n%s", name, tc.args, out)
				assert.Contains(t, out, tc.wantMsg, "helm %s", name)
			}
		})
	}
	t.Cleanup(func() { assert.Empty(t, api.writesSeen(), "helm install sent these before refusing") })
}

// TestChartTemplateChecksWithoutTheSchema checks that the templates refuse
// what cannot start even when the schema is skipped
// (--skip-schema-validation), with a message saying what to set.
func TestChartTemplateChecksWithoutTheSchema(t *testing.T) {
	t.Parallel()
	bin := helmBinary(t)
	urls := []string{"-f", filepath.Join(ciValues, "default-values.yaml")}
	tests := []struct {
		desc    string
		args    []string
		wantMsg string
	}{
		{desc: "no backend URLs", wantMsg: "env.ACCOUNTS_URL is required"},
		{desc: "a sandbox URL", args: append(urls, "--set", "env.DATA_URL=sandbox"), wantMsg: `env.DATA_URL is "sandbox"`},
		{desc: "replicaCount while autoscaling", args: append(urls, "--set", "replicaCount=3"), wantMsg: "replicaCount is ignored while autoscaling.enabled is true"},
		{desc: "auth none", args: append(urls, "--set", "auth.mode=none"), wantMsg: "auth.mode must be jwt or apikey"},
		{desc: "an Ingress without hosts", args: append(urls, "--set", "ingress.enabled=true"), wantMsg: "ingress.enabled needs ingress.hosts"},
		{desc: "an HTTPRoute without a Gateway", args: append(urls, "--set", "httpRoute.enabled=true"), wantMsg: "httpRoute.enabled needs httpRoute.parentRefs"},
		{desc: "an unknown anti-affinity", args: append(urls, "--set", "podAntiAffinity.mode=strict"), wantMsg: `podAntiAffinity.mode must be soft, hard or none, not "strict"`},
	}
	for _, tc := range tests {
		t.Run(tc.desc, func(t *testing.T) {
			t.Parallel()
			out, err := helm(t, bin, "", append([]string{"template", "gw", chartDir, "--skip-schema-validation"}, tc.args...)...)
			assert.Error(t, err, out)
			assert.Contains(t, out, tc.wantMsg)
		})
	}
}

// TestChartInstallsEveryCIValues lints each CI values file and installs it
// (--dry-run=client) against the stand-in API server, checking the notes
// say how to reach the gateway.
func TestChartInstallsEveryCIValues(t *testing.T) {
	t.Parallel()
	bin := helmBinary(t)
	api := newAPIServer(t)
	notes := map[string][]string{
		"default-values.yaml": {"port-forward svc/gw-gateway 8443:8443", "https://127.0.0.1:8443/v2/settings/endpoints",
			"on service port 9090, for the cluster only"},
		"fixed-replicas-values.yaml": {"port-forward svc/gw-gateway"},
		"full-values.yaml": {"through the Ingress gw-gateway:\n  http://api.example.com/\n",
			"through the HTTPRoute gw-gateway, attached to Gateway gateway-system/public:\n  every host name of the parent listeners"},
		"ingress-values.yaml": {"through the Ingress gw-gateway (class nginx):\n  https://api.example.com/v1\n  https://api.example.com/v2\n  http://api.example.org/\n",
			"The API listener speaks HTTPS (files)"},
		"httproute-values.yaml": {"through the HTTPRoute gw-gateway, attached to Gateway gateway-system/public (listener https):\n  https://api.example.com/",
			"get httproute gw-gateway"},
		"redis-values.yaml": {"Shared store: per-user rate limits and duplicate detection are shared through Redis"},
		"tls-values.yaml":   {"port-forward svc/gw-gateway"},
	}
	files, err := filepath.Glob(filepath.Join(ciValues, "*-values.yaml"))
	require.NoError(t, err)
	require.Len(t, files, len(notes), "every CI values file has its expected notes here")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			out, err := helm(t, bin, api.kubeconfig, "lint", "--strict", chartDir, "-f", f)
			require.NoError(t, err, out)
			out, err = helm(t, bin, api.kubeconfig, "install", "gw", chartDir, "-f", f, "--dry-run=client", "--disable-openapi-validation")
			require.NoError(t, err, out)
			_, text, ok := strings.Cut(out, "\nNOTES:\n")
			require.True(t, ok, out)
			want, ok := notes[filepath.Base(f)]
			require.True(t, ok, "no expected notes for %s", f)
			for _, w := range want {
				assert.Contains(t, text, w)
			}
			if !strings.Contains(f, "ingress") && !strings.Contains(f, "full") {
				assert.NotContains(t, text, "through the Ingress")
			}
			if !strings.Contains(f, "httproute") && !strings.Contains(f, "full") {
				assert.NotContains(t, text, "through the HTTPRoute")
			}
		})
	}
	t.Cleanup(func() { assert.Empty(t, api.writesSeen(), "a dry run sent these") })
}

// TestDeployGuideValuesInstall renders the chart with each values block
// of the deploy guide (on top of the default ci values, for the URLs), so
// the guide cannot show values the chart refuses.
func TestDeployGuideValuesInstall(t *testing.T) {
	t.Parallel()
	bin := helmBinary(t)
	guide, err := os.ReadFile("../../docs/guides/deploy.md")
	require.NoError(t, err)
	blocks := strings.Split(string(guide), "```yaml\n")[1:]
	require.GreaterOrEqual(t, len(blocks), 3, "the install, the Ingress and the HTTPRoute")
	for i, b := range blocks {
		block, _, ok := strings.Cut(b, "```\n")
		require.True(t, ok)
		t.Run(fmt.Sprintf("block %d", i+1), func(t *testing.T) {
			t.Parallel()
			f := filepath.Join(t.TempDir(), "values.yaml")
			require.NoError(t, os.WriteFile(f, []byte(block), 0o600))
			out, err := helm(t, bin, "", "template", "gw", chartDir, "-f", filepath.Join(ciValues, "default-values.yaml"), "-f", f)
			require.NoError(t, err, "%s\n%s", block, out)
			objs, err := Validate([]byte(out))
			require.NoError(t, err)
			assert.NotEmpty(t, objs)
		})
	}
}

// TestChartAsADependency checks the schema as a parent chart uses the
// chart: Helm hands it the parent's global values, which it must accept,
// and still refuses a misspelt value under the dependency's key.
func TestChartAsADependency(t *testing.T) {
	t.Parallel()
	bin := helmBinary(t)
	parent := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(parent, "charts", "gateway"), os.DirFS(chartDir)))
	require.NoError(t, os.WriteFile(filepath.Join(parent, "Chart.yaml"), []byte("apiVersion: v2\nname: platform\nversion: 1.0.0\n"), 0o600))
	urls, err := os.ReadFile(filepath.Join(ciValues, "default-values.yaml"))
	require.NoError(t, err)
	values := "global:\n  team: api\ngateway:\n" + indent(string(urls), "  ")
	require.NoError(t, os.WriteFile(filepath.Join(parent, "values.yaml"), []byte(values), 0o600))

	out, err := helm(t, bin, "", "template", "p", parent)
	require.NoError(t, err, out)
	_, err = Validate([]byte(out))
	require.NoError(t, err)

	out, err = helm(t, bin, "", "template", "p", parent, "--set", "gateway.ingres.enabled=true")
	require.Error(t, err, out)
	assert.Contains(t, out, "at '': additional properties 'ingres' not allowed")
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n") + "\n"
}
