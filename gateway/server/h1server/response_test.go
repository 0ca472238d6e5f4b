package h1server

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		request string
		h       func(w http.ResponseWriter) error
		want    exchange
		wantErr error
	}{
		{desc: "204 refuses a body", request: "GET / HTTP/1.1\r\nHost: x\r\n\r\n", want: exchange{status: 204},
			wantErr: http.ErrBodyNotAllowed, h: func(w http.ResponseWriter) error {
				w.WriteHeader(http.StatusNoContent)
				_, err := w.Write([]byte("x"))
				return err
			}},
		{desc: "304 refuses a body", request: "GET / HTTP/1.1\r\nHost: x\r\n\r\n", want: exchange{status: 304},
			wantErr: http.ErrBodyNotAllowed, h: func(w http.ResponseWriter) error {
				w.WriteHeader(http.StatusNotModified)
				_, err := w.Write([]byte("x"))
				return err
			}},
		{desc: "HEAD takes a body silently", request: "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n",
			want: exchange{method: "HEAD", status: 200, header: map[string]string{"Content-Length": "3"}},
			h: func(w http.ResponseWriter) error {
				_, err := w.Write([]byte("abc"))
				return err
			}},
		{desc: "past the declared length", request: "GET / HTTP/1.1\r\nHost: x\r\n\r\n", want: exchange{status: 200, body: "ab"},
			wantErr: http.ErrContentLength, h: func(w http.ResponseWriter) error {
				w.Header().Set("Content-Length", "2")
				_, err := w.Write([]byte("abc"))
				_, _ = w.Write([]byte("ab"))
				return err
			}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			errs := make(chan error, 1)
			ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { errs <- tt.h(w) }), Options{})
			c := dial(t, ts.addr)
			c.send(tt.request)
			c.expect(tt.want)
			if err := <-errs; tt.wantErr == nil {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, tt.wantErr)
			}
		})
	}
}

func TestShortBodyClosesConnection(t *testing.T) {
	t.Parallel()
	ts := startServer(t, routes(), Options{})
	c := dial(t, ts.addr)
	c.send("GET /short HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(c.br, nil)
	require.NoError(t, err)
	assert.Equal(t, int64(10), resp.ContentLength)
	b, err := io.ReadAll(resp.Body)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Equal(t, "01234", string(b))
}

func TestFlushAndDeadlines(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	results := make(chan error, 4)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		_, _ = io.WriteString(w, "first")
		results <- rc.Flush()
		<-release // the client has read "first" before the handler returns
		results <- rc.SetWriteDeadline(time.Now().Add(time.Minute))
		results <- rc.SetReadDeadline(time.Now().Add(time.Minute))
		w.(http.Flusher).Flush()
		_, _ = io.WriteString(w, "second")
	}), Options{})
	c := dial(t, ts.addr)
	c.send(getHello)
	resp, err := http.ReadResponse(c.br, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"chunked"}, resp.TransferEncoding)
	buf := make([]byte, 5)
	_, err = io.ReadFull(resp.Body, buf)
	require.NoError(t, err)
	assert.Equal(t, "first", string(buf))
	close(release)
	rest, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	assert.Equal(t, "second", string(rest))
	for range 3 {
		assert.NoError(t, <-results)
	}
}

func TestSetReadDeadlineEndsBodyRead(t *testing.T) {
	t.Parallel()
	readErr := make(chan error, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, http.NewResponseController(w).SetReadDeadline(time.Now().Add(50*time.Millisecond)))
		_, err := io.ReadAll(r.Body)
		readErr <- err
	}), Options{})
	c := dial(t, ts.addr)
	c.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
	err := <-readErr
	var ne net.Error
	require.ErrorAs(t, err, &ne)
	assert.True(t, ne.Timeout())
}

