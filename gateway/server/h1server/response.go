package h1server

import (
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/restgate/gateway/upstreams/h1wire"
)

// response is the answer to one request; each connection reuses one, and
// its handlers reach it through handles of their request (handle.go). An
// answer is held back (up to bodyLimit) until the handler returns, so head
// and body leave in one write with a Content-Length; a body whose declared
// Content-Length is reached by a single Write leaves with the head at once,
// without a copy. Longer answers, and answers the handler flushes, are
// streamed: chunked when no Content-Length was set.
type response struct {
	c      *conn
	req    *http.Request
	header http.Header // a new map per request: a handler may keep it
	body   body        // the request's body, when it has one
	// hmu is held by every call through a handle, from its check of gen
	// to its end, and by the connection while it ends a request (endRequest):
	// a call either ends before the request does or finds it ended.
	hmu sync.Mutex
	// gen is the generation of the request served: handles of an earlier
	// one fail. Written by the connection's goroutine under hmu; handles
	// read it under hmu.
	gen uint64

	status   int
	wrote    bool  // WriteHeader called with a final status
	sent     bool  // the head is on the wire
	noBody   bool  // HEAD, 1xx, 204, 304: no body goes out
	declared int64 // the Content-Length the handler set; -1: none
	written  int64 // body bytes taken from the handler
	chunked  bool
	close    bool    // the connection ends after this answer
	held     *[]byte // body bytes not sent yet, from Server.bodies
	err      error   // the first write error; every later write returns it

	// what the framing needs of the header as WriteHeader saw it
	hasDate, hasType, closeField bool
	sniffed                      string // HEAD: the type of the body not sent
}

func (w *response) reset(req *http.Request) {
	w.header = http.Header{}
	w.req = req
	w.body = body{c: w.c}
	w.status, w.wrote, w.sent, w.noBody = 0, false, false, false
	w.declared, w.written, w.chunked, w.close = -1, 0, false, false
	w.err, w.sniffed = nil, ""
}

// Header returns the answer's header map; changes after WriteHeader (or
// the first Write or Flush) are not sent, as with net/http.
func (w *response) Header() http.Header { return w.header }

// WriteHeader sets the status. 1xx statuses (but 101) go out at once with
// the header as it is; the first final status wins.
func (w *response) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic(fmt.Sprintf("invalid WriteHeader code %v", code))
	}
	if w.wrote {
		return
	}
	if code < 200 && code != http.StatusSwitchingProtocols {
		w.informational(code)
		return
	}
	w.wrote, w.status = true, code
	w.noBody = w.req.Method == http.MethodHead || !bodyAllowed(code)
	if v := w.header["Content-Length"]; len(v) > 0 {
		n, err := strconv.ParseInt(v[0], 10, 64)
		if err != nil || n < 0 || len(v) > 1 {
			delete(w.header, "Content-Length") // invalid: framed by the server instead
		} else {
			w.declared = n
		}
	}
	w.appendFields()
}

func bodyAllowed(code int) bool {
	return code >= 200 && code != http.StatusNoContent && code != http.StatusNotModified
}

// Write takes body bytes. It returns http.ErrBodyNotAllowed for statuses
// without a body, http.ErrContentLength past a declared Content-Length, and
// the connection's first write error once there was one.
func (w *response) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	switch {
	case w.err != nil:
		return 0, w.err
	case w.noBody && w.req.Method == http.MethodHead && bodyAllowed(w.status):
		if w.written == 0 && !w.hasType && len(p) > 0 {
			w.sniffed = http.DetectContentType(p) // the type a GET would have
		}
		w.written += int64(len(p))
		return len(p), nil
	case w.noBody:
		return 0, http.ErrBodyNotAllowed
	case w.declared >= 0 && w.written+int64(len(p)) > w.declared:
		return 0, http.ErrContentLength
	}
	w.written += int64(len(p))
	held := w.heldLen()
	switch {
	case !w.sent && held == 0 && w.written == w.declared:
		// the whole declared body in one call: with the head, uncopied
		return len(p), w.send(p, false)
	case held+len(p) <= bodyLimit:
		w.hold(p)
		return len(p), nil
	}
	return len(p), w.send(p, false)
}

