package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/restgate/gateway/mapping/mappingtest"
	sandboxaccounts "github.com/restgate/gateway/upstreams/sandbox/accounts"
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
	// targetGatewayQuota is the gateway counting quotas and guarding an
	// allowance (-quota), targetGatewayRedisQuota the same on the redis
	// store (-quota -cluster).
	targetGatewayQuota      = "gateway-quota"
	targetGatewayRedisQuota = "gateway-redis-quota"
	// targetNginx is nginx's proxy_pass to the backend (-nginx).
	targetNginx = "nginx"
	// The TLS targets (-tls): the bare Go reverse proxy behind a TLS
	// listener, the gateway's TLS listener, nginx's.
	targetProxyTLS   = "proxy-tls"
	targetGatewayTLS = "gateway-tls"
	targetNginxTLS   = "nginx-tls"
)

// targetNames are the plain-HTTP targets a run with these options measures
// (nginx aside, which joins when it is installed).
func (o *options) targetNames() []string {
	names := []string{targetBackend, targetProxy, targetGateway}
	if o.std {
		names = append(names, targetGatewayStd)
	}
	if o.cluster {
		names = append(names, targetGatewayRedis)
	}
	if o.quota {
		names = append(names, targetGatewayQuota)
		if o.cluster {
			names = append(names, targetGatewayRedisQuota)
		}
	}
	if o.console {
		names = append(names, targetGatewayNoRecord)
	}
	if o.rs256 {
		names = append(names, targetGatewayRS256)
	}
	if o.noPGO {
		names = append(names, targetGatewayNoPGO)
	}
	if o.gogc > 0 {
		names = append(names, gogcName(o.gogc))
	}
	for _, r := range o.tracing {
		names = append(names, tracedName(r))
	}
	return names
}

// scenario is one set of conditions every target of its scheme is
// measured under: the list size, the client connections and the scheme.
type scenario struct {
	// Records is the list size asked with limit and offset; 0 is the
	// fixed list of 20 accounts, asked without paging.
	Records int  `json:"records"`
	Conns   int  `json:"connections"`
	TLS     bool `json:"tls"`
}

// scenarios are the payload sweep (at -concurrency, plain), then the
// connection sweep (fixed list, plain), then the same connections over
// TLS; without sweeps, the fixed list at -concurrency, plain (and over
// TLS with -tls).
func (o *options) scenarios() []scenario {
	var list []scenario
	add := func(s scenario) {
		for _, have := range list {
			if have == s {
				return
			}
		}
		list = append(list, s)
	}
	for _, r := range o.records {
		add(scenario{Records: r, Conns: o.concurrency})
	}
	conns := o.conns
	if len(conns) == 0 {
		conns = []int{o.concurrency}
	}
	if len(o.records) == 0 || len(o.conns) > 0 {
		for _, c := range conns {
			add(scenario{Conns: c})
		}
	}
	if o.tls {
		for _, c := range conns {
			add(scenario{Conns: c, TLS: true})
		}
	}
	return list
}

// endpoint is one process's listener under load.
type endpoint struct {
	name   string
	base   string // scheme and host
	path   string // the fixed list's path; the page query is added to it
	proc   *child
	secure bool
	// ratio is the sample ratio of a traced gateway, 0 for the others.
	ratio float64
	// auth is the bearer tokens its client presents: the HS256 ones, or
	// for gateway-rs256 the RS256 ones.
	auth *bearer
}

// target is one endpoint under one scenario and what was measured of it.
type target struct {
	endpoint
	url    string
	client *http.Client

	requests, non2xx, failures int64
	bytes                      int64
	elapsed, cpu               time.Duration
	syscalls                   int64
	// rss is the largest resident set read at the end of a round.
	rss      int64
	hist     *hdrhistogram.Histogram
	roundRPS []float64
}

