//go:build !linux

package h1client

// canHold is false: requests are written and answers read plainly.
const canHold = false

// heldExchange holds nothing here: nothing is sent by a read.
type heldExchange struct{}

func (x *heldExchange) init() {}

// sendThenRead writes the held bytes and reads into p.
func (c *conn) sendThenRead(p []byte) (int, error) {
	out := c.held
	c.held = c.held[:0]
	return c.sendPlainly(out, p)
}
