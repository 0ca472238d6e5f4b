package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
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
	// tracing lists the sample ratios of the traced gateway targets.
	tracing ratioList
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
	fs.BoolVar(&o.cluster, "cluster", false, "also run the gateway with cluster.store redis against a local redis-server; both gateways rate-limit (a limit never reached)")
	fs.Var(&o.tracing, "tracing", "comma-separated sample ratios (0.01,1): one more gateway target per ratio, with tracing on, exporting over OTLP/HTTP to a span sink in the harness")
}

// maxRun bounds a whole run whatever the flags say.
const maxRun = 15 * time.Minute

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
	case o.concurrency < 1 || o.concurrency > 1024:
		return errors.New("-concurrency must be from 1 to 1024")
	}
	if total := time.Duration(o.rounds*len(o.targetNames()))*o.duration + time.Duration(len(o.targetNames()))*o.warmup; total > maxRun {
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
