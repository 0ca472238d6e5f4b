package h1server

import (
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTimeoutsCloseConnections(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		opts Options
		send string
		want *exchange // an answer before the close, if any
	}{
		{desc: "ReadHeaderTimeout ends half a head", opts: Options{ReadHeaderTimeout: 100 * time.Millisecond},
			send: "GET /hello HTTP/1.1\r\nHo"},
		{desc: "ReadHeaderTimeout ends a silent new connection", opts: Options{ReadHeaderTimeout: 100 * time.Millisecond}},
		{desc: "IdleTimeout ends a silent kept-alive connection", opts: Options{IdleTimeout: 100 * time.Millisecond},
			send: getHello, want: &exchange{status: 200, body: "hello"}},
		{desc: "ReadTimeout bounds the idle wait when IdleTimeout is unset", opts: Options{ReadTimeout: 100 * time.Millisecond},
			send: getHello, want: &exchange{status: 200, body: "hello"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			ts := startServer(t, routes(), tt.opts)
			c := dial(t, ts.addr)
			if tt.send != "" {
				c.send(tt.send)
			}
			if tt.want != nil {
				c.expect(*tt.want)
			}
			if tt.send != "" && tt.want == nil {
				// a head cut by the deadline reads as a malformed one: net/http
				// answers it 400 too, then closes
				c.expect(exchange{status: 400, body: "400 Bad Request"})
			}
			assert.True(t, c.closed())
		})
	}
}

// A new connection's first head is bounded from the accept, as net/http
// bounds it, not from its first byte: a client that waits, then sends its
// head slowly, is cut off once ReadHeaderTimeout has passed in all, though
// neither wait alone reaches it.
func TestReadHeaderTimeoutCountsFromTheAccept(t *testing.T) {
	t.Parallel()
	const timeout = 400 * time.Millisecond
	ts := startServer(t, routes(), Options{ReadHeaderTimeout: timeout})
	c := dial(t, ts.addr)
	pause := timeout * 5 / 8 // two of them pass the timeout, one does not
	time.Sleep(pause)
	_, err := io.WriteString(c.nc, "GET /hello HTTP/1.1\r\n")
	if err == nil {
		time.Sleep(pause)
		_, _ = io.WriteString(c.nc, "Host: x\r\n\r\n")
	}
	// cut off: a 400 for the head cut short, or nothing, then the close
	resp, err := http.ReadResponse(c.br, nil)
	if err == nil {
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "the head was served after %s", 2*pause)
	}
	assert.True(t, c.closed())
}

func TestReadTimeoutEndsSlowBody(t *testing.T) {
	t.Parallel()
	readErr := make(chan error, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		readErr <- err
	}), Options{ReadTimeout: 100 * time.Millisecond})
	c := dial(t, ts.addr)
	c.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
	err := <-readErr
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout())
	// the connection is not reusable: the rest of the body never came
	c.expect(exchange{status: 200, header: map[string]string{"Connection": "close"}})
	assert.True(t, c.closed())
}

func TestWriteTimeout(t *testing.T) {
	t.Parallel()
	writeErr := make(chan error, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 64<<10)
		var err error
		// the client never reads: the buffers fill and the deadline ends the write
		for i := 0; i < 1024 && err == nil; i++ {
			_, err = w.Write(chunk)
		}
		writeErr <- err
	}), Options{WriteTimeout: 200 * time.Millisecond})
	c := dial(t, ts.addr)
	c.send(getHello)
	err := <-writeErr
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout())
}

// The watcher cancels a long request whose client hung up, also when the
// hang-up comes after a deadline set for another part of the exchange has
// passed (which must not end the watcher's read early).
func TestWatcherCancelsOnHangUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		opts Options
		past time.Duration // a deadline the hang-up must come after; zero for none
	}{
		{desc: "no timeouts", opts: Options{WatchAfter: 10 * time.Millisecond}},
		{desc: "hang-up after the head's timeout", past: 50 * time.Millisecond,
			opts: Options{WatchAfter: 10 * time.Millisecond, ReadHeaderTimeout: 50 * time.Millisecond}},
		{desc: "hang-up after the idle timeout", past: 50 * time.Millisecond,
			opts: Options{WatchAfter: 10 * time.Millisecond, IdleTimeout: 50 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			testWatcherCancels(t, tt.opts, tt.past)
		})
	}
}

func testWatcherCancels(t *testing.T, opts Options, past time.Duration) {
	started, ended := make(chan time.Time, 1), make(chan error, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/wait" {
			return
		}
		started <- time.Now()
		select {
		case <-r.Context().Done():
			ended <- r.Context().Err()
		case <-time.After(5 * time.Second):
			ended <- nil
		}
	}), opts)
	c := dial(t, ts.addr)
	c.send(getHello) // a first request, so an idle wait comes before the watched one
	c.expect(exchange{status: 200})
	c.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
	at := <-started
	// the deadline in question passes (twice over, for its slack): time
	// itself is what this case is about
	time.Sleep(time.Until(at.Add(2 * past)))
	require.NoError(t, c.nc.Close())
	assert.Error(t, <-ended, "the request should be cancelled")
}

