package h1server

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/restgate/gateway/upstreams/h1wire"
)

// Connection states, for Shutdown: only a connection waiting for a request
// may be closed under its client's feet.
const (
	stateNew    int32 = iota // accepted, no request yet
	stateActive              // reading or serving a request
	stateIdle                // kept alive, waiting for the next request
	stateClosed
)

// conn is one client connection. Everything but state, the watcher's
// fields and rwc.Close belongs to the connection's goroutine.
type conn struct {
	srv      *Server
	rwc      net.Conn
	accepted time.Time
	state    atomic.Int32
	remote   string
	ctx      context.Context // carries http.LocalAddrContextKey

	cr   connReader
	br   *bufio.Reader
	resp response
	dl   deadlines

	// the head of the answer being written, the pieces of one writev, and
	// the sorted field names; all reused
	head  []byte
	chunk []byte
	out   net.Buffers
	keys  []string
	date  dateCache

	// the watcher: a read started by watch's timer once a request without a
	// body has run for Options.WatchAfter; it cancels the request when the
	// client hangs up
	watch     *time.Timer
	watchDone chan struct{}
	watchMu   sync.Mutex
	cancel    context.CancelFunc // of the request being watched
	gone      atomic.Bool        // the watcher saw the client hang up

	// tls is the connection's TLS state once its handshake is done (every
	// request's Request.TLS), nil on a plain connection; handedOff says
	// the connection went to an Options.TLSNextProto entry, which closes
	// it.
	tls       *tls.ConnectionState
	handedOff bool
}

func newConn(s *Server, nc net.Conn) *conn {
	c := &conn{srv: s, rwc: nc, accepted: time.Now(), remote: nc.RemoteAddr().String()}
	c.ctx = context.WithValue(context.Background(), http.LocalAddrContextKey, nc.LocalAddr())
	c.cr.c, c.cr.remain = c, -1
	c.resp.c = c
	c.watchDone = make(chan struct{}, 1)
	c.watch = time.AfterFunc(time.Hour, c.watchRead)
	c.watch.Stop()
	return c
}

// headSlack is read past MaxHeaderBytes before a head counts as too large,
// as net/http allows for its buffering.
const headSlack = 4096

func (c *conn) serve() {
	c.br = c.srv.getReader(&c.cr)
	defer func() {
		if !c.handedOff {
			c.rwc.Close()
		}
		c.state.Store(stateClosed)
		c.srv.putReader(c.br)
		c.srv.untrack(c)
	}()
	if tc, ok := c.rwc.(*tls.Conn); ok && !c.handshake(tc) {
		return
	}
	for first := true; ; first = false {
		if !c.await(first) {
			return
		}
		ex, ok := c.readRequest(first)
		if !ok || !c.serveRequest(ex) {
			return
		}
	}
}

// await waits for the first byte of the next request: the idle timeout
// bounds the wait on a kept-alive connection, the head's timeout the wait
// for a new connection's first request.
func (c *conn) await(first bool) bool {
	o := &c.srv.opts
	// the head's size is counted from the bytes this wait reads
	c.cr.limit(int64(o.MaxHeaderBytes) + headSlack)
	switch {
	case first:
		c.setRead(c.accepted, o.ReadHeaderTimeout)
	case c.br.Buffered() > 0:
		return c.state.Load() == stateActive // a pipelined request
	case !c.goIdle():
		return false
	default:
		c.setRead(time.Now(), o.IdleTimeout)
	}
	if _, err := c.br.Peek(1); err != nil {
		return false
	}
	old := int32(stateIdle)
	if first {
		old = stateNew
	}
	return c.state.CompareAndSwap(old, stateActive)
}

// goIdle marks the connection idle unless the server is closing; Shutdown
// sets closing before it looks for idle connections, so one of the two
// always sees the other.
func (c *conn) goIdle() bool {
	if !c.state.CompareAndSwap(stateActive, stateIdle) {
		return false
	}
	return !c.srv.closing.Load() || !c.state.CompareAndSwap(stateIdle, stateClosed)
}

// readRequest reads and checks the next request's head. A request the
// server cannot serve is answered here and the connection ends. The
// request's time starts with its first byte on a kept-alive connection,
// and at the accept for a connection's first request, as in net/http:
// ReadHeaderTimeout and ReadTimeout count from there.
func (c *conn) readRequest(first bool) (*incoming, bool) {
	o := &c.srv.opts
	start := time.Now()
	if first {
		start = c.accepted
	}
	if !headBuffered(c.br) {
		// the head is still on its way: bound the wait for the rest
		c.setRead(start, o.ReadHeaderTimeout)
	}
	ex := &incoming{}
	req := &ex.req
	seen, err := readRequestHead(c.br, req)
	tooLarge := c.cr.hitLimit // before limit clears it
	c.cr.limit(-1)
	if err != nil {
		switch {
		case tooLarge:
			c.reject(http.StatusRequestHeaderFieldsTooLarge, "")
		case errors.Is(err, errMalformed):
			// first: a bad target's *url.Error would pass for a net.Error
			c.reject(http.StatusBadRequest, "")
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), isNetError(err):
			// the client left or stalled; nobody to answer
		default:
			c.reject(http.StatusBadRequest, "")
		}
		return nil, false
	}
	if msg := checkRequest(req); msg != "" {
		status := http.StatusBadRequest
		if req.ProtoMajor != 1 {
			status = http.StatusHTTPVersionNotSupported
		}
		c.reject(status, msg)
		return nil, false
	}
	delete(req.Header, "Host") // req.Host has it, as net/http leaves it
	if seen&h1wire.FieldContentLength != 0 && seen&h1wire.FieldTransferEncoding != 0 {
		// RFC 9112 6.1: framed by Transfer-Encoding (or, before HTTP/1.1,
		// by Content-Length), but whoever sent it may have meant the
		// other framing, so the connection closes after the answer
		// (net/http keeps it open)
		req.Close = true
	}
	// the body runs under ReadTimeout from the request's start (none when
	// zero), as in net/http. The watcher's read of a request without one
	// only must not end sooner: the head's deadline left in place would end
	// it early and leave a hung-up client unnoticed, the wait's (or none)
	// is as good.
	if req.Body == http.NoBody {
		c.setReadAfter(start, o.ReadTimeout)
	} else {
		c.setRead(start, o.ReadTimeout)
	}
	// a handler's write deadline ends with its request: a moved one is
	// out of the window, so it is set again
	c.setWrite(start, o.WriteTimeout)
	req.RemoteAddr, req.TLS = c.remote, c.tls
	return ex, true
}

