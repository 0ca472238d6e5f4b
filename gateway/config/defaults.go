package config

import (
	"path/filepath"
	"time"
)

// DefaultMaxConcurrentUploads is a files route's default maxConcurrent.
const DefaultMaxConcurrentUploads = 16

// Defaults fills every zero field with its documented default. Parse calls
// it; tests that build a Config by hand call it too.
func Defaults(c *Config) {
	s := &c.Server
	setStr(&s.Listen, "127.0.0.1:8443")
	setStr(&s.AdminListen, "127.0.0.1:9090")
	setStr(&s.TLS.Mode, TLSAuto)
	setDur(&s.Timeouts.ReadHeader, 5*time.Second)
	setDur(&s.Timeouts.Read, 30*time.Second)
	setDur(&s.Timeouts.Write, 60*time.Second)
	setDur(&s.Timeouts.Idle, 120*time.Second)
	setDur(&s.Timeouts.Shutdown, 20*time.Second)
	setInt64(&s.Limits.MaxBodyBytes, 10<<20)
	setInt(&s.Limits.MaxHeaderBytes, 32<<10)
	setInt(&s.Limits.MaxURLLength, 4096)
	setInt(&s.Limits.MaxJSONDepth, 64)
	setInt(&s.Limits.MaxConnections, 10000)
	setInt(&s.Limits.MaxAdminConnections, 64)
	setInt64(&s.Limits.MaxSpoolBytes, 2<<30)
	setStr(&s.DataDir, "./data")
	setStr(&s.HTTP1, HTTP1Fast)
	setStr(&s.Contact.Name, DefaultContactName)
	setInt(&s.Compression.Level, 1)
	setInt(&s.Compression.MinBytes, 1400)

	setStr(&c.Auth.Mode, AuthNone)
	setDur(&c.Auth.JWT.Leeway, 30*time.Second)
	setDur(&c.Auth.JWT.JWKSRefresh, 5*time.Minute)
	setInt(&c.Auth.JWT.VerifiedTokens, 10000)
	setInt(&c.Auth.RateLimit.MaxUsers, 10000)
	quotaDefaults(&c.Auth.Quotas)
	if c.Auth.RateLimit.RequestsPerSecond > 0 && c.Auth.RateLimit.Burst == 0 {
		c.Auth.RateLimit.Burst = max(int(c.Auth.RateLimit.RequestsPerSecond*2), 1)
	}

	setStr(&c.Errors.StatusMode, StatusHTTP)
	setInt(&c.Mapping.MaxOutputChars, 50000)
	setInt(&c.Mapping.MaxDepth, 64)

	l := &c.Log
	setStr(&l.Sink, "http")
	setStr(&l.Format, "text")
	setInt(&l.QueueSize, 10000)
	setInt(&l.BatchSize, 100)
	setInt(&l.MaxBatchSize, max(1000, l.BatchSize))
	setInt(&l.MaxBatchBytes, 1<<20)
	setInt(&l.Senders, 4)
	setStr(&l.Compress, "none")
	setStr(&l.Queue, "memory")
	setStr(&l.Disk.Dir, filepath.Join(s.DataDir, "calllog"))
	setInt64(&l.Disk.MaxBytes, 256<<20)
	setStr(&l.Disk.Fsync, "interval")
	setDur(&l.Disk.FsyncInterval, time.Second)
	setDur(&l.ShutdownFlush, 5*time.Second)
	setStr(&l.Elasticsearch.Index, "restgate-calls")
	if l.Sink == "loki" && l.Loki.Labels == nil {
		l.Loki.Labels = map[string]string{"service_name": "restgate"}
	}
	setDur(&l.FlushInterval, time.Second)
	setDur(&l.Timeout, 60*time.Second)
	setInt(&l.MaxRetries, 3)
	setInt(&l.MaxBodyBytes, 2048)
	setDur(&l.SlowThreshold, time.Second)
	setDur(&l.DuplicateWindow, 10*time.Second)
	setInt(&l.DuplicateMaxEntries, 100000)
	setStr(&l.Level, "info")
	setStr(&l.Local, LocalAuto)
	setStr(&l.LocalFormat, LocalAuto)

	clusterDefaults(&c.Cluster)
	setCacheDefaults(&c.Cache)
	consoleDefaults(&c.Console)

	for i := range c.Routes {
		if len(c.Routes[i].Methods) == 0 {
			c.Routes[i].Methods = []string{"GET"}
		}
		if c.Routes[i].Upstream != "" {
			setInt64(&c.Routes[i].MaxAnswerBytes, max(AnswerCapFactor*int64(c.Mapping.MaxOutputChars), MinAnswerCap))
		}
		if c.Routes[i].Kind == KindFiles {
			setInt(&c.Routes[i].MaxConcurrent, DefaultMaxConcurrentUploads)
		}
	}
}

func setStr(p *string, v string) {
	if *p == "" {
		*p = v
	}
}

func setDur(p *time.Duration, v time.Duration) {
	if *p == 0 {
		*p = v
	}
}

func setInt(p *int, v int) {
	if *p == 0 {
		*p = v
	}
}

func setInt64(p *int64, v int64) {
	if *p == 0 {
		*p = v
	}
}
