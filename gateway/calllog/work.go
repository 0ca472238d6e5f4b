package calllog

import (
	"context"
	"sync"
	"time"
)

// Run sends batches until ctx is done or Close is called. Only the first
// call runs; a call after Close returns at once. When ctx ends first, sends
// in flight are cancelled and what is still queued is sent by Close.
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
	s.work(ctx)
}

// work runs the senders, the flush ticker and, with the disk queue, the
// spooler, until ctx ends or, once closing, until nothing is left to send.
func (s *Shipper) work(ctx context.Context) {
	spooled := make(chan struct{})
	var spool sync.WaitGroup
	if s.disk != nil {
		spool.Go(func() {
			defer close(spooled)
			s.spooler(ctx)
		})
	} else {
		close(spooled)
	}
	stopTick := make(chan struct{})
	var tick sync.WaitGroup
	tick.Go(func() { s.tick(ctx, stopTick) })
	var senders sync.WaitGroup
	for range s.cfg.Senders {
		senders.Go(func() { s.sender(ctx, spooled) })
	}
	senders.Wait()
	close(stopTick)
	tick.Wait()
	spool.Wait()
	s.metrics.QueueDepth(s.depth())
}

// tick marks a flush due every FlushInterval while entries wait, refreshes
// the depth gauges, and syncs the disk queue on its interval.
func (s *Shipper) tick(ctx context.Context, stop <-chan struct{}) {
	t := time.NewTicker(s.cfg.FlushInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-stop:
			return
		case now := <-t.C:
			if s.takeable() > 0 {
				s.flushDue.Store(true)
				signal(s.wake)
			}
			s.metrics.QueueDepth(s.depth())
			if s.disk != nil {
				if err := s.disk.MaybeSync(now); err != nil {
					s.logger.Warn("call log disk queue sync failed", "err", err)
				}
				s.metrics.DiskQueue(s.disk.Len(), s.disk.Bytes())
			}
		}
	}
}

// next waits until a sender should take a batch: a full batch waits, a
// flush is due, or Close was called and anything waits. false means stop:
// ctx ended, or closing and nothing is left (spooled says the spooler
// wrote its last entries to disk).
func (s *Shipper) next(ctx context.Context, spooled <-chan struct{}) bool {
	for {
		if ctx.Err() != nil {
			return false
		}
		closing := isDone(s.closing)
		n := s.takeable()
		if n > 0 && (closing || n >= s.cfg.BatchSize || s.flushDue.Load()) {
			return true
		}
		var wait <-chan struct{} = s.closing
		if closing {
			if isDone(spooled) {
				return false
			}
			wait = spooled
		}
		select {
		case <-ctx.Done():
		case <-s.wake:
		case <-wait:
		}
	}
}

// spooler moves entries from memory to the disk queue, redacted, until ctx
// ends or Close is called; either way it writes what is in memory first.
func (s *Shipper) spooler(ctx context.Context) {
	for {
		s.spoolOnce()
		select {
		case <-ctx.Done():
			s.spoolOnce()
			return
		case <-s.closing:
			s.spoolOnce()
			if err := s.disk.Sync(); err != nil {
				s.logger.Warn("call log disk queue sync failed", "err", err)
			}
			signal(s.wake)
			return
		case <-s.spoolWake:
		}
	}
}

// spoolOnce writes every entry waiting in memory to the disk queue; what
// the full disk queue refuses is dropped and counted.
func (s *Shipper) spoolOnce() {
	sp := &s.spool
	for {
		s.mu.Lock()
		sp.raw = s.q.popInto(sp.raw, 256, 0, 0)
		s.mu.Unlock()
		if len(sp.raw) == 0 {
			return
		}
		sp.records = sp.records[:0]
		sp.enc = sp.enc[:0]
		sp.offs = sp.offs[:0]
		for i := range sp.raw {
			s.prepare(&sp.raw[i], &sp.it)
			sp.offs = append(sp.offs, len(sp.enc))
			sp.enc = encodeItem(sp.enc, &sp.it)
		}
		sp.offs = append(sp.offs, len(sp.enc))
		for i := range len(sp.offs) - 1 {
			sp.records = append(sp.records, sp.enc[sp.offs[i]:sp.offs[i+1]])
		}
		n, err := s.disk.Append(sp.records)
		if err != nil {
			s.logger.Warn("call log disk queue write failed", "err", err)
		}
		if refused := len(sp.records) - n; refused > 0 {
			s.metrics.Dropped(DropQueueFull, refused)
		}
		s.metrics.DiskQueue(s.disk.Len(), s.disk.Bytes())
		s.metrics.QueueDepth(s.depth())
		if s.disk.Waiting() >= s.cfg.BatchSize {
			signal(s.wake)
		}
	}
}

// spoolBuf is the spooler's scratch space (the spooler, or Close once it
// is gone, is its only user).
type spoolBuf struct {
	raw     []queued
	it      item
	enc     []byte
	offs    []int
	records [][]byte
}
