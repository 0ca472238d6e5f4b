package calllog

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
)

// statusError is a collector answer that is not 2xx.
type statusError struct{ status int }

func (e *statusError) Error() string {
	return fmt.Sprintf("collector answered %d %s", e.status, http.StatusText(e.status))
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

// post sends payload through the collector's client, which times the POST
// out and retries it. Its Idempotency-Key names the batch: it is what lets
// the client send a POST again (as net/http's Transport does), and what
// lets a collector recognise a batch it already has.
func (s *Shipper) post(ctx context.Context, payload []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.URL, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	s.batches++
	req.Header["Content-Type"] = []string{s.contentType}
	req.Header["Idempotency-Key"] = []string{s.batchPrefix + strconv.FormatUint(s.batches, 10)}
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
