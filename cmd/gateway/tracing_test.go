package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/tracing/tracingtest"
)

// TestServeExportsSpans runs serve with tracing on against an OTLP/HTTP
// collector: a request's server and client spans reach it by the time serve
// returns (the batch is flushed at exit), under the configured service name.
func TestServeExportsSpans(t *testing.T) {
	t.Parallel()
	backend, collector, rcv := spanBackends(t)

	dir := t.TempDir()
	api, admin := freeAddr(t), freeAddr(t)
	cfg := fmt.Sprintf(childConfig, api, admin, dir, backend.URL) +
		fmt.Sprintf("tracing: {enabled: true, endpoint: %q, serviceName: gw-serve-test}\n", collector.URL)
	cfgPath := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte(cfg), 0o600))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "-config", cfgPath}, &out, &out, func(string) string { return "" })
	}()
	waitReady(t, "http://"+admin+"/readyz", &bytes.Buffer{})
	resp, err := http.Get("http://" + api + "/v2/accounts")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	cancel()
	select {
	case code := <-done:
		require.Equal(t, 0, code, out.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not stop; output:\n%s", out.String())
	}

	assertRequestSpans(t, rcv, out.String())
	exports := rcv.Exports()
	require.NotEmpty(t, exports)
	found := false
	for _, kv := range exports[0].Request.GetResourceSpans()[0].GetResource().GetAttributes() {
		found = found || kv.GetKey() == "service.name" && kv.GetValue().GetStringValue() == "gw-serve-test"
	}
	assert.True(t, found, "service.name from tracing.serviceName")
	assert.Contains(t, out.String(), `"msg":"tracing on"`)
}

// TestServeExportsSpansAsTheGuideSays runs the shipped config.yaml with
// tracing turned on as the observability guide does, by GATEWAY_TRACING
// and the standard OTEL_* variables in the process's environment (which the
// OTLP exporter reads itself), and finds the request's spans at the
// collector.
func TestServeExportsSpansAsTheGuideSays(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	t.Parallel()
	backend, collector, rcv := spanBackends(t)

	api, admin := freeAddr(t), freeAddr(t)
	cmd := exec.Command(os.Args[0], "serve", "-config", shippedConfig)
	cmd.Env = []string{"GATEWAY_TEST_CHILD=1", "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
		"GATEWAY_LISTEN=" + api, "GATEWAY_ADMIN_LISTEN=" + admin, "GATEWAY_TLS=off", "GATEWAY_DATA_DIR=" + t.TempDir(),
		// the guide's command
		"GATEWAY_TRACING=true", "OTEL_EXPORTER_OTLP_ENDPOINT=" + collector.URL,
		"OTEL_TRACES_SAMPLER=parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG=1"}
	for _, v := range []string{"ACCOUNTS_URL", "WORKFLOW_URL", "DATA_URL", "FILES_URL", "FEED_URL"} {
		cmd.Env = append(cmd.Env, v+"="+backend.URL)
	}
	g := launch(t, cmd, api, admin)

	resp, err := http.Get("http://" + api + "/v2/accounts")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	// SIGTERM drains and flushes the spans still batched
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait(), "output:\n%s", g.out.String())
	assertRequestSpans(t, rcv, g.out.String())
}

// spanBackends starts an account backend answering one record and an
// OTLP/HTTP collector keeping what it receives.
func spanBackends(t *testing.T) (backend, collector *httptest.Server, rcv *tracingtest.Receiver) {
	t.Helper()
	backend = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[{"Id":"001000000000001AAA","Name":"Acme"}]`))
	}))
	t.Cleanup(backend.Close)
	rcv = tracingtest.New()
	collector = httptest.NewServer(rcv)
	t.Cleanup(collector.Close)
	return backend, collector, rcv
}

// assertRequestSpans finds the server and the client span of one GET
// /v2/accounts among the spans rcv received; out is the gateway's output.
func assertRequestSpans(t *testing.T, rcv *tracingtest.Receiver, out string) {
	t.Helper()
	names := map[string]bool{}
	for _, s := range rcv.Spans() {
		names[s.GetName()] = true
	}
	assert.True(t, names["GET /{version}/accounts"], "the server span: %v; output:\n%s", names, out)
	assert.True(t, names["GET accounts"], "the client span: %v", names)
}
