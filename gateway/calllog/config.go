package calllog

import (
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/restgate/gateway/upstreams"
)

// ErrInvalidConfig is wrapped by every error NewShipper returns.
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

// Config tunes a Shipper. Its zero value, with a URL, is usable: every field
// names its default.
type Config struct {
	// URL is the collector the batches are POSTed to (http or https). Empty
	// means no callout: the Shipper accepts and discards entries.
	URL string
	// Format is "text" (the seed's line, the default) or "jsonl" (one JSON
	// object per line, with the structured-only fields).
	Format string
	// QueueSize is how many entries may wait; when full, the oldest is
	// dropped. Default 10000.
	QueueSize int
	// MaxQueueBytes bounds the body bytes held by waiting entries; past it,
	// the oldest are dropped. Default 32 MiB.
	MaxQueueBytes int
	// BatchSize is the most entries in one POST. Default 100.
	BatchSize int
	// FlushInterval is the longest a queued entry waits for a batch to fill.
	// Default 1s.
	FlushInterval time.Duration
	// Client configures the upstreams.Client every batch is POSTed through
	// (upstream "collector", with its breaker, bulkhead, retry budget and
	// metrics). Its URL is set to URL's origin. Zero fields take the call
	// log's defaults where they differ from an upstream's: Timeout, which
	// bounds the POST of one batch with its retries, 60s (the seed's
	// 60000 ms); ResponseHeaderTimeout, the Timeout; Retry.Attempts 4 (three
	// retries); Retry.Backoff 200ms. A batch is sent again after a
	// connection failure, an attempt that timed out, or a 502, 503 or 504;
	// any other answer but 2xx fails it at once.
	Client upstreams.Settings
	// MaxBodyBytes is the most body bytes logged per entry, after redaction.
	// Default 2048; negative logs no body, only its size.
	MaxBodyBytes int
	// RedactFields are the field names whose values are masked; nil means
	// DefaultRedactFields, empty means none.
	RedactFields []string
}

func (cfg Config) withDefaults() (Config, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cfg, fmt.Errorf("%w: url %q: want an http or https URL", ErrInvalidConfig, cfg.URL)
	}
	switch cfg.Format {
	case "":
		cfg.Format = "text"
	case "text", "jsonl":
	default:
		return cfg, fmt.Errorf("%w: format %q: want text or jsonl", ErrInvalidConfig, cfg.Format)
	}
	cfg.QueueSize = orDefault(cfg.QueueSize, 10000)
	cfg.MaxQueueBytes = orDefault(cfg.MaxQueueBytes, 32<<20)
	cfg.BatchSize = orDefault(cfg.BatchSize, 100)
	cfg.FlushInterval = orDefault(cfg.FlushInterval, time.Second)
	c := &cfg.Client
	// The client's base URL is the collector's origin: the whole URL, which
	// may carry a path and a query, is where every batch goes.
	c.URL = u.Scheme + "://" + u.Host
	c.Timeout = orDefault(c.Timeout, DefaultTimeout)
	c.ResponseHeaderTimeout = orDefault(c.ResponseHeaderTimeout, c.Timeout)
	c.Retry.Attempts = orDefault(c.Retry.Attempts, DefaultAttempts)
	c.Retry.Backoff = orDefault(c.Retry.Backoff, DefaultBackoff)
	if errs := c.Validate("client"); len(errs) > 0 {
		return cfg, fmt.Errorf("%w: %w", ErrInvalidConfig, errors.Join(errs...))
	}
	switch {
	case cfg.MaxBodyBytes == 0:
		cfg.MaxBodyBytes = 2048
	case cfg.MaxBodyBytes < 0:
		cfg.MaxBodyBytes = 0
	}
	return cfg, nil
}

// orDefault treats zero and negative sizes and durations as unset.
func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