// measure starts the targets and the collector, then for each scenario
// warms each target up and runs the interleaved rounds, and stops
// everything.
func measure(ctx context.Context, o options, log io.Writer) (*report, error) {
	files, err := raiseFileLimit()
	if err != nil {
		return nil, fmt.Errorf("open-file limit: %w", err)
	}
	for _, s := range o.scenarios() {
		if uint64(3*s.Conns+256) > files {
			return nil, fmt.Errorf("%d connections need more open files than the limit of %d", s.Conns, files)
		}
	}
	ws, err := prepare(ctx, o, log)
	if err != nil {
		return nil, err
	}
	defer ws.close()
	dir, bin, self, lines := ws.dir, ws.bin, ws.self, ws.lines

	backendArgs := []string{"-serve-backend", "-host", o.host}
	if o.quota {
		backendArgs = append(backendArgs, "-usage-header")
	}
	backend, err := startChild(ctx, targetBackend, childCommand(self, backendArgs...))
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
	if o.gzip {
		env = append(env, "GATEWAY_COMPRESSION=true")
	}
	if len(o.records) > 0 {
		// The largest list, mapped, must fit in the output limit, and the
		// backend pages as asked.
		env = append(env, "GATEWAY_MAX_OUTPUT=4000000", "GATEWAY_ACCOUNTS_PAGING=backend")
	}
	var gateways []*child
	stopGateways := sync1(func() {
		for _, g := range gateways {
			g.stop()
		}
	})
	defer stopGateways()
	gw, err := startGateway(ctx, bin, filepath.Join(dir, "gateway-fast"), o.host, "fast", false, backend.url, lines.url, env)
	if err != nil {
		return nil, err
	}
	gateways = append(gateways, gw)
	endpoints := []endpoint{
		{name: targetBackend, base: backend.url, path: backendPath, proc: backend},
		{name: targetProxy, base: proxy.url, path: backendPath, proc: proxy},
		{name: targetGateway, base: gw.url, path: gatewayPath, proc: gw},
	}
	// variant measures beside the others a gateway like the gateway
	// target but for its binary, its engine and extra environment, named
	// name (its directory too).
	variant := func(name, bin, engine string, extra ...string) error {
		g, err := startGateway(ctx, bin, filepath.Join(dir, name), o.host, engine, false, backend.url, lines.url,
			append(append([]string(nil), env...), extra...))
		if err != nil {
			return err
		}
		gateways = append(gateways, g)
		endpoints = append(endpoints, endpoint{name: name, base: g.url, path: gatewayPath, proc: g})
		return nil
	}
	if o.std {
		if err := variant(targetGatewayStd, bin, "std"); err != nil {
			return nil, err
		}
	}
	if o.console {
		if err := variant(targetGatewayNoRecord, bin, "fast", noRecordEnv()...); err != nil {
			return nil, err
		}
	}
	if o.rs256 {
		ks, err := startKeySet(o.host)
		if err != nil {
			return nil, err
		}
		defer ks.stop()
		rs, err := startRS256Gateway(ctx, ks, bin, filepath.Join(dir, "gateway-rs256"), o.host, backend.url, lines.url, env)
		if err != nil {
			return nil, err
		}
		gateways = append(gateways, rs.proc)
		endpoints = append(endpoints, rs)
	}
	if o.noPGO {
		fmt.Fprintln(log, "loadtest: building the gateway without its profile (-pgo=off)")
		nopgo, err := buildGateway(ctx, dir, "gateway-nopgo.bin", log, "-pgo=off")
		if err != nil {
			return nil, err
		}
		if err := variant(targetGatewayNoPGO, nopgo, "fast"); err != nil {
			return nil, err
		}
	}
	if o.gogc > 0 {
		if err := variant(gogcName(o.gogc), bin, "fast", gogcEnv(o.gogc)...); err != nil {
			return nil, err
		}
	}
	var shared *clusterRun
	if o.cluster {
		if shared, err = startClusterGateway(ctx, bin, dir, o.host, backend.url, lines.url); err != nil {
			return nil, err
		}
		defer shared.stop()
		endpoints = append(endpoints, endpoint{name: targetGatewayRedis, base: shared.gw.url, path: gatewayPath, proc: shared.gw})
	}
	var quotaEnds quotaEndpoints
	if o.quota {
		quotaEnds, err = startQuotaGateways(ctx, bin, dir, o.host, backend.url, lines.url, env, shared)
		gateways = append(gateways, quotaEnds.gateways...)
		if err != nil {
			return nil, err
		}
		endpoints = append(endpoints, quotaEnds.endpoints...)
	}
	var sink *spanSink
	if len(o.tracing) > 0 {
		if sink, err = startSpanSink(o.host); err != nil {
			return nil, err
		}
		defer sink.stop()
	}
	for i, ratio := range o.tracing {
		traced, err := startGateway(ctx, bin, filepath.Join(dir, fmt.Sprintf("gateway-traced%d", i)), o.host, "fast", false,
			backend.url, lines.url, append(append([]string(nil), env...), tracedEnv(ratio, sink.url)...))
		if err != nil {
			return nil, err
		}
		gateways = append(gateways, traced)
		endpoints = append(endpoints, endpoint{name: tracedName(ratio), base: traced.url, path: gatewayPath, proc: traced, ratio: ratio})
	}
	if o.nginx && !o.smoke {
		ng, err := startNginx(ctx, dir, o.host, backend.url)
		if err != nil {
			return nil, err
		}
		if ng == nil {
			fmt.Fprintln(log, "loadtest: nginx is not installed; no nginx reference (apt-get install -y nginx)")
		} else {
			defer ng.proc.stop()
			endpoints = append(endpoints, endpoint{name: targetNginx, base: ng.plain, path: backendPath, proc: ng.proc})
			if o.tls {
				endpoints = append(endpoints, endpoint{name: targetNginxTLS, base: ng.secure, path: backendPath, proc: ng.proc, secure: true})
			}
		}
	}
	if o.tls {
		ptls, err := startChild(ctx, targetProxyTLS, childCommand(self, "-serve-proxy", backend.url, "-serve-tls", "-host", o.host))
		if err != nil {
			return nil, err
		}
		defer ptls.stop()
		gtls, err := startGateway(ctx, bin, filepath.Join(dir, "gateway-tls"), o.host, "fast", true, backend.url, lines.url, env)
		if err != nil {
			return nil, err
		}
		gateways = append(gateways, gtls)
		endpoints = append(endpoints,
			endpoint{name: targetProxyTLS, base: ptls.url, path: backendPath, proc: ptls, secure: true},
			endpoint{name: targetGatewayTLS, base: gtls.url, path: gatewayPath, proc: gtls, secure: true})
	}
	hs, err := hsBearer()
	if err != nil {
		return nil, err
	}
	for i := range endpoints {
		if endpoints[i].auth == nil {
			endpoints[i].auth = hs // the gateways' tokens, read and ignored by the others
		}
	}
	tick := clockTick()
	if shared != nil {
		if shared.redis0, err = processUsage(shared.redis.Pid(), tick); err != nil {
			return nil, err
		}
	}
	var (
		runs []scenarioRun
		open *openLoopReport
		h2   *h2Report
	)
	for si, sc := range o.scenarios() {
		var targets []*target
		for _, e := range endpoints {
			if e.secure != sc.TLS || (e.name == targetBackend && sc.TLS) {
				continue
			}
			targets = append(targets, &target{endpoint: e, url: e.base + e.path + pagePath(sc.Records),
				client: newClient(sc.Conns, e.secure, o.gzip, e.auth), hist: newHistogram()})
		}
		fmt.Fprintf(log, "loadtest: scenario %d/%d: %s\n", si+1, len(o.scenarios()), sc)
		for _, t := range targets {
			if err := checkAnswer(t.client, t.url, sc.Records); err != nil {
				return nil, fmt.Errorf("%s: %w", t.name, err)
			}
			fmt.Fprintf(log, "loadtest: warming up %s (%s)\n", t.name, t.url)
			if r := drive(ctx, t.client, t.url, sc.Conns, o.warmup); r.requests == 0 && o.warmup > 0 {
				return nil, fmt.Errorf("%s answered no request during the warm-up (%d non-2xx, %d failed)", t.name, r.non2xx, r.failures)
			}
		}
		for round := range o.rounds {
			// Rotated so that no target always runs right after the same one.
			for i := range targets {
				t := targets[(i+round)%len(targets)]
				var profiles []gatewayProfile
				if si == 0 && round == 0 && t.proc == gw {
					profiles = o.startProfiles(gw.admin)
				}
				if err := t.round(ctx, o, sc.Conns, tick); err != nil {
					return nil, err
				}
				for _, p := range profiles {
					if err := <-p.done; err != nil {
						return nil, fmt.Errorf("gateway %s: %w", p.what, err)
					}
					fmt.Fprintf(log, "loadtest: gateway %s of round 1 in %s\n", p.what, p.path)
				}
			}
			fmt.Fprintf(log, "loadtest: round %d/%d done\n", round+1, o.rounds)
		}
		if si == 0 && o.openLoop > 0 {
			if open, err = runOpenLoop(ctx, o, targets, log); err != nil {
				return nil, err
			}
		}
		if sc.TLS && o.h2 && h2 == nil {
			if h2, err = runH2(ctx, o, targets, tick, log); err != nil {
				return nil, err
			}
		}
		for _, t := range targets {
			t.client.CloseIdleConnections()
		}
		runs = append(runs, scenarioRun{scenario: sc, targets: targets, answerBytes: answerBytes(sc.Records)})
	}
	for _, g := range gateways {
		if err := checkGateway(g.url, g.auth); err != nil {
			return nil, fmt.Errorf("%s after the run: %w", g.name, err)
		}
	}
	var cluster *clusterReport
	if shared != nil {
		last := runs[0].targets
		if cluster, err = shared.report(last[len(last)-1], tick); err != nil {
			return nil, err
		}
	}
	var quota *quotaReport
	if o.quota {
		if quota, err = quotaEnds.scrape(); err != nil {
			return nil, err
		}
	}
	stopGateways() // flushes the call logs and the spans
	if shared != nil {
		shared.stopGateway()
	}
	rep := newReport(o, runs, lines.Load())
	rep.addCluster(cluster)
	rep.addQuota(quota)
	rep.ConsoleRecording = rep.pair(targetGateway, targetGatewayNoRecord, "console recording on vs off")
	rep.RS256 = rep.pair(targetGatewayRS256, targetGateway, "RS256 tokens from a JWKS vs HS256")
	rep.PGO = rep.pair(targetGateway, targetGatewayNoPGO, "built with cmd/gateway/default.pgo vs -pgo=off")
	rep.GOGC = rep.pair(gogcName(o.gogc), targetGateway, fmt.Sprintf("GOGC=%d vs 100", o.gogc))
	rep.OpenLoop, rep.H2 = open, h2
	if sink != nil {
		rep.addTracing(runs[0].targets, int64(sink.SpanCount()))
	}
	return rep, nil
}

