// Package h1client is an HTTP/1.1 client transport that runs each exchange on the
// caller's goroutine. net/http's Transport hands every request to two
// goroutines per connection (one writing, one reading) and back through
// channels; on a gateway that answers in tens of microseconds those
// hand-offs cost about a fifth of its CPU. Here a call takes an idle
// connection, writes the request, reads the answer's headers and returns;
// reading the body to its end puts the connection back, unless anything
// was read past it. With no reader goroutine to notice bytes a backend
// writes to an idle connection (a second answer, a late 408), every idle
// connection is peeked at before reuse and dropped if it holds any: read
// by the next request, they would be its answer, and it may be another
// caller's.
//
// Requests are written here (refusing, as net/http's Transport does,
// control characters in header values and names or methods that are not
// tokens). Answers are parsed here too, into one string per head, with the
// framing (Content-Length, chunked, close-delimited) net/http's client
// decides; a differential fuzz test holds the two parsers together. Heads
// are bounded at MaxHeadBytes (1 MiB). The transport
// takes only what it can run without a second goroutine:
// plain-http requests with no body or a replayable body of known length, no
// proxy, no Expect or Upgrade. Everything else (https with HTTP/2, proxies,
// streaming uploads that may be answered before they end) is passed to
// Options.Fallback.
package h1client

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Defaults of zero Options fields.
const (
	DefaultMaxIdlePerHost = 64
	DefaultIdleTimeout    = 90 * time.Second
	// DefaultMaxBody is the largest request body sent directly; larger
	// bodies go to the fallback, which can read an early answer while it
	// still writes.
	DefaultMaxBody = 1 << 20
)

// bufferSize lets one read take in the headers and a typical JSON answer
// together.
const bufferSize = 32 << 10

// Options configure a Transport. Fallback is required.
type Options struct {
	// Dial opens connections; nil uses a net.Dialer with a 30s timeout. A
	// connection that does not implement syscall.Conn cannot be checked
	// for stray bytes while idle, so it is closed after one exchange.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Proxy says whether a request goes through a proxy (as
	// http.Transport.Proxy does); a request with a proxy goes to Fallback.
	// Nil means no proxy.
	Proxy func(*http.Request) (*url.URL, error)
	// Fallback carries every request the transport does not take.
	Fallback http.RoundTripper
	// MaxIdlePerHost caps kept-alive connections per host; more are closed.
	MaxIdlePerHost int
	// IdleTimeout closes a kept-alive connection unused for that long.
	IdleTimeout time.Duration
	// ResponseHeaderTimeout bounds the wait for the answer's headers after
	// the request is written; 0 means only the request's context bounds it.
	ResponseHeaderTimeout time.Duration
	// MaxBody is the largest request body sent directly; 0 means
	// DefaultMaxBody.
	MaxBody int64
}

// Transport is an http.RoundTripper; see the package documentation for the
// requests it runs itself. Safe for concurrent use.
type Transport struct {
	opts Options
	pool *pool
}

// New returns a Transport; zero fields of o take their defaults.
func New(o Options) *Transport {
	if o.Dial == nil {
		o.Dial = (&net.Dialer{Timeout: 30 * time.Second}).DialContext
	}
	if o.MaxIdlePerHost <= 0 {
		o.MaxIdlePerHost = DefaultMaxIdlePerHost
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxBody <= 0 {
		o.MaxBody = DefaultMaxBody
	}
	return &Transport{opts: o, pool: newPool(o.MaxIdlePerHost, o.IdleTimeout)}
}

// CloseIdleConnections closes the kept-alive connections of the transport
// and of its fallback. Exchanges in flight finish normally.
func (t *Transport) CloseIdleConnections() {
	t.pool.closeIdle()
	if c, ok := t.opts.Fallback.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// RoundTrip implements http.RoundTripper. A kept-alive connection the
// server closed while it was idle is found before reuse, or, when the close
// crosses the request, when nothing comes back: an idempotent request is
// then sent once more on a new connection. The deadline of the
// request's context, if any, bounds the exchange and the reading of the
// answer's body.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !t.takes(req) {
		return t.opts.Fallback.RoundTrip(req)
	}
	deadline, _ := req.Context().Deadline()
	return t.exchange(req, deadline)
}

// RoundTripBy is RoundTrip with the exchange and the reading of the
// answer's body bounded by deadline (zero: no bound beyond the context's),
// or by the deadline of the request's context when that is earlier. It
// spares the caller a timer context of its own: a request run here is
// bounded by socket deadlines, so a call costs no timer, and only the end
// of the request's context (its cancellation) interrupts it early. A
// request passed to Options.Fallback gets a context with the deadline,
// released when its answer's body ends (EOF, a read error or Close) or at
// once when it has none. Past the deadline a read fails with an error for
// which errors.Is(err, context.DeadlineExceeded) holds.
func (t *Transport) RoundTripBy(req *http.Request, deadline time.Time) (*http.Response, error) {
	if d, ok := req.Context().Deadline(); ok && (deadline.IsZero() || d.Before(deadline)) {
		deadline = d
	}
	if !t.takes(req) {
		return t.fallbackBy(req, deadline)
	}
	return t.exchange(req, deadline)
}

