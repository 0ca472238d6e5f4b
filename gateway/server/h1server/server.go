// Package h1server serves HTTP/1.1 (and 1.0) on plain connections, running every
// request on its connection's goroutine.
//
// It is the API listener's server when the gateway speaks plain HTTP (behind
// a TLS-terminating ingress, or on loopback). Compared with net/http's
// server it spends less per request: no goroutine per request to watch the
// connection (a per-connection timer starts one only for a request still
// running after Options.WatchAfter), an answer of up to 64 KiB leaves in a
// single write (head and body together, Content-Length computed when the
// handler set none), and the response writer and the request reader are
// reused from one request to the next on a connection. A handler reaches
// them through handles of its own request, which fail once it has returned
// (ErrHandlerDone, http.ErrBodyReadAfterClose); a call through them under
// way as it returns ends before the return does: what a handler, or a
// goroutine it started, keeps cannot write into, or read from, the next
// request on the connection. The header map is new for each request.
//
// It parses request heads itself, into one string that the header's keys
// and values slice, accepting and framing exactly what http.ReadRequest
// does (stricter only on folded field lines and a space before a field's
// colon, which no conforming client sends).
//
// What it keeps from net/http: request acceptance (the same Host, Expect
// and header checks as net/http's server, and its body framing), the
// header size limit (431), 100-continue, pipelining, draining of unread
// request bodies (up to 256 KiB, then the connection closes), chunked
// answers when a streamed answer has no Content-Length, HEAD, the four
// timeouts, Flush and read/write deadlines through http.ResponseController,
// recovery from a handler's panic, and a graceful Shutdown that lets
// in-flight requests finish. Stricter than net/http: a request with both Content-Length and
// Transfer-Encoding closes its connection after the answer (RFC 9112 6.1).
// What it leaves out: TLS and HTTP/2 (the gateway serves those with
// net/http), Hijack, full duplex and trailers on answers (a chunked request's
// trailer is read into Request.Trailer).
package h1server

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Options are the server's limits. Zero durations mean no limit, as in
// net/http, except WatchAfter.
type Options struct {
	// ReadHeaderTimeout bounds reading a request's head, from its first
	// byte on a kept-alive connection and from the accept for a new
	// connection's first request (as net/http counts it); zero falls back
	// to ReadTimeout.
	ReadHeaderTimeout time.Duration
	// ReadTimeout bounds reading a whole request, body included, from
	// where ReadHeaderTimeout counts. A handler may move it with
	// http.ResponseController.
	ReadTimeout time.Duration
	// WriteTimeout bounds writing the answer, from the end of the request's
	// head.
	WriteTimeout time.Duration
	// IdleTimeout bounds the wait for the next request on a kept-alive
	// connection; zero falls back to ReadTimeout.
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds a request's head (request line and fields);
	// zero means http.DefaultMaxHeaderBytes. Larger heads are answered 431.
	MaxHeaderBytes int
	// MaxConns caps the connections open at once; at the cap the server
	// accepts nothing more until one closes, so new connections wait in the
	// kernel's listen backlog. Zero means no cap. It counts connections
	// itself rather than wrapping them (netutil.LimitListener), so that
	// answers keep going out in one writev.
	MaxConns int
	// TLSConfig, when not nil, makes every accepted connection a TLS
	// server connection: its handshake is done on the connection's
	// goroutine, bounded from the accept by the least of the timeouts above,
	// and its requests carry its state (Request.TLS).
	TLSConfig *tls.Config
	// TLSNextProto takes over a TLS connection whose handshake negotiated
	// one of its protocols (ALPN), as http.Server.TLSNextProto does: the
	// gateway hands "h2" connections to net/http's server. The function
	// owns the connection, which MaxConns and Shutdown no longer count.
	// Connections that negotiated http/1.1, or nothing, are served here.
	TLSNextProto map[string]func(*tls.Conn)
	// WatchAfter is how long a request without a body may run before its
	// connection is watched for a client that hung up (which cancels the
	// request's context). Zero means 50ms.
	WatchAfter time.Duration

	// watched, when set, learns of every read of the watcher as it ends:
	// whether it took the first byte of a pipelined request (tests order
	// their steps by it).
	watched func(pipelined bool)
}

// Server serves an http.Handler on the listeners given to Serve. Create it
// with New; it must not be copied.
type Server struct {
	handler http.Handler
	opts    Options
	logger  *slog.Logger

	closing atomic.Bool
	// slots holds a token per open connection when MaxConns caps them;
	// stopped is closed when the server stops listening, releasing an
	// accept loop that waits for a slot.
	slots    chan struct{}
	stopped  chan struct{}
	stopOnce sync.Once
	mu       sync.Mutex
	lns      map[net.Listener]struct{}
	conns    map[*conn]struct{}
	bodies   sync.Pool // *[]byte answer buffers
	readers  sync.Pool // *bufio.Reader of connections
	// chunkTail is "\r\n0\r\n\r\n": the end of a chunk, then the last
	// chunk; read-only, shared by every connection's writes
	chunkTail []byte
}