// watchSignal is an Options.watched that closes its channel when the
// watcher first takes a pipelined request's byte.
func watchSignal() (func(bool), <-chan struct{}) {
	ch := make(chan struct{})
	var once sync.Once
	return func(pipelined bool) {
		if pipelined {
			once.Do(func() { close(ch) })
		}
	}, ch
}

// A pipelined request that arrives while a watched handler runs is not a
// hang-up, and the byte the watcher read belongs to it.
func TestWatcherKeepsPipelinedRequest(t *testing.T) {
	t.Parallel()
	watched, took := watchSignal()
	started := make(chan struct{})
	cancelled := make(chan bool, 2)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/one" {
			close(started)
			<-took // runs until the watcher has read the next request's first byte
		}
		cancelled <- r.Context().Err() != nil
		_, _ = io.WriteString(w, r.URL.Path)
	}), Options{WatchAfter: 10 * time.Millisecond, watched: watched})
	c := dial(t, ts.addr)
	c.send("GET /one HTTP/1.1\r\nHost: x\r\n\r\n")
	<-started // the server has read /one, and nothing after it
	c.send("GET /two HTTP/1.1\r\nHost: x\r\n\r\n")
	c.expect(exchange{status: 200, body: "/one"})
	c.expect(exchange{status: 200, body: "/two"})
	assert.False(t, <-cancelled)
	assert.False(t, <-cancelled)
	c.send("GET /three HTTP/1.1\r\nHost: x\r\n\r\n")
	c.expect(exchange{status: 200, body: "/three"})
}

// A pipelined request whose rest comes only after the watcher took its
// first byte.
func TestWatcherKeepsSplitRequest(t *testing.T) {
	t.Parallel()
	watched, took := watchSignal()
	started := make(chan struct{})
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(started)
			<-took
		}
		_, _ = io.WriteString(w, r.URL.Path)
	}), Options{WatchAfter: 10 * time.Millisecond, watched: watched})
	c := dial(t, ts.addr)
	c.send("GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
	<-started
	c.send("G")
	<-took
	c.send("ET /fast HTTP/1.1\r\nHost: x\r\n\r\n")
	c.expect(exchange{status: 200, body: "/slow"})
	c.expect(exchange{status: 200, body: "/fast"})
}

func TestWatcherLeavesFastRequests(t *testing.T) {
	t.Parallel()
	cancelled := make(chan bool, 50)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cancelled <- r.Context().Err() != nil
		_, _ = io.WriteString(w, "ok")
	}), Options{WatchAfter: 10 * time.Millisecond})
	c := dial(t, ts.addr)
	for range 50 {
		c.send(getHello)
		c.expect(exchange{status: 200, body: "ok"})
		assert.False(t, <-cancelled)
	}
}

// A write deadline a handler sets ends with its request: with no
// WriteTimeout, the next answer on the connection is written without one.
func TestHandlerWriteDeadlineEndsWithItsRequest(t *testing.T) {
	t.Parallel()
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "2")
		_, _ = io.WriteString(w, "ok") // the declared length: sent at once
		if r.URL.Path == "/past" {
			// long past: a write under it fails at once
			_ = http.NewResponseController(w).SetWriteDeadline(time.Unix(1, 0))
		}
	}), Options{})
	c := dial(t, ts.addr)
	c.send("GET /past HTTP/1.1\r\nHost: x\r\n\r\n")
	c.expect(exchange{status: 200, body: "ok"})
	c.send(getHello)
	c.expect(exchange{status: 200, body: "ok"})
}

// deadlineCounter counts the deadlines set on the connections it accepts.
type deadlineCounter struct {
	net.Listener
	sets atomic.Int64
}

func (l *deadlineCounter) Accept() (net.Conn, error) {
	nc, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &countedConn{Conn: nc, sets: &l.sets}, nil
}

type countedConn struct {
	net.Conn
	sets *atomic.Int64
}

func (c *countedConn) SetReadDeadline(t time.Time) error {
	c.sets.Add(1)
	return c.Conn.SetReadDeadline(t)
}

func (c *countedConn) SetWriteDeadline(t time.Time) error {
	c.sets.Add(1)
	return c.Conn.SetWriteDeadline(t)
}

func TestKeptAliveConnectionSetsDeadlinesSeldom(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	counted := &deadlineCounter{Listener: ln}
	srv := New(routes(), Options{ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute}, nil)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(counted) }()
	t.Cleanup(func() {
		_ = srv.Close()
		<-served
	})
	c := dial(t, ln.Addr().String())
	const requests = 200
	for range requests {
		c.send(getHello)
		c.expect(exchange{status: 200, body: "hello"})
	}
	// three per request without the slack; with it, the first request's
	// and a few more as the idle deadline's window moves on
	assert.Less(t, counted.sets.Load(), int64(10))
}
