package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnusableDataDir: a data directory that cannot be used is one problem
// of server.dataDir, naming the path, the variable it came from and the
// system's error, from check and from serve, before anything is opened.
func TestUnusableDataDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	cfgPath := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte(`versions: [v1]
server:
  listen: 127.0.0.1:0
  adminListen: 127.0.0.1:0
  dataDir: ${GATEWAY_DATA_DIR:-./data}
upstreams:
  feed: {url: sandbox}
  accounts: {url: sandbox}
routes: [{path: "/{version}/settings/endpoints", kind: endpoints}]
`), 0o600))
	tests := []struct {
		desc, dataDir, want string
	}{
		{desc: "a file", dataDir: file, want: file + " is not a directory"},
		{desc: "under a file", dataDir: filepath.Join(file, "data"), want: "cannot create " + filepath.Join(file, "data") + ": " + file + " is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			getenv := func(k string) string {
				if k == "GATEWAY_DATA_DIR" {
					return tt.dataDir
				}
				return ""
			}
			want := "server.dataDir (line 5): " + tt.want + " (from GATEWAY_DATA_DIR)"
			for _, cmd := range []string{"check", "serve"} {
				code, stdout, stderr := runCLI([]string{cmd, "-config", cfgPath}, getenv)
				assert.Equal(t, 1, code, cmd)
				assert.Contains(t, stderr, want, cmd)
				assert.Equal(t, 1, strings.Count(stderr, "server.dataDir"), "%s: reported once:\n%s", cmd, stderr)
				assert.NotContains(t, stderr, "database", "%s: the sandbox was not started", cmd)
				assert.NotContains(t, stdout, "sandbox", cmd)
			}
		})
	}
}

func TestUsableDataDir(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, usableDir(dir), "an existing directory")
	require.NoError(t, usableDir(filepath.Join(dir, "a", "b")), "one that can be made")
	_, err := os.Stat(filepath.Join(dir, "a"))
	assert.ErrorIs(t, err, os.ErrNotExist, "the check makes nothing")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "the probe file is removed")
}