func TestEarlyHints(t *testing.T) {
	t.Parallel()
	ts := startServer(t, routes(), Options{})
	c := dial(t, ts.addr)
	c.send("GET /early HTTP/1.1\r\nHost: x\r\n\r\n")
	c.expect(exchange{status: 103, header: map[string]string{"Link": "</style.css>; rel=preload"}})
	c.expect(exchange{status: 200, body: "final", header: map[string]string{"Link": "</style.css>; rel=preload"}})
}

// An unread body over the drain limit closes the connection after the
// answer; the client must still get all of the answer, not a reset.
func TestLargeUnreadBody(t *testing.T) {
	t.Parallel()
	ts := startServer(t, routes(), Options{})
	c := dial(t, ts.addr)
	const size = 1 << 20
	c.send("POST /ignore HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n")
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		_, _ = io.Copy(c.nc, io.LimitReader(zeros{}, size/2)) // half, then wait: the rest may be refused
	}()
	c.expect(exchange{status: 200, body: "ignored", header: map[string]string{"Connection": "close"}})
	<-sent
	assert.True(t, c.closed())
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestExpectContinueOnlyOnce(t *testing.T) {
	t.Parallel()
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 1)
		for {
			if _, err := r.Body.Read(b); err != nil {
				break
			}
		}
		_, _ = io.WriteString(w, "done")
	}), Options{})
	c := dial(t, ts.addr)
	c.send("POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n")
	c.expect(exchange{status: 100})
	c.send("abc")
	c.expect(exchange{status: 200, body: "done"}) // a second 100 would be read here instead
}

func TestPanicRecovered(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		path   string
		logged bool
	}{
		{desc: "a panic is logged", path: "/panic", logged: true},
		{desc: "ErrAbortHandler is not", path: "/abort"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			ts := startServer(t, routes(), Options{})
			c := dial(t, ts.addr)
			c.send("GET " + tt.path + " HTTP/1.1\r\nHost: x\r\n\r\n")
			assert.True(t, c.closed())
			other := dial(t, ts.addr)
			other.send(getHello)
			other.expect(exchange{status: 200, body: "hello"})
			assert.Equal(t, tt.logged, strings.Contains(ts.logs.String(), "boom"), ts.logs.String())
			assert.Equal(t, tt.logged, strings.Contains(ts.logs.String(), "handler panicked"))
		})
	}
}

func TestRequestAddressesAndContext(t *testing.T) {
	t.Parallel()
	type seen struct {
		remote string
		local  net.Addr
		ctx    context.Context
	}
	got := make(chan seen, 1)
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		got <- seen{remote: r.RemoteAddr, local: local, ctx: r.Context()}
	}), Options{})
	c := dial(t, ts.addr)
	c.send(getHello)
	c.expect(exchange{status: 200})
	s := <-got
	assert.Equal(t, c.nc.LocalAddr().String(), s.remote)
	require.NotNil(t, s.local)
	assert.Equal(t, ts.addr, s.local.String())
	select {
	case <-s.ctx.Done():
		assert.True(t, errors.Is(s.ctx.Err(), context.Canceled))
	case <-time.After(2 * time.Second):
		t.Fatal("the request's context outlived its handler")
	}
}

// The same with an answer too large for the socket buffers: the part still
// queued when the server closes must not be lost to a reset.
func TestLargeUnreadBodyLargeAnswer(t *testing.T) {
	t.Parallel()
	const answer = 8 << 20
	writing := make(chan struct{})
	ts := startServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "8388608")
		close(writing)
		_, _ = io.Copy(w, io.LimitReader(zeros{}, answer))
	}), Options{})
	c := dial(t, ts.addr)
	c.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n")
	_, err := io.Copy(c.nc, io.LimitReader(zeros{}, 512<<10))
	require.NoError(t, err)
	<-writing // the server writes what the buffers take, then waits for the reader
	resp, err := http.ReadResponse(c.br, nil)
	require.NoError(t, err)
	n, err := io.Copy(io.Discard, resp.Body)
	require.NoError(t, err)
	assert.Equal(t, int64(answer), n)
	assert.True(t, resp.Close)
}