// New returns a server for h. logger receives panics and accept errors.
func New(h http.Handler, opts Options, logger *slog.Logger) *Server {
	if opts.ReadHeaderTimeout == 0 {
		opts.ReadHeaderTimeout = opts.ReadTimeout
	}
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = opts.ReadTimeout
	}
	if opts.MaxHeaderBytes <= 0 {
		opts.MaxHeaderBytes = http.DefaultMaxHeaderBytes
	}
	if opts.WatchAfter <= 0 {
		opts.WatchAfter = 50 * time.Millisecond
	}
	s := &Server{handler: h, opts: opts, logger: logger, lns: map[net.Listener]struct{}{}, conns: map[*conn]struct{}{},
		chunkTail: []byte("\r\n0\r\n\r\n"), stopped: make(chan struct{})}
	if opts.MaxConns > 0 {
		s.slots = make(chan struct{}, opts.MaxConns)
	}
	return s
}

// acquire takes a connection slot, waiting while every slot is taken; false
// when the server stopped listening meanwhile.
func (s *Server) acquire() bool {
	if s.slots == nil {
		return true
	}
	select {
	case s.slots <- struct{}{}:
		return true
	case <-s.stopped:
		return false
	}
}

// release gives back the slot of a connection that closed or was never
// accepted.
func (s *Server) release() {
	if s.slots != nil {
		<-s.slots
	}
}

// Serve accepts connections on ln until Shutdown or Close, then returns
// http.ErrServerClosed; any other accept error that is not transient is
// returned as is. Serve closes ln.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		ln.Close()
		return http.ErrServerClosed
	}
	s.lns[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.lns, ln)
		s.mu.Unlock()
		ln.Close()
	}()
	var backoff time.Duration
	for {
		if !s.acquire() {
			return http.ErrServerClosed
		}
		nc, err := ln.Accept()
		if err != nil {
			s.release()
			if s.closing.Load() {
				return http.ErrServerClosed
			}
			if !transient(err) {
				return err
			}
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.logger.Warn("accepting a connection failed; retrying", "error", err, "retry_in", backoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		if s.opts.TLSConfig != nil {
			nc = tls.Server(nc, s.opts.TLSConfig)
		}
		c := newConn(s, nc)
		if !s.track(c) {
			nc.Close()
			s.release()
			return http.ErrServerClosed
		}
		go c.serve()
	}
}

// transient reports an accept error worth retrying: a timeout, or the
// process or system out of descriptors, buffers or memory, or a connection
// reset before it was accepted.
func transient(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	for _, e := range [...]error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.ECONNABORTED, syscall.ECONNRESET} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

func (s *Server) track(c *conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing.Load() {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) untrack(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
	s.release()
}

// newConnGrace is how long Shutdown lets a connection that has sent nothing
// yet keep its chance to send its first request (net/http's figure).
const newConnGrace = 5 * time.Second

// Shutdown stops the listeners, closes idle connections, lets every
// request in flight finish (its answer says Connection: close), and returns
// nil once no connection is left, or ctx's error if ctx ends first (the
// remaining connections stay open; Close ends them). A connection accepted
// but still silent is given 5 seconds to send its request.
func (s *Server) Shutdown(ctx context.Context) error {
	s.stopListening()
	wait := time.Millisecond
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		if s.closeIdle() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			wait = min(2*wait, 100*time.Millisecond)
			timer.Reset(wait)
		}
	}
}

// Close stops the listeners and closes every connection at once, in flight
// or not.
func (s *Server) Close() error {
	err := s.stopListening()
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.state.Store(stateClosed)
		c.rwc.Close()
	}
	return err
}

func (s *Server) stopListening() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing.Store(true)
	s.stopOnce.Do(func() { close(s.stopped) })
	var err error
	for ln := range s.lns {
		if cerr := ln.Close(); cerr != nil && !errors.Is(cerr, net.ErrClosed) {
			err = errors.Join(err, cerr)
		}
	}
	return err
}

// closeIdle closes the connections waiting for a request and reports
// whether none is left.
func (s *Server) closeIdle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		switch {
		case c.state.CompareAndSwap(stateIdle, stateClosed):
		case time.Since(c.accepted) > newConnGrace && c.state.CompareAndSwap(stateNew, stateClosed):
		default:
			continue
		}
		c.rwc.Close()
	}
	return len(s.conns) == 0
}

// bodyLimit is the most of an answer held back to leave in one write; a
// longer answer is streamed.
const bodyLimit = 64 << 10

func (s *Server) getBody() *[]byte {
	if bp, ok := s.bodies.Get().(*[]byte); ok {
		return bp
	}
	b := make([]byte, 0, 16<<10)
	return &b
}

func (s *Server) putBody(bp *[]byte) {
	if cap(*bp) <= bodyLimit {
		*bp = (*bp)[:0]
		s.bodies.Put(bp)
	}
}
