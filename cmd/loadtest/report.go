package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
)

// report is the outcome of a run; its JSON form is what -json prints and
// -out writes. Its targets and ratios are those of the first scenario (the
// only one without sweeps); Scenarios holds every scenario of a sweep.
type report struct {
	Duration    string `json:"duration"`
	Warmup      string `json:"warmup"`
	Rounds      int    `json:"rounds"`
	Concurrency int    `json:"concurrency"`
	CPUs        int    `json:"cpus"`
	GoVersion   string `json:"goVersion"`
	// ClockTick is what CPU times are counted in.
	ClockTick string `json:"clockTick"`
	// LoadAverage is the machine's 1-minute load average at the start and
	// the end of the run (/proc/loadavg): other work on it moves every
	// figure, which is why only ratios within one run are compared.
	LoadAverage [2]float64     `json:"loadAverage"`
	Targets     []targetReport `json:"targets"`
	// GatewayVsProxy are the gateway's figures divided by the bare proxy's.
	GatewayVsProxy ratios `json:"gatewayVsProxy"`
	// GatewayStdVsProxy are those of the gateway on the std engines, when
	// measured.
	GatewayStdVsProxy *ratios `json:"gatewayStdVsProxy,omitempty"`
	// GatewayVsNginx are the gateway's figures divided by nginx's, when
	// nginx was measured.
	GatewayVsNginx *ratios `json:"gatewayVsNginx,omitempty"`
	// CallLogLines is how many call log lines reached the collector.
	CallLogLines int64 `json:"callLogLines"`
	// Cluster compares the redis store with the memory store (-cluster).
	Cluster *clusterReport `json:"cluster,omitempty"`
	// Quota compares the gateways counting quotas and guarding an
	// allowance with the same without (-quota).
	Quota *quotaReport `json:"quota,omitempty"`
	// Tracing compares the traced gateways with the untraced one in the
	// first scenario (-tracing).
	Tracing *tracingReport `json:"tracing,omitempty"`
	// ConsoleRecording compares the gateway (recording) with
	// gateway-norecord (-console).
	ConsoleRecording *pairReport `json:"consoleRecording,omitempty"`
	// RS256 compares gateway-rs256 with the gateway (HS256) (-rs256).
	RS256 *pairReport `json:"rs256,omitempty"`
	// PGO compares the gateway (built with cmd/gateway/default.pgo) with
	// gateway-nopgo (-nopgo).
	PGO *pairReport `json:"pgo,omitempty"`
	// GOGC compares gateway-gogcN with the gateway (GOGC 100) (-gogc).
	GOGC *pairReport `json:"gogc,omitempty"`
	// OpenLoop is the first scenario's targets under a constant rate
	// (-openloop).
	OpenLoop *openLoopReport `json:"openLoop,omitempty"`
	// H2 is the TLS targets over HTTP/2 (-h2).
	H2 *h2Report `json:"h2,omitempty"`
	// Cache is the cache scenario's (-cache), whose targets are Targets.
	Cache *cacheReport `json:"cache,omitempty"`
	// Scenarios are every scenario of a sweep, the first included (a
	// sweep of one too); absent without sweeps.
	Scenarios []scenarioReport `json:"scenarios,omitempty"`
}

// scenarioReport is one scenario's targets and ratios. Over TLS the
// gateway is gateway-tls, the proxy proxy-tls and nginx nginx-tls.
type scenarioReport struct {
	scenario
	// AnswerBytes is the size of the backend's answer to one request.
	AnswerBytes    int            `json:"answerBytes"`
	Targets        []targetReport `json:"targets"`
	GatewayVsProxy ratios         `json:"gatewayVsProxy"`
	GatewayVsNginx *ratios        `json:"gatewayVsNginx,omitempty"`
}

// scenarioRun is what measure hands newReport for one scenario.
type scenarioRun struct {
	scenario
	targets     []*target
	answerBytes int
}

