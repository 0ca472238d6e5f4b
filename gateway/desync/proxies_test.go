package desync

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A front is what callers reach the gateway through: nothing, nginx or
// HAProxy. start runs it in front of the gateway at upstream and returns
// the address callers use.
type front struct {
	name  string
	start func(t *testing.T, upstream string) string
}

// fronts lists the fronts the suite goes through.
func fronts() []front {
	return []front{
		{name: "direct", start: func(_ *testing.T, upstream string) string { return upstream }},
		{name: "nginx", start: startNginx},
		{name: "haproxy", start: startHAProxy},
	}
}

// program finds a proxy's binary: on PATH, or where Debian installs it
// (/usr/sbin is not on every user's PATH). Outside CI a missing binary
// skips the test; with CI set it fails it, since CI installs it.
func program(t *testing.T, name, pkg string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	for _, dir := range []string{"/usr/sbin", "/usr/local/sbin"} {
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p
		}
	}
	msg := fmt.Sprintf("%s is not installed: apt-get install -y %s (.ci/run installs it)", name, pkg)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// syncBuffer collects a process's output while it runs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// run starts the proxy's process in the foreground, waits until addr
// accepts connections, and stops it (by its own process id) when the test
// ends.
func run(t *testing.T, name string, cmd *exec.Cmd, addr string) {
	t.Helper()
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start(), name)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("%s output:\n%s", name, out.String())
		}
	})
	up := func() bool {
		select {
		case err := <-exited:
			exited <- err
			return true // no use waiting: reported below
		default:
		}
		nc, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			_ = nc.Close()
		}
		return err == nil
	}
	require.Eventually(t, up, 20*time.Second, 20*time.Millisecond, "%s does not listen on %s (its output follows)", name, addr)
	select {
	case err := <-exited:
		exited <- err
		t.Fatalf("%s exited at start (%v):\n%s", name, err, out.String())
	default:
	}
}

// nginxConfig keeps connections to the gateway alive and reuses them across
// clients, as an ingress does (the reuse is what smuggling exploits). One
// process (master_process off), nothing outside its directory: it runs as
// whoever starts it.
const nginxConfig = `daemon off;
master_process off;
worker_processes 1;
pid {{dir}}/nginx.pid;
error_log {{dir}}/error.log warn;
events { worker_connections 512; }
http {
	access_log off;
	client_body_temp_path {{dir}}/body;
	proxy_temp_path {{dir}}/proxy;
	fastcgi_temp_path {{dir}}/fastcgi;
	uwsgi_temp_path {{dir}}/uwsgi;
	scgi_temp_path {{dir}}/scgi;
	upstream gateway {
		server {{upstream}};
		keepalive 8;
	}
	server {
		listen {{listen}};
		location / {
			proxy_pass http://gateway;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_set_header Host $host;
		}
	}
}
`

// startNginx runs nginx in front of upstream.
func startNginx(t *testing.T, upstream string) string {
	t.Helper()
	bin := program(t, "nginx", "nginx")
	dir := t.TempDir()
	listen := freeAddr(t)
	conf := strings.NewReplacer("{{dir}}", dir, "{{upstream}}", upstream, "{{listen}}", listen).Replace(nginxConfig)
	path := filepath.Join(dir, "nginx.conf")
	require.NoError(t, os.WriteFile(path, []byte(conf), 0o600))
	// -e: the error log before the config is read, which would otherwise
	// go to /var/log/nginx
	run(t, "nginx", exec.Command(bin, "-p", dir, "-c", path, "-e", filepath.Join(dir, "error.log")), listen)
	return listen
}

// haproxyConfig reuses connections to the gateway for any client
// (http-reuse always), the most a pool can share.
const haproxyConfig = `global
	maxconn 512
defaults
	mode http
	timeout connect 5s
	timeout client 30s
	timeout server 30s
	option http-keep-alive
	http-reuse always
frontend in
	bind {{listen}}
	default_backend gateway
backend gateway
	server gateway {{upstream}}
`

// startHAProxy runs HAProxy in front of upstream.
func startHAProxy(t *testing.T, upstream string) string {
	t.Helper()
	bin := program(t, "haproxy", "haproxy")
	dir := t.TempDir()
	listen := freeAddr(t)
	conf := strings.NewReplacer("{{upstream}}", upstream, "{{listen}}", listen).Replace(haproxyConfig)
	path := filepath.Join(dir, "haproxy.cfg")
	require.NoError(t, os.WriteFile(path, []byte(conf), 0o600))
	run(t, "haproxy", exec.Command(bin, "-db", "-f", path), listen)
	return listen
}
