package h1

import "time"

// A connection's deadlines are set with slack: a timeout d from a moment is
// set up to d/64 later than the moment plus d, and a deadline already in
// place within that window is left alone. A kept-alive connection so
// re-sets each deadline about once per d/64 of time instead of two or three
// times per request (each set takes the poller's lock and moves a runtime
// timer). A timeout ends at most 1/64 of itself late, never early.
//
// deadlines are those last set on the connection; every set goes through
// them so that they stay true.
type deadlines struct {
	read, write time.Time
}

// slackOf is the window a deadline for timeout d may be set late by.
func slackOf(d time.Duration) time.Duration { return d / 64 }

// setRead bounds reads to d after from (no bound when d <= 0).
func (c *conn) setRead(from time.Time, d time.Duration) {
	if t, ok := slackDeadline(c.dl.read, from, d); !ok {
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
		_ = c.setReadAt(by.Add(slackOf(d)))
	}
}

// setWrite bounds writes to d after from (no bound when d <= 0).
func (c *conn) setWrite(from time.Time, d time.Duration) {
	if t, ok := slackDeadline(c.dl.write, from, d); !ok {
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

// slackDeadline returns the deadline for timeout d from from, and whether
// cur is one already: the zero time (none) when d <= 0, else a time from
// from+d to slackOf(d) after it.
func slackDeadline(cur, from time.Time, d time.Duration) (time.Time, bool) {
	if d <= 0 {
		return time.Time{}, cur.IsZero()
	}
	by := from.Add(d)
	if !cur.IsZero() && !cur.Before(by) && !cur.After(by.Add(slackOf(d))) {
		return cur, true
	}
	return by.Add(slackOf(d)), false
}
