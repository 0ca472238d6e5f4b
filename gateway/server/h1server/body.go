package h1server

import (
	"io"
	"net/http"
)

// maxDrain is how much of a request body the handler left unread the server
// reads and drops to keep the connection; a longer rest closes it
// (net/http's figure).
const maxDrain = 256 << 10

// body is a request's body as the handler sees it: it sends 100 Continue
// before the first read when the client asked for it, counts what was read,
// and keeps the handler's Close from reading the rest (the server decides
// when the answer's head leaves whether to drain it or to close the
// connection).
type body struct {
	c             *conn
	rc            io.ReadCloser // nil: the request has no body
	awaitContinue bool          // the client waits for 100 Continue before sending
	read          int64
	eof, closed   bool
}

// Read reads the body; after Close it returns http.ErrBodyReadAfterClose.
func (b *body) Read(p []byte) (int, error) {
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	if b.awaitContinue {
		b.awaitContinue = false
		if !b.c.resp.sent {
			if _, err := io.WriteString(b.c.rwc, "HTTP/1.1 100 Continue\r\n\r\n"); err != nil {
				return 0, err
			}
		}
	}
	n, err := b.rc.Read(p)
	b.read += int64(n)
	if err == io.EOF {
		b.eof = true
	}
	return n, err
}

// Close ends the handler's reading; it reads nothing more.
func (b *body) Close() error {
	b.closed = true
	return nil
}

// settled reports whether nothing of the request is left on the wire.
func (b *body) settled() bool { return b.rc == nil || b.eof }

// settle reads and drops the rest of the body the handler left, up to
// maxDrain, and reports whether the connection can carry another request:
// not when the client still waits for 100 Continue, nor when more than
// maxDrain is left.
func (b *body) settle() bool {
	switch {
	case b.settled():
		return true
	case b.awaitContinue:
		return false
	case b.c.resp.req.ContentLength-b.read > maxDrain:
		return false
	}
	_, err := io.CopyN(io.Discard, b.rc, maxDrain+1)
	b.eof = err == io.EOF
	return b.eof
}
