package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoRoot is the module's root, seen from this package.
const repoRoot = "../.."

// needPrograms are what the docs' commands call besides the gateway: under
// CI (.ci/run installs them) a missing one fails the test, elsewhere it
// skips it, saying what to install.
var needPrograms = []string{"bash", "curl", "jq", "openssl", "sha256sum"}

func requireProgram(t *testing.T, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed; .ci/run installs it (apt-get install -y %s)", name, pkg)
		}
		t.Skipf("%s is not installed: apt-get install -y %s to run the docs' commands in it", name, pkg)
	}
}

// TestDocs runs every command of README.md, docs/ and examples/ in bash and
// in zsh against the real gateway binary, and compares the output with the
// docs'. A page runs in a fresh working directory, on free ports.
func TestDocs(t *testing.T) {
	for _, prog := range needPrograms {
		requireProgram(t, prog, prog)
	}
	files, err := docPages(repoRoot)
	require.NoError(t, err)
	pages, errs := loadPages(repoRoot, files)
	for _, err := range errs {
		t.Error(err)
	}
	require.Empty(t, errs, "every page must parse before any runs")
	binDir := t.TempDir()
	var (
		once sync.Once
		rn   *runner
		berr error
	)
	build := func(t *testing.T) *runner {
		once.Do(func() { rn, berr = newRunner(absRepo(t), binDir, packagesRun(pages)) })
		require.NoError(t, berr)
		return rn
	}
	for _, shell := range []string{"bash", "zsh"} {
		t.Run(shell, func(t *testing.T) {
			requireProgram(t, shell, shell)
			for _, p := range pages {
				t.Run(p.path, func(t *testing.T) {
					for _, s := range p.steps {
						if s.kind == stepSkip {
							assert.NoError(t, checkSyntax(shell, s.script), "%s:%d (%s)", p.path, s.line, s.reason)
						}
					}
					if !p.runnable() {
						return
					}
					if p.calls("npm", "npx") {
						requireProgram(t, "npm", "npm")
					}
					t.Parallel()
					res := build(t).run(p, shell)
					for _, msg := range res.problems {
						t.Error(msg)
					}
				})
			}
		})
	}
}

func absRepo(t *testing.T) string {
	t.Helper()
	abs, err := filepath.Abs(repoRoot)
	require.NoError(t, err)
	return abs
}

// TestLinks: every relative link of the pages reaches a file, and every
// anchor a heading of its page.
func TestLinks(t *testing.T) {
	t.Parallel()
	files, err := docPages(repoRoot)
	require.NoError(t, err)
	pages, _ := loadPages(repoRoot, files)
	for _, p := range pages {
		for _, err := range checkLinks(repoRoot, p) {
			t.Error(err)
		}
	}
}

// TestREADMEIsAFrontPage: the README stays short, and keeps the two
// commands a newcomer needs.
func TestREADMEIsAFrontPage(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	require.NoError(t, err)
	assert.LessOrEqual(t, len(src), 8<<10, "README.md is a front page: move detail to docs/")
	for _, cmd := range []string{"$ go run ./cmd/gateway\n", "\ngo test -race ./...\n"} {
		assert.Contains(t, string(src), cmd)
	}
}
