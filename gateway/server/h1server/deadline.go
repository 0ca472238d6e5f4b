package h1server

import (
	"time"

	"github.com/restgate/gateway/upstreams/h1wire"
)

// deadlines are those last set on the connection; every set goes through
// them so that they stay true. They are set with slack (h1wire.Slack): a
// timeout ends at most 1/32 of itself late, never early, and a kept-alive
// connection re-sets each deadline about once per 1/64 of its timeout
// instead of two or three times per request.
type deadlines struct {
	read, write time.Time
}

// setRead bounds reads to d after from (no bound when d <= 0).
func (c *conn) setRead(from time.Time, d time.Duration) {
	if t, keep := slackDeadline(c.dl.read, from, d); !keep {
		_ = c.setReadAt(t)
	}
}

// setReadAfter bounds reads to no sooner than d after from: a deadline
// already in place that ends later, or none, is left alone. It bounds the
// watcher's read during a request without a body, which only must not end
// early: unwatch ends it.
func (c *conn) setReadAfter(from time.Time, d time.Duration) {
	if d <= 0 {
		c.setRead(from, d)
		return
	}
	if by := from.Add(d); !c.dl.read.IsZero() && c.dl.read.Before(by) {
		_ = c.setReadAt(by.Add(h1wire.SlackOf(d)))
	}
}

// setWrite bounds writes to d after from (no bound when d <= 0).
func (c *conn) setWrite(from time.Time, d time.Duration) {
	if t, keep := slackDeadline(c.dl.write, from, d); !keep {
		_ = c.setWriteAt(t)
	}
}

// setReadAt sets the read deadline to t exactly.
func (c *conn) setReadAt(t time.Time) error {
	c.dl.read = t
	return c.rwc.SetReadDeadline(t)
}

// setWriteAt sets the write deadline to t exactly.
func (c *conn) setWriteAt(t time.Time) error {
	c.dl.write = t
	return c.rwc.SetWriteDeadline(t)
}

// slackDeadline is h1wire.Slack for a timeout of d from from; d <= 0 is none.
func slackDeadline(cur, from time.Time, d time.Duration) (time.Time, bool) {
	if d <= 0 {
		return h1wire.Slack(cur, time.Time{}, 0)
	}
	return h1wire.Slack(cur, from.Add(d), h1wire.SlackOf(d))
}
