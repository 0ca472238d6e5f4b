package h1client

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingServer is an httptest server that counts the connections it
// accepted.
func countingServer(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

// recorder is a fallback that answers 299 and counts what it was given.
type recorder struct{ n atomic.Int32 }

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.n.Add(1)
	if req.Body != nil {
		_ = req.Body.Close()
	}
	return &http.Response{StatusCode: 299, Body: http.NoBody, Request: req}, nil
}

func newTransport(t *testing.T, o Options) (*Transport, *recorder) {
	t.Helper()
	rec := &recorder{}
	if o.Fallback == nil {
		o.Fallback = rec
	}
	tr := New(o)
	t.Cleanup(tr.CloseIdleConnections)
	return tr, rec
}

func get(t *testing.T, tr http.RoundTripper, ctx context.Context, method, u string, body io.Reader) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	require.NoError(t, err)
	resp, err := tr.RoundTrip(req)
	require.NoError(t, err)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	return resp.StatusCode, string(b)
}

func TestKeepAliveReusesOneConnection(t *testing.T) {
	t.Parallel()
	srv, conns := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		_, _ = io.WriteString(w, r.Method+" "+r.URL.RequestURI()+" "+string(b))
	})
	tr, rec := newTransport(t, Options{})
	for i := range 5 {
		_, got := get(t, tr, context.Background(), http.MethodGet, srv.URL+"/a?i=1", nil)
		assert.Equal(t, "GET /a?i=1 ", got, "round %d", i)
		_, got = get(t, tr, context.Background(), http.MethodPost, srv.URL+"/b", strings.NewReader(`{"x":1}`))
		assert.Equal(t, `POST /b {"x":1}`, got)
	}
	assert.Equal(t, int32(1), conns.Load())
	assert.Zero(t, rec.n.Load())
	assert.Equal(t, 1, idleCount(tr, srv.URL))
}

func TestFraming(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		method string
		h      http.HandlerFunc
		status int
		body   string
		reused bool
	}{
		{desc: "content length", method: http.MethodGet, status: 200, body: "hello", reused: true,
			h: func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "hello") }},
		{desc: "chunked", method: http.MethodGet, status: 200, body: "one two", reused: true,
			h: func(w http.ResponseWriter, _ *http.Request) {
				_, _ = io.WriteString(w, "one ")
				w.(http.Flusher).Flush()
				_, _ = io.WriteString(w, "two")
			}},
		{desc: "no content", method: http.MethodDelete, status: 204, reused: true,
			h: func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }},
		{desc: "head", method: http.MethodHead, status: 200, reused: true,
			h: func(w http.ResponseWriter, _ *http.Request) { w.Header().Set("Content-Length", "10") }},
		{desc: "informational answers are skipped", method: http.MethodGet, status: 201, body: "made", reused: true,
			h: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Link", "</style.css>; rel=preload")
				w.WriteHeader(http.StatusEarlyHints)
				w.WriteHeader(http.StatusCreated)
				_, _ = io.WriteString(w, "made")
			}},
		{desc: "connection close", method: http.MethodGet, status: 200, body: "bye", reused: false,
			h: func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Connection", "close")
				_, _ = io.WriteString(w, "bye")
			}},
		{desc: "close delimited", method: http.MethodGet, status: 200, body: "until the end", reused: false,
			h: func(w http.ResponseWriter, _ *http.Request) {
				c, buf, err := http.NewResponseController(w).Hijack()
				if err != nil {
					return
				}
				_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end")
				_ = buf.Flush()
				_ = c.Close()
			}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			srv, _ := countingServer(t, tt.h)
			tr, _ := newTransport(t, Options{})
			status, body := get(t, tr, context.Background(), tt.method, srv.URL, nil)
			assert.Equal(t, tt.status, status)
			assert.Equal(t, tt.body, body)
			assert.Equal(t, tt.reused, idleCount(tr, srv.URL) == 1)
		})
	}
}

// closingServer answers every request on a connection and then closes it
// without saying so, as a backend whose keep-alive timeout ran out does;
// closed receives once per connection closed.
func closingServer(t *testing.T) (string, *atomic.Int32, <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	var conns atomic.Int32
	closed := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer func() {
					_ = c.Close()
					closed <- struct{}{}
				}()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			}()
		}
	}()
	return "http://" + ln.Addr().String(), &conns, closed
}

