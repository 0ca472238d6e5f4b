package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// background is a command a page runs in a terminal of its own (the
// gateway, a log collector), started by the test and interrupted as a
// reader would with Ctrl-C.
type background struct {
	command string
	cmd     *exec.Cmd
	out     lockedBuffer
	done    chan struct{}
	err     error // set before done is closed
}

// lockedBuffer is the background command's output, written by it and read
// by the test at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startBackground runs command with shell -c in a process group of its
// own, so that an interrupt reaches everything it started.
func startBackground(shell, command, dir string, env []string) (*background, error) {
	argv := append(append([]string(nil), shellArgs[shell].argv...), "-c", command)
	b := &background{command: command, done: make(chan struct{})}
	b.cmd = exec.Command(argv[0], argv[1:]...)
	b.cmd.Dir = dir
	b.cmd.Env = env
	b.cmd.Stdout = &b.out
	b.cmd.Stderr = &b.out
	b.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := b.cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		b.err = b.cmd.Wait()
		close(b.done)
	}()
	return b, nil
}

// waitFor waits until ok holds for the command's output lines, and fails
// when the command exits first or the time is up.
func (b *background) waitFor(ok func([]string) bool, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if ok(cleanLines(b.out.String())) {
			return nil
		}
		select {
		case <-b.done:
			if ok(cleanLines(b.out.String())) {
				return nil
			}
			return fmt.Errorf("it exited (%v) before printing the expected lines", b.err)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("it did not print the expected lines within %s", timeout)
		}
	}
}

// interrupt sends SIGINT, as Ctrl-C in its terminal does, and waits for
// the command to exit; an exit status other than 0 is an error.
func (b *background) interrupt(timeout time.Duration) error {
	select {
	case <-b.done:
		return fmt.Errorf("it had already exited: %v", b.err)
	default:
	}
	_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGINT)
	select {
	case <-b.done:
		return b.err
	case <-time.After(timeout):
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		<-b.done
		return fmt.Errorf("it did not exit within %s of SIGINT", timeout)
	}
}

// kill ends the command and its group at once (a page that failed).
func (b *background) kill() {
	_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
	<-b.done
}
