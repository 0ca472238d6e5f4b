package main

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// nginxConfig passes every request through to the backend over kept-alive
// connections, as an ingress does, buffering answers in memory only. One
// process (master_process off, one worker), so its CPU is one /proc entry;
// nothing outside its directory.
const nginxConfig = `daemon off;
master_process off;
worker_processes 1;
worker_rlimit_nofile 20000;
pid {{dir}}/nginx.pid;
error_log {{dir}}/error.log warn;
events { worker_connections 10000; }
http {
	access_log off;
	client_body_temp_path {{dir}}/body;
	proxy_temp_path {{dir}}/proxy;
	fastcgi_temp_path {{dir}}/fastcgi;
	uwsgi_temp_path {{dir}}/uwsgi;
	scgi_temp_path {{dir}}/scgi;
	keepalive_requests 1000000;
	upstream backend {
		server {{backend}};
		keepalive 64;
		keepalive_requests 1000000;
	}
	server {
		listen {{listen}};
		listen {{tlsListen}} ssl http2;
		ssl_certificate {{dir}}/cert.pem;
		ssl_certificate_key {{dir}}/key.pem;
		ssl_protocols TLSv1.2 TLSv1.3;
		location / {
			proxy_pass http://backend;
			proxy_http_version 1.1;
			proxy_set_header Connection "";
			proxy_buffers 64 32k;
			proxy_busy_buffers_size 256k;
			proxy_max_temp_file_size 0;
		}
	}
}
`

// nginxRun is nginx in front of the backend, with a plain and a TLS
// listener.
type nginxRun struct {
	proc          *child
	plain, secure string // base URLs
}

// startNginx starts nginx from its own directory under dir, or returns nil
// when it is not installed.
func startNginx(ctx context.Context, dir, host, backendURL string) (*nginxRun, error) {
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if bin, err = exec.LookPath("/usr/sbin/nginx"); err != nil {
			return nil, nil
		}
	}
	dir = filepath.Join(dir, "nginx")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	certPEM, keyPEM, err := selfSigned(host)
	if err != nil {
		return nil, err
	}
	if err := errors.Join(os.WriteFile(filepath.Join(dir, "cert.pem"), certPEM, 0o600),
		os.WriteFile(filepath.Join(dir, "key.pem"), keyPEM, 0o600)); err != nil {
		return nil, err
	}
	listen, err := freeAddr(host)
	if err != nil {
		return nil, err
	}
	tlsListen, err := freeAddr(host)
	if err != nil {
		return nil, err
	}
	conf := strings.NewReplacer("{{dir}}", dir, "{{backend}}", strings.TrimPrefix(backendURL, "http://"),
		"{{listen}}", listen, "{{tlsListen}}", tlsListen).Replace(nginxConfig)
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return nil, err
	}
	// -e: the error log before the config is read (else /var/log/nginx).
	cmd := exec.Command(bin, "-p", dir, "-c", path, "-e", filepath.Join(dir, "error.log"))
	cmd.Stderr = os.Stderr
	probe := func() error {
		nc, err := net.DialTimeout("tcp", tlsListen, time.Second)
		if err == nil {
			_ = nc.Close()
		}
		return err
	}
	c, err := startServer(ctx, "nginx", "http://"+listen, cmd, probe)
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
		return nil, errors.Join(err, errors.New(strings.TrimSpace(string(log))))
	}
	return &nginxRun{proc: c, plain: "http://" + listen, secure: "https://" + tlsListen}, nil
}