// A connection the server closed while it was idle is found before
// reuse: every request goes to a new connection.
func TestConnectionClosedWhileIdle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		method string
		body   string
	}{
		{desc: "idempotent request", method: http.MethodGet},
		{desc: "other request", method: http.MethodPost, body: "x"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			u, conns, closed := closingServer(t)
			tr, _ := newTransport(t, Options{})
			for range 3 {
				status, body := get(t, tr, context.Background(), tt.method, u, strings.NewReader(tt.body))
				assert.Equal(t, 200, status)
				assert.Equal(t, "ok", body)
				<-closed // the server's close is on its way before the next request
			}
			assert.Equal(t, int32(3), conns.Load())
		})
	}
}

// droppingServer answers the first request of every connection and closes
// the connection on the second, unanswered, as a backend whose keep-alive
// timeout ends as a request arrives does.
func droppingServer(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	var conns atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				req, err := http.ReadRequest(br)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, req.Body)
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
				_, _ = http.ReadRequest(br)
			}()
		}
	}()
	return "http://" + ln.Addr().String(), &conns
}

// A close that crosses the request (the connection passed its check, then
// the server closed it unanswered) sends an idempotent request once more on
// a new connection, and fails any other.
func TestConnectionClosedUnderTheRequest(t *testing.T) {
	t.Parallel()
	u, conns := droppingServer(t)
	tr, _ := newTransport(t, Options{})
	status, body := get(t, tr, context.Background(), http.MethodGet, u, nil)
	require.Equal(t, 200, status)
	require.Equal(t, "ok", body)
	status, body = get(t, tr, context.Background(), http.MethodGet, u, nil)
	assert.Equal(t, 200, status)
	assert.Equal(t, "ok", body)
	assert.Equal(t, int32(2), conns.Load(), "sent again on a second connection")

	req, err := http.NewRequest(http.MethodPost, u, strings.NewReader("x"))
	require.NoError(t, err)
	_, err = tr.RoundTrip(req)
	assert.ErrorIs(t, err, errNothingRead, "a POST is not sent twice")
}

// hangingServer never answers: a request ends when its client gives up or
// the test ends.
func hangingServer(t *testing.T) *httptest.Server {
	t.Helper()
	release := make(chan struct{})
	srv, _ := countingServer(t, func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	// Registered after the server's own cleanup, so it runs first and
	// lets Close finish.
	t.Cleanup(func() { close(release) })
	return srv
}

func TestContextEndsExchange(t *testing.T) {
	t.Parallel()
	srv := hangingServer(t)
	tr, _ := newTransport(t, Options{})

	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	time.AfterFunc(20*time.Millisecond, cancel)
	_, err = tr.RoundTrip(req)
	require.ErrorIs(t, err, context.Canceled)

	ctx, stop := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer stop()
	req, err = http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	_, err = tr.RoundTrip(req)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Zero(t, idleCount(tr, srv.URL))
}

func TestResponseHeaderTimeout(t *testing.T) {
	t.Parallel()
	srv := hangingServer(t)
	tr, _ := newTransport(t, Options{ResponseHeaderTimeout: 20 * time.Millisecond})
	req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	_, err = tr.RoundTrip(req)
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout())
}

func TestBodyClosedEarlyClosesConnection(t *testing.T) {
	t.Parallel()
	srv, conns := countingServer(t, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, strings.Repeat("x", 100<<10))
	})
	tr, _ := newTransport(t, Options{})
	req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	resp, err := tr.RoundTrip(req)
	require.NoError(t, err)
	_, err = io.ReadFull(resp.Body, make([]byte, 10))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	_, err = resp.Body.Read(make([]byte, 1))
	assert.ErrorIs(t, err, errBodyClosed)
	assert.Zero(t, idleCount(tr, srv.URL))

	status, body := get(t, tr, context.Background(), http.MethodGet, srv.URL, nil)
	assert.Equal(t, 200, status)
	assert.Len(t, body, 100<<10)
	assert.Equal(t, int32(2), conns.Load())
}

