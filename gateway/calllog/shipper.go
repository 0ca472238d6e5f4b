package calllog

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/restgate/gateway/gateway/calllog/diskqueue"
	"github.com/restgate/gateway/upstreams"
)

// Reasons an entry is dropped, the reason label of
// gateway_log_entries_dropped_total.
const (
	// DropQueueFull: pushed out of the full memory queue (the oldest goes),
	// or refused by the full disk queue (the newest goes).
	DropQueueFull = "queue_full"
	// DropRejected: the collector refused it for good (a 4xx other than
	// 401, 403, 408, 413 and 429, or a per-entry error in its answer).
	DropRejected = "rejected"
	// DropShutdown: still in memory when the shutdown flush ran out of time.
	DropShutdown = "shutdown"
	// DropClosed: enqueued after Close.
	DropClosed = "closed"
	// DropCorrupt: unreadable in the disk queue (at least one entry per
	// corrupt place).
	DropCorrupt = "corrupt"
)

// DropReasons lists every reason an entry is dropped for.
func DropReasons() []string {
	return []string{DropQueueFull, DropRejected, DropShutdown, DropClosed, DropCorrupt}
}

// Metrics receives the shipper's counts. Calls come from Enqueue (on the
// request path) and from the shipper's goroutines, so implementations must
// be cheap and safe for concurrent use; prometheus gauges and counters are.
type Metrics interface {
	// QueueDepth reports the entries accepted and neither delivered nor
	// dropped yet: waiting, being sent, or held for a retry.
	QueueDepth(n int)
	// Sent counts entries the collector accepted.
	Sent(n int)
	// BatchFailed counts a POST of a batch that failed (after the client's
	// own retries); the batch is held and sent again, or dropped as
	// rejected.
	BatchFailed()
	// Dropped counts entries that will never reach the collector, by
	// reason (DropQueueFull, DropRejected, DropShutdown, DropClosed,
	// DropCorrupt).
	Dropped(reason string, n int)
	// DiskQueue reports the disk queue's entries not yet delivered and its
	// files' size; only the disk queue calls it.
	DiskQueue(entries int, bytes int64)
}

// FlushError is what Close returns when entries were left: Lost in memory
// (counted as dropped, reason shutdown), Kept in the disk queue for the
// next start.
type FlushError struct {
	Lost, Kept int
	Err        error
}

func (e *FlushError) Error() string {
	return fmt.Sprintf("call log: %d entries lost, %d kept in the disk queue: %v", e.Lost, e.Kept, e.Err)
}

func (e *FlushError) Unwrap() error { return e.Err }

// Shipper queues call log entries and POSTs them to the collector in
// batches from its own goroutines (Run), so the request path never waits
// on the collector. Enqueue, Run and Close are safe for concurrent use.
//
// Up to Config.Senders POSTs are in flight; a sender takes every waiting
// entry up to MaxBatchSize, so both the number of POSTs in flight and their
// size grow with the backlog. A batch the collector cannot take now is held
// and sent again with backoff, never dropped; entries are dropped (and
// counted) only when the bounded queue is full, the collector refuses them
// for good, or the shutdown flush runs out of time with entries in memory.
// With the disk queue, entries are redacted and written to disk before they
// are sent and removed only once delivered, so a crash or a restart loses
// none of them.
type Shipper struct {
	cfg      Config
	disabled bool
	client   *upstreams.Client
	metrics  Metrics
	logger   *slog.Logger
	masker   *Masker
	disk     *diskqueue.Queue // nil with the memory queue
	idPrefix string
	ids      atomic.Uint64
	batches  atomic.Uint64
	held     atomic.Int64 // entries senders hold (memory queue)
	lost     atomic.Int64 // entries lost at exit
	flushDue atomic.Bool  // the flush interval passed with entries waiting

	wake      chan struct{} // work for a sender
	spoolWake chan struct{} // entries for the disk spooler
	closing   chan struct{} // Close was called
	runDone   chan struct{} // Run returned

	spool spoolBuf // the spooler's (disk queue)

	mu      sync.Mutex
	q       ring
	closed  bool
	started bool
	abort   context.CancelFunc // cancels Run's sends
}

