package h1server

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// blocking serves /block until release is closed and everything else at
// once; entered says /block started.
func blocking() (h http.Handler, entered chan struct{}, release chan struct{}) {
	entered, release = make(chan struct{}, 4), make(chan struct{})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/block" {
			entered <- struct{}{}
			<-release
		}
		_, _ = io.WriteString(w, "done")
	}), entered, release
}

func TestShutdownLetsInFlightFinish(t *testing.T) {
	t.Parallel()
	h, entered, release := blocking()
	ts := startServer(t, h, Options{})
	busy, idle := dial(t, ts.addr), dial(t, ts.addr)
	idle.send(getHello)
	idle.expect(exchange{status: 200, body: "done"})
	busy.send("GET /block HTTP/1.1\r\nHost: x\r\n\r\n")
	<-entered

	shut := make(chan error, 1)
	go func() { shut <- ts.srv.Shutdown(context.Background()) }()
	assert.True(t, idle.closed(), "an idle connection is closed at once")
	assert.ErrorIs(t, ts.serveErr(), http.ErrServerClosed)
	_, err := net.DialTimeout("tcp", ts.addr, time.Second)
	assert.Error(t, err, "the listener is closed")
	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned %v with a request in flight", err)
	case <-time.After(50 * time.Millisecond):
	}

	close(release)
	busy.expect(exchange{status: 200, body: "done", header: map[string]string{"Connection": "close"}})
	assert.True(t, busy.closed())
	assert.NoError(t, <-shut)
}

func TestShutdownGivesUpWithContext(t *testing.T) {
	t.Parallel()
	h, entered, release := blocking()
	ts := startServer(t, h, Options{})
	c := dial(t, ts.addr)
	c.send("GET /block HTTP/1.1\r\nHost: x\r\n\r\n")
	<-entered
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, ts.srv.Shutdown(ctx), context.DeadlineExceeded)

	require.NoError(t, ts.srv.Close())
	assert.True(t, c.closed(), "Close ends connections in flight")
	close(release)
}

func TestServeAfterShutdown(t *testing.T) {
	t.Parallel()
	srv := New(routes(), Options{}, nil)
	require.NoError(t, srv.Shutdown(context.Background()))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	assert.ErrorIs(t, srv.Serve(ln), http.ErrServerClosed)
	_, err = ln.Accept()
	assert.ErrorIs(t, err, net.ErrClosed, "Serve closes its listener")
}

func TestCloseEndsEverything(t *testing.T) {
	t.Parallel()
	h, entered, release := blocking()
	ts := startServer(t, h, Options{})
	busy, idle := dial(t, ts.addr), dial(t, ts.addr)
	idle.send(getHello)
	idle.expect(exchange{status: 200, body: "done"})
	busy.send("GET /block HTTP/1.1\r\nHost: x\r\n\r\n")
	<-entered
	require.NoError(t, ts.srv.Close())
	assert.ErrorIs(t, ts.serveErr(), http.ErrServerClosed)
	assert.True(t, idle.closed())
	assert.True(t, busy.closed())
	close(release)
}

// A connection that has sent nothing is given its grace; Shutdown does not
// close it under a client about to send.
func TestShutdownKeepsNewConnection(t *testing.T) {
	t.Parallel()
	ts := startServer(t, routes(), Options{})
	c := dial(t, ts.addr)
	require.Eventually(t, func() bool { return ts.conns() == 1 }, 5*time.Second, time.Millisecond, "accepted")
	shut := make(chan error, 1)
	go func() { shut <- ts.srv.Shutdown(context.Background()) }()
	require.Eventually(t, ts.srv.closing.Load, 5*time.Second, time.Millisecond, "shutting down")
	c.send(getHello)
	c.expect(exchange{status: 200, body: "hello", header: map[string]string{"Connection": "close"}})
	assert.NoError(t, <-shut)
}