// String names the scenario in the log.
func (s scenario) String() string {
	list := "the fixed list of 20 accounts"
	if s.Records > 0 {
		list = fmt.Sprintf("%d records (%d bytes)", s.Records, answerBytes(s.Records))
	}
	scheme := "plain HTTP"
	if s.TLS {
		scheme = "TLS"
	}
	return fmt.Sprintf("%s, %d connections, %s", list, s.Conns, scheme)
}

// answerBytes is the size of the backend's answer to a list of n records
// (0: the fixed list).
func answerBytes(n int) int {
	if n == 0 {
		return len(sandboxaccounts.FixedList())
	}
	return len(mappingtest.Records(n))
}

// round drives t for one measured stretch, reading what its process used
// before and after.
func (t *target) round(ctx context.Context, o options, conns int, tick time.Duration) error {
	u0, err := t.proc.usage(tick)
	if err != nil {
		return fmt.Errorf("%s: %w", t.name, err)
	}
	r := drive(ctx, t.client, t.url, conns, o.duration)
	u1, err := t.proc.usage(tick)
	if err != nil {
		return fmt.Errorf("%s: %w", t.name, err)
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	t.add(r, u0, u1)
	return nil
}

// add counts a stretch of load r, during which the target's processes went
// from using u0 to u1.
func (t *target) add(r loadResult, u0, u1 usage) {
	t.requests += r.requests
	t.non2xx += r.non2xx
	t.failures += r.failures
	t.bytes += r.bytes
	t.elapsed += r.elapsed
	t.cpu += u1.cpu - u0.cpu
	t.syscalls += u1.syscalls - u0.syscalls
	t.rss = max(t.rss, u1.rss)
	t.hist.Merge(r.hist)
	t.roundRPS = append(t.roundRPS, float64(r.requests)/r.elapsed.Seconds())
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
