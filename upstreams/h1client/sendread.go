package h1client

import (
	"net"
	"os"
)

// A request without a body is sent by the first read of its answer: the
// connection's writer keeps its bytes (held), and the read writes them and
// then waits for the answer inside one RawConn.Read. A plain write then
// read would try the read at once, meet an empty socket (EAGAIN), and only
// then wait: one system call per exchange for nothing, as the server
// cannot have answered a request it is still being sent. Inside RawConn.Read
// the poller's readiness is reset before the write, so an answer arriving
// at any time after it wakes the wait.
//
// A write the socket does not take whole at once (a full send buffer) ends
// the raw read; the rest goes through the connection's own Write, under
// its deadline, and the answer through its own Read. Connections without a
// RawConn (wrapped by a custom Dial) and systems other than Linux always
// write and read plainly.

// connWriter is what conn's bufio.Writer flushes to.
type connWriter struct{ c *conn }

func (w connWriter) Write(p []byte) (int, error) {
	if w.c.holding {
		w.c.held = append(w.c.held, p...)
		return len(p), nil
	}
	return w.c.nc.Write(p)
}

// connReader is what conn's bufio.Reader reads from.
type connReader struct{ c *conn }

func (r connReader) Read(p []byte) (int, error) {
	if len(r.c.held) == 0 {
		return r.c.nc.Read(p)
	}
	return r.c.sendThenRead(p)
}

// hold makes the next flushes keep the request's bytes for the answer's
// first read, when the connection can send them so; unhold ends it.
func (c *conn) hold() { c.holding = canHold && c.raw != nil }

func (c *conn) unhold() { c.holding = false }

// sendPlainly writes out and reads into p through the connection's own
// Write and Read.
func (c *conn) sendPlainly(out, p []byte) (int, error) {
	if _, err := c.nc.Write(out); err != nil {
		return 0, err
	}
	return c.nc.Read(p)
}

// opError wraps a system call's error as net's own reads and writes do.
func (c *conn) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: c.nc.LocalAddr().Network(), Source: c.nc.LocalAddr(), Addr: c.nc.RemoteAddr(),
		Err: os.NewSyscallError(op, err)}
}
