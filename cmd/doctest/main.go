// Command doctest runs the commands of the docs and compares their output
// with what the docs say they print.
//
//	go run ./cmd/doctest [-shell bash,zsh] [-update] [FILE.md ...]
//
// Without files it checks README.md and every page under docs/ and
// examples/. In a console block each line starting "$ " is a command, run
// in one shell per page (bash, then zsh: what works in one must work in
// both) in a fresh working directory holding a copy of config.yaml and
// examples/; the lines under it are its expected output. Volatile parts
// (times, durations, ids, ports) are compared loosely, "[..]" in a line
// matches any text, and a line "..." any number of lines. go run of a
// package of this module runs the binary built from it once. The fence's
// attributes (after the language, which GitHub ignores):
//
//	```console doctest:background   the command runs in a terminal of its own, until
//	                                 it has printed the lines under it; Ctrl-C at the
//	                                 end of the page or at <!-- doctest:interrupt -->
//	```console doctest:eventually   the command is run again until its output matches
//	                                 (for up to 30 s: a reload the reader waited for)
//	```text doctest:output[=WORD]   the latest background command (whose command holds
//	                                 WORD) printed these lines
//	```yaml doctest:append=FILE     the block is pasted at the end of FILE
//	```sh doctest:skip REASON       not run (needs a cluster, is CI's own command):
//	                                 checked with bash -n and zsh -n only
//
// Every other shell block, and any indented code block, is refused, so
// that no command escapes the test. -update writes the output of each
// command that did not match into its page (with the default ports), for
// a maintainer to review with git diff. docs/internals/maintainers.md
// describes it; the doc test in this package runs it under go test.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("doctest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	shells := fs.String("shell", "bash,zsh", "the shells to run each page in, comma-separated")
	updateDocs := fs.Bool("update", false, "write the actual output of commands that do not match into the pages")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	repo, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	files := fs.Args()
	if len(files) == 0 {
		if files, err = docPages(repo); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	pages, errs := loadPages(repo, files)
	for _, err := range errs {
		fmt.Fprintln(stderr, err)
	}
	if len(errs) > 0 {
		return 1
	}
	tmp, err := os.MkdirTemp("", "doctest-bin-")
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	rn, err := newRunner(repo, tmp, packagesRun(pages))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	failed := false
	for _, p := range pages {
		for i, shell := range strings.Split(*shells, ",") {
			for _, s := range p.steps {
				if s.kind == stepSkip {
					if err := checkSyntax(shell, s.script); err != nil {
						fmt.Fprintf(stderr, "%s:%d: %v\n", p.path, s.line, err)
						failed = true
					}
				}
			}
			if !p.runnable() {
				continue
			}
			res := rn.run(p, shell)
			for _, msg := range res.problems {
				fmt.Fprintf(stderr, "[%s] %s\n", shell, msg)
				failed = true
			}
			if *updateDocs && i == 0 && len(res.updates) > 0 {
				if err := applyUpdates(p, res.updates); err != nil {
					fmt.Fprintln(stderr, err)
					return 1
				}
				fmt.Fprintf(stdout, "%s: %d outputs written\n", p.path, len(res.updates))
			}
			fmt.Fprintf(stdout, "%s (%s): %d problems\n", p.path, shell, len(res.problems))
		}
	}
	if failed {
		return 1
	}
	return 0
}

// applyUpdates writes the actual outputs of a page's commands in place of
// their expected lines, last first so that line numbers hold.
func applyUpdates(p *page, ups []update) error {
	lines := strings.Split(string(p.src), "\n")
	for i := len(ups) - 1; i >= 0; i-- {
		u := ups[i]
		repl := make([]string, len(u.lines))
		for j, l := range u.lines {
			repl[j] = strings.TrimRight(u.indent+l, " ")
		}
		// the command's own lines end at u.first; its output is [first, end)
		// in 0-based lines, the command being on line first-1.
		lines = append(lines[:u.first], append(repl, lines[u.end:]...)...)
	}
	return os.WriteFile(p.path, []byte(strings.Join(lines, "\n")), 0o644)
}
