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
	host         string
	duration     time.Duration
	warmup       time.Duration
	rounds       int
	concurrency  int
	gatewayBin   string
	json         bool
	smoke        bool
	keep         bool
	cpuprofile   string
	allocprofile string
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
	// rs256 adds the gateway verifying RS256 tokens of a key set the
	// harness serves (target gateway-rs256).
	rs256 bool
	// openLoop, when above 0, adds an open-loop stretch to the first
	// scenario: every target sent openLoop times the bare proxy's
	// closed-loop rate (openloop.go).
	openLoop float64
	// h2 drives the TLS targets over HTTP/2 with h2load too (h2.go).
	h2 bool
	// noPGO adds the gateway built with -pgo=off (target gateway-nopgo).
	noPGO bool
	// gogc, when above 0, adds the gateway run at GOGC=gogc (target
	// gateway-gogcN).
	gogc int
	// out is where the JSON summary goes; empty: nowhere.
	out string
	// cache runs the response cache's scenario instead (cache.go): the
	// same describe asked by cacheClients clients of cacheReplicas
	// gateways, its backend answering after describeLatency, cached for
	// cacheTTL.
	cache           bool
	cacheReplicas   int
	cacheClients    int
	cacheTTL        time.Duration
	describeLatency time.Duration
	describeFields  int
	redisTimeout    time.Duration
	cacheRedis      time.Duration
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
	fs.StringVar(&o.allocprofile, "allocprofile", "", "write a profile of what the gateway allocated during its first measured stretch to this file (go tool pprof -sample_index=alloc_space)")
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
	fs.BoolVar(&o.rs256, "rs256", false, "also measure the gateway verifying RS256 tokens from a JWKS the harness serves (target gateway-rs256) beside the gateway verifying HS256 ones: 1000 users' tokens each, reused")
	fs.Float64Var(&o.openLoop, "openloop", 0, "also send every target of the first scenario this fraction (0.7) of the bare proxy's closed-loop rate, open-loop (requests due on a schedule, latency counted from when each was due), in interleaved rounds, and report p50/p90/p99/p99.9/max per target; 0: off")
	fs.BoolVar(&o.h2, "h2", false, "with -tls: also drive the TLS targets over HTTP/2 with h2load (when installed), in interleaved rounds")
	fs.BoolVar(&o.noPGO, "nopgo", false, "also measure the gateway built without its profile (go build -pgo=off, target gateway-nopgo) beside the one built with cmd/gateway/default.pgo, as the image is")
	fs.IntVar(&o.gogc, "gogc", 0, "also measure the gateway run at GOGC=N (target gateway-gogcN) beside the one at Go's default, 100: what the garbage collector's pace costs")
	fs.StringVar(&o.out, "out", "", "also write the JSON summary to this file")
	fs.Var(&o.tracing, "tracing", "comma-separated sample ratios (0.01,1): one more gateway target per ratio, with tracing on, exporting over OTLP/HTTP to a span sink in the harness")
	fs.BoolVar(&o.cache, "cache", false, "the response cache's scenario instead: one describe asked by -cache-clients clients of -cache-replicas gateways sharing a redis-server; hits, misses and the uncached route side by side, and the backend's calls per ttl")
	fs.IntVar(&o.cacheReplicas, "cache-replicas", 3, "with -cache: gateway replicas (more than one share a redis-server, cluster.store redis)")
	fs.IntVar(&o.cacheClients, "cache-clients", 100, "with -cache: clients (keep-alive connections) spread over the replicas")
	fs.DurationVar(&o.cacheTTL, "cache-ttl", 2*time.Second, "with -cache: the describe route's ttl (the shipped 15m is longer than a run)")
	fs.DurationVar(&o.describeLatency, "describe-latency", 200*time.Millisecond, "with -cache: how long the backend takes to answer a describe (a 304 too)")
	fs.IntVar(&o.describeFields, "describe-fields", 120, "with -cache: the fields of the describe (120: about 180 KB)")
	fs.DurationVar(&o.redisTimeout, "redis-timeout", 10*time.Millisecond, "with -cache: the replicas' cluster.redis.timeout (10ms: the shipped one)")
	fs.DurationVar(&o.cacheRedis, "cache-redis-timeout", 100*time.Millisecond, "with -cache: the replicas' cache.redisTimeout (100ms: the shipped one)")
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
		o.cacheClients = min(o.cacheClients, 24)
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
	case o.openLoop < 0 || o.openLoop > 1:
		return errors.New("-openloop must be from 0 (off) to 1")
	case o.h2 && !o.tls:
		return errors.New("-h2 drives the TLS targets: it needs -tls")
	}
	per := len(o.targetNames()) + 2 // the TLS and nginx targets, at most
	scenarios := len(o.scenarios())
	if o.cache {
		if err := o.checkCache(); err != nil {
			return err
		}
		per, scenarios = len(cacheTargets), 1
	}
	total := time.Duration(scenarios*per) * (time.Duration(o.rounds)*o.duration + o.warmup)
	if o.openLoop > 0 {
		total += time.Duration(per*o.rounds) * o.duration
	}
	if o.h2 {
		total += time.Duration(3*o.rounds) * o.duration
	}
	if total > maxRun {
		return fmt.Errorf("a run of %s is longer than the %s bound", total, maxRun)
	}
	return nil
}

// checkCache checks the flags of the cache scenario, which runs alone.
func (o *options) checkCache() error {
	switch {
	case len(o.records) > 0 || len(o.conns) > 0 || o.tls || o.cluster || len(o.tracing) > 0 || o.gzip:
		return errNoCacheScenario
	case o.cacheReplicas < 1 || o.cacheReplicas > maxReplicas:
		return fmt.Errorf("-cache-replicas must be from 1 to %d", maxReplicas)
	case o.cacheClients < o.cacheReplicas || o.cacheClients > maxConns:
		return fmt.Errorf("-cache-clients must be from -cache-replicas to %d", maxConns)
	case o.cacheTTL <= 0 || o.describeLatency < 0 || o.describeLatency > time.Minute:
		return errors.New("-cache-ttl must be positive and -describe-latency from 0 to 1m")
	case o.cacheRedis <= 0 || o.cacheRedis > 5*time.Second:
		return errors.New("-cache-redis-timeout must be above 0 and at most 5s")
	case o.redisTimeout <= 0 || o.redisTimeout > 5*time.Second:
		return errors.New("-redis-timeout must be above 0 and at most 5s")
	case o.describeFields < 1 || o.describeFields > maxRecords:
		return fmt.Errorf("-describe-fields must be from 1 to %d", maxRecords)
	}
	return nil
}

// maxReplicas bounds the cache scenario's gateways.
const maxReplicas = 8

// checkLoopback refuses any host that is not a loopback IP: the harness
// sends load as fast as it can, which must never reach another machine.
func checkLoopback(host string) error {
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-host %q is not a loopback IP address; load is only sent on loopback", host)
	}
	return nil
}