// exchange runs req here, bounded by deadline (zero: unbounded).
func (t *Transport) exchange(req *http.Request, deadline time.Time) (*http.Response, error) {
	addr := hostPort(req.URL)
	for attempt := 0; ; attempt++ {
		c, reused, err := t.conn(req, addr, deadline)
		if err != nil {
			closeBody(req)
			return nil, err
		}
		resp, stale, err := c.roundTrip(req, deadline, t.opts.ResponseHeaderTimeout)
		if err == nil {
			return resp, nil
		}
		if !stale || !reused || attempt > 0 || req.Context().Err() != nil || passed(deadline) {
			return nil, err
		}
		if req, err = rewind(req); err != nil {
			return nil, err
		}
	}
}

// fallbackBy hands req to the fallback under a context bounded by
// deadline, which the fallback enforces itself.
func (t *Transport) fallbackBy(req *http.Request, deadline time.Time) (*http.Response, error) {
	if deadline.IsZero() {
		return t.opts.Fallback.RoundTrip(req)
	}
	ctx, cancel := context.WithDeadline(req.Context(), deadline)
	resp, err := t.opts.Fallback.RoundTrip(req.WithContext(ctx))
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.Body == nil || resp.Body == http.NoBody {
		cancel()
		return resp, nil
	}
	resp.Body = &releasingBody{ReadCloser: resp.Body, release: cancel}
	return resp, nil
}

// releasingBody releases the context of a fallback exchange when the
// answer's body ends, as the caller's own timer context would be.
type releasingBody struct {
	io.ReadCloser
	release context.CancelFunc
}

func (b *releasingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.release()
	}
	return n, err
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}

// passed reports whether deadline is set and is not in the future.
func passed(deadline time.Time) bool {
	return !deadline.IsZero() && !time.Now().Before(deadline)
}

// takes reports whether req runs here rather than on the fallback.
func (t *Transport) takes(req *http.Request) bool {
	if req.URL == nil || req.URL.Scheme != "http" || req.URL.Host == "" || req.Method == http.MethodConnect {
		return false
	}
	if hasBody(req) && (req.GetBody == nil || req.ContentLength <= 0 || req.ContentLength > t.opts.MaxBody) {
		return false
	}
	if len(req.TransferEncoding) > 0 || req.Header.Get("Expect") != "" || req.Header.Get("Upgrade") != "" {
		return false
	}
	if t.opts.Proxy != nil {
		if p, err := t.opts.Proxy(req); err != nil || p != nil {
			return false
		}
	}
	return true
}

// conn returns an idle connection to addr or dials one. Every idle
// connection is checked with a non-blocking peek before reuse (one system
// call): one the server closed, or one holding bytes nobody asked for (a
// second answer, a late 408, the rest of a body the framing did not
// expect), is dropped before anything is written to it. Without the check
// those bytes would be read as the answer to the request sent next, which
// may be another caller's. net/http's Transport drops such a connection
// too, from its reader goroutine.
func (t *Transport) conn(req *http.Request, addr string, deadline time.Time) (c *conn, reused bool, err error) {
	for c = t.pool.get(addr); c != nil; c = t.pool.get(addr) {
		if c.idle.alive() {
			return c, true, nil
		}
		c.close()
	}
	nc, err := t.dial(req.Context(), addr, deadline)
	if err != nil {
		return nil, false, err
	}
	return newConn(nc, addr, t.pool), false, nil
}

// dial opens a connection within deadline. Only a context without that
// deadline already gets a timer of its own: dialing is the rare path of a
// pooled transport.
func (t *Transport) dial(ctx context.Context, addr string, deadline time.Time) (net.Conn, error) {
	if d, ok := ctx.Deadline(); !deadline.IsZero() && (!ok || deadline.Before(d)) {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	return t.opts.Dial(ctx, "tcp", addr)
}

// rewind returns req with a fresh body for a second send.
func rewind(req *http.Request) (*http.Request, error) {
	if !hasBody(req) {
		return req, nil
	}
	b, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	out := *req
	out.Body = b
	return &out, nil
}

func hasBody(req *http.Request) bool { return req.Body != nil && req.Body != http.NoBody }

func closeBody(req *http.Request) {
	if hasBody(req) {
		_ = req.Body.Close()
	}
}

// hostPort is u's host with the port made explicit, the pool's key.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	host := u.Hostname()
	if strings.Contains(host, ":") {
		return "[" + host + "]:80"
	}
	return host + ":80"
}