// targetReport are the figures of one target over all rounds; latencies
// in milliseconds.
type targetReport struct {
	Name string `json:"name"`
	// Requests were answered 200 in full; Errors is Non2xx (answered with
	// another status) plus Failures (not answered).
	Requests      int64     `json:"requests"`
	Errors        int64     `json:"errors"`
	Non2xx        int64     `json:"non2xx"`
	Failures      int64     `json:"failures"`
	RPS           float64   `json:"rps"`
	RoundRPS      []float64 `json:"roundRps"`
	P50Millis     float64   `json:"p50Ms"`
	P99Millis     float64   `json:"p99Ms"`
	P999Millis    float64   `json:"p999Ms"`
	CPUMicrosPerR float64   `json:"cpuMicrosPerRequest"`
	// CPUMicrosPerKB is CPU per KB (1000 bytes) of the backend's answer.
	CPUMicrosPerKB float64 `json:"cpuMicrosPerKB"`
	// CPUCores is the target process's CPU time over wall time.
	CPUCores float64 `json:"cpuCores"`
	// SyscallsPerR counts read- and write-like system calls per request.
	SyscallsPerR float64 `json:"syscallsPerRequest"`
	// BytesPerAnswer is the mean body of an answer as sent (compressed
	// with -gzip).
	BytesPerAnswer float64 `json:"bytesPerAnswer"`
	// RSSMB is the largest resident set of the target's process read at
	// the end of a round, in MB (2^20 bytes).
	RSSMB float64 `json:"rssMB"`
}

type ratios struct {
	CPUPerRequest float64 `json:"cpuPerRequest"`
	P50           float64 `json:"p50"`
	P99           float64 `json:"p99"`
	RPS           float64 `json:"rps"`
	RSS           float64 `json:"rss"`
}

func newReport(o options, runs []scenarioRun, lines int64) *report {
	r := &report{Duration: o.duration.String(), Warmup: o.warmup.String(), Rounds: o.rounds,
		Concurrency: o.concurrency, CPUs: runtime.NumCPU(), GoVersion: runtime.Version(),
		ClockTick: clockTick().String(), CallLogLines: lines, LoadAverage: o.load}
	for i, run := range runs {
		sr := scenarioReport{scenario: run.scenario, AnswerBytes: run.answerBytes}
		byName := map[string]targetReport{}
		for _, t := range run.targets {
			tr := t.report(run.answerBytes)
			sr.Targets = append(sr.Targets, tr)
			byName[t.name] = tr
		}
		gwName, pxName, ngName := targetGateway, targetProxy, targetNginx
		if run.TLS {
			gwName, pxName, ngName = targetGatewayTLS, targetProxyTLS, targetNginxTLS
		}
		sr.GatewayVsProxy = versus(byName[gwName], byName[pxName])
		if ng, ok := byName[ngName]; ok {
			v := versus(byName[gwName], ng)
			sr.GatewayVsNginx = &v
		}
		if i == 0 {
			r.Targets, r.GatewayVsProxy, r.GatewayVsNginx = sr.Targets, sr.GatewayVsProxy, sr.GatewayVsNginx
			if std, ok := byName[targetGatewayStd]; ok {
				v := versus(std, byName[pxName])
				r.GatewayStdVsProxy = &v
			}
		}
		if len(runs) > 1 || run.scenario != (scenario{Conns: o.concurrency}) {
			r.Scenarios = append(r.Scenarios, sr)
		}
	}
	return r
}

// report sums up t's rounds; answer is the backend's answer size.
func (t *target) report(answer int) targetReport {
	tr := targetReport{Name: t.name, Requests: t.requests, Errors: t.non2xx + t.failures, Non2xx: t.non2xx,
		Failures: t.failures, RoundRPS: t.roundRPS,
		P50Millis: millis(t.hist.ValueAtQuantile(50)), P99Millis: millis(t.hist.ValueAtQuantile(99)),
		P999Millis: millis(t.hist.ValueAtQuantile(99.9)), RSSMB: float64(t.rss) / (1 << 20)}
	if t.elapsed > 0 {
		tr.RPS = float64(t.requests) / t.elapsed.Seconds()
		tr.CPUCores = t.cpu.Seconds() / t.elapsed.Seconds()
	}
	if t.requests > 0 {
		tr.CPUMicrosPerR = float64(t.cpu.Microseconds()) / float64(t.requests)
		tr.SyscallsPerR = float64(t.syscalls) / float64(t.requests)
		tr.CPUMicrosPerKB = tr.CPUMicrosPerR / (float64(answer) / 1000)
		tr.BytesPerAnswer = float64(t.bytes) / float64(t.requests)
	}
	return tr
}

// addCluster completes c with the ratios of the two gateways and keeps it.
func (r *report) addCluster(c *clusterReport) {
	if c == nil {
		return
	}
	redis, _ := r.target(targetGatewayRedis)
	memory, _ := r.target(targetGateway)
	c.RedisVsMemory = versus(redis, memory)
	r.Cluster = c
}

