package h1client

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/restgate/gateway/upstreams/h1wire"
)

// maxInformational bounds the 1xx answers read before the final one.
const maxInformational = 8

// conn is one connection, used by one exchange at a time.
type conn struct {
	nc        net.Conn
	br        *bufio.Reader
	bw        *bufio.Writer
	addr      string
	pool      *pool
	idleSince time.Time
	// readBy and writeBy are the deadlines last set on nc: a kept-alive
	// connection whose exchanges they serve (within h1wire.Slack's window)
	// is not set again, since each call takes the poller's locks.
	// interrupt does not note its deadline: a connection it ran on is
	// closed, never reused.
	readBy, writeBy time.Time
	// raw is nc's RawConn, nil when it has none; held keeps a request
	// flushed while holding, for the answer's first read (sendread.go).
	raw     syscall.RawConn
	holding bool
	held    []byte
	ex      heldExchange
	// idle checks the connection before reuse (transport.go's conn).
	idle idleCheck
	// interruptFn is interrupt bound once, for context.AfterFunc: a
	// method value made per exchange would be allocated per exchange.
	interruptFn func()
}

func newConn(nc net.Conn, addr string, p *pool) *conn {
	c := &conn{nc: nc, addr: addr, pool: p, raw: rawOf(nc)}
	c.idle.init(c.raw)
	c.ex.init()
	c.interruptFn = c.interrupt
	c.br = bufio.NewReaderSize(connReader{c}, bufferSize)
	c.bw = bufio.NewWriter(connWriter{c})
	return c
}

func (c *conn) close() { _ = c.nc.Close() }

// interrupt makes the blocked read or write of the exchange fail; it runs
// when the request's context ends.
// A deadline in the past wakes a blocked read or write at once.
func (c *conn) interrupt() { _ = c.nc.SetDeadline(time.Unix(1, 0)) }

// roundTrip writes req and reads the answer's headers, the exchange and
// its body bounded by deadline (zero: unbounded) through the connection's
// deadlines and interrupted when req's context ends. stale reports a
// failure that left the request unanswered and may be sent again: the
// connection broke before a byte came back.
func (c *conn) roundTrip(req *http.Request, deadline time.Time, headerTimeout time.Duration) (resp *http.Response, stale bool, err error) {
	ctx := req.Context()
	now := time.Now()
	readBy := deadline
	if headerTimeout > 0 {
		if h := now.Add(headerTimeout); readBy.IsZero() || h.Before(readBy) {
			readBy = h
		}
	}
	// Deadlines are set before interrupt can run, so that they never
	// overwrite the past deadline with which it ends the exchange.
	c.setDeadlines(now, deadline, readBy)
	stop := neverStopped
	if ctx.Done() != nil {
		stop = context.AfterFunc(ctx, c.interruptFn)
	}

	if !hasBody(req) {
		c.hold()
	}
	werr := writeRequest(c.bw, req)
	if werr == nil {
		werr = c.bw.Flush()
	}
	c.unhold()
	if werr != nil && !isNetError(werr) {
		// Refused before sending, or the body failed to read: the server
		// has nothing to answer yet, so there is no answer to wait for.
		stop()
		c.close()
		return nil, false, werr
	}
	// the answer lives in its body: one allocation for both
	b := &body{c: c, ctx: ctx, deadline: deadline, stop: stop}
	resp, src, rerr := c.readAnswer(req, &b.resp)
	if rerr == nil && !readBy.Equal(deadline) && !bodyBuffered(resp, c.br) {
		c.setDeadlines(now, deadline, deadline)
		// interrupt may have run before this overwrote its deadline.
		if cerr := ctx.Err(); cerr != nil {
			rerr = cerr
		}
	}
	switch {
	case werr != nil && rerr == nil:
		// The server answered before taking the whole request (a 413,
		// say): its answer counts, the connection does not.
		resp.Close = true
	case werr != nil || rerr != nil:
		stop()
		c.close()
		stale = ctx.Err() == nil && replayable(req) && errors.Is(rerr, errNothingRead)
		return nil, stale, contextError(ctx, deadline, errors.Join(werr, rerr))
	}
	b.src, b.reuse = src, !resp.Close && !req.Close && !src.ambiguous && c.raw != nil
	if resp.Body == http.NoBody {
		b.release(true)
		return resp, false, nil
	}
	resp.Body = b
	return resp, false, nil
}

// neverStopped stands for context.AfterFunc's stop of a context that
// cannot end, which would allocate for nothing.
func neverStopped() bool { return true }

