package h1client

import (
	"errors"
	"io"
	"syscall"
)

// canHold says a request may be held for its answer's first read here.
const canHold = true

// sendThenRead writes the held bytes and reads into p once the answer
// comes, in one RawConn.Read.
func (c *conn) sendThenRead(p []byte) (int, error) {
	out := c.held
	c.held = c.held[:0]
	var n int
	var werr, rerr error
	sent := false
	err := c.raw.Read(func(fd uintptr) bool {
		if !sent {
			sent = true
			for len(out) > 0 {
				m, e := syscall.Write(int(fd), out)
				switch {
				case e == syscall.EINTR:
					continue
				case e != nil:
					werr = e
					return true
				}
				out = out[m:]
			}
			return false // the answer cannot be there yet: wait for it
		}
		for {
			n, rerr = syscall.Read(int(fd), p)
			if rerr != syscall.EINTR {
				break
			}
		}
		n = max(n, 0)
		return rerr != syscall.EAGAIN
	})
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
