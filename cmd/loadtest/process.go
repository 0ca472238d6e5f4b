package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// child is a target process the harness started.
type child struct {
	name string
	cmd  *exec.Cmd
	url  string
	// admin is the gateway's admin listener; empty for the other targets.
	admin string
	// auth is the tokens a gateway accepts (nil for the other targets).
	auth *bearer
	done chan error
}

// startChild starts cmd and waits for it to print "LISTEN <url>". The child
// gets SIGTERM when the harness dies, so no target outlives a run.
func startChild(ctx context.Context, name string, cmd *exec.Cmd) (*child, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, done: make(chan error, 1)}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "LISTEN "); ok {
				found <- u
				break
			}
		}
		_, _ = io.Copy(io.Discard, out)
		c.done <- cmd.Wait()
	}()
	select {
	case c.url = <-found:
		return c, nil
	case err := <-c.done:
		return nil, fmt.Errorf("%s exited before listening: %v", name, err)
	case <-time.After(10 * time.Second):
		c.stop()
		return nil, fmt.Errorf("%s did not listen within 10s", name)
	case <-ctx.Done():
		c.stop()
		return nil, ctx.Err()
	}
}

// startServer starts a process that listens where it was told and is ready
// once probe succeeds.
func startServer(ctx context.Context, name, url string, cmd *exec.Cmd, probe func() error) (*child, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, url: url, done: make(chan error, 1)}
	go func() { c.done <- cmd.Wait() }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := probe()
		if err == nil {
			return c, nil
		}
		select {
		case werr := <-c.done:
			return nil, fmt.Errorf("%s exited before it was ready: %v (last probe: %v)", name, werr, err)
		case <-ctx.Done():
			c.stop()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			c.stop()
			return nil, fmt.Errorf("%s not ready within 30s: %v", name, err)
		}
	}
}

// stop asks the child to end and kills it if it has not within 5s.
func (c *child) stop() {
	if c.cmd.Process == nil {
		return
	}
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
	}
}

// usage is what a process has used so far.
type usage struct {
	cpu time.Duration // user plus system
	// syscalls counts the read- and write-like system calls (syscr plus
	// syscw of /proc/<pid>/io), failed ones included: what a request costs
	// in the kernel, beside its CPU time.
	syscalls int64
	// rss is the resident set (VmRSS) in bytes.
	rss int64
}

// usage reads what the child has used from /proc.
func (c *child) usage(tick time.Duration) (usage, error) {
	return processUsage(c.cmd.Process.Pid, tick)
}

// processUsage reads utime+stime of pid from /proc/<pid>/stat and its
// system call counts from /proc/<pid>/io.
func processUsage(pid int, tick time.Duration) (usage, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return usage{}, err
	}
	io, err := os.ReadFile(dir + "/io")
	if err != nil {
		return usage{}, err
	}
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return usage{}, err
	}
	var u usage
	u.cpu, err = parseStat(string(stat), tick)
	if err == nil {
		u.syscalls, err = parseIO(string(io))
	}
	if err == nil {
		u.rss, err = parseRSS(string(status))
	}
	return u, err
}

// parseRSS reads the VmRSS line of a /proc/<pid>/status text, in bytes.
func parseRSS(text string) (int64, error) {
	for line := range strings.Lines(text) {
		v, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
		if err != nil || kb < 0 {
			return 0, fmt.Errorf("status: VmRSS is not a size: %q", v)
		}
		return kb << 10, nil
	}
	return 0, errors.New("status: no VmRSS line")
}

// parseIO adds the syscr and syscw lines of a /proc/<pid>/io text; each
// must be there once.
func parseIO(text string) (int64, error) {
	counts := map[string]int64{}
	for line := range strings.Lines(text) {
		name, value, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if !ok || (name != "syscr" && name != "syscw") {
			continue
		}
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("io: %s is not a count: %q", name, value)
		}
		if _, twice := counts[name]; twice {
			return 0, fmt.Errorf("io: %s given twice", name)
		}
		counts[name] = n
	}
	if len(counts) != 2 {
		return 0, errors.New("io: no syscr and syscw lines")
	}
	return counts["syscr"] + counts["syscw"], nil
}

// parseStat reads fields 14 (utime) and 15 (stime) of a /proc/<pid>/stat
// line, in clock ticks. The command name (field 2) is in parentheses and
// may hold spaces and parentheses itself, so fields are counted after its
// last closing parenthesis.
func parseStat(line string, tick time.Duration) (time.Duration, error) {
	end := strings.LastIndexByte(line, ')')
	if end < 0 {
		return 0, errors.New("stat: no command name")
	}
	f := strings.Fields(line[end+1:])
	// f[0] is field 3 (state), so field n is f[n-3].
	if len(f) < 13 {
		return 0, errors.New("stat: too few fields")
	}
	utime, err1 := strconv.ParseUint(f[11], 10, 63)
	stime, err2 := strconv.ParseUint(f[12], 10, 63)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("stat: %w", err)
	}
	return time.Duration(utime+stime) * tick, nil
}

// clockTick is the length of one clock tick: 1/CLK_TCK seconds, read with
// getconf, else the Linux value of 100 per second.
func clockTick() time.Duration {
	hz := 100
	if out, err := exec.Command("getconf", "CLK_TCK").Output(); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && n > 0 {
			hz = n
		}
	}
	return time.Second / time.Duration(hz)
}
