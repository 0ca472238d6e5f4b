package config

import (
	"net"
	"net/url"
	"strings"
	"time"
)

// Cluster stores.
const (
	StoreMemory = "memory"
	StoreRedis  = "redis"
)

// Redis modes.
const (
	RedisSingle   = "single"
	RedisSentinel = "sentinel"
	RedisCluster  = "cluster"
)

// Cluster configures the state that the replicas of one deployment share:
// the per-user rate limit (auth.rateLimit), duplicate detection
// (log.duplicateWindow), the consumers' quotas (auth.quotas) and the orgs'
// API allowance (upstreams.<name>.allowance). Breakers, connection pools and the describe cache
// stay per replica. Every cluster setting needs a restart: the store's
// client is made at start and kept across reloads.
type Cluster struct {
	// Store is memory (default: each replica decides alone, as a single
	// gateway does) or redis (the decisions hold across replicas).
	Store string `yaml:"store"`
	// FailClosed answers a request 503 CALLOUT_FAILED when the shared store
	// cannot take its rate-limit or quota decision, instead of deciding it
	// with the replica's own limiter and counts. Default false (fail open).
	// Duplicate detection never rejects, and the allowance's reserve is
	// decided on the replica's own answers, so both always fall back.
	FailClosed bool `yaml:"failClosed"`
	// Redis locates the shared store of store redis.
	Redis Redis `yaml:"redis"`
}

// Redis locates the shared store and bounds what waiting on it may cost.
type Redis struct {
	// URL is redis://[[user]:password@]host:port[/db], or rediss:// for TLS
	// (from GATEWAY_REDIS_URL). In sentinel and cluster modes its host is
	// not used, only its credentials, database and scheme.
	URL string `yaml:"url"`
	// Mode is single (default), sentinel or cluster.
	Mode string `yaml:"mode"`
	// Addrs are comma-separated host:port: the sentinels in sentinel mode,
	// seed nodes in cluster mode. Empty in single mode.
	Addrs string `yaml:"addrs"`
	// MasterName is the name the sentinels monitor (sentinel mode).
	MasterName string `yaml:"masterName"`
	// SentinelPassword authenticates to the sentinels themselves, when they
	// require it (GATEWAY_REDIS_SENTINEL_PASSWORD).
	SentinelPassword string `yaml:"sentinelPassword"`
	// TLSCAFile is a PEM file of the certificates that may sign Redis's
	// (GATEWAY_REDIS_CA_FILE), for a rediss:// URL whose server has a
	// private CA; empty: the system's roots.
	TLSCAFile string `yaml:"tlsCAFile"`
	// KeyPrefix starts every key the gateway writes. Default "restgate:".
	KeyPrefix string `yaml:"keyPrefix"`
	// PoolSize is the most connections per Redis node; 0 means the
	// client's default, 10 per CPU.
	PoolSize int `yaml:"poolSize"`
	// MinIdleConns are kept open ahead of need. Default 0.
	MinIdleConns int `yaml:"minIdleConns"`
	// Timeout bounds one decision's wait on Redis, pool wait, connection
	// set-up and round trip included; past it the replica decides alone.
	// Default 10ms.
	Timeout time.Duration `yaml:"timeout"`
	// DialTimeout bounds one connection attempt, made in the background
	// (a request waits at most Timeout for it). Default 1s.
	DialTimeout time.Duration `yaml:"dialTimeout"`
	// FailureThreshold failures in a row, when failures are also at least
	// half of the calls of the last RetryInterval, make the replica stop
	// asking Redis for RetryInterval. Default 10.
	FailureThreshold int `yaml:"failureThreshold"`
	// RetryInterval is how long the replica decides alone after Redis
	// failed, before one request tries it again. Default 1s.
	RetryInterval time.Duration `yaml:"retryInterval"`
}

func clusterDefaults(c *Cluster) {
	setStr(&c.Store, StoreMemory)
	r := &c.Redis
	setStr(&r.Mode, RedisSingle)
	setStr(&r.KeyPrefix, "restgate:")
	setDur(&r.Timeout, 10*time.Millisecond)
	setDur(&r.DialTimeout, time.Second)
	setInt(&r.FailureThreshold, 10)
	setDur(&r.RetryInterval, time.Second)
}

// RedisAddrs splits Addrs into its host:port entries.
func (r Redis) RedisAddrs() []string {
	var addrs []string
	for a := range strings.SplitSeq(r.Addrs, ",") {
		if a = strings.TrimSpace(a); a != "" {
			addrs = append(addrs, a)
		}
	}
	return addrs
}

func validateCluster(p *problems, c *Cluster) {
	switch c.Store {
	case StoreMemory:
		return // the redis block may stay filled in, unused
	case StoreRedis:
	default:
		p.add("cluster.store", "must be %s or %s, not %q", StoreMemory, StoreRedis, c.Store)
		return
	}
	r := c.Redis
	if r.URL == "" {
		p.add("cluster.redis.url", "required when cluster.store is redis (GATEWAY_REDIS_URL, e.g. redis://:password@host:6379/0)")
	} else if u, err := url.Parse(r.URL); err != nil || (u.Scheme != "redis" && u.Scheme != "rediss") {
		// never echo the URL: it may hold the password
		p.add("cluster.redis.url", "must be a redis:// or rediss:// URL")
	} else if r.Mode == RedisSingle && u.Host == "" {
		p.add("cluster.redis.url", "names no host")
	}
	if r.TLSCAFile != "" && !strings.HasPrefix(r.URL, "rediss://") {
		p.add("cluster.redis.tlsCAFile", "only with a rediss:// URL")
	}
	addrs := r.RedisAddrs()
	switch r.Mode {
	case RedisSingle:
		if len(addrs) > 0 {
			p.add("cluster.redis.addrs", "only for sentinel and cluster modes; single mode takes the URL's host")
		}
	case RedisSentinel:
		if len(addrs) == 0 {
			p.add("cluster.redis.addrs", "sentinel mode needs the sentinels' addresses")
		}
		if r.MasterName == "" {
			p.add("cluster.redis.masterName", "required in sentinel mode")
		}
	case RedisCluster:
		if len(addrs) == 0 {
			p.add("cluster.redis.addrs", "cluster mode needs at least one node's address")
		}
	default:
		p.add("cluster.redis.mode", "must be %s, %s or %s, not %q", RedisSingle, RedisSentinel, RedisCluster, r.Mode)
	}
	for _, a := range addrs {
		if _, _, err := net.SplitHostPort(a); err != nil {
			p.add("cluster.redis.addrs", "%q is not host:port", a)
		}
	}
	if r.PoolSize < 0 || r.MinIdleConns < 0 {
		p.add("cluster.redis.poolSize", "poolSize and minIdleConns must not be negative")
	}
	if r.Timeout <= 0 || r.Timeout > 5*time.Second {
		p.add("cluster.redis.timeout", "must be between 0 and 5s: every request may wait that long on Redis")
	}
	if r.DialTimeout <= 0 {
		p.add("cluster.redis.dialTimeout", "must be positive")
	}
	if r.FailureThreshold < 1 {
		p.add("cluster.redis.failureThreshold", "must be at least 1")
	}
	if r.RetryInterval <= 0 {
		p.add("cluster.redis.retryInterval", "must be positive")
	}
}
