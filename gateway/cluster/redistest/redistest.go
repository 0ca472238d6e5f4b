// Package redistest runs a real redis-server (Debian's redis-server
// package) on a free loopback port with a temporary directory, for the
// gateway's tests and its load harness: start, stop, kill, pause and
// restart on the same port, so that tests can take Redis away under load.
package redistest

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Binary is the program started.
const Binary = "redis-server"

// Server is one redis-server process. Its methods are safe for concurrent
// use.
type Server struct {
	// Addr is host:port on loopback, the same across restarts.
	Addr string
	dir  string
	// conf, when set, is a configuration file given first (a sentinel's,
	// which the sentinel rewrites).
	conf string
	// tls, when set, serves TLS only, with this certificate and key.
	tls  *tlsFiles
	args []string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
}

// Start runs redis-server on a free loopback port, its files (log,
// nothing persisted) in dir. args are more configuration directives as
// redis-server takes them on its command line ("--maxmemory", "1mb").
func Start(dir string, args ...string) (*Server, error) {
	return start(dir, "", nil, args)
}

func start(dir, conf string, tls *tlsFiles, args []string) (*Server, error) {
	if _, err := exec.LookPath(Binary); err != nil {
		return nil, fmt.Errorf("%s is not installed (apt-get install -y redis-server): %w", Binary, err)
	}
	var lastErr error
	for range 3 { // a free port can be taken before the server binds it
		addr, err := freeAddr()
		if err != nil {
			return nil, err
		}
		s := &Server{Addr: addr, dir: dir, conf: conf, tls: tls, args: args}
		if lastErr = s.Restart(); lastErr == nil {
			return s, nil
		}
	}
	return nil, lastErr
}

// New starts a Server for t in a temporary directory and stops it when t
// ends. Without redis-server, t is skipped with a message saying how to
// install it, except under CI (CI set), where .ci/run installs it and its
// absence fails t.
func New(t testing.TB, args ...string) *Server {
	t.Helper()
	Require(t)
	s, err := Start(t.TempDir(), args...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Require skips t when redis-server is not installed, saying how to
// install it, except under CI (CI set), where .ci/run installs it and its
// absence fails t.
func Require(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath(Binary); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed, and CI installs it (.ci/run): %v", Binary, err)
		}
		t.Skipf("%s is not installed: apt-get install -y redis-server to run this test against a real Redis", Binary)
	}
}

// URL is the redis:// URL of the server, database 0.
func (s *Server) URL() string { return "redis://" + s.Addr + "/0" }

// Pid is the running server's process id; 0 when it is not running.
func (s *Server) Pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0
	}
	return s.cmd.Process.Pid
}

// Restart starts the server again after Kill or Stop, on the same port and
// empty (nothing is persisted); it waits until the server answers. It
// does nothing while the server runs.
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return nil
	}
	host, port, _ := net.SplitHostPort(s.Addr)
	var args []string
	if s.conf != "" {
		args = append(args, s.conf)
	}
	args = append(args, []string{"--port", port, "--bind", host, "--dir", s.dir, "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--logfile", filepath.Join(s.dir, "redis.log")}...)
	if s.tls != nil {
		args = append(args, "--port", "0", "--tls-port", port, "--tls-cert-file", s.tls.cert, "--tls-key-file", s.tls.key,
			"--tls-auth-clients", "no")
	}
	args = append(args, s.args...)
	cmd := exec.Command(Binary, args...)
	cmd.Dir = s.dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// the server dies with the process that started it, whatever happens
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", Binary, err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if err := ping(s.Addr, s.tls != nil); err == nil {
			break
		} else if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			<-done
			return fmt.Errorf("%s on %s did not answer within 15s: %v\n%s%s", Binary, s.Addr, err, out.String(), s.log())
		}
		select {
		case <-done:
			return fmt.Errorf("%s on %s exited at start:\n%s%s", Binary, s.Addr, out.String(), s.log())
		case <-time.After(20 * time.Millisecond):
		}
	}
	s.cmd, s.done = cmd, done
	return nil
}

// Kill ends the server at once (SIGKILL): connections drop, nothing is
// saved.
func (s *Server) Kill() { s.signal(syscall.SIGKILL, true) }

// Stop ends the server cleanly (SIGTERM, then SIGKILL after 5s).
func (s *Server) Stop() { s.signal(syscall.SIGTERM, true) }

// Pause stops the process (SIGSTOP): connections stay open and nothing is
// answered, the slowest Redis there is. Resume undoes it.
func (s *Server) Pause() { s.signal(syscall.SIGSTOP, false) }

// Resume continues a paused server (SIGCONT).
func (s *Server) Resume() { s.signal(syscall.SIGCONT, false) }

func (s *Server) signal(sig syscall.Signal, end bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	if end {
		_ = s.cmd.Process.Signal(syscall.SIGCONT) // a paused server cannot handle SIGTERM
	}
	_ = s.cmd.Process.Signal(sig)
	if !end {
		return
	}
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
	s.cmd, s.done = nil, nil
}

func (s *Server) log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
	if len(b) > 4096 {
		b = b[len(b)-4096:]
	}
	return string(b)
}

// ping sends PING in the inline protocol and expects +PONG; over TLS
// without checking the certificate (the test's client checks it).
func ping(addr string, overTLS bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var conn net.Conn
	var err error
	if overTLS {
		d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true}} // readiness only
		conn, err = d.DialContext(ctx, "tcp", addr)
	} else {
		var d net.Dialer
		conn, err = d.DialContext(ctx, "tcp", addr)
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := conn.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	buf := make([]byte, 7)
	n, err := conn.Read(buf)
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(buf[:n], []byte("+PONG")) {
		return errors.New("answered " + strconv.Quote(string(buf[:n])))
	}
	return nil
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := ln.Addr().String()
	return addr, ln.Close()
}
