package main

import "fmt"

// targetGatewayNoRecord is the gateway with the console's recording off
// (-console): the gateway target records, as shipped, so the two side by
// side are what the recording costs a request.
const targetGatewayNoRecord = "gateway-norecord"

// noRecordEnv turns the console's recording off (console.record).
func noRecordEnv() []string { return []string{"GATEWAY_CONSOLE_RECORD=false"} }

// addConsole compares the gateway (recording) with gateway-norecord in
// the first scenario, when both were measured.
func (r *report) addConsole() {
	byName := map[string]targetReport{}
	for _, t := range r.Targets {
		byName[t.Name] = t
	}
	off, ok := byName[targetGatewayNoRecord]
	if !ok {
		return
	}
	on := byName[targetGateway]
	v := versus(on, off)
	r.ConsoleRecording = &consoleReport{RecordingVsOff: v,
		CPUMicrosPerRequestDelta: on.CPUMicrosPerR - off.CPUMicrosPerR}
}

// consoleReport is what the console's recording costs (-console).
type consoleReport struct {
	// RecordingVsOff are the recording gateway's figures divided by
	// gateway-norecord's.
	RecordingVsOff ratios `json:"recordingVsOff"`
	// CPUMicrosPerRequestDelta is the recording gateway's CPU per request
	// minus gateway-norecord's, in microseconds.
	CPUMicrosPerRequestDelta float64 `json:"cpuMicrosPerRequestDelta"`
}

// consoleLine is the table's line for c; "" when not measured.
func (c *consoleReport) line() string {
	if c == nil {
		return ""
	}
	g := c.RecordingVsOff
	return fmt.Sprintf("gateway / gateway-norecord (console recording on vs off, first scenario): CPU per request %.3fx (%+.2f µs), p50 %.2fx, p99 %.2fx, req/s %.2fx\n",
		g.CPUPerRequest, c.CPUMicrosPerRequestDelta, g.P50, g.P99, g.RPS)
}
