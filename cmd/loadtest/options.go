package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// options are the harness's flags.
type options struct {
	host        string
	duration    time.Duration
	warmup      time.Duration
	rounds      int
	concurrency int
	gatewayBin  string
	json        bool
	smoke       bool
	keep        bool
	cpuprofile  string
	// std adds the gateway on the std HTTP/1 engines (target gateway-std).
	std bool
	// cluster adds the gateway on the redis store beside the one on the
	// memory store, both with a rate limit that never refuses.
	cluster bool
	// quota adds the gateway with every request counted in a quota and
	// its upstream guarded by an org allowance (and its redis twin with
	// cluster); the backend then reports an org's usage on every answer.
	quota bool
	// records are the payload sweep's list sizes; empty: the fixed list
	// of 20 accounts only.
	records []int
	// conns are the connection sweep's client connections; empty:
	// concurrency only.
	conns []int
	// tls measures over TLS too: the gateway's TLS listener, a bare Go TLS
	// proxy and nginx's TLS.
	tls bool
	// nginx adds nginx pass-through as a reference (when it is installed).
	nginx bool
	// gzip makes the client ask for gzip (Accept-Encoding: gzip) and turns
	// the gateways' compression on (GATEWAY_COMPRESSION=true).
	gzip bool
	// tracing lists the sample ratios of the traced gateway targets.
	tracing ratioList
	// console adds the gateway with the console's recording off
	// (target gateway-norecord).
	console bool
	// out is where the JSON summary goes; empty: nowhere.
	out string
	// load is the machine's load average at the start and the end of the
	// run, filled by the run.
	load [2]float64
}

func (o *options) register(fs *flag.FlagSet) {
	fs.StringVar(&o.host, "host", "127.0.0.1", "loopback address every target listens on")
	fs.DurationVar(&o.duration, "duration", 4*time.Second, "measured time per target and round")
	fs.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured load per target before the first round")
	fs.IntVar(&o.rounds, "rounds", 5, "interleaved rounds over the targets")
	fs.IntVar(&o.concurrency, "concurrency", 16, "requests in flight (keep-alive connections)")
	fs.StringVar(&o.gatewayBin, "gateway-bin", "", "gateway binary to run; empty: go build ./cmd/gateway into a temp dir")
	fs.BoolVar(&o.json, "json", false, "print the report as JSON")
	fs.BoolVar(&o.smoke, "smoke", false, "a run of a few seconds proving the harness works (overrides duration, warmup, rounds)")
	fs.BoolVar(&o.keep, "keep", false, "keep the temp dir (config, gateway log) and print its path")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the gateway during its first measured stretch to this file")
	fs.BoolVar(&o.std, "std", true, "also measure the gateway with both HTTP/1 engine switches on std (target gateway-std)")
	fs.BoolVar(&o.gzip, "gzip", false, "the client sends Accept-Encoding: gzip and the gateways compress (server.compression on); answers are read as sent, compressed")
	fs.BoolVar(&o.quota, "quota", false, "also run the gateway with a quota counting every request and its upstream guarded by an org allowance read from every answer (target gateway-quota; gateway-redis-quota too with -cluster)")
	fs.BoolVar(&o.cluster, "cluster", false, "also run the gateway with cluster.store redis against a local redis-server; both gateways rate-limit (a limit never reached)")
	fs.Func("records", "payload sweep: comma-separated list sizes, e.g. 2,20,200,2000 (Salesforce-style records with attributes and nulls, asked with limit and offset)", func(v string) error {
		var err error
		o.records, err = intList(v, 1, maxRecords)
		return err
	})
	fs.Func("conns", "connection sweep: comma-separated client connection counts, e.g. 16,256,2048", func(v string) error {
		var err error
		o.conns, err = intList(v, 1, maxConns)
		return err
	})
	fs.BoolVar(&o.tls, "tls", false, "also measure over TLS: the gateway's TLS listener against a bare Go TLS reverse proxy (and nginx with TLS)")
	fs.BoolVar(&o.nginx, "nginx", true, "add nginx pass-through (proxy_pass with keep-alive upstream connections) as a reference when nginx is installed")
	fs.BoolVar(&o.console, "console", false, "also measure the gateway with the console's recording off (console.record false, target gateway-norecord): what the recording costs a request")
	fs.StringVar(&o.out, "out", "", "also write the JSON summary to this file")
	fs.Var(&o.tracing, "tracing", "comma-separated sample ratios (0.01,1): one more gateway target per ratio, with tracing on, exporting over OTLP/HTTP to a span sink in the harness")
}

// Bounds of the sweeps.
const (
	maxRecords = 2000
	maxConns   = 4096
)

// intList parses a comma-separated list of integers within [lo, hi].
func intList(v string, lo, hi int) ([]int, error) {
	var list []int
	for f := range strings.SplitSeq(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < lo || n > hi {
			return nil, fmt.Errorf("%q is not a number from %d to %d", f, lo, hi)
		}
		list = append(list, n)
	}
	return list, nil
}

// maxRun bounds a whole run whatever the flags say.
const maxRun = 60 * time.Minute

func (o *options) check() error {
	if o.smoke {
		o.duration, o.warmup, o.rounds = 400*time.Millisecond, 200*time.Millisecond, 2
		o.concurrency = min(o.concurrency, 4)
	}
	if err := checkLoopback(o.host); err != nil {
		return err
	}
	switch {
	case o.duration <= 0 || o.warmup < 0:
		return errors.New("-duration must be positive and -warmup not negative")
	case o.rounds < 1:
		return errors.New("-rounds must be at least 1")
	case o.concurrency < 1 || o.concurrency > maxConns:
		return fmt.Errorf("-concurrency must be from 1 to %d", maxConns)
	}
	per := len(o.targetNames()) + 2 // the TLS and nginx targets, at most
	if total := time.Duration(len(o.scenarios())*per) * (time.Duration(o.rounds)*o.duration + o.warmup); total > maxRun {
		return fmt.Errorf("a run of %s is longer than the %s bound", total, maxRun)
	}
	return nil
}

// checkLoopback refuses any host that is not a loopback IP: the harness
// sends load as fast as it can, which must never reach another machine.
func checkLoopback(host string) error {
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-host %q is not a loopback IP address; load is only sent on loopback", host)
	}
	return nil
}
