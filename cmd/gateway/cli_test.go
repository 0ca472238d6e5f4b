package main

import (
	"bytes"
	"context"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/identity"
)

func runCLI(args []string, getenv func(string) string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	code = run(context.Background(), args, &out, &errOut, getenv)
	return code, out.String(), errOut.String()
}

func TestHelpAndExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc       string
		args       []string
		code       int
		stdout     []string // each must appear
		stderr     []string
		quietOnErr bool // nothing on stderr
	}{
		{desc: "help lists every command and the exit codes", args: []string{"help"}, code: 0,
			stdout: []string{"serve", "check", "token", "version", "help", "exit codes: 0 success, 1 configuration or runtime failure, 2 usage error"}},
		{desc: "--help is help", args: []string{"--help"}, code: 0, stdout: []string{"commands:", "token"}},
		{desc: "-h is help", args: []string{"-h"}, code: 0, stdout: []string{"commands:"}},
		{desc: "help of a command lists its flags with their defaults", args: []string{"help", "token"}, code: 0,
			stdout: []string{"usage: gateway token -sub USER [flags]", "-config file", `(default "config.yaml")`, "-sub", "-roles roles", "-ttl duration", "(default 1h0m0s)"}},
		{desc: "a command's -h is its help, on stdout, exit 0", args: []string{"check", "-h"}, code: 0,
			stdout: []string{"usage: gateway check [flags]", "-config file", `(default "config.yaml")`, "exit codes"}},
		{desc: "serve's --help", args: []string{"serve", "--help"}, code: 0, stdout: []string{"usage: gateway serve [flags]", "SIGHUP"}},
		{desc: "an unknown command is a usage error", args: []string{"frobnicate"}, code: 2, stderr: []string{`unknown command "frobnicate"`, "gateway help"}},
		{desc: "help of an unknown command is a usage error", args: []string{"help", "frobnicate"}, code: 2, stderr: []string{`unknown command "frobnicate"`}},
		{desc: "an unknown flag is a usage error with the usage", args: []string{"check", "-conifg", "x"}, code: 2,
			stderr: []string{"flag provided but not defined: -conifg", "usage: gateway check"}},
		{desc: "a stray argument is a usage error", args: []string{"check", "config.yaml"}, code: 2, stderr: []string{`unexpected argument "config.yaml"`}},
		{desc: "token without -sub is a usage error", args: []string{"token"}, code: 2, stderr: []string{"-sub is required"}},
		{desc: "an invalid config is exit 1", args: []string{"check", "-config", filepath.Join("testdata", "check", "unknown_key.yaml")}, code: 1},
		{desc: "version", args: []string{"version"}, code: 0, stdout: []string{"gateway "}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runCLI(tt.args, nil)
			assert.Equal(t, tt.code, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			for _, s := range tt.stdout {
				assert.Contains(t, stdout, s)
			}
			for _, s := range tt.stderr {
				assert.Contains(t, stderr, s)
			}
			if tt.code == 0 {
				assert.Empty(t, stderr)
			}
		})
	}
}

// TestEveryFlagIsDocumented: docs/reference/cli.md names every command and
// every flag with its default as -h prints them.
func TestEveryFlagIsDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "reference", "cli.md"))
	require.NoError(t, err)
	for _, c := range commands() {
		assert.Contains(t, string(doc), "## gateway "+c.name, "a section per command")
		fs := newFlagSet(c, &bytes.Buffer{})
		c.flags(fs)
		fs.VisitAll(func(f *flag.Flag) {
			assert.Contains(t, string(doc), "`-"+f.Name+"`", "gateway %s -%s", c.name, f.Name)
			if f.DefValue != "" {
				assert.Contains(t, string(doc), f.DefValue, "the default of gateway %s -%s", c.name, f.Name)
			}
		})
	}
}

func TestVersionString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		bi   *debug.BuildInfo
		want string
	}{
		{desc: "a release build", bi: &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.4.0"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}, {Key: "vcs.modified", Value: "false"}}},
			want: "gateway v1.4.0, revision 0123abc of 2026-01-02T03:04:05Z, go1.26.0"},
		{desc: "go build in a work tree with changes", bi: &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.modified", Value: "true"}}},
			want: "gateway (devel), revision 0123abc with uncommitted changes, go1.26.0"},
		{desc: "go run: what is known, and why the revision is not", bi: &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}},
			want: "gateway (devel), no VCS revision (built by go run or go test, with -buildvcs=false, or outside a git checkout), go1.26.0"},
		{desc: "no build information at all", bi: nil,
			want: "gateway (devel), no VCS revision (built by go run or go test, with -buildvcs=false, or outside a git checkout), unknown"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, versionString(tt.bi))
		})
	}
	// this test binary's own build: its Go version is known
	bi, ok := debug.ReadBuildInfo()
	require.True(t, ok)
	assert.Contains(t, versionString(bi), bi.GoVersion)
}

const tokenConfig = `versions: [v1]
auth:
  mode: ${MODE:-jwt}
  jwt: {secret: "${GATEWAY_JWT_SECRET:-}", issuer: https://issuer.example, audience: restgate}
routes: [{path: "/{version}/settings/endpoints", kind: endpoints}]
`

// TestTokenPassesTheGatewaysCheck mints tokens and has the gateway's own JWT
// check (gateway/identity) verify them with the same configuration.
func TestTokenPassesTheGatewaysCheck(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(tokenConfig), 0o600))
	secret := strings.Repeat("s", 32)
	getenv := func(k string) string {
		if k == "GATEWAY_JWT_SECRET" {
			return secret
		}
		return ""
	}
	code, stdout, stderr := runCLI([]string{"token", "-config", path, "-sub", "alice", "-roles", "admin, auditor", "-ttl", "5m"}, getenv)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stderr)
	tok := strings.TrimSpace(stdout)
	assert.Equal(t, 2, strings.Count(tok, "."), "only the token is printed: %q", stdout)

	cfg, err := config.Load(path, getenv)
	require.NoError(t, err)
	authn, err := identity.New(context.Background(), cfg.Auth)
	require.NoError(t, err)
	req := httptest.NewRequest("GET", "/v1/settings/endpoints", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	id, err := authn.Authenticate(req)
	require.NoError(t, err)
	assert.Equal(t, "alice", id.UserID)
	assert.Equal(t, []string{"admin", "auditor"}, id.Roles)

	// a token past its lifetime is refused by the same check
	old, err := identity.Mint(cfg.Auth.JWT, "alice", nil, time.Minute, time.Now().Add(-time.Hour))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+old)
	_, err = authn.Authenticate(req)
	require.Error(t, err)
}

func TestTokenRefusesWithoutASecret(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "config.yaml")
	require.NoError(t, os.WriteFile(path, []byte(tokenConfig), 0o600))
	code, stdout, stderr := runCLI([]string{"token", "-config", path, "-sub", "alice"}, nil)
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "no HS256 secret (auth.jwt.secret, from GATEWAY_JWT_SECRET)")

	short := func(k string) string {
		if k == "GATEWAY_JWT_SECRET" {
			return "short"
		}
		return ""
	}
	code, _, stderr = runCLI([]string{"token", "-config", path, "-sub", "alice"}, short)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "at least 32 bytes")
}
