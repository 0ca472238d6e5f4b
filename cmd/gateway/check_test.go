package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

// TestCheckGolden runs `gateway check -config FILE` on each config of
// testdata/check and compares the exit code, stdout and stderr with
// FILE.golden (refresh with go test -run TestCheckGolden -update).
func TestCheckGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, file string
		code       int
		// perBuild: the answer differs without the sandbox, so each build
		// has its golden file (FILE.nosandbox.golden for -tags nosandbox)
		perBuild bool
	}{
		{desc: "valid config prints the route table", file: "good.yaml", code: 0},
		{desc: "unknown keys", file: "unknown_key.yaml", code: 1},
		{desc: "key map collision", file: "keymap_collision.yaml", code: 1},
		{desc: "colliding derived names are listed with their tie-break", file: "tiebreak.yaml", code: 0},
		{desc: "produces map that cannot be reversed", file: "produces_not_reversible.yaml", code: 1},
		{desc: "unknown upstream", file: "unknown_upstream.yaml", code: 1},
		{desc: "duplicate route", file: "duplicate_route.yaml", code: 1},
		{desc: "several problems at once", file: "several_problems.yaml", code: 1},
		{desc: "missing file", file: "missing.yaml", code: 1},
		{desc: "YAML that does not parse", file: "syntax.yaml", code: 1},
		{desc: "every kind of problem at once, in file order with lines", file: "every_problem.yaml", code: 1, perBuild: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join("testdata", "check", tt.file)
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"check", "-config", path}, &stdout, &stderr, func(string) string { return "" })
			assert.Equal(t, tt.code, code)
			if tt.code == 0 {
				assert.Empty(t, stderr.String())
			} else {
				assert.Empty(t, stdout.String(), "problems go to stderr only")
			}
			got := fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", code, stdout.String(), stderr.String())
			golden := strings.TrimSuffix(path, ".yaml") + ".golden"
			if tt.perBuild && !sandboxBuilt {
				golden = strings.TrimSuffix(path, ".yaml") + ".nosandbox.golden"
			}
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), got)
		})
	}
}

// TestCheckShippedConfig checks config.yaml, whose upstreams all default to
// the sandbox: valid in a build with the sandbox, one problem per upstream
// in a build without it (go test -tags nosandbox).
func TestCheckShippedConfig(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	path := filepath.Join("..", "..", "config.yaml")
	code := run(context.Background(), []string{"check", "-config", path}, &stdout, &stderr,
		func(string) string { return "" })
	if !sandboxBuilt {
		assert.Equal(t, 1, code)
		assert.Empty(t, stdout.String())
		var want strings.Builder
		want.WriteString(regexp.QuoteMeta(path + " is not valid (5 problems):\n"))
		for _, name := range []string{"accounts", "workflow", "data", "files", "feed"} {
			want.WriteString("  upstreams." + name + `.url \(line \d+\): "sandbox" needs a build with the sandbox \(this binary was built with -tags nosandbox\) \(from [A-Z]+_URL\)` + "\n")
		}
		assert.Regexp(t, "^"+want.String()+"$", stderr.String())
		return
	}
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "/{version}/settings/endpoints")
}
