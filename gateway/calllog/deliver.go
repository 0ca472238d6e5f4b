package calllog

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/restgate/gateway/gateway/calllog/diskqueue"
	"github.com/restgate/gateway/upstreams"
)

// sender is one sending goroutine's state: its batch and its buffers.
type sender struct {
	sink    sink
	raw     []queued // memory queue: entries as popped
	items   []item   // the batch: items[:n]
	n       int
	ticket  diskqueue.Batch
	state   []verdict
	part    []item // shallow copies of the items of one POST
	partIdx []int
	verdict []verdict
	out     []byte
	zbuf    bytes.Buffer
	zw      *gzip.Writer
	answer  []byte
}

// sender takes batches and delivers them until next says stop.
func (s *Shipper) sender(ctx context.Context, spooled <-chan struct{}) {
	sd := &sender{sink: newSink(s.cfg)}
	for s.next(ctx, spooled) {
		if s.take(sd) == 0 {
			continue
		}
		s.deliver(ctx, sd)
	}
}

// take fills sd's batch with every waiting entry up to MaxBatchSize and
// MaxBatchBytes, and wakes another sender when a full batch still waits.
func (s *Shipper) take(sd *sender) int {
	s.flushDue.Store(false)
	n := 0
	if s.disk != nil {
		var bad int
		b, err := s.disk.Read(s.cfg.MaxBatchSize, s.cfg.MaxBatchBytes, func(p []byte) {
			if n == len(sd.items) {
				sd.items = append(sd.items, item{})
			}
			if decodeItem(p, &sd.items[n]) != nil {
				bad++
				return
			}
			n++
		})
		if err != nil {
			s.logger.Warn("call log disk queue read failed", "err", err)
		}
		if c := s.disk.TakeCorrupt() + bad; c > 0 {
			s.metrics.Dropped(DropCorrupt, c)
		}
		sd.ticket = b
		if n == 0 && b.Len() > 0 {
			s.ack(b)
		}
	} else {
		s.mu.Lock()
		sd.raw = s.q.popInto(sd.raw, s.cfg.MaxBatchSize, s.cfg.MaxBatchBytes, s.cfg.MaxBodyBytes)
		n = len(sd.raw)
		s.held.Add(int64(n))
		s.mu.Unlock()
		for len(sd.items) < n {
			sd.items = append(sd.items, item{})
		}
		for i := range sd.raw {
			s.prepare(&sd.raw[i], &sd.items[i])
		}
	}
	sd.n = n
	if s.takeable() >= s.cfg.BatchSize {
		signal(s.wake)
	}
	s.metrics.QueueDepth(s.depth())
	return n
}

// deliver sends sd's first n items until each is delivered or refused for
// good. What the collector cannot take now is held and sent again after a
// backoff; a 413 halves the POST. When ctx ends, what is left is counted
// lost (memory queue) or stays in the disk queue.
func (s *Shipper) deliver(ctx context.Context, sd *sender) {
	n := sd.n
	sd.state = resize(sd.state, n)
	for i := range sd.state {
		sd.state[i] = pending
	}
	chunk, failures := n, 0
	left := n
	for left > 0 && ctx.Err() == nil {
		sd.collect(chunk)
		v, retryAfter, tooLarge := s.send(ctx, sd)
		if tooLarge {
			if len(sd.part) > 1 {
				chunk = (len(sd.part) + 1) / 2
				continue
			}
			v[0] = rejected
			s.logger.Warn("call log entry refused as too large", "collector", s.cfg.URL)
		}
		sent, refused, again := 0, 0, 0
		for j, i := range sd.partIdx {
			sd.state[i] = v[j]
			switch v[j] {
			case delivered:
				sent++
			case rejected:
				refused++
			default:
				sd.state[i] = retry
				again++
			}
		}
		left -= sent + refused
		if sent > 0 {
			s.metrics.Sent(sent)
		}
		if refused > 0 {
			s.metrics.Dropped(DropRejected, refused)
		}
		if again == 0 {
			failures = 0
			continue
		}
		s.metrics.BatchFailed()
		if !s.hold(ctx, failures, retryAfter) {
			break
		}
		failures++
	}
	s.settle(sd, left)
}

// settle ends a delivery: the disk batch is acknowledged when nothing of it
// is left (else it is read again after a restart); entries left in memory
// are lost.
func (s *Shipper) settle(sd *sender, left int) {
	if s.disk != nil {
		if left == 0 {
			s.ack(sd.ticket)
		}
		sd.ticket = diskqueue.Batch{}
	} else {
		s.held.Add(-int64(sd.n))
		if left > 0 {
			s.metrics.Dropped(DropShutdown, left)
			s.lost.Add(int64(left))
		}
	}
	s.metrics.QueueDepth(s.depth())
}

func (s *Shipper) ack(b diskqueue.Batch) {
	if err := s.disk.Ack(b); err != nil {
		s.logger.Warn("call log disk queue cursor write failed", "err", err)
	}
	s.metrics.DiskQueue(s.disk.Len(), s.disk.Bytes())
}

