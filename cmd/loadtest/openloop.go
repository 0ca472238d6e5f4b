package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// pacedConns is how many keep-alive connections carry the open-loop load
// to each target: enough that a target keeping up never makes a request
// wait for a free connection at the rates a 2-core machine reaches.
const pacedConns = 64

// pacedResult is one stretch of open-loop load on one target.
type pacedResult struct {
	// due is how many requests the schedule held; answered were answered
	// 200 in full; errors were answered otherwise or not at all.
	due, answered, errors int64
	hist                  *hdrhistogram.Histogram
}

// drivePaced sends GET url at rate requests per second for d, open-loop:
// request i is due at start + i/rate whatever became of the earlier ones,
// spread over conns workers (worker w sends requests w, w+conns, ...), as
// wrk2 and vegeta do. A request's latency runs from when it was due when
// its worker was still waiting for an earlier answer then (the target was
// behind, and the wait is its), from when it was sent otherwise (so the
// harness's own timer lateness is not charged to the target).
func drivePaced(ctx context.Context, client *http.Client, url string, conns int, rate float64, d time.Duration) pacedResult {
	var (
		wg             sync.WaitGroup
		answered, errs atomic.Int64
		mu             sync.Mutex
		hist           = newHistogram()
	)
	interval := time.Duration(float64(time.Second) / rate)
	total := int64(d.Seconds() * rate)
	start := time.Now()
	for w := range conns {
		wg.Go(func() {
			local := newHistogram()
			for i := int64(w); i < total && ctx.Err() == nil; i += int64(conns) {
				due := start.Add(time.Duration(i) * interval)
				from := due
				if wait := time.Until(due); wait > 0 {
					time.Sleep(wait)
					from = time.Now()
				}
				status, _, err := get(client, url)
				if err != nil || status != http.StatusOK {
					errs.Add(1)
					continue
				}
				answered.Add(1)
				_ = local.RecordValue(min(time.Since(from).Microseconds(), maxLatencyMicros))
			}
			mu.Lock()
			hist.Merge(local)
			mu.Unlock()
		})
	}
	wg.Wait()
	return pacedResult{due: total, answered: answered.Load(), errors: errs.Load(), hist: hist}
}

// add counts r into p.
func (p *pacedResult) add(r pacedResult) {
	p.due += r.due
	p.answered += r.answered
	p.errors += r.errors
	p.hist.Merge(r.hist)
}

// pacedTarget is one target under open-loop load over every round.
type pacedTarget struct {
	name   string
	client *http.Client
	url    string
	pacedResult
}

// runOpenLoop sends every target of the first scenario fraction of the
// bare proxy's closed-loop rate, open-loop, in interleaved rounds of
// o.duration, and reports their latency distributions.
func runOpenLoop(ctx context.Context, o options, targets []*target, log io.Writer) (*openLoopReport, error) {
	var proxyRPS float64
	for _, t := range targets {
		if t.name == targetProxy && t.elapsed > 0 {
			proxyRPS = float64(t.requests) / t.elapsed.Seconds()
		}
	}
	if proxyRPS == 0 {
		return nil, fmt.Errorf("open loop: the proxy answered no request in the closed-loop rounds")
	}
	rate := o.openLoop * proxyRPS
	var paced []*pacedTarget
	for _, t := range targets {
		if t.name == targetBackend {
			continue
		}
		paced = append(paced, &pacedTarget{name: t.name, url: t.url, pacedResult: pacedResult{hist: newHistogram()},
			client: newClient(pacedConns, t.secure, o.gzip, t.auth)})
	}
	fmt.Fprintf(log, "loadtest: open loop at %.0f req/s (%.2f of the proxy's %.0f)\n", rate, o.openLoop, proxyRPS)
	for round := range o.rounds {
		for i := range paced {
			p := paced[(i+round)%len(paced)]
			r := drivePaced(ctx, p.client, p.url, pacedConns, rate, o.duration)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			p.add(r)
		}
		fmt.Fprintf(log, "loadtest: open-loop round %d/%d done\n", round+1, o.rounds)
	}
	rep := &openLoopReport{Fraction: o.openLoop, ProxyRPS: proxyRPS, Rate: rate}
	for _, p := range paced {
		p.client.CloseIdleConnections()
		h := p.hist
		rep.Targets = append(rep.Targets, pacedReport{Name: p.name, Due: p.due, Answered: p.answered, Errors: p.errors,
			P50Millis: millis(h.ValueAtQuantile(50)), P90Millis: millis(h.ValueAtQuantile(90)),
			P99Millis: millis(h.ValueAtQuantile(99)), P999Millis: millis(h.ValueAtQuantile(99.9)), MaxMillis: millis(h.Max())})
	}
	rep.compare()
	return rep, nil
}