// setDeadlines bounds the exchange's writes by write and its reads by read
// (zero: unbounded), with the slack of h1wire.Slack measured from now: a
// deadline in place that serves is kept, and when both change to the same
// instant one call sets them.
func (c *conn) setDeadlines(now, write, read time.Time) {
	w, keepW := h1wire.Slack(c.writeBy, write, h1wire.SlackOf(write.Sub(now)))
	r, keepR := h1wire.Slack(c.readBy, read, h1wire.SlackOf(read.Sub(now)))
	switch {
	case !keepW && !keepR && w.Equal(r):
		_ = c.nc.SetDeadline(r)
	case !keepW && !keepR:
		_ = c.nc.SetWriteDeadline(w)
		_ = c.nc.SetReadDeadline(r)
	case !keepW:
		_ = c.nc.SetWriteDeadline(w)
	case !keepR:
		_ = c.nc.SetReadDeadline(r)
	}
	c.writeBy, c.readBy = w, r
}

// bodyBuffered reports whether the rest of resp's body, of known length, is
// already in br, so reading it waits on no deadline.
func bodyBuffered(resp *http.Response, br *bufio.Reader) bool {
	return resp.ContentLength >= 0 && int64(br.Buffered()) >= resp.ContentLength
}

// errNothingRead marks a connection that closed before its answer began.
var errNothingRead = errors.New("h1client: connection closed before the answer")

// readAnswer reads the final answer to req, skipping 1xx informational ones.
func (c *conn) readAnswer(req *http.Request, into *http.Response) (*http.Response, answerBody, error) {
	if _, err := c.br.Peek(1); err != nil {
		if isDeadline(err) {
			return nil, answerBody{}, err
		}
		return nil, answerBody{}, fmt.Errorf("%w: %w", errNothingRead, err)
	}
	for range maxInformational {
		resp, src, err := readResponseInto(c.br, req, into)
		if err != nil {
			return nil, answerBody{}, err
		}
		if resp.StatusCode >= 200 {
			return resp, src, nil
		}
		if resp.StatusCode == http.StatusSwitchingProtocols {
			return nil, answerBody{}, errors.New("h1client: unexpected 101 Switching Protocols")
		}
	}
	return nil, answerBody{}, fmt.Errorf("h1client: more than %d informational answers", maxInformational)
}

// body puts its connection back in the pool when it is read to its end.
// Closing it earlier closes the connection, as net/http does: draining an
// unknown remainder could take as long as the backend likes.
type body struct {
	src      answerBody
	c        *conn
	ctx      context.Context
	deadline time.Time
	stop     func() bool
	reuse    bool
	done     atomic.Bool
	closed   atomic.Bool
	// resp is the answer this body belongs to.
	resp http.Response
}

// errBodyClosed is what Read returns after Close, as net/http's body does.
var errBodyClosed = errors.New("http: read on closed response body")

func (b *body) Read(p []byte) (int, error) {
	if b.closed.Load() {
		return 0, errBodyClosed
	}
	if b.done.Load() {
		return 0, io.EOF
	}
	n, err := b.src.Read(p)
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		b.release(true)
	default:
		b.release(false)
		err = contextError(b.ctx, b.deadline, err)
	}
	return n, err
}

func (b *body) Close() error {
	b.closed.Store(true)
	b.release(false)
	return nil
}

// release ends the exchange once: a body read to its end on a connection
// that stays open, with nothing read past it, goes back to the pool (where
// conn checks it again before reuse); anything else closes it.
func (b *body) release(eof bool) {
	if !b.done.CompareAndSwap(false, true) {
		return
	}
	// stop is false when the context ended first: its deadline is set on
	// the connection, which is no longer fit for reuse.
	if !b.stop() || !eof || !b.reuse || b.c.br.Buffered() > 0 {
		b.c.close()
		return
	}
	b.c.pool.put(b.c)
}

// replayable reports whether req may be sent again after a connection
// broke under it: an idempotent method, or an idempotency key, with a body
// that can be produced again.
func replayable(req *http.Request) bool {
	if hasBody(req) && req.GetBody == nil {
		return false
	}
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace, http.MethodPut, http.MethodDelete:
		return true
	}
	_, key := req.Header["Idempotency-Key"]
	_, xkey := req.Header["X-Idempotency-Key"]
	return key || xkey
}

// contextError is ctx's error when the exchange failed because ctx ended:
// the connection's deadline can fire a moment before ctx's own timer.
func contextError(ctx context.Context, deadline time.Time, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return cerr
	}
	if isDeadline(err) && !deadline.IsZero() && !time.Now().Before(deadline) {
		return fmt.Errorf("%w: %w", context.DeadlineExceeded, err)
	}
	return err
}

func isDeadline(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// isNetError says err is or wraps a net.Error. It is a function of its own
// so that the target errors.As needs is allocated only for an error: a
// variable declared in roundTrip escaped on every exchange.
func isNetError(err error) bool {
	var ne net.Error
	return errors.As(err, &ne)
}
