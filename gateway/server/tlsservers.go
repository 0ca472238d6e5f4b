package server

import (
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"sync"

	"github.com/restgate/gateway/gateway/server/h1server"
)

// tlsServers serves the TLS API listener with the fast engine: h1server
// does each connection's handshake and serves HTTP/1.1 over it (one write
// per answer, no goroutine per request), and hands a connection that
// negotiated HTTP/2 to net/http's server, which serves it as it serves
// every TLS connection with server.http1 std.
type tlsServers struct {
	h1  *h1server.Server
	h2  *http.Server
	h2q *connQueue
}

// newTLSServers serves h on TLS connections with cfg: HTTP/1.1 by an
// h1server of o, HTTP/2 by h2 (net/http's server, whose TLSConfig is a copy
// of cfg).
// addr is the listener's address.
func newTLSServers(h http.Handler, o h1server.Options, cfg *tls.Config, h2 *http.Server, addr net.Addr, logger *slog.Logger) *tlsServers {
	s := &tlsServers{h2: h2, h2q: newConnQueue(addr)}
	o.TLSConfig = cfg
	o.TLSNextProto = map[string]func(*tls.Conn){"h2": func(c *tls.Conn) { s.h2q.deliver(c) }}
	s.h1 = h1server.New(h, o, logger)
	return s
}

// Serve accepts connections on ln until Shutdown, or until accepting
// fails; it closes ln.
func (s *tlsServers) Serve(ln net.Listener) error {
	h2done := make(chan error, 1)
	go func() { h2done <- s.h2.Serve(s.h2q) }()
	err := s.h1.Serve(ln)
	if !errors.Is(err, http.ErrServerClosed) {
		// accepting failed: the HTTP/2 server stops with it
		_ = s.h2q.Close()
		<-h2done
	}
	return err
}

// Shutdown drains both servers: h1server first, so that no connection is
// handed to net/http's after it began to drain (one whose handshake ends
// meanwhile is closed).
func (s *tlsServers) Shutdown(ctx context.Context) error {
	err := s.h1.Shutdown(ctx)
	return errors.Join(err, s.h2.Shutdown(ctx))
}

// connQueue is a net.Listener whose connections are handed to it (deliver)
// rather than accepted from the network.
type connQueue struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newConnQueue(addr net.Addr) *connQueue {
	return &connQueue{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

// deliver waits until the queue's server accepts c, or closes c when the
// queue is closed.
func (q *connQueue) deliver(c net.Conn) {
	select {
	case q.conns <- c:
	case <-q.done:
		_ = c.Close()
	}
}

// Accept returns the next connection delivered, or net.ErrClosed once the
// queue is closed.
func (q *connQueue) Accept() (net.Conn, error) {
	select {
	case c := <-q.conns:
		return c, nil
	case <-q.done:
		return nil, net.ErrClosed
	}
}

// Close makes Accept and deliver return.
func (q *connQueue) Close() error {
	q.once.Do(func() { close(q.done) })
	return nil
}

// Addr is the address of the listener the connections came from.
func (q *connQueue) Addr() net.Addr { return q.addr }
