package h1client

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plainConn hides a connection's RawConn: the transport writes and reads
// it plainly (and, unable to check it while idle, does not reuse it).
type plainConn struct{ net.Conn }

// threadReads is the count of read-like system calls of the calling
// thread; the caller has locked its goroutine to it, so the count is the
// goroutine's own, whatever other tests and the server do meanwhile.
func threadReads(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/thread-self/io")
	if err != nil {
		t.Skip("no /proc/thread-self/io:", err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "syscr: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Skip("no syscr in /proc/thread-self/io")
	return 0
}

// TestRequestSentByTheAnswersRead counts the reads of exchanges sent plainly
// and sent by the answer's first read: a held exchange reads once, the
// plain ones also try a read before the answer can be there. An exchange runs on its
// caller's goroutine, which is locked to its thread here, so the thread's
// count is the exchanges' alone: the server's reads run on other threads.
func TestRequestSentByTheAnswersRead(t *testing.T) {
	t.Parallel()
	srv, _ := countingServer(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	const exchanges = 200
	reads := func(plain bool) int64 {
		dialer := &net.Dialer{}
		tr, _ := newTransport(t, Options{Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := dialer.DialContext(ctx, network, addr)
			if plain && err == nil {
				nc = plainConn{nc}
			}
			return nc, err
		}})
		get(t, tr, context.Background(), http.MethodGet, srv.URL, nil) // connected
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		before := threadReads(t)
		for range exchanges {
			status, body := get(t, tr, context.Background(), http.MethodGet, srv.URL, nil)
			require.Equal(t, 200, status)
			require.Equal(t, "ok", body)
		}
		return threadReads(t) - before
	}
	plain, held := reads(true), reads(false)
	t.Logf("%d exchanges: %d reads sent plainly, %d held", exchanges, plain, held)
	// held: one read per exchange (and the two of /proc), a few more for
	// a wake-up that found nothing; plain: a read that finds the socket
	// empty too, unless the answer beat it there
	assert.LessOrEqual(t, held, int64(exchanges+exchanges/20+2), "held exchanges read once")
	assert.Greater(t, plain, held, "plain %d reads, held %d", plain, held)
}

// smallBuffers shrinks a socket's send and receive buffers to the least
// the kernel allows.
func smallBuffers(_, _ string, c syscall.RawConn) error {
	var serr error
	err := c.Control(func(fd uintptr) {
		serr = errors.Join(syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, 4096),
			syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096))
	})
	return errors.Join(err, serr)
}

// TestHeldRequestLargerThanTheSendBuffer sends a head thousands of times
// larger than the sockets' buffers: the raw write stops short (the send
// buffer is full before the server can read) and the rest goes the plain
// way.
func TestHeldRequestLargerThanTheSendBuffer(t *testing.T) {
	t.Parallel()
	ln, err := (&net.ListenConfig{Control: smallBuffers}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		br := bufio.NewReader(nc)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			if line == "\r\n" {
				break
			}
		}
		_, _ = io.WriteString(nc, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	}()
	dialer := &net.Dialer{Control: smallBuffers}
	tr, _ := newTransport(t, Options{Dial: dialer.DialContext})
	req, err := http.NewRequest(http.MethodGet, "http://"+ln.Addr().String()+"/", nil)
	require.NoError(t, err)
	req.Header.Set("X-Big", strings.Repeat("a", 16<<20))
	resp, err := tr.RoundTrip(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, "ok", string(b))
}

// TestSendThenReadAllocatesNothing runs held exchanges over a loopback
// connection to an echoing peer: the callback and its state live in the
// connection, so an exchange allocates nothing.
func TestSendThenReadAllocatesNothing(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		peer, err := ln.Accept()
		if err != nil {
			return
		}
		defer peer.Close()
		buf := make([]byte, 64) // an echo that allocates nothing per exchange
		for {
			n, err := peer.Read(buf)
			if err != nil {
				return
			}
			if _, err := peer.Write(buf[:n]); err != nil {
				return
			}
		}
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	c := newConn(nc, ln.Addr().String(), nil)
	t.Cleanup(c.close)
	require.NotNil(t, c.raw)

	req, in := []byte("GET / HTTP/1.1\r\n\r\n"), make([]byte, 64)
	exchange := func() {
		c.held = append(c.held, req...)
		got := 0
		for got < len(req) {
			n, err := connReader{c}.Read(in[got:])
			if err != nil {
				t.Fatal(err)
			}
			got += n
		}
		if string(in[:got]) != string(req) { // no conversions to any: they would allocate
			t.Fatalf("echoed %q", in[:got])
		}
	}
	exchange() // the buffers are grown
	assert.Zero(t, testing.AllocsPerRun(200, exchange))
	assert.Nil(t, c.ex.out, "the request's bytes are not kept")
	assert.Nil(t, c.ex.in, "the caller's buffer is not kept")
}
