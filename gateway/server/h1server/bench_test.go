package h1server

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The benchmarks' two exchanges: a GET answered with a 14 KB list, and a
// POST whose 2 KiB body the handler reads in 512-byte reads, so that the
// body's handle is used as often as the writer's.
const (
	benchGetRequest  = "GET /items HTTP/1.1\r\nHost: bench\r\n\r\n"
	benchPostRequest = "POST /items HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: 2048\r\n\r\n"
)

func benchGet() http.Handler {
	body := []byte(`{"items":[` + strings.Repeat(`{"id":"0012345","name":"Account name","state":"open"},`, 260) + `{}]}`)
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	})
}

func benchPost() (http.Handler, string) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 512)
		n := 0
		for {
			m, err := r.Body.Read(buf)
			n += m
			if err != nil {
				break
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"read":` + strconv.Itoa(n) + `}`))
	})
	return h, benchPostRequest + strings.Repeat("x", 2048)
}

func BenchmarkServe(b *testing.B) {
	h := benchGet()
	b.Run("h1", func(b *testing.B) {
		ts := startServer(b, h, Options{})
		benchClient(b, ts.addr)
	})
	b.Run("net/http", func(b *testing.B) {
		ref := httptest.NewServer(h)
		defer ref.Close()
		benchClient(b, strings.TrimPrefix(ref.URL, "http://"))
	})
	post, req := benchPost()
	b.Run("h1 post", func(b *testing.B) {
		ts := startServer(b, post, Options{})
		benchRequest(b, ts.addr, req)
	})
}

func benchClient(b *testing.B, addr string) { benchRequest(b, addr, benchGetRequest) }

func benchRequest(b *testing.B, addr, raw string) {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	req := []byte(raw)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := nc.Write(req); err != nil {
			b.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			b.Fatal(err)
		}
		resp.Body.Close()
	}
}

// BenchmarkReadRequest reads a typical API GET head of 8 fields.
func BenchmarkReadRequest(b *testing.B) {
	head := "GET /v1/accounts/0012345?fields=name,state HTTP/1.1\r\nHost: api.example.com\r\n" +
		"User-Agent: client/1.0\r\nAccept: application/json\r\nAccept-Encoding: gzip\r\n" +
		"Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln\r\n" +
		"Traceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\n" +
		"X-Request-Id: 9f1c2d3e\r\nConnection: keep-alive\r\n\r\n"
	for _, bc := range []struct {
		desc string
		read func(*bufio.Reader) (*http.Request, error)
	}{{"h1", readRequest}, {"net/http", http.ReadRequest}} {
		b.Run(bc.desc, func(b *testing.B) {
			sr := strings.NewReader(head)
			br := bufio.NewReaderSize(sr, 4<<10)
			b.ReportAllocs()
			for b.Loop() {
				sr.Reset(head)
				br.Reset(sr)
				if _, err := bc.read(br); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// streamConn is a connection whose reads are n copies of one request,
// pipelined, and whose writes are dropped: BenchmarkServeInProcess serves
// it on the benchmark's goroutine, so what it measures is the server's CPU
// per request, without the network, the client or the scheduler.
type streamConn struct {
	req  string
	n    int
	left string
}

func (c *streamConn) Read(p []byte) (int, error) {
	if c.left == "" {
		if c.n == 0 {
			return 0, io.EOF
		}
		c.n--
		c.left = c.req
	}
	k := copy(p, c.left)
	c.left = c.left[k:]
	return k, nil
}

func (c *streamConn) Write(p []byte) (int, error)      { return len(p), nil }
func (c *streamConn) Close() error                     { return nil }
func (c *streamConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *streamConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *streamConn) SetDeadline(time.Time) error      { return nil }
func (c *streamConn) SetReadDeadline(time.Time) error  { return nil }
func (c *streamConn) SetWriteDeadline(time.Time) error { return nil }

// BenchmarkServeInProcess is BenchmarkServe's two exchanges served from a
// streamConn.
func BenchmarkServeInProcess(b *testing.B) {
	post, postRequest := benchPost()
	for _, bc := range []struct {
		desc string
		h    http.Handler
		req  string
	}{
		{"get", benchGet(), benchGetRequest},
		{"post", post, postRequest},
	} {
		b.Run(bc.desc, func(b *testing.B) {
			s := New(bc.h, Options{}, slog.New(slog.DiscardHandler))
			b.ReportAllocs()
			b.ResetTimer()
			c := newConn(s, &streamConn{req: bc.req, n: b.N})
			if !s.track(c) {
				b.Fatal("server closed")
			}
			c.serve()
		})
	}
}

// BenchmarkHandleCall is the cost a handle adds to a call on the response:
// its lock around the check of the request's generation and the call.
func BenchmarkHandleCall(b *testing.B) {
	s := New(http.NotFoundHandler(), Options{}, slog.New(slog.DiscardHandler))
	c := newConn(s, &streamConn{})
	w := &c.resp
	w.reset(httptest.NewRequest(http.MethodGet, "/", nil))
	var hs handles
	hs.init(w)
	b.Run("response", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = w.Header()
		}
	})
	b.Run("handle", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = hs.writer.Header()
		}
	})
}
