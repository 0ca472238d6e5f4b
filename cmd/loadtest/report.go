package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sort"
	"text/tabwriter"
)

// report is the outcome of a run; its JSON form is what -json prints.
type report struct {
	Duration    string `json:"duration"`
	Warmup      string `json:"warmup"`
	Rounds      int    `json:"rounds"`
	Concurrency int    `json:"concurrency"`
	CPUs        int    `json:"cpus"`
	GoVersion   string `json:"goVersion"`
	// ClockTick is what CPU times are counted in.
	ClockTick string         `json:"clockTick"`
	Targets   []targetReport `json:"targets"`
	// GatewayVsProxy are the gateway's figures divided by the bare proxy's.
	GatewayVsProxy ratios `json:"gatewayVsProxy"`
	// GatewayStdVsProxy are those of the gateway on the std engines, when
	// measured.
	GatewayStdVsProxy *ratios `json:"gatewayStdVsProxy,omitempty"`
	// CallLogLines is how many call log lines reached the collector.
	CallLogLines int64 `json:"callLogLines"`
	// Cluster compares the redis store with the memory store (-cluster).
	Cluster *clusterReport `json:"cluster,omitempty"`
	// Tracing compares the traced gateways with the untraced (-tracing).
	Tracing *tracingReport `json:"tracing,omitempty"`
}

// targetReport are the figures of one target over all rounds; latencies
// in milliseconds.
type targetReport struct {
	Name          string    `json:"name"`
	Requests      int64     `json:"requests"`
	Errors        int64     `json:"errors"`
	RPS           float64   `json:"rps"`
	RoundRPS      []float64 `json:"roundRps"`
	P50Millis     float64   `json:"p50Ms"`
	P99Millis     float64   `json:"p99Ms"`
	P999Millis    float64   `json:"p999Ms"`
	CPUMicrosPerR float64   `json:"cpuMicrosPerRequest"`
	// CPUCores is the target process's CPU time over wall time.
	CPUCores float64 `json:"cpuCores"`
	// SyscallsPerR counts read- and write-like system calls per request.
	SyscallsPerR float64 `json:"syscallsPerRequest"`
}

type ratios struct {
	CPUPerRequest float64 `json:"cpuPerRequest"`
	P50           float64 `json:"p50"`
	P99           float64 `json:"p99"`
	RPS           float64 `json:"rps"`
}

func newReport(o options, targets []*target, lines int64) *report {
	r := &report{Duration: o.duration.String(), Warmup: o.warmup.String(), Rounds: o.rounds,
		Concurrency: o.concurrency, CPUs: runtime.NumCPU(), GoVersion: runtime.Version(),
		ClockTick: clockTick().String(), CallLogLines: lines}
	byName := map[string]targetReport{}
	for _, t := range targets {
		tr := targetReport{Name: t.name, Requests: t.requests, Errors: t.errors, RoundRPS: t.roundRPS,
			P50Millis: millis(t.hist.ValueAtQuantile(50)), P99Millis: millis(t.hist.ValueAtQuantile(99)),
			P999Millis: millis(t.hist.ValueAtQuantile(99.9))}
		if t.elapsed > 0 {
			tr.RPS = float64(t.requests) / t.elapsed.Seconds()
			tr.CPUCores = t.cpu.Seconds() / t.elapsed.Seconds()
		}
		if t.requests > 0 {
			tr.CPUMicrosPerR = float64(t.cpu.Microseconds()) / float64(t.requests)
			tr.SyscallsPerR = float64(t.syscalls) / float64(t.requests)
		}
		r.Targets = append(r.Targets, tr)
		byName[t.name] = tr
	}
	px := byName[targetProxy]
	r.GatewayVsProxy = versus(byName[targetGateway], px)
	if std, ok := byName[targetGatewayStd]; ok {
		v := versus(std, px)
		r.GatewayStdVsProxy = &v
	}
	return r
}

// addCluster completes c with the ratios of the two gateways and keeps it.
func (r *report) addCluster(c *clusterReport) {
	if c == nil {
		return
	}
	byName := map[string]targetReport{}
	for _, t := range r.Targets {
		byName[t.Name] = t
	}
	c.RedisVsMemory = versus(byName[targetGatewayRedis], byName[targetGateway])
	r.Cluster = c
}

// versus is gw's figures divided by px's.
func versus(gw, px targetReport) ratios {
	return ratios{CPUPerRequest: ratio(gw.CPUMicrosPerR, px.CPUMicrosPerR),
		P50: ratio(gw.P50Millis, px.P50Millis), P99: ratio(gw.P99Millis, px.P99Millis), RPS: ratio(gw.RPS, px.RPS)}
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
	fmt.Fprintf(w, "%d rounds x %s per target, %d in flight, %d CPUs, %s, CPU tick %s\n\n",
		r.Rounds, r.Duration, r.Concurrency, r.CPUs, r.GoVersion, r.ClockTick)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\trequests\terrors\treq/s\tp50 ms\tp99 ms\tp99.9 ms\tCPU µs/req\tCPU cores\tsyscalls/req\t")
	for _, t := range r.Targets {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.3f\t%.3f\t%.3f\t%.1f\t%.2f\t%.2f\t\n", t.Name, t.Requests, t.Errors, t.RPS,
			t.P50Millis, t.P99Millis, t.P999Millis, t.CPUMicrosPerR, t.CPUCores, t.SyscallsPerR)
	}
	_ = tw.Flush()
	g := r.GatewayVsProxy
	fmt.Fprintf(w, "\ngateway / proxy: CPU per request %.2fx, p50 %.2fx, p99 %.2fx, req/s %.2fx\n",
		g.CPUPerRequest, g.P50, g.P99, g.RPS)
	if s := r.GatewayStdVsProxy; s != nil {
		fmt.Fprintf(w, "gateway-std / proxy: CPU per request %.2fx, p50 %.2fx, p99 %.2fx, req/s %.2fx\n",
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
	if t := r.Tracing; t != nil {
		names := make([]string, 0, len(t.VsGateway))
		for name := range t.VsGateway {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			g := t.VsGateway[name]
			fmt.Fprintf(w, "%s / gateway: CPU per request %.2fx, p50 %.2fx, p99 %.2fx, req/s %.2fx\n",
				name, g.CPUPerRequest, g.P50, g.P99, g.RPS)
		}
		fmt.Fprintf(w, "spans at the sink: %d (about %d expected from the measured requests)\n", t.Spans, t.SpansExpected)
	}
}
