package h1client

import (
	"errors"
	"io"
	"syscall"
)

// canHold says a request may be held for its answer's first read here.
const canHold = true

// heldExchange is the state of one sendThenRead, kept in its connection with
// the callback bound to it once (init), so that an exchange allocates
// nothing: a closure over locals would move each of them to the heap.
type heldExchange struct {
	out, in    []byte // the bytes to send; where the answer is read to
	n          int
	werr, rerr error
	sent       bool
	step       func(fd uintptr) bool // stepFD bound to this exchange
}

func (x *heldExchange) init() { x.step = x.stepFD }

// stepFD is RawConn.Read's callback: on its first call it writes out and
// asks to wait for the answer, on the next ones it reads into in, until
// a read finds something other than an empty socket.
func (x *heldExchange) stepFD(fd uintptr) bool {
	if !x.sent {
		x.sent = true
		for len(x.out) > 0 {
			m, e := syscall.Write(int(fd), x.out)
			switch {
			case e == syscall.EINTR:
				continue
			case e != nil:
				x.werr = e
				return true
			}
			x.out = x.out[m:]
		}
		return false // the answer cannot be there yet: wait for it
	}
	for {
		x.n, x.rerr = syscall.Read(int(fd), x.in)
		if x.rerr != syscall.EINTR {
			break
		}
	}
	x.n = max(x.n, 0)
	return x.rerr != syscall.EAGAIN
}

// sendThenRead writes the held bytes and reads into p once the answer
// comes, in one RawConn.Read.
func (c *conn) sendThenRead(p []byte) (int, error) {
	x := &c.ex
	*x = heldExchange{out: c.held, in: p, step: x.step}
	c.held = c.held[:0]
	err := c.raw.Read(x.step)
	out, n, werr, rerr := x.out, x.n, x.werr, x.rerr
	x.out, x.in = nil, nil // neither the request's bytes nor p kept past the call
	switch {
	case err != nil:
		return 0, err
	case errors.Is(werr, syscall.EAGAIN):
		// the send buffer is full: the rest goes the plain way
		return c.sendPlainly(out, p)
	case werr != nil:
		return 0, c.opError("write", werr)
	case rerr != nil:
		return 0, c.opError("read", rerr)
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}
