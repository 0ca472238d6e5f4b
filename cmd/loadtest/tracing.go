package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/restgate/gateway/gateway/tracing/tracingtest"
)

// maxTraced bounds the traced gateway targets of one run.
const maxTraced = 3

// ratioList is the -tracing flag: sample ratios above 0 and at most 1,
// one traced gateway target each.
type ratioList []float64

func (l *ratioList) String() string {
	parts := make([]string, len(*l))
	for i, r := range *l {
		parts[i] = strconv.FormatFloat(r, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

func (l *ratioList) Set(v string) error {
	*l = nil
	for _, f := range strings.Split(v, ",") {
		r, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(r > 0 && r <= 1) {
			return fmt.Errorf("%q is not a sample ratio above 0 and at most 1", f)
		}
		*l = append(*l, r)
	}
	if len(*l) > maxTraced {
		return fmt.Errorf("at most %d traced targets", maxTraced)
	}
	return nil
}

// tracedName is the target name of the gateway tracing ratio of its
// requests.
func tracedName(ratio float64) string {
	return "gateway, traced " + strconv.FormatFloat(ratio*100, 'g', -1, 64) + "%"
}

// tracedEnv is the environment of a gateway that traces ratio of its
// requests (the load sends no traceparent, so the gateway starts every
// trace) and exports them to sink, through the standard OTEL_* variables.
func tracedEnv(ratio float64, sink string) []string {
	return []string{"GATEWAY_TRACING=true", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=" + sink,
		"OTEL_TRACES_SAMPLER=parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG=" + strconv.FormatFloat(ratio, 'g', -1, 64)}
}

// spanSink is the OTLP/HTTP collector of the traced gateways: it decodes
// and counts their spans, keeping none. It runs in the harness's process,
// on the machine the targets share.
type spanSink struct {
	*tracingtest.Receiver
	url  string
	stop func()
}

func startSpanSink(host string) (*spanSink, error) {
	ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return nil, err
	}
	rcv := &tracingtest.Receiver{} // Keep false: counts only
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: rcv}
	go func() {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "loadtest: span sink:", err)
		}
	}()
	return &spanSink{Receiver: rcv, url: "http://" + ln.Addr().String() + "/v1/traces", stop: func() { _ = srv.Close() }}, nil
}

// tracingReport compares each traced gateway with the untraced one
// (-tracing).
type tracingReport struct {
	// VsGateway are each traced gateway's figures divided by the
	// untraced gateway's, by target name.
	VsGateway map[string]ratios `json:"vsGateway"`
	// Spans is how many spans the traced gateways exported to the sink.
	Spans int64 `json:"spans"`
	// SpansExpected is two per sampled request (the server span and the
	// upstream attempt's), from the measured requests alone; warm-up and
	// readiness checks add a few more.
	SpansExpected int64 `json:"spansExpected"`
}

// addTracing compares the traced targets (ratio above 0) of one scenario
// with its gateway.
func (r *report) addTracing(targets []*target, spans int64) {
	gw, _ := r.target(targetGateway)
	var tr *tracingReport
	for _, t := range targets {
		if t.ratio == 0 {
			continue
		}
		if tr == nil {
			tr = &tracingReport{VsGateway: map[string]ratios{}, Spans: spans}
		}
		traced, _ := r.target(t.name)
		tr.VsGateway[t.name] = versus(traced, gw)
		tr.SpansExpected += int64(2 * t.ratio * float64(t.requests))
	}
	r.Tracing = tr
}

// writeTable prints the ratios and the span count; a nil t prints nothing.
func (t *tracingReport) writeTable(w io.Writer) {
	if t == nil {
		return
	}
	names := make([]string, 0, len(t.VsGateway))
	for name := range t.VsGateway {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		g := t.VsGateway[name]
		fmt.Fprintf(w, "%s / gateway (first scenario): CPU per request %.2fx, p50 %.2fx, p99 %.2fx, req/s %.2fx\n",
			name, g.CPUPerRequest, g.P50, g.P99, g.RPS)
	}
	fmt.Fprintf(w, "spans at the sink: %d (about %d expected from the measured requests)\n", t.Spans, t.SpansExpected)
}
