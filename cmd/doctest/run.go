package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Time limits: generous, since the machine running the test may be busy.
const (
	commandTimeout    = 2 * time.Minute
	backgroundTimeout = time.Minute
	eventuallyTimeout = 30 * time.Second
	interruptTimeout  = time.Minute
)

// defaultPorts are the loopback ports the docs use: the API listener, the
// admin listener and the example log collector. Each run gives each a free
// port, rewritten in the commands and read back by -update.
var defaultPorts = []string{"8443", "9090", "9999"}

// copied are the files and folders of the repository a page's working
// directory starts with: what a reader's commands read from a checkout.
var copied = []string{"config.yaml", "examples"}

// runner runs pages against binaries built once.
type runner struct {
	repo string
	// shim is a folder holding the go command the pages run: go run of a
	// built package runs its binary, anything else is refused.
	shim string
	// free gives each page's gateway its ports.
	free *portPool
}

// result is what running a page found.
type result struct {
	problems []string
	// updates are the outputs of commands that did not match, for -update.
	updates []update
}

// update replaces the expected lines of one command.
type update struct {
	first, end int
	indent     string
	lines      []string
}

func (r *result) fail(p *page, line int, format string, args ...any) {
	r.problems = append(r.problems, fmt.Sprintf("%s:%d: %s", p.path, line, fmt.Sprintf(format, args...)))
}

// pageRun is one run of a page in one shell.
type pageRun struct {
	*runner
	page    *page
	shell   string
	dir     string
	env     []string
	ports   map[string]string // default port -> this run's
	session *session
	bgs     []*background
	res     result
}

// run runs every step of p in shell, in a fresh working directory, and
// stops at the first step that cannot go on (a command that timed out, a
// background command that never got ready).
func (rn *runner) run(p *page, shell string) result {
	pr := &pageRun{runner: rn, page: p, shell: shell, ports: map[string]string{}}
	defer pr.cleanup()
	if err := pr.setup(); err != nil {
		pr.res.fail(p, 1, "setting up: %v", err)
		return pr.res
	}
	for _, s := range p.steps {
		if !pr.step(s) {
			break
		}
	}
	for _, err := range pr.interruptAll() {
		pr.res.fail(p, 0, "at the end of the page: %v", err)
	}
	return pr.res
}

func (pr *pageRun) setup() error {
	var err error
	if pr.dir, err = os.MkdirTemp("", "doctest-"); err != nil {
		return err
	}
	for _, name := range copied {
		if err := exec.Command("cp", "-R", filepath.Join(pr.repo, name), pr.dir).Run(); err != nil {
			return fmt.Errorf("copying %s: %w", name, err)
		}
	}
	home := filepath.Join(pr.dir, ".home")
	if err := os.Mkdir(home, 0o755); err != nil {
		return err
	}
	for _, port := range defaultPorts {
		free, err := pr.free.take()
		if err != nil {
			return err
		}
		pr.ports[port] = free
	}
	pr.env = []string{
		"PATH=" + pr.shim + string(os.PathListSeparator) + os.Getenv("PATH"),
		"HOME=" + home,
		"LANG=C.UTF-8",
		"TMPDIR=" + os.TempDir(),
		"GATEWAY_LISTEN=127.0.0.1:" + pr.ports["8443"],
		"GATEWAY_ADMIN_LISTEN=127.0.0.1:" + pr.ports["9090"],
		// what a gateway run by hand on a terminal prints
		"GATEWAY_LOG_FORMAT=text",
		"GATEWAY_LOG_LOCAL=stdout",
		// npm installs from the user's cache, which the fresh HOME would
		// hide, and says nothing of funding, audits and its own updates
		"npm_config_cache=" + npmCache(),
		"npm_config_fund=false",
		"npm_config_audit=false",
		"npm_config_update_notifier=false",
	}
	pr.session, err = startSession(pr.shell, pr.dir, pr.env)
	return err
}

func (pr *pageRun) cleanup() {
	for _, b := range pr.bgs {
		b.kill()
	}
	if pr.session != nil {
		pr.session.close()
	}
	if pr.dir != "" {
		_ = os.RemoveAll(pr.dir)
	}
}

