package main

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/app/apptest"
	"github.com/restgate/gateway/gateway/metrics"
)

// shippedConfig is the repository's config.yaml.
var shippedConfig = filepath.Join("..", "..", "config.yaml")

// gatewayProcess is a gateway running as a child process of the test: this
// test binary re-executed into main's serve path (TestMain), so that
// signals, the exit code and the process's own memory are real.
type gatewayProcess struct {
	cmd *exec.Cmd
	// out is what the process wrote to standard output and error.
	out        *syncBuffer
	api, admin string
}

// startProcess writes the config that config makes for the two free
// addresses it is given (API, admin) to dir/config.yaml, runs `serve` on it
// with env added to the test's environment, and returns once the admin
// listener's /readyz answers 200. The process is killed at the test's end.
func startProcess(t *testing.T, dir string, config func(api, admin string) string, env ...string) *gatewayProcess {
	t.Helper()
	return startBinary(t, os.Args[0], dir, config, env...)
}

// startBinary is startProcess running the gateway binary bin.
func startBinary(t *testing.T, bin, dir string, config func(api, admin string) string, env ...string) *gatewayProcess {
	t.Helper()
	api, admin := freeAddr(t), freeAddr(t)
	path := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(config(api, admin)), 0o600))
	cmd := exec.Command(bin, "serve", "-config", path)
	cmd.Env = append(append(os.Environ(), "GATEWAY_TEST_CHILD=1"), env...)
	return launch(t, cmd, api, admin)
}

// launch starts cmd, a gateway serving on api and admin, collects its
// output, and returns once the admin listener's /readyz answers 200. The
// process is killed at the test's end.
func launch(t *testing.T, cmd *exec.Cmd, api, admin string) *gatewayProcess {
	t.Helper()
	g := &gatewayProcess{cmd: cmd, out: &syncBuffer{}, api: api, admin: admin}
	cmd.Stdout, cmd.Stderr = g.out, g.out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	waitReady(t, "http://"+admin+"/readyz", g.out)
	return g
}

// metric adds every sample of the metric family name on the process's
// /metrics; false when it has none.
func (g *gatewayProcess) metric(t *testing.T, name string) (float64, bool) {
	t.Helper()
	resp, err := http.Get("http://" + g.admin + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	sum, found, err := metrics.Sum(resp.Body, name)
	require.NoError(t, err)
	return sum, found
}

// builtGateway builds this package as the container image builds it
// (apptest.BuildAsImage: no race detector, no sandbox, no symbols) and
// returns the binary's path: for tests of the process's own memory, which
// the race detector's shadow memory of a re-executed test binary would
// inflate several times. Its configs name real upstreams.
func builtGateway(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "gateway")
	var out bytes.Buffer
	require.NoError(t, apptest.BuildAsImage(t.Context(), bin, &out), "go build:\n%s", &out)
	return bin
}