// versus is gw's figures divided by px's.
func versus(gw, px targetReport) ratios {
	return ratios{CPUPerRequest: ratio(gw.CPUMicrosPerR, px.CPUMicrosPerR),
		P50: ratio(gw.P50Millis, px.P50Millis), P99: ratio(gw.P99Millis, px.P99Millis), RPS: ratio(gw.RPS, px.RPS),
		RSS: ratio(gw.RSSMB, px.RSSMB)}
}

func millis(micros int64) float64 { return float64(micros) / 1000 }

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func (r *report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func (r *report) writeTable(w io.Writer) {
	fmt.Fprintf(w, "%d rounds x %s per target, %d CPUs, %s, CPU tick %s, load average %.1f at the start, %.1f at the end\n",
		r.Rounds, r.Duration, r.CPUs, r.GoVersion, r.ClockTick, r.LoadAverage[0], r.LoadAverage[1])
	if r.Cache != nil {
		r.Cache.writeTable(w, r.Targets)
		fmt.Fprintf(w, "call log lines at the collector: %d\n", r.CallLogLines)
		return
	}
	scenarios := r.Scenarios
	if len(scenarios) == 0 {
		scenarios = []scenarioReport{{scenario: scenario{Conns: r.Concurrency}, Targets: r.Targets,
			GatewayVsProxy: r.GatewayVsProxy, GatewayVsNginx: r.GatewayVsNginx}}
	}
	for _, sc := range scenarios {
		fmt.Fprintf(w, "\n%s\n", sc.scenario)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "target\trequests\tnon-2xx\tfailed\treq/s\tp50 ms\tp99 ms\tp99.9 ms\tCPU µs/req\tCPU µs/KB\tCPU cores\tsyscalls/req\tRSS MB\tbytes/answer\t")
		for _, t := range sc.Targets {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.0f\t%.3f\t%.3f\t%.3f\t%.1f\t%.2f\t%.2f\t%.2f\t%.1f\t%.0f\t\n", t.Name, t.Requests,
				t.Non2xx, t.Failures, t.RPS, t.P50Millis, t.P99Millis, t.P999Millis, t.CPUMicrosPerR, t.CPUMicrosPerKB,
				t.CPUCores, t.SyscallsPerR, t.RSSMB, t.BytesPerAnswer)
		}
		_ = tw.Flush()
		g := sc.GatewayVsProxy
		fmt.Fprintf(w, "gateway / proxy: CPU per request %.2fx, p50 %.2fx, p99 %.2fx, req/s %.2fx, RSS %.2fx\n",
			g.CPUPerRequest, g.P50, g.P99, g.RPS, g.RSS)
		if n := sc.GatewayVsNginx; n != nil {
			fmt.Fprintf(w, "gateway / nginx: CPU per request %.2fx, p50 %.2fx, p99 %.2fx, req/s %.2fx, RSS %.2fx\n",
				n.CPUPerRequest, n.P50, n.P99, n.RPS, n.RSS)
		}
	}
	if s := r.GatewayStdVsProxy; s != nil {
		fmt.Fprintf(w, "\ngateway-std / proxy (first scenario): CPU per request %.2fx, p50 %.2fx, p99 %.2fx, req/s %.2fx\n",
			s.CPUPerRequest, s.P50, s.P99, s.RPS)
	}
	fmt.Fprintf(w, "call log lines at the collector: %d\n", r.CallLogLines)
	if c := r.Cluster; c != nil {
		g := c.RedisVsMemory
		fmt.Fprintf(w, "gateway-redis / gateway (both rate-limiting): CPU per request %.2fx, p50 %.2fx, p99 %.2fx, req/s %.2fx\n",
			g.CPUPerRequest, g.P50, g.P99, g.RPS)
		fmt.Fprintf(w, "redis-server CPU per gateway-redis request: %.1f µs (warm-up included); store errors %.0f, local decisions %.0f\n",
			c.RedisCPUMicrosPerR, c.StoreErrors, c.LocalDecisions)
	}
	r.Quota.writeTable(w)
	r.Tracing.writeTable(w)
	fmt.Fprint(w, r.ConsoleRecording.line())
	fmt.Fprint(w, r.RS256.line())
	fmt.Fprint(w, r.PGO.line())
	fmt.Fprint(w, r.GOGC.line())
	r.OpenLoop.writeTable(w)
	r.H2.writeTable(w)
}

// loadAverage is the 1-minute load average of /proc/loadavg, 0 when it
// cannot be read.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
