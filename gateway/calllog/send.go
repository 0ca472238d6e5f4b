package calllog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"
)

// statusError is a collector answer that is not 2xx.
type statusError struct{ status int }

func (e *statusError) Error() string {
	return fmt.Sprintf("collector answered %d %s", e.status, http.StatusText(e.status))
}

// retryable reports whether a failed POST is worth repeating: transport
// errors and timeouts are, and so are 429 and 5xx; other 4xx answers will
// not change. A cancelled sender is not.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var se *statusError
	if errors.As(err, &se) {
		return se.status == http.StatusTooManyRequests || se.status >= 500
	}
	return true
}

// sendBatch takes up to BatchSize entries off the queue, formats and POSTs
// them, and returns how many it took (0 when the queue was empty).
func (s *Shipper) sendBatch(ctx context.Context) int {
	s.mu.Lock()
	s.batch = s.q.popInto(s.batch, s.cfg.BatchSize)
	depth := s.q.n
	s.mu.Unlock()
	n := len(s.batch)
	if n == 0 {
		return 0
	}
	s.metrics.QueueDepth(depth)

	s.out = s.format(s.out[:0])
	if err := s.post(ctx, s.out); err != nil {
		s.metrics.BatchFailed()
		s.metrics.Dropped(n)
		s.logger.Warn("call log batch lost", "entries", n, "collector", s.cfg.URL, "error", err)
	} else {
		s.metrics.Sent(n)
	}
	return n
}

// format writes the batch, one entry per line, each body redacted and then
// truncated.
func (s *Shipper) format(dst []byte) []byte {
	for i := range s.batch {
		it := &s.batch[i]
		s.redact = s.redactor.Append(s.redact[:0], it.e.Body)
		s.trimmed = AppendTruncated(s.trimmed[:0], s.redact, s.cfg.MaxBodyBytes, it.omitted)
		if s.cfg.Format == "jsonl" {
			dst = AppendJSON(dst, &it.e, s.trimmed)
		} else {
			dst = AppendLine(dst, &it.e, s.trimmed)
		}
		dst = append(dst, '\n')
	}
	return dst
}

// post sends payload, retrying with exponential backoff and jitter.
func (s *Shipper) post(ctx context.Context, payload []byte) error {
	for attempt := 0; ; attempt++ {
		err := s.postOnce(ctx, payload)
		if err == nil {
			return nil
		}
		if attempt >= s.cfg.MaxRetries || !retryable(ctx, err) {
			return err
		}
		t := time.NewTimer(s.backoff(attempt))
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

func (s *Shipper) postOnce(ctx context.Context, payload []byte) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.URL, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", s.contentType)
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	// Read a little of the answer so the connection can be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &statusError{status: resp.StatusCode}
	}
	return nil
}

// backoff is Backoff doubled per attempt, capped, with the upper half
// jittered so that replicas do not retry in step.
func (s *Shipper) backoff(attempt int) time.Duration {
	d := s.cfg.Backoff << min(attempt, 20)
	if d <= 0 || d > maxBackoff {
		d = maxBackoff
	}
	half := d / 2
	return half + rand.N(half+1)
}
