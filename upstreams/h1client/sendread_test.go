package h1client

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plainConn hides a connection's RawConn: the transport writes and reads
// it plainly.
type plainConn struct{ net.Conn }

// readCalls is this process's count of read-like system calls.
func readCalls(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Skip("no /proc/self/io:", err)
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "syscr: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	t.Skip("no syscr in /proc/self/io")
	return 0
}

// TestRequestSentByTheAnswersRead counts the reads of exchanges sent plainly
// and sent by the answer's first read: the plain ones try a read before the
// answer can be there, one read more per exchange. The server's reads are
// the same in both runs. Not parallel: it counts the whole process's reads.
func TestRequestSentByTheAnswersRead(t *testing.T) {
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
		before := readCalls(t)
		for range exchanges {
			status, body := get(t, tr, context.Background(), http.MethodGet, srv.URL, nil)
			require.Equal(t, 200, status)
			require.Equal(t, "ok", body)
		}
		return readCalls(t) - before
	}
	plain, held := reads(true), reads(false)
	assert.Greater(t, plain-held, int64(exchanges/2), "plain %d reads, held %d", plain, held)
}

// TestHeldRequestLargerThanTheSendBuffer sends a head the socket cannot
// take at once to a server that starts reading late: the raw write stops
// short and the rest goes the plain way.
func TestHeldRequestLargerThanTheSendBuffer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		time.Sleep(100 * time.Millisecond) // the client's send buffer fills
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
	tr, _ := newTransport(t, Options{})
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
