package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite openapi_v2.json from the served document")

// repo is the gateway's repository, seen from this folder.
const repo = "../.."

// TestGeneratedClientIsCurrent: generating the client again from
// openapi_v2.json with the pinned oapi-codegen gives the committed one.
func TestGeneratedClientIsCurrent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg, err := os.ReadFile("oapi-codegen.yaml")
	require.NoError(t, err)
	out := filepath.Join(dir, "gateway.gen.go")
	cfg = regexp.MustCompile(`(?m)^output: .*$`).ReplaceAll(cfg, []byte("output: "+out))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "oapi-codegen.yaml"), cfg, 0o644))
	gen := exec.Command("go", "tool", "oapi-codegen", "-config", filepath.Join(dir, "oapi-codegen.yaml"), "openapi_v2.json")
	msg, err := gen.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	want, err := os.ReadFile(out)
	require.NoError(t, err)
	have, err := os.ReadFile(filepath.Join("gateway", "gateway.gen.go"))
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, have), "gateway/gateway.gen.go is stale: run go generate in examples/goclient")
}

// TestDocumentIsCurrent: openapi_v2.json is the document the gateway
// serves with the shipped config.yaml (-update rewrites it).
func TestDocumentIsCurrent(t *testing.T) {
	t.Parallel()
	base := startGateway(t)
	resp, err := http.Get(base + "/v2/settings/openapi")
	require.NoError(t, err)
	served, err := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", served)
	if *update {
		var indented bytes.Buffer
		require.NoError(t, json.Indent(&indented, served, "", "  "))
		indented.WriteByte('\n')
		require.NoError(t, os.WriteFile("openapi_v2.json", indented.Bytes(), 0o644))
	}
	committed, err := os.ReadFile("openapi_v2.json")
	require.NoError(t, err)
	assert.JSONEq(t, string(served), string(committed),
		"openapi_v2.json is stale: go test -run TestDocumentIsCurrent -update, then go generate")
}

// TestTour walks the tour's first steps with the generated client against
// a gateway of the shipped config over the embedded sandbox.
func TestTour(t *testing.T) {
	t.Parallel()
	base := startGateway(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	require.NoError(t, tour(ctx, base, http.DefaultClient, &out))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		`^accounts 1 to 2 of \d+; next: /v2/accounts\?limit=2&offset=2$`,
		`^  001\w{15} Burlington Textiles Corp of America$`,
		`^  001\w{15} Pyramid Construction Inc\.$`,
		`^created 001\w{15}$`,
		`^read back: Acme, total assets 1\.1, rating Hot$`,
		`^an unknown account: 404 Encountered an error: account 001000000000000AAA not found$`,
		`^key map: \d+ fields; Total_Assets__c is totalAssets$`,
		`^in the backend's names: \{"Name":"Acme","Total_Assets__c":1\.1\}$`,
	}
	require.Len(t, lines, len(want), out.String())
	for i, re := range want {
		assert.Regexp(t, re, lines[i])
	}
}

// gatewayBinary builds the gateway once for the tests of this package.
var gatewayBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "goclient-gateway")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "gateway")
	build := exec.Command("go", "build", "-o", bin, "./cmd/gateway")
	build.Dir = repo
	if msg, err := build.CombinedOutput(); err != nil {
		return "", &buildError{msg: string(msg), err: err}
	}
	return bin, nil
})

type buildError struct {
	msg string
	err error
}

func (e *buildError) Error() string { return "go build ./cmd/gateway: " + e.err.Error() + "\n" + e.msg }

// startGateway runs the gateway of the shipped config.yaml, plain HTTP on
// a free loopback port, its sandbox in a temporary folder, until the test
// ends, and returns its address.
func startGateway(t *testing.T) string {
	t.Helper()
	bin, err := gatewayBinary()
	require.NoError(t, err)
	cmd := exec.Command(bin, "serve", "-config", filepath.Join(repo, "config.yaml"))
	cmd.Env = append(os.Environ(), "GATEWAY_TLS=off", "GATEWAY_LISTEN=127.0.0.1:0", "GATEWAY_ADMIN_LISTEN=127.0.0.1:0",
		"GATEWAY_DATA_DIR="+t.TempDir(), "GATEWAY_LOG_FORMAT=json", "GATEWAY_LOG_LOCAL=off")
	logs, w := io.Pipe()
	cmd.Stdout, cmd.Stderr = w, w
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		_ = w.Close()
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(logs)
		for sc.Scan() { // read to the end, so the gateway never blocks on its log
			var rec struct{ Msg, API string }
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "gateway serving" {
				found <- rec.API
			}
		}
	}()
	select {
	case api := <-found:
		return api
	case <-time.After(60 * time.Second):
		t.Fatal("the gateway did not start within a minute")
		return ""
	}
}
