package h1server

import (
	"bufio"
	"errors"
	"io"
	"net"
	"time"
)

// watchRead runs in the watch timer's goroutine: one read on the connection
// while the handler runs. A byte is the next pipelined request's and is
// kept; an end or error other than the deadline unwatch sets means the
// client is gone, and the request is cancelled.
func (c *conn) watchRead() {
	n, err := c.rwc.Read(c.cr.stash[:])
	switch {
	case n == 1:
		c.cr.stashed = true
	case err != nil && !isTimeout(err):
		c.gone.Store(true)
		c.watchMu.Lock()
		c.cancel()
		c.watchMu.Unlock()
	}
	if c.srv.opts.watched != nil {
		c.srv.opts.watched(n == 1)
	}
	c.watchDone <- struct{}{}
}

// unwatch stops the watcher, waiting for its read to end if it started.
func (c *conn) unwatch() {
	if c.watch.Stop() {
		return
	}
	_ = c.setReadAt(time.Unix(1, 0)) // long past: the read ends at once
	<-c.watchDone
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// connReader is what the connection's bufio.Reader reads: the connection,
// after the byte the watcher may have read, within the head's size limit.
type connReader struct {
	c        *conn
	remain   int64 // bytes the head may still take; negative: no limit
	hitLimit bool
	stash    [1]byte
	stashed  bool
}

func (r *connReader) limit(n int64) { r.remain, r.hitLimit = n, false }

func (r *connReader) Read(p []byte) (int, error) {
	if r.remain == 0 {
		r.hitLimit = true
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if r.remain > 0 && int64(len(p)) > r.remain {
		p = p[:r.remain]
	}
	var n int
	var err error
	if r.stashed {
		p[0], r.stashed, n = r.stash[0], false, 1
	} else {
		n, err = r.c.rwc.Read(p)
	}
	if r.remain > 0 {
		r.remain -= int64(n)
	}
	return n, err
}

func (s *Server) getReader(r io.Reader) *bufio.Reader {
	if br, ok := s.readers.Get().(*bufio.Reader); ok {
		br.Reset(r)
		return br
	}
	return bufio.NewReaderSize(r, 4<<10)
}

func (s *Server) putReader(br *bufio.Reader) {
	br.Reset(nil)
	s.readers.Put(br)
}
