//go:build !linux

package h1client

import (
	"net"
	"syscall"
)

// rawOf returns nil: requests are written and answers read plainly.
func rawOf(net.Conn) syscall.RawConn { return nil }

// sendThenRead writes the held bytes and reads into p.
func (c *conn) sendThenRead(p []byte) (int, error) {
	out := c.held
	c.held = c.held[:0]
	return c.sendPlainly(out, p)
}
