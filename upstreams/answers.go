package upstreams

import (
	"errors"
	"io"
	"net/http"
	"sync"
)

// Answers pools the buffers of backend answers read whole (in the size
// classes of Buffers), so that a steady stream of list answers neither
// allocates nor zeroes one buffer each. The zero value is ready to use;
// safe for concurrent use.
type Answers struct {
	bufs    Buffers
	answers sync.Pool
}

// Answer is a backend answer read by Answers.Read.
//
// An Answer read from a shared Client's response holds the outcome of its
// call until Release: the call's time and concurrency slot end when the
// response's body is closed, but whether it succeeded is reported (to the
// upstream-call metric and the breaker) only once the Answer is released
// too, so that whoever uses the answer after the adapter, the gateway's
// writer, can still find it unusable (Reject). So every Answer must be
// released, on every path.
type Answer struct {
	// JSON is the answer, or the part of it an adapter returns. It stays
	// valid until Release.
	JSON []byte
	buf  *[]byte
	from *Answers
	// call is the body of the call whose outcome waits for Release; nil
	// when the answer did not come from a Client.
	call *body
}

// Release gives the buffer back for reuse; JSON must not be used after it.
// The call the answer came from is reported then, when its body is closed
// (a success unless a read failed or the answer was rejected). Releasing a
// nil Answer, or one twice, does nothing.
func (a *Answer) Release() {
	if a == nil || a.from == nil {
		return
	}
	from, call := a.from, a.call
	from.bufs.Put(a.buf)
	a.JSON, a.from, a.buf, a.call = nil, nil, nil, nil
	from.answers.Put(a)
	if call != nil {
		call.unref()
	}
}

// Reject says that the answer cannot be used though the backend answered
// 2xx: it is not valid JSON, or not what the backend's contract allows
// (a page longer than asked for). The call then ends as invalid, as with
// the adapter's Reject: the upstream-call metric's outcome "invalid", and a
// failure for the breaker. err is the reason, wrapped in a KindInvalid
// *Error unless it is one. Call it before Release. What only the caller's
// own bounds refuse (an output limit, a nesting depth) is not the backend's
// failure and must not be rejected. It does nothing for an answer that did
// not come from a Client, or after Release.
func (a *Answer) Reject(err error) {
	if a == nil || a.call == nil {
		return
	}
	ue := AsError(err)
	if ue == nil || ue.Kind != KindInvalid {
		ue = &Error{Upstream: a.call.k.c.name, Kind: KindInvalid, Err: err}
	}
	a.call.reject(ue)
}

// get returns an Answer holding a buffer of at least n bytes, and at most
// limit+1 (see capped).
func (p *Answers) get(n int, limit int64) *Answer {
	a, _ := p.answers.Get().(*Answer)
	if a == nil {
		a = &Answer{}
	}
	a.from, a.buf = p, p.bufs.capped(n, limit)
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
// class and moves up one class at a time. A buffer grows to at most
// limit+1 bytes, and never past the class of what the answer declared
// unless more comes. On error nothing is returned. The outcome of the
// Client's call waits for the answer's Release (see Answer).
func (p *Answers) Read(resp *http.Response, limit int64) (*Answer, error) {
	limit = answerLimit(resp, limit)
	want := int64(MinBuffer)
	if n := resp.ContentLength; n >= 0 {
		want = n + 1
	}
	a := p.get(int(min(want, limit+1)), limit)
	buf := *a.buf
	for int64(len(buf)) <= limit {
		if len(buf) == cap(buf) {
			// the next class, at most limit+1
			next := p.bufs.capped(int(min(2*int64(cap(buf)), limit+1)), limit)
			*next = append(*next, buf...)
			p.bufs.Put(a.buf)
			a.buf = next
			buf = *next
		}
		room := min(int64(cap(buf)), limit+1)
		m, err := resp.Body.Read(buf[len(buf):room])
		buf = buf[:len(buf)+m]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			*a.buf = buf
			a.Release()
			return nil, err
		}
	}
	*a.buf, a.JSON = buf, buf
	if b, ok := resp.Body.(*body); ok && b.hold() {
		a.call = b
	}
	return a, nil
}

// ReadAnswer reads resp's body whole into a buffer of its own (for an
// adapter that decodes the answer rather than passing it on), at most
// limit+1 bytes, with the growth and caps of Answers.Read: a caller finding
// more than limit bytes knows the answer was too long.
func ReadAnswer(resp *http.Response, limit int64) ([]byte, error) {
	limit = answerLimit(resp, limit)
	size := int64(MinBuffer)
	if n := resp.ContentLength; n >= 0 {
		size = n + 1
	}
	buf := make([]byte, 0, min(size, limit+1))
	for int64(len(buf)) <= limit {
		if len(buf) == cap(buf) {
			next := make([]byte, len(buf), min(int64(cap(buf))*2, limit+1))
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