// FlushError sends the head and what is held now (http.ResponseController).
func (w *response) FlushError() error {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.err != nil {
		return w.err
	}
	if w.sent && w.heldLen() == 0 {
		return nil
	}
	return w.send(nil, false)
}

// Flush is http.Flusher's FlushError without the error.
func (w *response) Flush() { _ = w.FlushError() }

// SetReadDeadline moves the connection's read deadline for the rest of
// this request (http.ResponseController).
func (w *response) SetReadDeadline(t time.Time) error { return w.c.setReadAt(t) }

// SetWriteDeadline moves the connection's write deadline for the rest of
// this request (http.ResponseController).
func (w *response) SetWriteDeadline(t time.Time) error { return w.c.setWriteAt(t) }

// finish completes the answer after the handler returned and reports
// whether the connection may carry another request.
func (w *response) finish() bool {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.err == nil && (!w.sent || w.chunked || w.heldLen() > 0) {
		_ = w.send(nil, true)
	}
	if !w.body.settled() {
		w.close = true // the request's rest is still on the wire
	}
	if !w.noBody && w.declared >= 0 && w.written < w.declared {
		w.close = true // a short body: only the close tells the client
	}
	w.release()
	return !w.close && w.err == nil && !w.c.gone.Load()
}

func (w *response) heldLen() int {
	if w.held == nil {
		return 0
	}
	return len(*w.held)
}

func (w *response) hold(p []byte) {
	if w.held == nil {
		w.held = w.c.srv.getBody()
	}
	*w.held = append(*w.held, p...)
}

func (w *response) release() {
	if w.held != nil {
		w.c.srv.putBody(w.held)
		w.held = nil
	}
}

// send writes, in one writev, the head if it is not out yet, the held
// bytes and p, framed as one chunk when chunked, and the last chunk when
// last.
func (w *response) send(p []byte, last bool) error {
	c := w.c
	out := c.out[:0]
	if !w.sent {
		// as net/http does, the head ends the handler's reading: the
		// request's rest is drained now, so a client that sends all of it
		// before reading cannot deadlock against a long answer, or the
		// head says the connection closes
		if !w.body.settle() {
			w.close = true
		}
		c.head = w.appendHead(c.head, last, p) // after appendFields' part
		out = append(out, c.head)
		w.sent = true
	}
	var held []byte
	if w.held != nil {
		held = *w.held
	}
	size := len(held) + len(p)
	if w.noBody {
		size, held, p = 0, nil, nil
	}
	if w.chunked && size > 0 {
		c.chunk = strconv.AppendInt(c.chunk[:0], int64(size), 16)
		c.chunk = append(c.chunk, "\r\n"...)
		out = append(out, c.chunk)
	}
	if len(held) > 0 {
		out = append(out, held)
	}
	if len(p) > 0 {
		out = append(out, p)
	}
	tail := c.srv.chunkTail // "\r\n" ends a chunk, "0\r\n\r\n" is the last chunk
	switch {
	case w.chunked && size > 0 && last:
		out = append(out, tail)
	case w.chunked && size > 0:
		out = append(out, tail[:2])
	case w.chunked && last:
		out = append(out, tail[2:])
	}
	c.out = out
	err := c.writeOut()
	clear(out) // writeOut may have consumed c.out; drop its references to the bodies
	c.out = out[:0]
	if w.held != nil {
		*w.held = (*w.held)[:0]
	}
	if err != nil {
		w.err, w.close = err, true
	}
	return err
}

// informational sends a 1xx answer (103 Early Hints, say) with the header
// as it is now; the final answer follows later.
func (w *response) informational(code int) {
	if w.sent || w.err != nil || !w.req.ProtoAtLeast(1, 1) {
		return // HTTP/1.0 clients do not expect interim answers
	}
	c := w.c
	dst := append(c.head[:0], "HTTP/1.1 "...)
	dst = strconv.AppendInt(dst, int64(code), 10)
	dst = append(dst, ' ')
	dst = append(dst, http.StatusText(code)...)
	dst = append(dst, "\r\n"...)
	for k, vs := range w.header {
		if h1wire.ValidToken(k) {
			for _, v := range vs {
				dst = appendField(dst, k, v)
			}
		}
	}
	c.head = append(dst, "\r\n"...)
	if _, err := c.rwc.Write(c.head); err != nil {
		w.err, w.close = err, true
	}
}
