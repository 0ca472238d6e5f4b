package h1server

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind: every
// server and connection a test starts must be gone when it ends.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// logBuffer is a slog destination tests can read while the server writes.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testServer is an h1 server on a loopback port, closed when the test ends.
type testServer struct {
	srv      *Server
	addr     string
	logs     *logBuffer
	serveErr func() error // waits for Serve's result
}

func startServer(t testing.TB, h http.Handler, opts Options) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ts := &testServer{logs: &logBuffer{}, addr: ln.Addr().String()}
	ts.srv = New(h, opts, slog.New(slog.NewTextHandler(ts.logs, nil)))
	served := make(chan error, 1)
	go func() { served <- ts.srv.Serve(ln) }()
	ts.serveErr = sync.OnceValue(func() error { return <-served })
	t.Cleanup(func() {
		_ = ts.srv.Close()
		_ = ts.serveErr()
	})
	return ts
}

// conns is the number of connections the server tracks.
func (ts *testServer) conns() int {
	ts.srv.mu.Lock()
	defer ts.srv.mu.Unlock()
	return len(ts.srv.conns)
}

// client is a raw connection: requests go out as bytes, answers are parsed
// with http.ReadResponse, so framing is checked exactly.
type client struct {
	t  testing.TB
	nc net.Conn
	br *bufio.Reader
}

func dial(t testing.TB, addr string) *client {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	// no exchange in these tests takes long: a hang fails instead of blocking
	require.NoError(t, nc.SetDeadline(time.Now().Add(5*time.Second)))
	return &client{t: t, nc: nc, br: bufio.NewReader(nc)}
}

func (c *client) send(s string) {
	c.t.Helper()
	_, err := io.WriteString(c.nc, s)
	require.NoError(c.t, err)
}

// read reads one answer to a request with the given method and its whole
// body.
func (c *client) read(method string) (*http.Response, string) {
	c.t.Helper()
	resp, err := http.ReadResponse(c.br, &http.Request{Method: method})
	require.NoError(c.t, err)
	b, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	return resp, string(b)
}

// closed reports whether the server ended the connection: the next read
// meets the end (or a reset) without a byte.
func (c *client) closed() bool {
	c.t.Helper()
	_ = c.nc.SetReadDeadline(time.Now().Add(2 * time.Second))
	defer c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := c.br.Read(make([]byte, 1))
	return n == 0 && err != nil && !isTimeout(err)
}

// exchange is one expected answer. A header value of "-" must be absent,
// "*" present with any value.
type exchange struct {
	method string // of the request; "" is GET
	status int
	body   string
	header map[string]string
}

func (c *client) expect(want exchange) *http.Response {
	c.t.Helper()
	method := want.method
	if method == "" {
		method = http.MethodGet
	}
	resp, body := c.read(method)
	assert.Equal(c.t, want.status, resp.StatusCode)
	assert.Equal(c.t, want.body, body)
	for k, v := range want.header {
		if v == "-" {
			assert.NotContains(c.t, resp.Header, k)
			continue
		}
		if k == "Connection" && v == "close" {
			// http.ReadResponse takes the field out into Close
			assert.True(c.t, resp.Close, "Connection: close")
			continue
		}
		if v == "*" {
			assert.NotEmpty(c.t, resp.Header.Get(k), k)
			continue
		}
		assert.Equal(c.t, v, resp.Header.Get(k), k)
	}
	return resp
}

const (
	getHello = "GET /hello HTTP/1.1\r\nHost: x\r\n\r\n"
	bigSize  = 100 << 10
)

// bigBody is the body /big and /bigcl write, recognisable at every offset.
func bigBody() string {
	var b strings.Builder
	for i := 0; b.Len() < bigSize; i++ {
		fmt.Fprintf(&b, "%08d\n", i)
	}
	return b.String()[:bigSize]
}

func gzipped(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write([]byte(s))
	_ = zw.Close()
	return b.Bytes()
}

// routes is the handler the table, differential and fuzz tests share.
func routes() http.Handler {
	mux := http.NewServeMux()
	text := func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, body) })
	}
	text("/hello", "hello")
	text("/sniff", "<html><body>hi</body></html>")
	mux.HandleFunc("/empty", func(http.ResponseWriter, *http.Request) {})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _ = fmt.Fprintf(w, "got %d: %s", len(b), b)
	})
	mux.HandleFunc("/ignore", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ignored") })
	mux.HandleFunc("/cl", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "10")
		_, _ = io.WriteString(w, "0123456789")
	})
	mux.HandleFunc("/clparts", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "10")
		for _, s := range []string{"012", "3456", "789"} {
			_, _ = io.WriteString(w, s)
		}
	})
	mux.HandleFunc("/short", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "10")
		_, _ = io.WriteString(w, "01234")
	})
	mux.HandleFunc("/over", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "4")
		_, err := io.WriteString(w, "12345")
		_, _ = io.WriteString(w, strconv.FormatBool(errors.Is(err, http.ErrContentLength))[:4])
	})
	big := bigBody()
	mux.HandleFunc("/big", func(w http.ResponseWriter, _ *http.Request) {
		for i := 0; i < len(big); i += 10 << 10 {
			_, _ = io.WriteString(w, big[i:min(i+10<<10, len(big))])
		}
	})
	mux.HandleFunc("/bigcl", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(big)))
		for i := 0; i < len(big); i += 10 << 10 {
			_, _ = io.WriteString(w, big[i:min(i+10<<10, len(big))])
		}
	})
	mux.HandleFunc("/status/", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/status/"))
		w.WriteHeader(code)
		_, err := io.WriteString(w, "body")
		w.Header().Set("X-Late", "1") // too late: never sent
		_ = err
	})
	mux.HandleFunc("/typed", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "<html>")
	})
	mux.HandleFunc("/gzip", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(gzipped("<html>hello</html>"))
	})
	mux.HandleFunc("/nodate", func(w http.ResponseWriter, _ *http.Request) {
		w.Header()["Date"] = nil
		_, _ = io.WriteString(w, "x")
	})
	mux.HandleFunc("/badheader", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Bad", "a\r\nInjected: yes")
		w.Header()["Bad Name"] = []string{"v"}
		_, _ = io.WriteString(w, "ok")
	})
	mux.HandleFunc("/early", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		_, _ = io.WriteString(w, "final")
	})
	mux.HandleFunc("/twice", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusCreated)
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, "x")
	})
	mux.HandleFunc("/late", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.Header().Set("X-Late", "1")
		_, _ = io.WriteString(w, "x")
	})
	mux.HandleFunc("/close", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Connection", "close")
		_, _ = io.WriteString(w, "bye")
	})
	mux.HandleFunc("/panic", func(http.ResponseWriter, *http.Request) { panic("boom") })
	mux.HandleFunc("/abort", func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) })
	mux.HandleFunc("/request", func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprintf(w, "%s %s host=%s q=%s rep=%q hostfield=%q", r.Method, r.URL.Path, r.Host,
			r.URL.RawQuery, r.Header["X-Rep"], r.Header.Get("Host"))
	})
	return mux
}
