package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/restgate/gateway/gateway/app/apptest"
)

// targetGatewayNoPGO is the gateway built without the profile
// cmd/gateway/default.pgo (-nopgo): the gateway target is built with it,
// as the image is, so the two side by side are what the profile buys.
const targetGatewayNoPGO = "gateway-nopgo"

// buildNoPGO compiles cmd/gateway as buildGateway does, with -pgo=off.
func buildNoPGO(ctx context.Context, dir string, log io.Writer) (string, error) {
	fmt.Fprintln(log, "loadtest: building the gateway without its profile (-pgo=off)")
	bin := filepath.Join(dir, "gateway-nopgo.bin")
	if err := apptest.BuildAsImage(ctx, bin, log, "-pgo=off"); err != nil {
		return "", err
	}
	return bin, nil
}

// addPGO compares the gateway (built with the profile) with gateway-nopgo
// in the first scenario, when both were measured.
func (r *report) addPGO() {
	byName := map[string]targetReport{}
	for _, t := range r.Targets {
		byName[t.Name] = t
	}
	off, ok := byName[targetGatewayNoPGO]
	if !ok {
		return
	}
	on := byName[targetGateway]
	r.PGO = &pgoReport{PGOVsOff: versus(on, off), CPUMicrosPerRequestDelta: on.CPUMicrosPerR - off.CPUMicrosPerR}
}

// pgoReport is what the profile-guided build buys (-nopgo).
type pgoReport struct {
	// PGOVsOff are the gateway's figures divided by gateway-nopgo's.
	PGOVsOff ratios `json:"pgoVsOff"`
	// CPUMicrosPerRequestDelta is the gateway's CPU per request minus
	// gateway-nopgo's, in microseconds.
	CPUMicrosPerRequestDelta float64 `json:"cpuMicrosPerRequestDelta"`
}

// line is the table's line for p; "" when not measured.
func (p *pgoReport) line() string {
	if p == nil {
		return ""
	}
	g := p.PGOVsOff
	return fmt.Sprintf("gateway / gateway-nopgo (built with cmd/gateway/default.pgo vs -pgo=off, first scenario): CPU per request %.3fx (%+.2f µs), p50 %.2fx, p99 %.2fx, req/s %.2fx\n",
		g.CPUPerRequest, p.CPUMicrosPerRequestDelta, g.P50, g.P99, g.RPS)
}