// NewShipper checks cfg, fills its defaults and returns a Shipper; call Run
// in a goroutine to start sending and Close to flush and stop. The
// collector's client (cfg.Client, named Upstream) reports its calls and
// breaker to obs. nil obs and m count nothing, nil logger logs nothing.
// With the disk queue it opens (and locks) cfg.Disk.Dir; what an earlier
// run left there is sent once Run starts. With an empty cfg.URL the
// Shipper is a no-op: Enqueue returns at once, Run returns at once, Close
// returns nil.
func NewShipper(cfg Config, obs upstreams.Observer, m Metrics, logger *slog.Logger) (*Shipper, error) {
	if cfg.URL == "" {
		return &Shipper{disabled: true}, nil
	}
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	// The shipper holds a batch the collector cannot take and paces its
	// own sending again (hold): the collector's 429 and 503 are waited out
	// per batch, not by opening the breaker for every sender.
	client, err := upstreams.NewClient(Upstream, cfg.Client, obs, upstreams.WithOwnFlowControl())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if m == nil {
		m = noMetrics{}
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var prefix [8]byte
	_, _ = rand.Read(prefix[:])
	s := &Shipper{
		cfg:       cfg,
		client:    client,
		metrics:   m,
		logger:    logger,
		masker:    NewMasker(cfg.RedactFields, cfg.MaxBodyBytes),
		idPrefix:  hex.EncodeToString(prefix[:]) + "-",
		wake:      make(chan struct{}, 1),
		spoolWake: make(chan struct{}, 1),
		closing:   make(chan struct{}),
		runDone:   make(chan struct{}),
		q:         newRing(cfg.QueueSize, cfg.MaxQueueBytes),
	}
	if cfg.Queue == QueueDisk {
		if err := s.openDisk(); err != nil {
			client.Close()
			return nil, err
		}
	}
	return s, nil
}

// openDisk opens the disk queue and reports what an earlier run left.
func (s *Shipper) openDisk() error {
	d := s.cfg.Disk
	q, rec, err := diskqueue.Open(diskqueue.Options{Dir: d.Dir, MaxBytes: d.MaxBytes,
		Sync: diskqueue.Sync(d.Fsync), SyncInterval: d.FsyncInterval})
	if err != nil {
		return fmt.Errorf("calllog: disk queue: %w", err)
	}
	s.disk = q
	if rec.Corrupt > 0 {
		s.metrics.Dropped(DropCorrupt, rec.Corrupt)
	}
	if rec.Records > 0 || rec.TornBytes > 0 || rec.Corrupt > 0 || rec.Repaired > 0 {
		s.logger.Info("call log disk queue holds entries from before", "dir", d.Dir, "entries", rec.Records,
			"torn_bytes", rec.TornBytes, "corrupt", rec.Corrupt, "repaired_segments", rec.Repaired)
	}
	s.metrics.DiskQueue(q.Len(), q.Bytes())
	s.metrics.QueueDepth(q.Len())
	return nil
}

// Enqueue queues e for the collector. It never blocks on the collector or
// the disk and never fails: when the memory queue is full the oldest entry
// is dropped and counted. e.Body is copied (up to 64 KiB; the rest is
// counted in the truncation marker), so the caller may reuse its buffer at
// once. Redaction and formatting happen later, on the shipper's goroutines.
func (s *Shipper) Enqueue(e Entry) {
	if s.disabled {
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.metrics.Dropped(DropClosed, 1)
		return
	}
	dropped := s.q.push(&e)
	depth := s.q.n
	s.mu.Unlock()
	if dropped > 0 {
		s.metrics.Dropped(DropQueueFull, dropped)
	}
	if s.disk != nil {
		if depth == 1 {
			signal(s.spoolWake)
		}
		return
	}
	s.metrics.QueueDepth(depth + int(s.held.Load()))
	if depth >= s.cfg.BatchSize {
		signal(s.wake)
	}
}

// Close stops accepting entries, sends what is queued, and returns when
// done or when ctx ends. Then sends in flight are cancelled; with the
// memory queue what is left is counted as dropped (reason shutdown), with
// the disk queue it stays there for the next start. Close returns nil when
// nothing was left, else a *FlushError that counts it and wraps ctx's error
// (or says the collector failed). Close waits for Run to return. Calling
// it again returns nil.
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
	close(s.closing)

	if started {
		select {
		case <-s.runDone:
		case <-ctx.Done():
			abort()
			<-s.runDone
		}
	}
	// Run never ran, or its context ended first: flush here.
	if ctx.Err() == nil && s.takeable()+s.memDepth() > 0 {
		s.work(ctx)
	}
	kept := s.finish()
	s.client.Close()
	lost := int(s.lost.Load())
	if lost == 0 && kept == 0 {
		return nil
	}
	err := ctx.Err()
	if err == nil {
		err = errors.New("the collector did not take them")
	}
	return &FlushError{Lost: lost, Kept: kept, Err: err}
}

// finish counts what is left in memory as lost and, with the disk queue,
// writes it there and closes the queue; it returns the entries the disk
// queue keeps.
func (s *Shipper) finish() int {
	kept := 0
	if s.disk != nil {
		s.spoolOnce()
		kept = s.disk.Len()
		s.metrics.DiskQueue(kept, s.disk.Bytes())
		if err := s.disk.Close(); err != nil {
			s.logger.Warn("call log disk queue close failed", "err", err)
		}
	}
	s.mu.Lock()
	n := s.q.n
	for s.q.n > 0 {
		s.q.dropOldest()
	}
	s.mu.Unlock()
	if n > 0 {
		s.metrics.Dropped(DropShutdown, n)
		s.lost.Add(int64(n))
	}
	s.metrics.QueueDepth(kept)
	return kept
}

// memDepth is how many entries wait in memory.
func (s *Shipper) memDepth() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.q.n
}

// depth is what QueueDepth reports.
func (s *Shipper) depth() int {
	n := s.memDepth()
	if s.disk != nil {
		return n + s.disk.Len()
	}
	return n + int(s.held.Load())
}

// takeable is how many entries a sender could take now.
func (s *Shipper) takeable() int {
	if s.disk != nil {
		return s.disk.Waiting()
	}
	return s.memDepth()
}

// signal wakes whoever waits on c, without blocking.
func signal(c chan<- struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func isDone(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

type noMetrics struct{}

func (noMetrics) QueueDepth(int)       {}
func (noMetrics) Sent(int)             {}
func (noMetrics) BatchFailed()         {}
func (noMetrics) Dropped(string, int)  {}
func (noMetrics) DiskQueue(int, int64) {}
