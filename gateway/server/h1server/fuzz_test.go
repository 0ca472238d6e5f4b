package h1server

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// FuzzServe writes arbitrary bytes to a fresh connection: the server must
// not panic, every answer must parse, and the connection must answer or end
// within the client's deadline.
func FuzzServe(f *testing.F) {
	for _, tt := range diffCases() {
		f.Add([]byte(tt.req))
	}
	for _, s := range []string{getHello + getHello, "GET /hello HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
		"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
		"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", "\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\n X: folded\r\n\r\n"} {
		f.Add([]byte(s))
	}
	ts := startServer(f, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		_, _ = w.Write(append([]byte("got "), b...))
	}), Options{ReadTimeout: time.Second, WatchAfter: time.Millisecond})
	f.Fuzz(func(t *testing.T, in []byte) {
		nc, err := net.Dial("tcp", ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		_ = nc.SetDeadline(time.Now().Add(2 * time.Second))
		if _, err := nc.Write(in); err != nil {
			return // refused early: the server ended it
		}
		if cw, ok := nc.(*net.TCPConn); ok {
			_ = cw.CloseWrite() // nothing more comes: the server must answer or end
		}
		br := bufio.NewReader(nc)
		for {
			if _, err := br.Peek(1); err != nil {
				if isTimeout(err) {
					t.Fatalf("no answer and no end for %q", in)
				}
				return
			}
			resp, err := http.ReadResponse(br, &http.Request{Method: method(in)})
			if err != nil {
				t.Fatalf("unparsable answer to %q: %v", in, err)
			}
			if _, err := io.Copy(io.Discard, resp.Body); err != nil && isTimeout(err) {
				t.Fatalf("answer body hangs for %q", in)
			}
			if resp.StatusCode >= 200 && resp.Close {
				return
			}
		}
	})
}

// method guesses the first request's method, for HEAD answers' framing.
func method(in []byte) string {
	if bytes.HasPrefix(in, []byte("HEAD ")) {
		return http.MethodHead
	}
	return http.MethodGet
}