func TestFallback(t *testing.T) {
	t.Parallel()
	proxy, err := url.Parse("http://proxy.invalid:3128")
	require.NoError(t, err)
	tests := []struct {
		desc  string
		url   string
		body  io.Reader
		setup func(*http.Request)
		opts  Options
	}{
		{desc: "https", url: "https://example.invalid/"},
		{desc: "body of unknown length", url: "http://example.invalid/", body: io.MultiReader(strings.NewReader("x"))},
		{desc: "body over the limit", url: "http://example.invalid/", body: strings.NewReader("12345"), opts: Options{MaxBody: 4}},
		{desc: "expect continue", url: "http://example.invalid/", setup: func(r *http.Request) { r.Header.Set("Expect", "100-continue") }},
		{desc: "upgrade", url: "http://example.invalid/", setup: func(r *http.Request) { r.Header.Set("Upgrade", "websocket") }},
		{desc: "proxy", url: "http://example.invalid/", opts: Options{Proxy: http.ProxyURL(proxy)}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			tr, rec := newTransport(t, tt.opts)
			req, err := http.NewRequest(http.MethodPost, tt.url, tt.body)
			require.NoError(t, err)
			if tt.setup != nil {
				tt.setup(req)
			}
			resp, err := tr.RoundTrip(req)
			require.NoError(t, err)
			assert.Equal(t, 299, resp.StatusCode)
			assert.Equal(t, int32(1), rec.n.Load())
		})
	}
}

func TestIdlePoolLimits(t *testing.T) {
	t.Parallel()
	var inFlight sync.WaitGroup
	inFlight.Add(4)
	srv, _ := countingServer(t, func(w http.ResponseWriter, _ *http.Request) {
		inFlight.Done()
		inFlight.Wait() // four connections at once
		_, _ = io.WriteString(w, "ok")
	})
	tr, _ := newTransport(t, Options{MaxIdlePerHost: 2})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { get(t, tr, context.Background(), http.MethodGet, srv.URL, nil) })
	}
	wg.Wait()
	assert.Equal(t, 2, idleCount(tr, srv.URL))

	tr.CloseIdleConnections()
	assert.Zero(t, idleCount(tr, srv.URL))
}

func TestIdleTimeoutDropsConnection(t *testing.T) {
	t.Parallel()
	srv, conns := countingServer(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok") })
	// a nanosecond has passed by the time the next request looks
	tr, _ := newTransport(t, Options{IdleTimeout: time.Nanosecond})
	get(t, tr, context.Background(), http.MethodGet, srv.URL, nil)
	get(t, tr, context.Background(), http.MethodGet, srv.URL, nil)
	assert.Equal(t, int32(2), conns.Load())
}

func TestDialErrorClosesBody(t *testing.T) {
	t.Parallel()
	dialErr := errors.New("refused")
	tr, _ := newTransport(t, Options{Dial: func(context.Context, string, string) (net.Conn, error) { return nil, dialErr }})
	body := &closeTracker{Reader: strings.NewReader("x")}
	req, err := http.NewRequest(http.MethodPut, "http://example.invalid/", body)
	require.NoError(t, err)
	req.ContentLength = 1
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("x")), nil }
	_, err = tr.RoundTrip(req)
	require.ErrorIs(t, err, dialErr)
	assert.True(t, body.closed)
}

type closeTracker struct {
	io.Reader
	closed bool
}

func (c *closeTracker) Close() error { c.closed = true; return nil }

func TestHostPort(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://a.example":      "a.example:80",
		"http://a.example:8080": "a.example:8080",
		"http://[::1]":          "[::1]:80",
		"http://[::1]:81/x":     "[::1]:81",
	} {
		u, err := url.Parse(in)
		require.NoError(t, err)
		assert.Equal(t, want, hostPort(u), in)
	}
}

// idleCount is the number of idle connections the transport keeps for the
// server at base.
func idleCount(tr *Transport, base string) int {
	u, _ := url.Parse(base)
	tr.pool.mu.Lock()
	defer tr.pool.mu.Unlock()
	return len(tr.pool.idle[hostPort(u)])
}