// hold waits before a batch is sent again: the backoff of the failures so
// far with jitter, or longer when the collector sent a Retry-After with its
// 429 or 503, or until an open breaker half-opens; at most MaxRetryBackoff.
// A 429 or 503 without Retry-After gets the backoff (retryAfter is zero:
// the client is built WithOwnFlowControl). false means ctx ended first.
func (s *Shipper) hold(ctx context.Context, failures int, retryAfter time.Duration) bool {
	d := s.cfg.RetryBackoff << min(failures, 20)
	if d <= 0 || d > s.cfg.MaxRetryBackoff {
		d = s.cfg.MaxRetryBackoff
	}
	d = d/2 + rand.N(d/2+1)
	d = min(max(d, retryAfter), s.cfg.MaxRetryBackoff)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// collect fills part with up to chunk items not delivered or refused yet,
// in order.
func (sd *sender) collect(chunk int) {
	sd.part, sd.partIdx = sd.part[:0], sd.partIdx[:0]
	for i, st := range sd.state {
		if len(sd.part) == chunk {
			break
		}
		if st == pending || st == retry {
			sd.part = append(sd.part, sd.items[i])
			sd.partIdx = append(sd.partIdx, i)
		}
	}
}

// send POSTs sd.part and returns each item's verdict, how long the
// collector asked to wait, and whether it answered 413.
func (s *Shipper) send(ctx context.Context, sd *sender) (v []verdict, retryAfter time.Duration, tooLarge bool) {
	v = resize(sd.verdict, len(sd.part))
	sd.verdict = v
	all := func(x verdict) []verdict {
		for i := range v {
			v[i] = x
		}
		return v
	}
	sd.out = sd.sink.encode(sd.out[:0], sd.part)
	payload := sd.out
	if s.cfg.Compress == "gzip" {
		payload = sd.gzip(payload)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.URL, bytes.NewReader(payload))
	if err != nil {
		return all(rejected), 0, false
	}
	req.Header["Content-Type"] = []string{sd.sink.contentType()}
	if s.cfg.Compress == "gzip" {
		req.Header["Content-Encoding"] = []string{"gzip"}
	}
	req.Header["Idempotency-Key"] = []string{s.idPrefix + "b" + strconv.FormatUint(s.batches.Add(1), 36)}
	resp, err := s.client.Do(req)
	if err != nil {
		// The client answers 401, 403, 429 and 503 as errors too: a 429 or
		// 503 carries the collector's Retry-After (zero when it sent none),
		// an open breaker the time until it half-opens.
		if ue := upstreams.AsError(err); ue != nil {
			retryAfter = ue.RetryAfter
			if ue.Kind == upstreams.KindRetired {
				s.logger.Warn("call log batch refused by the collector", "entries", len(sd.part), "collector", s.cfg.URL,
					"status", ue.Status)
				return all(rejected), 0, false
			}
		}
		if ctx.Err() == nil {
			s.logger.Warn("call log collector unavailable; the batch is held and sent again", "entries", len(sd.part),
				"collector", s.cfg.URL, "error", err)
		}
		return all(retry), retryAfter, false
	}
	defer resp.Body.Close()
	switch status := resp.StatusCode; {
	case status >= 200 && status <= 299:
		sd.answer = readAnswer(sd.answer[:0], resp.Body, sd.sink.answerLimit())
		if problem := sd.sink.decide(sd.answer, sd.part, v); problem != "" {
			s.logger.Warn("call log collector refused entries", "collector", s.cfg.URL, "problem", problem)
		}
		return v, 0, false
	case status == http.StatusRequestEntityTooLarge:
		drain(resp.Body)
		return all(retry), 0, true
	case status == http.StatusRequestTimeout:
		// 401, 403 and 429 never get here: the client returns them as
		// errors (above).
		drain(resp.Body)
		s.logger.Warn("call log collector did not take the batch; it is held and sent again", "entries", len(sd.part),
			"collector", s.cfg.URL, "status", status)
		return all(retry), parseRetryAfter(resp.Header.Get("Retry-After")), false
	default:
		drain(resp.Body)
		s.logger.Warn("call log batch refused by the collector", "entries", len(sd.part), "collector", s.cfg.URL,
			"status", status)
		return all(rejected), 0, false
	}
}

func (sd *sender) gzip(b []byte) []byte {
	sd.zbuf.Reset()
	if sd.zw == nil {
		sd.zw = gzip.NewWriter(&sd.zbuf)
	} else {
		sd.zw.Reset(&sd.zbuf)
	}
	_, _ = sd.zw.Write(b)
	_ = sd.zw.Close()
	return sd.zbuf.Bytes()
}

// readAnswer reads up to limit bytes of an answer into dst; the rest is
// read and discarded so the connection can be reused.
func readAnswer(dst []byte, r io.Reader, limit int) []byte {
	if limit > 0 {
		buf := bytes.NewBuffer(dst)
		_, _ = io.Copy(buf, io.LimitReader(r, int64(limit)))
		dst = buf.Bytes()
	}
	drain(r)
	return dst
}

// drain reads a little of an answer so its connection can be reused.
func drain(r io.Reader) {
	_, _ = io.Copy(io.Discard, io.LimitReader(r, 64<<10))
}

// parseRetryAfter reads Retry-After in seconds (an HTTP date is ignored).
func parseRetryAfter(v string) time.Duration {
	secs, err := strconv.Atoi(v)
	if err != nil || secs < 0 {
		return 0
	}
	return time.Duration(min(secs, 3600)) * time.Second
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
