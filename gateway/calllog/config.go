package calllog

import (
	"errors"
	"fmt"
	"maps"
	"net/textproto"
	"net/url"
	"time"

	"github.com/restgate/gateway/gateway/calllog/diskqueue"
	"github.com/restgate/gateway/upstreams"
)

// ErrInvalidConfig is wrapped by every error NewShipper returns for a bad
// Config.
var ErrInvalidConfig = errors.New("calllog: invalid config")

// Upstream is the name of the collector's client: its calls are counted in
// gateway_upstream_calls_total{upstream="collector"}, and its breaker is
// gateway_breaker_state{upstream="collector"}.
const Upstream = "collector"

// Defaults of Config.Client where the call log's differ from an upstream's.
const (
	// DefaultTimeout bounds the POST of one batch, retries included: the
	// seed's log callout timeout of 60000 ms.
	DefaultTimeout = 60 * time.Second
	// DefaultAttempts is the first POST of a batch and three retries.
	DefaultAttempts = 4
	// DefaultBackoff is the base of the jittered wait before a retry.
	DefaultBackoff = 200 * time.Millisecond
)

// Sinks: what the batches are shaped for.
const (
	// SinkHTTP POSTs Format's lines (text or jsonl) or a JSON array (json).
	SinkHTTP = "http"
	// SinkLoki POSTs Loki's push API JSON.
	SinkLoki = "loki"
	// SinkElasticsearch POSTs Elasticsearch's bulk API.
	SinkElasticsearch = "elasticsearch"
	// SinkOTLP POSTs OTLP/HTTP logs in protobuf.
	SinkOTLP = "otlp"
)

// Queues: where entries wait.
const (
	QueueMemory = "memory"
	QueueDisk   = "disk"
)

// Config tunes a Shipper. Its zero value, with a URL, is usable: every field
// names its default.
type Config struct {
	// URL is the collector the batches are POSTed to (http or https), the
	// whole URL: a Loki push path, an Elasticsearch _bulk path or an OTLP
	// /v1/logs path included. Empty means no callout: the Shipper accepts
	// and discards entries.
	URL string
	// Sink is http (default), loki, elasticsearch or otlp.
	Sink string
	// Format is the entry's line: "text" (the seed's line, the default),
	// "jsonl" (one JSON object per line, with the structured-only fields)
	// or, for the http sink only, "json" (a batch is one JSON array, for
	// Fluent Bit's and Fluentd's HTTP inputs). The loki and otlp sinks
	// carry the line as text or JSON; elasticsearch always sends JSON
	// documents.
	Format string
	// QueueSize is how many entries may wait in memory; when full, the
	// oldest is dropped. Default 10000. With the disk queue it is the
	// hand-off buffer in front of the disk.
	QueueSize int
	// MaxQueueBytes bounds the body bytes held by entries waiting in
	// memory; past it, the oldest are dropped. Default 32 MiB.
	MaxQueueBytes int
	// BatchSize is how many waiting entries make a sender POST at once;
	// fewer wait for FlushInterval. Default 100.
	BatchSize int
	// MaxBatchSize is the most entries one POST carries: a sender takes
	// every waiting entry up to it, so batches grow with the backlog.
	// Default 1000.
	MaxBatchSize int
	// MaxBatchBytes bounds a batch's entries (bodies and fields, before
	// compression); one entry is always taken. Default 1 MiB.
	MaxBatchBytes int
	// Senders is how many POSTs may be in flight at once: senders join in
	// as the backlog grows. Throughput is at most Senders x MaxBatchSize
	// per collector round trip. Default 4.
	Senders int
	// FlushInterval is the longest a queued entry waits for a batch to fill.
	// Default 1s.
	FlushInterval time.Duration
	// Client configures the upstreams.Client every batch is POSTed through
	// (upstream "collector", with its breaker, bulkhead, retry budget and
	// metrics). Its URL is set to URL's origin. Zero fields take the call
	// log's defaults where they differ from an upstream's: Timeout, which
	// bounds the POST of one batch with its retries, 60s (the seed's
	// 60000 ms); ResponseHeaderTimeout, the Timeout; Retry.Attempts 4 (three
	// retries); Retry.Backoff 200ms. A POST is sent again after a
	// connection failure, an attempt that timed out, or a 502, 503 or 504.
	Client upstreams.Settings
	// Headers are sent with every batch (a tenant, an API key); they join
	// Client.Auth.Headers and, like them, are never logged. A name in both
	// is an error.
	Headers map[string]string
	// Compress is "" or "none" (default), or "gzip": the body is gzipped
	// and sent with Content-Encoding: gzip.
	Compress string
	// MaxBodyBytes is the most body bytes logged per entry, after redaction.
	// Default 2048; negative logs no body, only its size.
	MaxBodyBytes int
	// RedactFields are the field names whose values are masked; nil means
	// DefaultRedactFields, empty means none.
	RedactFields []string
	// Queue is memory (default) or disk: entries are written, redacted, to
	// a segment-file queue under Disk.Dir before they are sent, and what a
	// crash or an outage left there is sent after the next start.
	Queue string
	// Disk configures the disk queue.
	Disk DiskConfig
	// Loki configures the loki sink.
	Loki LokiConfig
	// Elasticsearch configures the elasticsearch sink.
	Elasticsearch ElasticsearchConfig
	// RetryBackoff is the first wait before a batch the collector could not
	// take (unreachable, timing out, 5xx, 401, 403, 408, 429, breaker open)
	// is sent again; it doubles, with jitter, up to MaxRetryBackoff. A 429
	// or 503 waits the collector's Retry-After instead when it sent one
	// (they are the collector's flow control, not counted by the breaker).
	// The batch is held meanwhile, never dropped. Default 1s.
	RetryBackoff time.Duration
	// MaxRetryBackoff bounds that wait, a collector's Retry-After
	// included. Default 30s.
	MaxRetryBackoff time.Duration
}

