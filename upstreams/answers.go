package upstreams

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"sync"
)

// maxPooledAnswer bounds the buffers Answers keeps: a rare huge answer is
// left to the garbage collector instead of pinning its memory in the pool.
const maxPooledAnswer = 256 << 10

// minAnswerBuffer is the first size of a buffer for an answer of unknown
// length.
const minAnswerBuffer = 4 << 10

// Answers pools the buffers of backend answers read whole, so that a steady
// stream of list answers neither allocates nor zeroes one buffer each. The
// zero value is ready to use; safe for concurrent use.
type Answers struct{ pool sync.Pool }

// Answer is a backend answer read by Answers.Read.
type Answer struct {
	// JSON is the answer, or the part of it an adapter returns. It stays
	// valid until Release.
	JSON []byte
	buf  []byte
	from *Answers
}

// Release gives the buffer back for reuse; JSON must not be used after it.
// Releasing a nil Answer, or one twice, does nothing.
func (a *Answer) Release() {
	if a == nil || a.from == nil {
		return
	}
	from := a.from
	a.JSON, a.from = nil, nil
	if cap(a.buf) <= maxPooledAnswer {
		from.pool.Put(a)
	}
}

// Read reads resp's body whole, but at most limit+1 bytes: a caller finding
// more than limit bytes in JSON knows the answer was too long. A body that
// announced its length is read into a buffer of that size, with one byte to
// spare for the read that finds its end. On error nothing is returned.
func (p *Answers) Read(resp *http.Response, limit int64) (*Answer, error) {
	a, _ := p.pool.Get().(*Answer)
	if a == nil {
		a = &Answer{}
	}
	a.from = p
	buf := a.buf[:0]
	if n := resp.ContentLength; n >= 0 && n <= limit && int64(cap(buf)) <= n {
		buf = make([]byte, 0, n+1)
	}
	for int64(len(buf)) <= limit {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, max(minAnswerBuffer, len(buf)))
		}
		room := min(int64(cap(buf)), limit+1)
		m, err := resp.Body.Read(buf[len(buf):room])
		buf = buf[:len(buf)+m]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			a.buf = buf
			a.Release()
			return nil, err
		}
	}
	a.buf, a.JSON = buf, buf
	return a, nil
}
