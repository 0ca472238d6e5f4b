package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"text/tabwriter"
	"time"
)

// HTTP/2 load (-h2): h2load, nghttp2's load generator, drives the TLS
// targets over h2 with h2Conns connections of h2Streams concurrent
// streams each, in interleaved rounds of -duration; the harness reads each
// target's CPU around every round as it does for its own client.
const (
	h2Conns   = 4
	h2Streams = 4
)

// h2Result is what h2load printed about one stretch.
type h2Result struct {
	// requests were answered 2xx; errors are the others h2load counted
	// done.
	requests, errors int64
	// mean is the mean time for a request.
	mean time.Duration
}

var (
	h2Requests = regexp.MustCompile(`(?m)^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout`)
	h2Status   = regexp.MustCompile(`(?m)^status codes: (\d+) 2xx`)
	h2Time     = regexp.MustCompile(`(?m)^time for request:\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)\s`)
)

// parseH2load reads h2load's summary: the requests answered 2xx, every
// other one it counted done (h2load's failed: errored, timed out or
// answered 4xx or 5xx; and its 3xx, which it counts as succeeded), and the
// mean time for a request.
func parseH2load(out string) (h2Result, error) {
	m := h2Requests.FindStringSubmatch(out)
	s := h2Status.FindStringSubmatch(out)
	t := h2Time.FindStringSubmatch(out)
	if m == nil || s == nil || t == nil {
		return h2Result{}, errors.New("h2load printed no summary")
	}
	var n [3]int64 // succeeded, failed, 2xx
	for i, v := range [...]string{m[4], m[5], s[1]} {
		var err error
		if n[i], err = strconv.ParseInt(v, 10, 64); err != nil {
			return h2Result{}, fmt.Errorf("h2load's summary: %w", err)
		}
	}
	mean, err := strconv.ParseFloat(t[1], 64)
	if err != nil {
		return h2Result{}, fmt.Errorf("h2load's summary: %w", err)
	}
	unit := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second}[t[2]]
	return h2Result{requests: n[2], errors: n[1] + max(n[0]-n[2], 0), mean: time.Duration(mean * float64(unit))}, nil
}

// h2Target is one TLS target under h2load over every round.
type h2Target struct {
	*target
	requests, errors int64
	cpu, elapsed     time.Duration
	meanSum          time.Duration // of the rounds' means
}

// runH2 drives the TLS scenario's targets over HTTP/2 with h2load, when
// it is installed (nil, nil when it is not).
func runH2(ctx context.Context, o options, targets []*target, tick time.Duration, log io.Writer) (*h2Report, error) {
	bin, err := exec.LookPath("h2load")
	if err != nil {
		fmt.Fprintln(log, "loadtest: h2load is not installed; no HTTP/2 figures (apt-get install -y nghttp2-client)")
		return nil, nil
	}
	var ts []*h2Target
	for _, t := range targets {
		ts = append(ts, &h2Target{target: t})
	}
	for round := range o.rounds {
		for i := range ts {
			t := ts[(i+round)%len(ts)]
			if err := t.round(ctx, bin, o.duration, tick); err != nil {
				return nil, err
			}
		}
		fmt.Fprintf(log, "loadtest: HTTP/2 round %d/%d done\n", round+1, o.rounds)
	}
	rep := &h2Report{Conns: h2Conns, Streams: h2Streams}
	byName := map[string]h2TargetReport{}
	for _, t := range ts {
		tr := h2TargetReport{Name: t.name, Requests: t.requests, Errors: t.errors}
		if t.elapsed > 0 && t.requests > 0 {
			tr.RPS = float64(t.requests) / t.elapsed.Seconds()
			tr.CPUMicrosPerR = float64(t.cpu.Microseconds()) / float64(t.requests)
			tr.MeanMillis = float64(t.meanSum.Microseconds()) / 1000 / float64(o.rounds)
		}
		rep.Targets = append(rep.Targets, tr)
		byName[t.name] = tr
	}
	gw, px := byName[targetGatewayTLS], byName[targetProxyTLS]
	rep.GatewayVsProxy = h2Ratios{CPUPerRequest: ratio(gw.CPUMicrosPerR, px.CPUMicrosPerR), RPS: ratio(gw.RPS, px.RPS),
		Mean: ratio(gw.MeanMillis, px.MeanMillis)}
	return rep, nil
}