// DiskConfig configures the disk queue.
type DiskConfig struct {
	// Dir holds the queue's files; required with the disk queue (the
	// gateway defaults it to <server.dataDir>/calllog).
	Dir string
	// MaxBytes bounds the files; when full, new entries are dropped and
	// counted. Default 256 MiB.
	MaxBytes int64
	// Fsync is always, interval (default) or never; see diskqueue.Sync.
	Fsync string
	// FsyncInterval is the interval policy's period. Default 1s.
	FsyncInterval time.Duration
}

// LokiConfig configures the loki sink.
type LokiConfig struct {
	// Labels are fixed stream labels added to route and status (the status
	// class, such as 2xx). Default {service_name: restgate}.
	Labels map[string]string
}

// ElasticsearchConfig configures the elasticsearch sink.
type ElasticsearchConfig struct {
	// Index every document is created in (an index, alias or data
	// stream). Default restgate-calls.
	Index string
}

func (cfg Config) withDefaults() (Config, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cfg, fmt.Errorf("%w: url %q: want an http or https URL", ErrInvalidConfig, cfg.URL)
	}
	if cfg.Sink == "" {
		cfg.Sink = SinkHTTP
	}
	if cfg.Format == "" {
		cfg.Format = "text"
	}
	if err := checkSink(cfg.Sink, cfg.Format); err != nil {
		return cfg, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	switch cfg.Compress {
	case "", "none", "gzip":
	default:
		return cfg, fmt.Errorf("%w: compress %q: want none or gzip", ErrInvalidConfig, cfg.Compress)
	}
	cfg.QueueSize = orDefault(cfg.QueueSize, 10000)
	cfg.MaxQueueBytes = orDefault(cfg.MaxQueueBytes, 32<<20)
	cfg.BatchSize = orDefault(cfg.BatchSize, 100)
	cfg.MaxBatchSize = max(orDefault(cfg.MaxBatchSize, 1000), cfg.BatchSize)
	cfg.MaxBatchBytes = orDefault(cfg.MaxBatchBytes, 1<<20)
	cfg.Senders = orDefault(cfg.Senders, 4)
	cfg.FlushInterval = orDefault(cfg.FlushInterval, time.Second)
	cfg.RetryBackoff = orDefault(cfg.RetryBackoff, time.Second)
	cfg.MaxRetryBackoff = max(orDefault(cfg.MaxRetryBackoff, 30*time.Second), cfg.RetryBackoff)
	c := &cfg.Client
	// The client's base URL is the collector's origin: the whole URL, which
	// may carry a path and a query, is where every batch goes.
	c.URL = u.Scheme + "://" + u.Host
	c.Timeout = orDefault(c.Timeout, DefaultTimeout)
	c.ResponseHeaderTimeout = orDefault(c.ResponseHeaderTimeout, c.Timeout)
	c.Retry.Attempts = orDefault(c.Retry.Attempts, DefaultAttempts)
	c.Retry.Backoff = orDefault(c.Retry.Backoff, DefaultBackoff)
	if len(cfg.Headers) > 0 {
		headers := maps.Clone(c.Auth.Headers)
		if headers == nil {
			headers = make(map[string]string, len(cfg.Headers))
		}
		for name, v := range cfg.Headers {
			canon := textproto.CanonicalMIMEHeaderKey(name)
			for other := range c.Auth.Headers {
				if textproto.CanonicalMIMEHeaderKey(other) == canon {
					return cfg, fmt.Errorf("%w: header %s is set twice (headers and client auth)", ErrInvalidConfig, canon)
				}
			}
			if ReservedHeader(canon) {
				return cfg, fmt.Errorf("%w: header %s is set by the call log", ErrInvalidConfig, canon)
			}
			headers[name] = v
		}
		c.Auth.Headers = headers
	}
	if errs := c.Validate("client"); len(errs) > 0 {
		return cfg, fmt.Errorf("%w: %w", ErrInvalidConfig, errors.Join(errs...))
	}
	if c.MaxConcurrent > 0 && c.MaxConcurrent < cfg.Senders {
		return cfg, fmt.Errorf("%w: client maxConcurrent %d is below senders %d", ErrInvalidConfig, c.MaxConcurrent, cfg.Senders)
	}
	switch {
	case cfg.MaxBodyBytes == 0:
		cfg.MaxBodyBytes = 2048
	case cfg.MaxBodyBytes < 0:
		cfg.MaxBodyBytes = 0
	}
	switch cfg.Queue {
	case "":
		cfg.Queue = QueueMemory
	case QueueMemory:
	case QueueDisk:
		if cfg.Disk.Dir == "" {
			return cfg, fmt.Errorf("%w: the disk queue needs a directory", ErrInvalidConfig)
		}
		cfg.Disk.MaxBytes = orDefault(cfg.Disk.MaxBytes, 256<<20)
		if cfg.Disk.Fsync == "" {
			cfg.Disk.Fsync = string(diskqueue.SyncInterval)
		}
		switch diskqueue.Sync(cfg.Disk.Fsync) {
		case diskqueue.SyncAlways, diskqueue.SyncInterval, diskqueue.SyncNever:
		default:
			return cfg, fmt.Errorf("%w: fsync %q: want always, interval or never", ErrInvalidConfig, cfg.Disk.Fsync)
		}
		cfg.Disk.FsyncInterval = orDefault(cfg.Disk.FsyncInterval, time.Second)
	default:
		return cfg, fmt.Errorf("%w: queue %q: want memory or disk", ErrInvalidConfig, cfg.Queue)
	}
	if cfg.Sink == SinkLoki && cfg.Loki.Labels == nil {
		cfg.Loki.Labels = map[string]string{"service_name": "restgate"}
	}
	if cfg.Sink == SinkLoki {
		for name := range cfg.Loki.Labels {
			if !ValidLokiLabel(name) {
				return cfg, fmt.Errorf("%w: loki label %q: want [a-zA-Z_][a-zA-Z0-9_]*, not route or status", ErrInvalidConfig, name)
			}
		}
	}
	if cfg.Elasticsearch.Index == "" {
		cfg.Elasticsearch.Index = "restgate-calls"
	}
	return cfg, nil
}

