package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Target names, in the order of the report. gateway runs with both
// HTTP/1 engine switches fast (the default), gateway-std with both std
// (net/http's server and Transport).
const (
	targetBackend    = "backend"
	targetProxy      = "proxy"
	targetGateway    = "gateway"
	targetGatewayStd = "gateway-std"
	// targetGatewayRedis is the gateway on the redis store (-cluster).
	targetGatewayRedis = "gateway-redis"
)

// targetNames are the targets a run with these options measures.
func (o *options) targetNames() []string {
	names := []string{targetBackend, targetProxy, targetGateway}
	if o.std {
		names = append(names, targetGatewayStd)
	}
	if o.cluster {
		names = append(names, targetGatewayRedis)
	}
	for _, r := range o.tracing {
		names = append(names, tracedName(r))
	}
	return names
}

// target is one process under load and what was measured of it.
type target struct {
	name   string
	url    string
	proc   *child
	client *http.Client

	requests, errors int64
	elapsed, cpu     time.Duration
	syscalls         int64
	hist             *hdrhistogram.Histogram
	roundRPS         []float64
	// ratio is the sample ratio of a traced gateway, 0 for the others.
	ratio float64
}

// measure starts the targets and the collector, warms each up, runs
// the interleaved rounds and stops everything.
func measure(ctx context.Context, o options, log io.Writer) (*report, error) {
	dir, err := os.MkdirTemp("", "loadtest-")
	if err != nil {
		return nil, err
	}
	if o.keep {
		fmt.Fprintf(log, "loadtest: files in %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	bin := o.gatewayBin
	if bin == "" {
		fmt.Fprintln(log, "loadtest: building the gateway")
		if bin, err = buildGateway(ctx, dir, log); err != nil {
			return nil, err
		}
	}

	lines, stopCollector, err := startCollector(o.host)
	if err != nil {
		return nil, err
	}
	defer stopCollector()

	backend, err := startChild(ctx, targetBackend, childCommand(self, "-serve-backend", "-host", o.host))
	if err != nil {
		return nil, err
	}
	defer backend.stop()
	proxy, err := startChild(ctx, targetProxy, childCommand(self, "-serve-proxy", backend.url, "-host", o.host))
	if err != nil {
		return nil, err
	}
	defer proxy.stop()
	var env []string
	if o.cluster {
		env = rateLimitEnv()
	}
	var gateways []*child
	stopGateways := sync1(func() {
		for _, g := range gateways {
			g.stop()
		}
	})
	defer stopGateways()
	gw, err := startGateway(ctx, bin, filepath.Join(dir, "gateway-fast"), o.host, "fast", backend.url, lines.url, env)
	if err != nil {
		return nil, err
	}
	gateways = append(gateways, gw)
	targets := []*target{
		{name: targetBackend, url: backend.url + backendPath, proc: backend},
		{name: targetProxy, url: proxy.url + backendPath, proc: proxy},
		{name: targetGateway, url: gw.url + gatewayPath, proc: gw},
	}
	if o.std {
		std, err := startGateway(ctx, bin, filepath.Join(dir, "gateway-std"), o.host, "std", backend.url, lines.url, env)
		if err != nil {
			return nil, err
		}
		gateways = append(gateways, std)
		targets = append(targets, &target{name: targetGatewayStd, url: std.url + gatewayPath, proc: std})
	}
	var shared *clusterRun
	if o.cluster {
		if shared, err = startClusterGateway(ctx, bin, dir, o.host, backend.url, lines.url); err != nil {
			return nil, err
		}
		defer shared.stop()
		targets = append(targets, &target{name: targetGatewayRedis, url: shared.gw.url + gatewayPath, proc: shared.gw})
	}
	var sink *spanSink
	if len(o.tracing) > 0 {
		if sink, err = startSpanSink(o.host); err != nil {
			return nil, err
		}
		defer sink.stop()
	}
	for i, ratio := range o.tracing {
		traced, err := startGateway(ctx, bin, filepath.Join(dir, fmt.Sprintf("traced%d", i)), o.host, "fast",
			backend.url, lines.url, append(append([]string(nil), env...), tracedEnv(ratio, sink.url)...))
		if err != nil {
			return nil, err
		}
		gateways = append(gateways, traced)
		targets = append(targets, &target{name: tracedName(ratio), url: traced.url + gatewayPath, proc: traced, ratio: ratio})
	}
	tick := clockTick()
	if shared != nil {
		if shared.redis0, err = processUsage(shared.redis.Pid(), tick); err != nil {
			return nil, err
		}
	}
	for _, t := range targets {
		t.client = newClient(o.concurrency)
		t.hist = newHistogram()
		fmt.Fprintf(log, "loadtest: warming up %s (%s)\n", t.name, t.url)
		if r := drive(ctx, t.client, t.url, o.concurrency, o.warmup); r.requests == 0 && o.warmup > 0 {
			return nil, fmt.Errorf("%s answered no request during the warm-up (%d errors)", t.name, r.errors)
		}
	}
	for round := range o.rounds {
		// Rotated so that no target always runs right after the same one.
		for i := range targets {
			t := targets[(i+round)%len(targets)]
			var profile <-chan error
			if round == 0 && t.proc == gw && o.cpuprofile != "" {
				profile = profileGateway(gw.admin, o.duration, o.cpuprofile)
			}
			if err := t.round(ctx, o, tick); err != nil {
				return nil, err
			}
			if profile != nil {
				if err := <-profile; err != nil {
					return nil, fmt.Errorf("gateway CPU profile: %w", err)
				}
				fmt.Fprintf(log, "loadtest: gateway CPU profile of round 1 in %s\n", o.cpuprofile)
			}
		}
		fmt.Fprintf(log, "loadtest: round %d/%d done\n", round+1, o.rounds)
	}
	for _, g := range gateways {
		if err := checkGateway(g.url); err != nil {
			return nil, fmt.Errorf("%s after the run: %w", g.name, err)
		}
	}
	var cluster *clusterReport
	if shared != nil {
		if cluster, err = shared.report(targets[len(targets)-1], tick); err != nil {
			return nil, err
		}
	}
	stopGateways() // flushes the call logs and the spans
	if shared != nil {
		shared.stopGateway()
	}
	rep := newReport(o, targets, lines.Load())
	rep.addCluster(cluster)
	if sink != nil {
		rep.addTracing(targets, int64(sink.SpanCount()))
	}
	return rep, nil
}

// round drives t for one measured stretch, reading what its process used
// before and after.
func (t *target) round(ctx context.Context, o options, tick time.Duration) error {
	u0, err := t.proc.usage(tick)
	if err != nil {
		return fmt.Errorf("%s: %w", t.name, err)
	}
	r := drive(ctx, t.client, t.url, o.concurrency, o.duration)
	u1, err := t.proc.usage(tick)
	if err != nil {
		return fmt.Errorf("%s: %w", t.name, err)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	t.requests += r.requests
	t.errors += r.errors
	t.elapsed += r.elapsed
	t.cpu += u1.cpu - u0.cpu
	t.syscalls += u1.syscalls - u0.syscalls
	t.hist.Merge(r.hist)
	t.roundRPS = append(t.roundRPS, float64(r.requests)/r.elapsed.Seconds())
	return nil
}

// childCommand re-executes the harness in one of its serving roles.
func childCommand(self string, args ...string) *exec.Cmd {
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stderr = os.Stderr
	return cmd
}

// childEnv marks a re-executed harness, so a test binary serves its role
// instead of running the tests.
const childEnv = "LOADTEST_CHILD"

// collector counts the call log lines the gateway ships.
type collector struct {
	atomic.Int64
	url string
}

func startCollector(host string) (*collector, func(), error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, nil, err
	}
	c := &collector{url: "http://" + ln.Addr().String() + "/log"}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.Add(int64(strings.Count(string(b), "\n")))
	})}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "loadtest: collector:", err)
		}
	}()
	return c, func() { _ = srv.Close() }, nil
}

// sync1 makes f safe to call twice: the second call does nothing.
func sync1(f func()) func() {
	done := false
	return func() {
		if !done {
			done = true
			f()
		}
	}
}
