package main

import "fmt"

// pairReport compares two gateways measured in the same rounds of the
// first scenario, alike but for one thing: what that thing costs or buys
// (-console, -rs256, -nopgo).
type pairReport struct {
	// Ratio are the first gateway's figures divided by the second's.
	Ratio ratios `json:"ratio"`
	// CPUMicrosPerRequestDelta is the first gateway's CPU per request
	// minus the second's, in microseconds.
	CPUMicrosPerRequestDelta float64 `json:"cpuMicrosPerRequestDelta"`
	// what names the pair in the table.
	what string
}

// pair compares the first scenario's targets a and b; nil when either was
// not measured. what names the pair in the table.
func (r *report) pair(a, b, what string) *pairReport {
	ta, okA := r.target(a)
	tb, okB := r.target(b)
	if !okA || !okB {
		return nil
	}
	return &pairReport{Ratio: versus(ta, tb), CPUMicrosPerRequestDelta: ta.CPUMicrosPerR - tb.CPUMicrosPerR,
		what: fmt.Sprintf("%s / %s (%s, first scenario)", a, b, what)}
}

// target is the first scenario's target of that name.
func (r *report) target(name string) (targetReport, bool) {
	for _, t := range r.Targets {
		if t.Name == name {
			return t, true
		}
	}
	return targetReport{}, false
}

// line is the table's line for p; "" when not measured.
func (p *pairReport) line() string {
	if p == nil {
		return ""
	}
	g := p.Ratio
	return fmt.Sprintf("%s: CPU per request %.3fx (%+.2f µs), p50 %.2fx, p99 %.2fx, req/s %.2fx\n",
		p.what, g.CPUPerRequest, p.CPUMicrosPerRequestDelta, g.P50, g.P99, g.RPS)
}
