package calllog

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/restgate/gateway/upstreams"
)

// Metrics receives the shipper's counts. Calls come from Enqueue (on the
// request path) and from the sending goroutine, so implementations must be
// cheap and safe for concurrent use; prometheus gauges and counters are.
type Metrics interface {
	// QueueDepth reports the number of waiting entries.
	QueueDepth(n int)
	// Sent counts entries the collector accepted.
	Sent(n int)
	// BatchFailed counts a batch given up after its retries.
	BatchFailed()
	// Dropped counts entries that will never reach the collector: pushed out
	// of a full queue, in a failed batch, enqueued after Close, or still
	// queued when Close's deadline passed.
	Dropped(n int)
}

// Shipper queues call log entries and POSTs them to the collector in
// batches from one goroutine (Run), so the request path never waits on the
// collector. Enqueue, Run and Close are safe for concurrent use.
type Shipper struct {
	cfg         Config
	disabled    bool
	client      *upstreams.Client
	metrics     Metrics
	logger      *slog.Logger
	redactor    *Redactor
	contentType string

	wake    chan struct{} // a full batch is waiting
	closing chan struct{} // Close was called while Run runs
	runDone chan struct{} // Run returned

	mu      sync.Mutex
	q       ring
	closed  bool
	started bool
	abort   context.CancelFunc // cancels Run's sends

	// Owned by whoever sends: Run, or Close once Run is gone.
	batch   []queued
	out     []byte
	redact  []byte
	trimmed []byte
	// batchPrefix and batches make each batch's Idempotency-Key.
	batchPrefix string
	batches     uint64
}

// NewShipper checks cfg, fills its defaults and returns a Shipper; call Run
// in a goroutine to start sending and Close to flush and stop. The
// collector's client (cfg.Client, named Upstream) reports its calls and
// breaker to obs. nil obs and m count nothing, nil logger logs nothing.
// With an empty cfg.URL the Shipper is a no-op: Enqueue returns at once,
// Run returns at once, Close returns nil.
func NewShipper(cfg Config, obs upstreams.Observer, m Metrics, logger *slog.Logger) (*Shipper, error) {
	if cfg.URL == "" {
		return &Shipper{disabled: true}, nil
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	client, err := upstreams.NewClient(Upstream, cfg.Client, obs)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if m == nil {
		m = noMetrics{}
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	contentType := "text/plain; charset=utf-8"
	if cfg.Format == "jsonl" {
		contentType = "application/x-ndjson"
	}
	return &Shipper{
		cfg:         cfg,
		client:      client,
		metrics:     m,
		logger:      logger,
		redactor:    NewRedactor(cfg.RedactFields),
		contentType: contentType,
		wake:        make(chan struct{}, 1),
		closing:     make(chan struct{}),
		runDone:     make(chan struct{}),
		q:           newRing(cfg.QueueSize, cfg.MaxQueueBytes),
		batch:       make([]queued, 0, cfg.BatchSize),
		batchPrefix: strconv.FormatUint(rand.Uint64(), 36) + "-",
	}, nil
}

// Enqueue queues e for the collector. It never blocks on the collector and
// never fails: when the queue is full the oldest entry is dropped and
// counted. e.Body is copied (up to 64 KiB; the rest is counted in the
// truncation marker), so the caller may reuse its buffer at once.
// Redaction and formatting happen later, on the sending goroutine.
func (s *Shipper) Enqueue(e Entry) {
	if s.disabled {
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.metrics.Dropped(1)
		return
	}
	dropped := s.q.push(&e)
	depth := s.q.n
	s.mu.Unlock()
	if dropped > 0 {
		s.metrics.Dropped(dropped)
	}
	s.metrics.QueueDepth(depth)
	if depth >= s.cfg.BatchSize {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// Run sends batches until ctx is done or Close is called; it is the one
// sending goroutine. A full batch is sent at once, a partial one every
// FlushInterval. Only the first call runs; a call after Close returns at
// once. When ctx ends first, what is still queued is sent by Close.
func (s *Shipper) Run(ctx context.Context) {
	if s.disabled {
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	if s.started || s.closed {
		s.mu.Unlock()
		return
	}
	s.started, s.abort = true, cancel
	s.mu.Unlock()
	defer close(s.runDone)

	ticker := time.NewTicker(s.cfg.FlushInterval)
	defer ticker.Stop()
	for {
		for s.depth() >= s.cfg.BatchSize && ctx.Err() == nil {
			s.sendBatch(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-s.closing:
			s.drain(ctx)
			return
		case <-s.wake:
		case <-ticker.C:
			// Send what is queued now, not what keeps arriving meanwhile,
			// so that a closing signal is seen within one pass.
			for n := s.depth(); n > 0 && ctx.Err() == nil; {
				n -= s.sendBatch(ctx)
			}
		}
	}
}

// Close stops accepting entries, sends what is queued, and returns when
// done or when ctx ends; then a send in flight is cancelled, what is left is
// counted as dropped, and ctx's error is returned. Close waits for Run to
// return. Calling it again returns nil.
func (s *Shipper) Close(ctx context.Context) error {
	if s.disabled {
		return nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	started, abort := s.started, s.abort
	s.mu.Unlock()

	if started {
		close(s.closing)
		select {
		case <-s.runDone:
		case <-ctx.Done():
			abort()
			<-s.runDone
		}
	}
	// Entries Run did not get to: it never ran, or its context ended first.
	s.drain(ctx)
	s.client.Close()
	return ctx.Err()
}

func (s *Shipper) depth() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.q.n
}

// drain sends everything queued; once ctx is done the rest is dropped.
func (s *Shipper) drain(ctx context.Context) {
	for ctx.Err() == nil && s.sendBatch(ctx) > 0 {
	}
	s.mu.Lock()
	n := s.q.n
	for s.q.n > 0 {
		s.q.dropOldest()
	}
	s.mu.Unlock()
	if n > 0 {
		s.metrics.Dropped(n)
		s.metrics.QueueDepth(0)
	}
}

type noMetrics struct{}

func (noMetrics) QueueDepth(int) {}
func (noMetrics) Sent(int)       {}
func (noMetrics) BatchFailed()   {}
func (noMetrics) Dropped(int)    {}
