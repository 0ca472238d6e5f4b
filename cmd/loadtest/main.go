// Command loadtest measures the gateway against the cheapest alternatives
// on the same machine: the account backend answered directly, and a bare
// httputil.ReverseProxy in front of it. The gateway runs twice: with its
// HTTP/1 engines (server.http1 and the upstream transport) fast, and, as
// target gateway-std unless -std=false, with both on net/http's. Each
// target is its own process, so the CPU each one spends per request is
// read from /proc/<pid>/stat; the targets are driven in interleaved rounds
// so that drift of the machine (other load, thermal, frequency) touches
// them all alike.
//
//	go run ./cmd/loadtest                  # about a minute and a half, a table on stdout
//	go run ./cmd/loadtest -smoke           # a few seconds, for CI
//	go run ./cmd/loadtest -json            # machine-readable
//	go run ./cmd/loadtest -cache           # the response cache: 100 clients, one describe, 3 replicas
//
// Everything listens on loopback and the run is bounded in time: the
// harness refuses any other host.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http/httputil"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	o.register(fs)
	serveBackend := fs.Bool("serve-backend", false, "internal: serve the fixed account backend and print its address")
	usage := fs.Bool("usage-header", false, "internal: with -serve-backend, report an org's API usage on every answer (Sforce-Limit-Info)")
	serveProxy := fs.String("serve-proxy", "", "internal: serve a reverse proxy to this backend URL and print its address")
	serveTLS := fs.Bool("serve-tls", false, "internal: with -serve-proxy, serve over TLS with a self-signed certificate")
	serveCollectorFlag := fs.Bool("serve-collector", false, "internal: serve the call log collector (POST /log counts lines, GET /count) and print its address")
	serveData := fs.Bool("serve-data", false, "internal: serve the cache scenario's describe backend (-describe-latency, -describe-fields) and print its address")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var err error
	switch {
	case *serveBackend:
		err = serveChild(ctx, o.host, stdout, backendHandler(*usage), nil)
	case *serveCollectorFlag:
		err = serveCollector(ctx, o.host, stdout)
	case *serveData:
		err = serveChild(ctx, o.host, stdout, newDescribeBackend(o.describeLatency, o.describeFields), nil)
	case *serveProxy != "":
		var h *httputil.ReverseProxy
		var cfg *tls.Config
		if h, err = newProxy(*serveProxy); err == nil && *serveTLS {
			cfg, err = serverTLS(o.host)
		}
		if err == nil {
			err = serveChild(ctx, o.host, stdout, h, cfg)
		}
	default:
		if err = o.check(); err != nil {
			fmt.Fprintf(stderr, "loadtest: %v\n", err)
			return 2
		}
		o.load[0] = loadAverage()
		var rep *report
		measure := measure
		if o.cache {
			measure = measureCache
		}
		if rep, err = measure(ctx, o, stderr); err == nil {
			rep.LoadAverage[1] = loadAverage()
			if o.json {
				err = rep.writeJSON(stdout)
			} else {
				rep.writeTable(stdout)
			}
			if err == nil && o.out != "" {
				err = writeSummary(o.out, rep)
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadtest: %v\n", err)
		return 1
	}
	return 0
}

// writeSummary writes rep as JSON to path.
func writeSummary(path string, rep *report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(rep.writeJSON(f), f.Close())
}
