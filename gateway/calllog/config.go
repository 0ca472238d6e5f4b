package calllog

import (
	"errors"
	"fmt"
	"net/url"
	"time"
)

// ErrInvalidConfig is wrapped by every error NewShipper returns.
var ErrInvalidConfig = errors.New("calllog: invalid config")

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
	// Timeout bounds one POST attempt. Default 60s (the seed's 60000 ms).
	Timeout time.Duration
	// MaxRetries is how many times a batch is re-sent after a transport
	// error, 429 or 5xx. Default 3; negative means no retry.
	MaxRetries int
	// Backoff is the wait before the first retry; it doubles on each retry,
	// with jitter, up to 30s. Default 200ms.
	Backoff time.Duration
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
	cfg.Timeout = orDefault(cfg.Timeout, 60*time.Second)
	cfg.Backoff = orDefault(cfg.Backoff, 200*time.Millisecond)
	switch {
	case cfg.MaxRetries == 0:
		cfg.MaxRetries = 3
	case cfg.MaxRetries < 0:
		cfg.MaxRetries = 0
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
