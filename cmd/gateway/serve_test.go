package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets a test run this binary's main in a child process, so real
// signals reach the real serve path.
func TestMain(m *testing.M) {
	if os.Getenv("GATEWAY_TEST_CHILD") == "1" {
		if n := os.Getenv("GATEWAY_TEST_NOFILE"); n != "" {
			limitOpenFiles(n) // a process that starts with few descriptors
		}
		main()
		return
	}
	os.Exit(m.Run())
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

const childConfig = `
server:
  listen: %s
  adminListen: %s
  tls: {mode: off}
  timeouts: {shutdown: 10s}
  dataDir: %s
versions: [v1, v2]
models:
  Account: {fields: [Id, Name]}
upstreams:
  accounts: {url: %s, timeout: 5s, retry: {attempts: 1}}
routes:
  - {path: "/{version}/accounts", kind: accounts, upstream: accounts, model: Account}
`

func TestSIGTERMUnderLoadAnswersEveryAcceptedRequest(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	var arrived atomic.Int32
	release := make(chan struct{})
	backend := http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		arrived.Add(1)
		<-release
		_, _ = w.Write([]byte(`[{"Id":"001000000000001AAA","Name":"Acme"}]`))
	})}
	bln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = backend.Serve(bln) }()
	t.Cleanup(func() { _ = backend.Close() })

	dir := t.TempDir()
	g := startProcess(t, dir, func(api, admin string) string {
		return fmt.Sprintf(childConfig, api, admin, dir, "http://"+bln.Addr().String())
	})
	api, admin, cmd, out := g.api, g.admin, g.cmd, g.out

	const n = 20
	var ok atomic.Int32
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, err := http.Get("http://" + api + "/v2/accounts")
			if err != nil {
				return
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode == 200 && strings.Contains(string(body), `"name":"Acme"`) {
				ok.Add(1)
			}
		})
	}
	require.Eventually(t, func() bool { return arrived.Load() == n }, 10*time.Second, 10*time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + admin + "/readyz")
		if err != nil {
			return true // the admin listener already stopped
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusServiceUnavailable
	}, 5*time.Second, 5*time.Millisecond, "readiness goes false while draining")
	close(release)
	wg.Wait()
	err = cmd.Wait()
	require.NoError(t, err, "exit 0 after the drain; output:\n%s", out.String())
	assert.Equal(t, int32(n), ok.Load(), "every accepted request was answered")
	assert.Contains(t, out.String(), "draining")
}

func waitReady(t *testing.T, url string, out fmt.Stringer) {
	t.Helper()
	ready := func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}
	if !assert.Eventually(t, ready, 20*time.Second, 20*time.Millisecond) {
		t.Fatalf("gateway not ready; output:\n%s", out.String())
	}
}

func TestStartProblemsAreOneClearMessage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { busy.Close() }) // not defer: the parallel subtests run after this function returns
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	base := "versions: [v1]\nroutes: [{path: \"/{version}/settings/endpoints\", kind: endpoints}]\n"
	tests := []struct {
		desc, config string
		env          map[string]string
		want         string
	}{
		{desc: "unparsable config", config: write("bad.yaml", "server: [unclosed"), want: "line 1: YAML syntax: "},
		{desc: "missing file", config: filepath.Join(dir, "absent.yaml"), want: "reading config"},
		{desc: "port in use", config: write("busy.yaml", base+"server: {listen: \""+busy.Addr().String()+"\", adminListen: \"127.0.0.1:0\", tls: {mode: off}, dataDir: \""+dir+"\"}\n"),
			want: "server.listen " + busy.Addr().String()},
		{desc: "a sampler the gateway does not build", config: write("sampler.yaml", base+"tracing: {enabled: true}\nserver: {tls: {mode: off}, dataDir: "+dir+"}\n"),
			env: map[string]string{"OTEL_TRACES_SAMPLER": "jaeger_remote"}, want: `OTEL_TRACES_SAMPLER "jaeger_remote"`},
		{desc: "jwt without a secret", config: write("jwt.yaml", base+"auth: {mode: jwt, jwt: {secret: \"${GATEWAY_JWT_SECRET}\"}}\nserver: {tls: {mode: off}, dataDir: "+dir+"}\n"),
			want: "auth.jwt.secret (line 3): ${GATEWAY_JWT_SECRET} is not set and has no default"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"serve", "-config", tt.config}, &stdout, &stderr, func(k string) string { return tt.env[k] })
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr.String(), tt.want)
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr.String()), "gateway: "), "one message")
		})
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 0, run(context.Background(), []string{"version"}, &stdout, &stderr, os.Getenv))
	assert.True(t, strings.HasPrefix(stdout.String(), "gateway "))
	assert.Equal(t, 2, run(context.Background(), []string{"frobnicate"}, &stdout, &stderr, os.Getenv))
}
