//go:build nosandbox

package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These tests run only in a build without the sandbox (go test -tags
// nosandbox ./cmd/gateway, as CI does): what the production image runs.

func TestNoSandboxLinksNoSQLite(t *testing.T) {
	t.Parallel()
	bi, ok := debug.ReadBuildInfo()
	require.True(t, ok)
	require.NotEmpty(t, bi.Deps)
	for _, d := range bi.Deps {
		assert.False(t, strings.HasPrefix(d.Path, "modernc.org/"), "%s is linked", d.Path)
	}
}

func TestNoSandboxServeRefusesSandboxURLs(t *testing.T) {
	t.Parallel()
	env := map[string]string{"GATEWAY_TLS": "off", "GATEWAY_LISTEN": "127.0.0.1:0", "GATEWAY_ADMIN_LISTEN": "127.0.0.1:0",
		"GATEWAY_DATA_DIR": t.TempDir(), "DATA_URL": "http://127.0.0.1:9"}
	// Bounded, so that a build that wrongly serves fails instead of hanging.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"serve", "-config", shippedConfig}, &stdout, &stderr, func(k string) string { return env[k] })
	assert.Equal(t, 1, code)
	assert.Equal(t, 1, strings.Count(stderr.String(), "gateway: "), "one message: %s", stderr.String())
	for _, name := range []string{"accounts", "feed", "files", "workflow"} {
		assert.Regexp(t, `upstreams\.`+name+`\.url \(line \d+\): "sandbox" needs a build with the sandbox \(this binary was built with -tags nosandbox\)`,
			stderr.String())
	}
	assert.NotContains(t, stderr.String(), "upstreams.data.url", "a real url is no problem")
	assert.NotContains(t, stdout.String(), "gateway serving")
}

// TestNoSandboxServesRealBackends starts this binary on the shipped config
// with every upstream pointed at a real (here: test) backend, and calls
// through it.
func TestNoSandboxServesRealBackends(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `[{"Id":"001000000000001AAA","Name":"Acme"}]`)
	}))
	t.Cleanup(backend.Close)

	api, admin := freeAddr(t), freeAddr(t)
	cmd := exec.Command(os.Args[0], "serve", "-config", shippedConfig)
	cmd.Env = []string{"GATEWAY_TEST_CHILD=1", "PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
		"GATEWAY_LISTEN=" + api, "GATEWAY_ADMIN_LISTEN=" + admin, "GATEWAY_TLS=off", "GATEWAY_DATA_DIR=" + t.TempDir()}
	for _, v := range []string{"ACCOUNTS_URL", "WORKFLOW_URL", "DATA_URL", "FILES_URL", "FEED_URL"} {
		cmd.Env = append(cmd.Env, v+"="+backend.URL)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	waitReady(t, "http://"+admin+"/readyz", &out)

	resp, err := http.Get("http://" + api + "/v2/accounts")
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Contains(t, string(body), `"name":"Acme"`)

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait(), "exit 0 after SIGTERM; output:\n%s", out.String())
	assert.NotContains(t, out.String(), "sandbox backends started")
}