// openLoopReport is the open-loop stretch (-openloop).
type openLoopReport struct {
	// Fraction of ProxyRPS, the bare proxy's closed-loop rate, is Rate,
	// the requests per second every target was sent.
	Fraction float64       `json:"fraction"`
	ProxyRPS float64       `json:"proxyRps"`
	Rate     float64       `json:"rate"`
	Targets  []pacedReport `json:"targets"`
	// GatewayVsNginx and GatewayVsProxy are the gateway's percentiles
	// divided by nginx's (when measured) and the proxy's.
	GatewayVsNginx *tailRatios `json:"gatewayVsNginx,omitempty"`
	GatewayVsProxy tailRatios  `json:"gatewayVsProxy"`
}

// pacedReport is one target's latency under the open loop, in ms.
type pacedReport struct {
	Name       string  `json:"name"`
	Due        int64   `json:"due"`
	Answered   int64   `json:"answered"`
	Errors     int64   `json:"errors"`
	P50Millis  float64 `json:"p50Ms"`
	P90Millis  float64 `json:"p90Ms"`
	P99Millis  float64 `json:"p99Ms"`
	P999Millis float64 `json:"p999Ms"`
	MaxMillis  float64 `json:"maxMs"`
}

// tailRatios are one target's percentiles divided by another's.
type tailRatios struct {
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
}

func (r *openLoopReport) compare() {
	byName := map[string]pacedReport{}
	for _, t := range r.Targets {
		byName[t.Name] = t
	}
	gw := byName[targetGateway]
	vs := func(o pacedReport) tailRatios {
		return tailRatios{P50: ratio(gw.P50Millis, o.P50Millis), P99: ratio(gw.P99Millis, o.P99Millis),
			P999: ratio(gw.P999Millis, o.P999Millis)}
	}
	r.GatewayVsProxy = vs(byName[targetProxy])
	if ng, ok := byName[targetNginx]; ok {
		v := vs(ng)
		r.GatewayVsNginx = &v
	}
}

// writeTable prints r; nothing when not measured.
func (r *openLoopReport) writeTable(w io.Writer) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "\nopen loop: %.0f req/s to every target (%.2f of the proxy's closed-loop %.0f), %d connections\n",
		r.Rate, r.Fraction, r.ProxyRPS, pacedConns)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tdue\tanswered\terrors\tp50 ms\tp90 ms\tp99 ms\tp99.9 ms\tmax ms\t")
	for _, t := range r.Targets {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", t.Name, t.Due, t.Answered, t.Errors,
			t.P50Millis, t.P90Millis, t.P99Millis, t.P999Millis, t.MaxMillis)
	}
	_ = tw.Flush()
	g := r.GatewayVsProxy
	fmt.Fprintf(w, "open loop, gateway / proxy: p50 %.2fx, p99 %.2fx, p99.9 %.2fx\n", g.P50, g.P99, g.P999)
	if n := r.GatewayVsNginx; n != nil {
		fmt.Fprintf(w, "open loop, gateway / nginx: p50 %.2fx, p99 %.2fx, p99.9 %.2fx\n", n.P50, n.P99, n.P999)
	}
}
