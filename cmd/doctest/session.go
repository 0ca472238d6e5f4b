package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// shellArgs start a shell that reads commands from its standard input,
// without the user's startup files, as close to an interactive one as a
// shell without a terminal gets: bash expands ! in double quotes, zsh takes
// # for a character rather than a comment, as in their interactive shells.
var shellArgs = map[string]struct {
	argv  []string
	setup string
}{
	"bash": {argv: []string{"bash", "--norc", "--noprofile"}, setup: "set -o history -o histexpand\n"},
	"zsh":  {argv: []string{"zsh", "-f"}, setup: "unsetopt interactive_comments\n"},
}

// session is one terminal: a shell that runs a page's commands one after
// the other, so that variables and the working directory carry over as
// they do for a reader.
type session struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	marker string
}

// startSession starts shell in dir with env.
func startSession(shell, dir string, env []string) (*session, error) {
	sh, ok := shellArgs[shell]
	if !ok {
		return nil, fmt.Errorf("unknown shell %q", shell)
	}
	var token [8]byte
	_, _ = rand.Read(token[:])
	s := &session{lines: make(chan string, 256), marker: "__doctest_" + hex.EncodeToString(token[:]) + "__"}
	s.cmd = exec.Command(sh.argv[0], sh.argv[1:]...)
	s.cmd.Dir = dir
	s.cmd.Env = env
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s.cmd.Stderr = s.cmd.Stdout
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", shell, err)
	}
	go func() {
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				s.lines <- strings.TrimSuffix(line, "\n")
			}
			if err != nil {
				close(s.lines)
				return
			}
		}
	}()
	if _, err := io.WriteString(s.stdin, sh.setup+"exec 2>&1\n"); err != nil {
		return nil, err
	}
	return s, nil
}

// errTimeout: a command did not finish in time.
var errTimeout = errors.New("timed out")

// run runs one command and returns what it printed (standard output and
// error, in order) and its exit status. Its standard input is /dev/null.
func (s *session) run(command string, timeout time.Duration) (string, int, error) {
	script := "{\n" + command + "\n} </dev/null\nprintf '\\n%s %d\\n' " + s.marker + " \"$?\"\n"
	if _, err := io.WriteString(s.stdin, script); err != nil {
		return "", 0, fmt.Errorf("the shell is gone: %w", err)
	}
	var out []string
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				return strings.Join(out, "\n"), 0, errors.New("the shell exited")
			}
			if rest, found := strings.CutPrefix(line, s.marker+" "); found {
				status, _ := strconv.Atoi(rest)
				// the marker's leading newline ended the output's last line
				if n := len(out); n > 0 && out[n-1] == "" {
					out = out[:n-1]
				}
				return strings.Join(out, "\n"), status, nil
			}
			out = append(out, line)
		case <-deadline.C:
			return strings.Join(out, "\n"), 0, errTimeout
		}
	}
}

// close ends the shell and everything it started.
func (s *session) close() {
	_ = s.stdin.Close()
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	_ = s.cmd.Wait()
}