// checkSink reports a sink, or a format a sink cannot carry, that is not
// known.
func checkSink(sink, format string) error {
	switch sink {
	case SinkHTTP:
		if format != "text" && format != "jsonl" && format != "json" {
			return fmt.Errorf("format %q: want text, jsonl or json", format)
		}
	case SinkLoki, SinkOTLP:
		if format != "text" && format != "jsonl" {
			return fmt.Errorf("format %q: the %s sink takes text or jsonl", format, sink)
		}
	case SinkElasticsearch:
	default:
		return fmt.Errorf("sink %q: want http, loki, elasticsearch or otlp", sink)
	}
	return nil
}

// ReservedHeader reports whether canon (a canonical header name) is one
// the call log sets on every batch, which Config.Headers may not set.
func ReservedHeader(canon string) bool {
	switch canon {
	case "Content-Type", "Content-Encoding", "Content-Length", "Idempotency-Key", "Host", "Traceparent", "Tracestate":
		return true
	}
	return false
}

// ValidLokiLabel reports whether s may name a fixed Loki label: Loki's
// (and Prometheus's) label name syntax, and not route or status, which
// the loki sink sets.
func ValidLokiLabel(s string) bool {
	if s == "" || s == "route" || s == "status" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// orDefault treats zero and negative sizes and durations as unset.
func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