// step runs one step and says whether the page can go on.
func (pr *pageRun) step(s step) bool {
	p := pr.page
	switch s.kind {
	case stepSkip:
		return true
	case stepRun:
		for _, c := range s.cmds {
			if !pr.command(c, s.eventually) {
				return false
			}
		}
	case stepBackground:
		c := s.cmds[0]
		b, err := startBackground(pr.shell, pr.rewrite(c.text), pr.dir, pr.env)
		if err != nil {
			pr.res.fail(p, c.line, "$ %s: %v", c.text, err)
			return false
		}
		pr.bgs = append(pr.bgs, b)
		if err := b.waitFor(func(l []string) bool { return startsWith(c.expect, l) }, backgroundTimeout); err != nil {
			pr.res.fail(p, c.line, "$ %s (in the background): %v\nexpected it to start with:\n%s\ngot:\n%s",
				c.text, err, indent(c.expect), indent(cleanLines(b.out.String())))
			return false
		}
	case stepOutput:
		var b *background
		for _, bg := range pr.bgs {
			if strings.Contains(bg.command, s.of) {
				b = bg
			}
		}
		if b == nil {
			pr.res.fail(p, s.line, "an output block with no background command running (of %q)", s.of)
			return false
		}
		if err := b.waitFor(func(l []string) bool { return contains(s.expect, l) }, backgroundTimeout); err != nil {
			pr.res.fail(p, s.line, "output of %q: %v\nexpected it to contain:\n%s\ngot:\n%s",
				b.command, err, indent(s.expect), indent(cleanLines(b.out.String())))
			return false
		}
	case stepAppend:
		f, err := os.OpenFile(filepath.Join(pr.dir, s.file), os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString(s.text)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			pr.res.fail(p, s.line, "appending to %s: %v", s.file, err)
			return false
		}
	case stepInterrupt:
		for _, err := range pr.interruptAll() {
			pr.res.fail(p, s.line, "%v", err)
		}
	}
	return true
}

// interruptAll stops the background commands as a reader closes their
// terminals: the last started first (the gateway before the collector it
// flushes its call log to).
func (pr *pageRun) interruptAll() []error {
	var errs []error
	for i := len(pr.bgs) - 1; i >= 0; i-- {
		b := pr.bgs[i]
		if err := b.interrupt(interruptTimeout); err != nil {
			errs = append(errs, fmt.Errorf("interrupting %q: %v\n%s", b.command, err, indent(cleanLines(b.out.String()))))
		}
	}
	pr.bgs = nil
	return errs
}

// command runs one $ command and compares its output; it says whether
// the page can go on.
func (pr *pageRun) command(c command, eventually bool) bool {
	p := pr.page
	deadline := time.Now().Add(eventuallyTimeout)
	for {
		out, status, err := pr.session.run(pr.rewrite(c.text), commandTimeout)
		if err != nil {
			pr.res.fail(p, c.line, "$ %s: %v\n%s", c.text, err, indent(cleanLines(out)))
			return false
		}
		got := cleanLines(out)
		if status == 0 && matches(c.expect, got) {
			return true
		}
		if eventually && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		msg := "$ %s\nexpected:\n%s\ngot:\n%s"
		if status != 0 {
			msg = fmt.Sprintf("exit status %d; ", status) + msg
		}
		pr.res.fail(p, c.line, msg, c.text, indent(c.expect), indent(got))
		pr.res.updates = append(pr.res.updates, update{first: c.first, end: c.end, indent: c.indent, lines: pr.unrewrite(got)})
		return true
	}
}

// rewrite points a command at this run's ports.
func (pr *pageRun) rewrite(s string) string {
	for def, port := range pr.ports {
		s = regexp.MustCompile(`\b(127\.0\.0\.1|localhost):`+def+`\b`).ReplaceAllString(s, "${1}:"+port)
	}
	return s
}

// unrewrite writes an output as it would read with the default ports.
func (pr *pageRun) unrewrite(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		for def, port := range pr.ports {
			l = strings.ReplaceAll(l, ":"+port, ":"+def)
		}
		out[i] = strings.ReplaceAll(l, pr.dir, ".")
	}
	return out
}

func indent(lines []string) string {
	if len(lines) == 0 {
		return "    (nothing)"
	}
	return "    " + strings.Join(lines, "\n    ")
}

// npmCache is the user's npm cache: npm_config_cache, or ~/.npm.
func npmCache() string {
	if c := os.Getenv("npm_config_cache"); c != "" {
		return c
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "doctest-npm")
	}
	return filepath.Join(home, ".npm")
}