// round runs h2load on t for d, reading t's CPU before and after.
func (t *h2Target) round(ctx context.Context, bin string, d time.Duration, tick time.Duration) error {
	args := []string{"-c", strconv.Itoa(h2Conns), "-m", strconv.Itoa(h2Streams), "-t", "1",
		"-D", strconv.Itoa(max(int(d.Seconds()), 1)), "--npn-list", "h2"}
	if t.auth != nil {
		// h2load sends one set of headers: the first user's token
		args = append(args, "-H", "Authorization: "+t.auth.values[0][0])
	}
	u0, err := t.proc.usage(tick)
	if err != nil {
		return fmt.Errorf("%s: %w", t.name, err)
	}
	start := time.Now()
	out, err := exec.CommandContext(ctx, bin, append(args, t.url)...).CombinedOutput()
	elapsed := time.Since(start)
	u1, uerr := t.proc.usage(tick)
	if err := errors.Join(err, uerr); err != nil {
		return fmt.Errorf("h2load on %s: %w\n%s", t.name, err, out)
	}
	r, err := parseH2load(string(out))
	if err != nil {
		return fmt.Errorf("h2load on %s: %w\n%s", t.name, err, out)
	}
	if r.requests == 0 {
		return fmt.Errorf("h2load on %s: no request answered 2xx\n%s", t.name, out)
	}
	t.requests += r.requests
	t.errors += r.errors
	t.cpu += u1.cpu - u0.cpu
	t.elapsed += elapsed
	t.meanSum += r.mean
	return nil
}

// h2Report is the TLS targets over HTTP/2 (-h2).
type h2Report struct {
	Conns   int              `json:"connections"`
	Streams int              `json:"streamsPerConnection"`
	Targets []h2TargetReport `json:"targets"`
	// GatewayVsProxy are gateway-tls's figures divided by proxy-tls's.
	GatewayVsProxy h2Ratios `json:"gatewayVsProxy"`
}

// h2TargetReport is one target's figures over HTTP/2; h2load gives no
// percentiles, only the mean time for a request.
type h2TargetReport struct {
	Name          string  `json:"name"`
	Requests      int64   `json:"requests"`
	Errors        int64   `json:"errors"`
	RPS           float64 `json:"rps"`
	MeanMillis    float64 `json:"meanMs"`
	CPUMicrosPerR float64 `json:"cpuMicrosPerRequest"`
}

// h2Ratios are one target's HTTP/2 figures divided by another's.
type h2Ratios struct {
	CPUPerRequest float64 `json:"cpuPerRequest"`
	RPS           float64 `json:"rps"`
	Mean          float64 `json:"mean"`
}

// writeTable prints r; nothing when not measured.
func (r *h2Report) writeTable(w io.Writer) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "\nHTTP/2 over TLS (h2load, %d connections x %d streams)\n", r.Conns, r.Streams)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\trequests\terrors\treq/s\tmean ms\tCPU µs/req\t")
	for _, t := range r.Targets {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.3f\t%.1f\t\n", t.Name, t.Requests, t.Errors, t.RPS, t.MeanMillis, t.CPUMicrosPerR)
	}
	_ = tw.Flush()
	g := r.GatewayVsProxy
	fmt.Fprintf(w, "HTTP/2, gateway-tls / proxy-tls: CPU per request %.2fx, req/s %.2fx, mean %.2fx\n", g.CPUPerRequest, g.RPS, g.Mean)
}
