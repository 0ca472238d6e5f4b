//go:build !linux

package h1client

// canHold is false: requests are written and answers read plainly.
const canHold = false

// sendThenRead writes the held bytes and reads into p.
func (c *conn) sendThenRead(p []byte) (int, error) {
	out := c.held
	c.held = c.held[:0]
	return c.sendPlainly(out, p)
}
