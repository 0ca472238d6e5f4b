package server

import (
	"net"
	"sync"
)

// fdReserve is the file descriptors kept for everything but the API's
// client connections and their upstream connections: the listeners, the
// log, the sandbox's database, spooled uploads, DNS, the call log's and the
// cluster store's connections.
const fdReserve = 128

// connectionCap is the API listener's connection cap: configured, or less
// when the open-files limit cannot hold that many client connections, each
// with an upstream connection of its own, beside the admin listener's
// admin connections and fdReserve. At least 1. limit 0 (unknown) keeps
// configured.
func connectionCap(configured, admin int, limit uint64) int {
	if limit == 0 {
		return configured
	}
	room := (int64(min(limit, 1<<40)) - int64(admin) - fdReserve) / 2
	return int(max(min(int64(configured), room), 1))
}

// limitListener accepts at most n connections at once: at the cap Accept
// waits until one closes, leaving new connections in the kernel's backlog.
// It is golang.org/x/net/netutil.LimitListener's design, written here
// because that one's connections hide the TCP connection's CloseWrite,
// which net/http's server uses to finish a connection it refuses (431)
// without resetting it before the client read the answer.
type limitListener struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func newLimitListener(ln net.Listener, n int) *limitListener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

// Accept waits for a free slot, then for a connection.
func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitedConn{Conn: c, release: func() { <-l.slots }}, nil
}

// Close stops accepting and releases an Accept waiting for a slot.
func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

// limitedConn gives its slot back when closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// CloseWrite half-closes the connection when the underlying one can.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
