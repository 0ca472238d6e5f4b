package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// goRun finds the packages a command runs with go run.
var goRun = regexp.MustCompile(`\bgo run (\./[A-Za-z0-9_./-]+)`)

// packagesRun are the packages the pages' commands go run, sorted.
func packagesRun(pages []*page) []string {
	var pkgs []string
	for _, p := range pages {
		for _, s := range p.steps {
			for _, c := range s.cmds {
				for _, m := range goRun.FindAllStringSubmatch(c.text, -1) {
					pkg := strings.TrimSuffix(m[1], "/")
					if !slices.Contains(pkgs, pkg) {
						pkgs = append(pkgs, pkg)
					}
				}
			}
		}
	}
	slices.Sort(pkgs)
	return pkgs
}

// newRunner builds each package once into dir, and writes the go command
// the pages run: `go run ./cmd/gateway ARGS` runs the binary built from
// ./cmd/gateway with ARGS, as go run would after building it (a package in
// a module of its own, examples/goclient, is built in its module); `go run
// MODULE/PATH@vX.Y.Z ARGS` runs that pinned tool (a client generator) with
// the user's module and build caches, as a reader's go would; any other go
// command is refused (the docs' go test, go build ... are CI's).
func newRunner(repo, dir string, pkgs []string) (*runner, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("the go command is needed to build what the docs run: %w", err)
	}
	bin := filepath.Join(dir, "bin")
	shim := filepath.Join(dir, "shim")
	for _, d := range []string{bin, shim} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	var cases strings.Builder
	for _, pkg := range pkgs {
		out := filepath.Join(bin, strings.ReplaceAll(strings.TrimPrefix(pkg, "./"), "/", "_"))
		modDir, target := moduleOf(repo, pkg)
		build := exec.Command(goCmd, "build", "-o", out, target)
		build.Dir = modDir
		if msg, err := build.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("go build %s: %v\n%s", pkg, err, msg)
		}
		fmt.Fprintf(&cases, "  %s|%s/) shift 2; exec '%s' \"$@\" ;;\n", pkg, pkg, out)
	}
	caches, err := goCaches(goCmd)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(&cases, "  *@v[0-9]*) exec env %s '%s' \"$@\" ;;\n", caches, goCmd)
	script := "#!/bin/sh\n" +
		"# The go command of the doc test: go run of a package it built runs that binary;\n" +
		"# go run of a pinned module version runs it with the user's caches.\n" +
		"if [ \"$1\" = run ]; then\n  case \"$2\" in\n" + cases.String() + "  esac\nfi\n" +
		"echo \"doctest: only go run of a package the test built, or of a pinned module version, runs here, not: go $*\" >&2\nexit 127\n"
	if err := os.WriteFile(filepath.Join(shim, "go"), []byte(script), 0o755); err != nil {
		return nil, err
	}
	return &runner{repo: repo, shim: shim, free: newPortPool()}, nil
}

// moduleOf returns where to build pkg (a ./path of repo) and what to name
// it there: repo and pkg, or, for a package under a go.mod of its own, that
// module's folder and the package's path in it.
func moduleOf(repo, pkg string) (dir, target string) {
	rel := filepath.Clean(strings.TrimPrefix(pkg, "./"))
	for d := rel; d != "." && d != string(filepath.Separator); d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(repo, d, "go.mod")); err == nil {
			inner, _ := filepath.Rel(d, rel)
			if inner == "." {
				return filepath.Join(repo, d), "."
			}
			return filepath.Join(repo, d), "./" + filepath.ToSlash(inner)
		}
	}
	return repo, pkg
}

// goCaches are the go environment a pinned tool runs with, as env
// arguments: the user's module cache, build cache and proxy settings, which
// a page's fresh HOME would otherwise hide (and so download and build the
// tool again on every run).
func goCaches(goCmd string) (string, error) {
	vars := []string{"GOPATH", "GOMODCACHE", "GOCACHE", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GOPRIVATE", "GOFLAGS", "GOTOOLCHAIN"}
	out, err := exec.Command(goCmd, append([]string{"env"}, vars...)...).Output()
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	vals := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(vals) != len(vars) {
		return "", fmt.Errorf("go env printed %d values for %d variables", len(vals), len(vars))
	}
	args := make([]string, len(vars))
	for i, v := range vars {
		args[i] = v + "='" + strings.ReplaceAll(vals[i], "'", `'\''`) + "'"
	}
	return strings.Join(args, " "), nil
}

// checkSyntax parses a skipped block's commands with the shell without
// running them (bash -n, zsh -n).
func checkSyntax(shell, script string) error {
	argv := append(append([]string(nil), shellArgs[shell].argv...), "-n")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(script)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("%s -n: %v\n%s", shell, err, out)
	}
	return nil
}

// docPages are the Markdown files whose commands are checked: the README
// and every page under docs/ and examples/, relative to repo.
func docPages(repo string) ([]string, error) {
	files := []string{"README.md"}
	for _, root := range []string{"docs", "examples"} {
		err := filepath.WalkDir(filepath.Join(repo, root), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".md") {
				rel, _ := filepath.Rel(repo, path)
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// loadPages parses every page, returning the problems of all.
func loadPages(repo string, files []string) ([]*page, []error) {
	var pages []*page
	var errs []error
	for _, f := range files {
		src, err := os.ReadFile(filepath.Join(repo, f))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p, perrs := parsePage(f, src)
		errs = append(errs, perrs...)
		pages = append(pages, p)
	}
	return pages, errs
}
