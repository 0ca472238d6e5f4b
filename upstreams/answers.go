package upstreams

import (
	"errors"
	"io"
	"net/http"
	"sync"
)

// Answer buffers come in size classes, each four times the one before,
// from minAnswerBuffer to maxPooledAnswer. A buffer grows from one class
// to the next, never past what the answer declared or past its cap; a
// buffer larger than the largest class (an answer that declared more, or
// a cap between classes) is allocated at its exact size and left to the
// garbage collector.
const (
	// minAnswerBuffer is the first class, where an answer of unknown
	// length starts.
	minAnswerBuffer = 4 << 10
	// maxPooledAnswer is the largest class kept for reuse: a rare huge
	// answer does not pin its memory in the pool.
	maxPooledAnswer = 1 << 20
	// answerClasses is the number of classes: 4, 16, 64, 256 KiB and 1 MiB.
	answerClasses = 5
)

// Answers pools the buffers of backend answers read whole, so that a steady
// stream of list answers neither allocates nor zeroes one buffer each. The
// zero value is ready to use; safe for concurrent use.
type Answers struct {
	// classes holds *Answer values whose buffer's capacity is exactly one
	// class size.
	classes [answerClasses]sync.Pool
}

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
	if c := classOf(cap(a.buf)); c >= 0 {
		a.buf = a.buf[:0]
		from.classes[c].Put(a)
	}
}

// classOf returns the class whose size is exactly n, or -1.
func classOf(n int) int {
	size := minAnswerBuffer
	for c := range answerClasses {
		if n == size {
			return c
		}
		size *= 4
	}
	return -1
}

// classFor returns the smallest class of at least n bytes, and its size;
// -1 when n is larger than every class.
func classFor(n int64) (int, int64) {
	size := int64(minAnswerBuffer)
	for c := range answerClasses {
		if n <= size {
			return c, size
		}
		size *= 4
	}
	return -1, 0
}

// get returns an Answer whose buffer holds at least n bytes: a pooled one
// of n's class, or one allocated at exactly n when n is past the classes.
func (p *Answers) get(n int64) *Answer {
	c, size := classFor(n)
	if c < 0 {
		return &Answer{from: p, buf: make([]byte, 0, n)}
	}
	a, _ := p.classes[c].Get().(*Answer)
	if a == nil {
		a = &Answer{buf: make([]byte, 0, size)}
	}
	a.from = p
	return a
}

// Read reads resp's body whole, but at most limit+1 bytes: a caller finding
// more than limit bytes in JSON knows the answer was too long. When resp
// came from a Client, limit is lowered to the call's answer cap as well
// (past it the body's Read fails with ErrAnswerTooLarge).
//
// A body that announced its length is read into a buffer of that size (its
// class, or exactly that size past the classes), with one byte to spare for
// the read that finds its end; a body that did not starts in the smallest
// class and moves up one class at a time. No buffer is larger than limit+1
// bytes. On error nothing is returned.
func (p *Answers) Read(resp *http.Response, limit int64) (*Answer, error) {
	limit = answerLimit(resp, limit)
	want := int64(minAnswerBuffer)
	if n := resp.ContentLength; n >= 0 {
		want = n + 1
	}
	a := p.get(min(want, limit+1))
	buf := a.buf[:0]
	for int64(len(buf)) <= limit {
		if len(buf) == cap(buf) {
			a.buf = buf
			a = p.grow(a, limit+1)
			buf = a.buf
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

// grow moves a's bytes to a buffer of the next class, at most most bytes,
// and gives a's buffer back.
func (p *Answers) grow(a *Answer, most int64) *Answer {
	n := int64(cap(a.buf)) * 4
	if n < minAnswerBuffer {
		n = minAnswerBuffer
	}
	b := p.get(min(n, most))
	b.buf = append(b.buf[:0], a.buf...)
	a.from = p
	a.Release()
	return b
}

// ReadAnswer reads resp's body whole into a buffer of its own (for an
// adapter that decodes the answer rather than passing it on), at most
// limit+1 bytes, with the growth and caps of Answers.Read: a caller finding
// more than limit bytes knows the answer was too long.
func ReadAnswer(resp *http.Response, limit int64) ([]byte, error) {
	limit = answerLimit(resp, limit)
	size := int64(minAnswerBuffer)
	if n := resp.ContentLength; n >= 0 {
		size = n + 1
	}
	buf := make([]byte, 0, min(size, limit+1))
	for int64(len(buf)) <= limit {
		if len(buf) == cap(buf) {
			next := make([]byte, len(buf), min(int64(cap(buf))*4, limit+1))
			copy(next, buf)
			buf = next
		}
		m, err := resp.Body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// answerLimit is limit, lowered to the answer cap of resp's call when resp
// came from a Client.
func answerLimit(resp *http.Response, limit int64) int64 {
	if b, ok := resp.Body.(*body); ok && b.left < limit {
		return b.left
	}
	return limit
}
