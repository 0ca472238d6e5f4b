package h1server

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/restgate/gateway/upstreams/h1wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadRequest(t *testing.T) {
	t.Parallel()
	type want struct {
		method, path, query, host string
		minor                     int
		header                    http.Header
		length                    int64
		chunked, close            bool
		body, next                string
	}
	tests := []struct {
		desc string
		in   string
		want want
	}{
		{desc: "GET with fields", in: "GET /items?page=2 HTTP/1.1\r\nhost: api\r\nx-id: 1\r\nX-Id: 2\r\nAccept:\t*/* \r\n\r\n",
			want: want{method: "GET", path: "/items", query: "page=2", host: "api", minor: 1, length: 0,
				header: http.Header{"X-Id": {"1", "2"}, "Accept": {"*/*"}}}},
		{desc: "bare LF line ends", in: "GET / HTTP/1.1\nHost: x\n\n",
			want: want{method: "GET", path: "/", host: "x", minor: 1, header: http.Header{}}},
		{desc: "HTTP/1.0 closes", in: "GET / HTTP/1.0\r\n\r\n",
			want: want{method: "GET", path: "/", header: http.Header{}, close: true}},
		{desc: "HTTP/1.0 keep-alive", in: "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
			want: want{method: "GET", path: "/", header: http.Header{"Connection": {"Keep-Alive"}}}},
		{desc: "close token", in: "GET / HTTP/1.1\r\nHost: x\r\nConnection: foo, CLOSE\r\n\r\n",
			want: want{method: "GET", path: "/", host: "x", minor: 1, close: true, header: http.Header{"Connection": {"foo, CLOSE"}}}},
		{desc: "absolute form: the target's host", in: "GET http://a.example/p HTTP/1.1\r\nHost: b.example\r\n\r\n",
			want: want{method: "GET", path: "/p", host: "a.example", minor: 1, header: http.Header{}}},
		{desc: "length, next request after", in: "POST /e HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabcGET",
			want: want{method: "POST", path: "/e", host: "x", minor: 1, length: 3, body: "abc", next: "GET",
				header: http.Header{"Content-Length": {"3"}}}},
		{desc: "equal lengths merged", in: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nab",
			want: want{method: "POST", path: "/", host: "x", minor: 1, length: 1, body: "a", next: "b",
				header: http.Header{"Content-Length": {"1"}}}},
		{desc: "chunked drops the length", in: "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\nTransfer-Encoding: chunked\r\n\r\n2;x=y\r\nab\r\n0\r\n\r\nnext",
			want: want{method: "POST", path: "/", host: "x", minor: 1, length: -1, chunked: true, body: "ab", next: "next",
				header: http.Header{}}},
		{desc: "HTTP/1.0 ignores Transfer-Encoding", in: "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\nContent-Length: 1\r\n\r\nab",
			want: want{method: "POST", path: "/", close: true, length: 1, body: "a", next: "b",
				header: http.Header{"Content-Length": {"1"}}}},
		{desc: "Pragma: no-cache", in: "GET / HTTP/1.1\r\nHost: x\r\nPragma: no-cache\r\n\r\n",
			want: want{method: "GET", path: "/", host: "x", minor: 1,
				header: http.Header{"Pragma": {"no-cache"}, "Cache-Control": {"no-cache"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			br := bufio.NewReader(strings.NewReader(tt.in))
			req, err := readRequest(br)
			require.NoError(t, err)
			body, err := io.ReadAll(req.Body)
			require.NoError(t, err)
			next, _ := io.ReadAll(br)
			got := want{method: req.Method, path: req.URL.Path, query: req.URL.RawQuery, host: req.Host, minor: req.ProtoMinor,
				header: req.Header, length: req.ContentLength, chunked: len(req.TransferEncoding) > 0, close: req.Close,
				body: string(body), next: string(next)}
			assert.Equal(t, tt.want, got)
			line, _, _ := strings.Cut(tt.in, "\n")
			assert.Equal(t, strings.Fields(line)[1], req.RequestURI)
		})
	}
}

func TestReadRequestRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		in   string
		want error
	}{
		{desc: "nothing", in: "", want: io.EOF},
		{desc: "cut in the head", in: "GET / HTTP/1.1\r\nHost: x\r\n", want: io.ErrUnexpectedEOF},
		{desc: "cut in a field", in: "GET / HTTP/1.1\r\nHost: x", want: io.ErrUnexpectedEOF},
		{desc: "cut in a field's name: no colon, as net/http sees it", in: "GET / HTTP/1.1\r\nHo", want: errMalformed},
		{desc: "bad request line, cut short", in: "GARBAGE\r\nHost: x", want: errMalformed},
		{desc: "bad request line", in: "GARBAGE\r\n\r\n", want: errMalformed},
		{desc: "bad method", in: "G(T / HTTP/1.1\r\n\r\n", want: errMalformed},
		{desc: "bad version", in: "GET / HTTP/1.x\r\n\r\n", want: errMalformed},
		{desc: "bad target", in: "GET x HTTP/1.1\r\n\r\n", want: errMalformed},
		{desc: "two Host fields", in: "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", want: errMalformed},
		{desc: "NUL in a value", in: "GET / HTTP/1.1\r\nX: a\x00\r\n\r\n", want: errMalformed},
		{desc: "bare CR in a value", in: "GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", want: errMalformed},
		{desc: "folded line", in: "GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n", want: errMalformed},
		{desc: "space before the colon", in: "GET / HTTP/1.1\r\nX : a\r\n\r\n", want: errMalformed},
		{desc: "signed length", in: "POST / HTTP/1.1\r\nContent-Length: +1\r\n\r\na", want: errMalformed},
		{desc: "differing lengths", in: "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", want: errMalformed},
		{desc: "chunked, identity", in: "POST / HTTP/1.1\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n", want: errMalformed},
		{desc: "two codings fields", in: "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", want: errMalformed},
		{desc: "xchunked", in: "POST / HTTP/1.1\r\nTransfer-Encoding: xchunked\r\n\r\n", want: errMalformed},
		{desc: "framing field in the trailer", in: "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTrailer: Content-Length\r\n\r\n", want: errMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			_, err := readRequest(bufio.NewReader(strings.NewReader(tt.in)))
			assert.True(t, errors.Is(err, tt.want), "got %v, want %v", err, tt.want)
		})
	}
}

func TestRequestBodyErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, in string
		want     error
	}{
		{desc: "length cut short", in: "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab", want: io.ErrUnexpectedEOF},
		{desc: "huge chunk size", in: "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\na", want: nil},
		{desc: "trailer cut short", in: "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX", want: h1wire.ErrTrailerEOF},
		{desc: "trailer without its end", in: "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: 1\r\n", want: h1wire.ErrLongTrailer},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			req, err := readRequest(bufio.NewReader(strings.NewReader(tt.in)))
			require.NoError(t, err)
			_, err = io.ReadAll(req.Body)
			require.Error(t, err)
			if tt.want != nil {
				assert.ErrorIs(t, err, tt.want)
			}
			_, again := req.Body.Read(make([]byte, 1))
			assert.Error(t, again, "an ended body stays ended")
		})
	}
}
