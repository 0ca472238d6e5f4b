package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestModuleOf: a package of the repository is built there; one under a
// go.mod of its own is built in that module.
func TestModuleOf(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "examples", "client", "cmd", "tour"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "examples", "client", "go.mod"), []byte("module x\n"), 0o644))
	tests := []struct{ pkg, dir, target string }{
		{pkg: "./cmd/gateway", dir: repo, target: "./cmd/gateway"},
		{pkg: "./examples/collector", dir: repo, target: "./examples/collector"},
		{pkg: "./examples/client", dir: filepath.Join(repo, "examples", "client"), target: "."},
		{pkg: "./examples/client/cmd/tour/", dir: filepath.Join(repo, "examples", "client"), target: "./cmd/tour"},
	}
	for _, tt := range tests {
		dir, target := moduleOf(repo, tt.pkg)
		assert.Equal(t, tt.dir, dir, tt.pkg)
		assert.Equal(t, tt.target, target, tt.pkg)
	}
}

// TestPageCalls: a page needs npm when a command it runs calls npm or npx,
// not when a skipped block or a word in an argument names it.
func TestPageCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src  string
		want bool
	}{
		{src: "```console\n$ npx tsc --noEmit a.ts && echo ok\nok\n```\n", want: true},
		{src: "```console\n$ cd web; npm install\n```\n", want: true},
		{src: "```console\n$ echo npmx\nnpmx\n```\n", want: false},
		{src: "```sh doctest:skip needs a registry\nnpm publish\n```\n", want: false},
	}
	for _, tt := range tests {
		p, errs := parsePage("p.md", []byte(tt.src))
		require.Empty(t, errs)
		assert.Equal(t, tt.want, p.calls("npm", "npx"), tt.src)
	}
}