// headBuffered reports whether the buffered bytes hold a whole request head,
// so reading it cannot wait on the network.
func headBuffered(br *bufio.Reader) bool {
	b, _ := br.Peek(br.Buffered())
	return bytes.Contains(b, []byte("\r\n\r\n"))
}

func isNetError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, net.ErrClosed)
}

// checkRequest applies the checks net/http's server makes beyond parsing,
// on a head read with its Host field: HTTP/1.x only, a Host field (required
// from HTTP/1.1 on, in absolute form too, whose target's host prevails)
// made of valid characters, valid field names. It returns what is wrong,
// or "".
func checkRequest(req *http.Request) string {
	hosts, haveHost := req.Header["Host"]
	switch {
	case req.ProtoMajor != 1:
		return "unsupported protocol version"
	case req.ProtoAtLeast(1, 1) && (!haveHost || len(hosts) == 0) && req.Method != http.MethodConnect:
		return "missing required Host header"
	case len(hosts) == 1 && !validHost(hosts[0]):
		return "malformed Host header"
	}
	for name := range req.Header {
		if !h1wire.ValidToken(name) {
			return "invalid header name"
		}
	}
	return ""
}

// reject answers a request the server will not pass to the handler, in
// plain text as net/http does, and leaves the connection to be closed.
func (c *conn) reject(status int, msg string) {
	text := fmt.Sprintf("%d %s", status, http.StatusText(status))
	if msg != "" {
		text += ": " + msg
	}
	_ = c.setWriteAt(time.Now().Add(time.Second))
	_, _ = fmt.Fprintf(c.rwc, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), len(text), text)
	c.lingerClose()
}

// lingerClose half-closes the connection and reads what the client still
// sends for up to half a second, so a client busy sending a body gets to
// read the answer before the connection resets (net/http waits as long).
func (c *conn) lingerClose() {
	if cw, ok := c.rwc.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_ = c.setReadAt(time.Now().Add(500 * time.Millisecond))
	_, _ = io.CopyN(io.Discard, c.rwc, 4<<20)
}

// serveRequest runs the handler for ex's request and writes its answer;
// it reports whether the connection may carry another request.
func (c *conn) serveRequest(ex *incoming) bool {
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	// the request is this exchange's own, so it takes its context in
	// place: WithContext's copy, inlined, lives on the stack
	ex.req = *ex.req.WithContext(ctx)
	req := &ex.req
	w := &c.resp
	w.reset(req)
	hs := &ex.handles
	hs.init(w)
	// as net/http: only the first Expect field counts, and an expectation
	// other than 100-continue is refused
	if expect := req.Header["Expect"]; len(expect) > 0 && expect[0] != "" {
		if !h1wire.HasToken(expect[:1], "100-continue") {
			c.reject(http.StatusExpectationFailed, "")
			return false
		}
		w.body.awaitContinue = req.ProtoAtLeast(1, 1) && req.ContentLength != 0 && req.Body != http.NoBody
	}
	if req.Body != http.NoBody {
		w.body.rc = req.Body
		req.Body = &hs.body
	}
	watched := req.Body == http.NoBody
	if watched {
		c.watchMu.Lock()
		c.cancel = cancel
		c.watchMu.Unlock()
		c.watch.Reset(c.srv.opts.WatchAfter)
	}
	ok := c.handle(w, &hs.writer, req)
	w.endRequest()
	if watched {
		c.unwatch()
	}
	if !ok {
		return false
	}
	if w.finish() {
		return true
	}
	if !w.body.settled() && w.err == nil {
		// closing with the request's rest unread would reset the
		// connection and drop the answer still queued for the client
		c.lingerClose()
	}
	return false
}

// handle runs the handler on hw, the request's handle of w, recovering a
// panic as net/http does: logged (unless http.ErrAbortHandler) and the
// connection closed.
func (c *conn) handle(w *response, hw http.ResponseWriter, req *http.Request) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			ok = false
			if v != http.ErrAbortHandler {
				c.srv.logger.Error("handler panicked", "remote", c.remote, "panic", v, "stack", string(debug.Stack()))
			}
		}
	}()
	if req.RequestURI == "*" && req.Method == http.MethodOptions {
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusOK)
		return true
	}
	c.srv.handler.ServeHTTP(hw, req)
	return true
}
