package h1server

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requestSeeds are the request shapes of the server's tests, and the
// classic ways of smuggling a request past a parser.
func requestSeeds() []string {
	seeds := []string{
		getHello + getHello,
		"GET /request?a=1&b=2 HTTP/1.1\r\nHost: example.com\r\nx-rep: 1\r\nX-REP: 2\r\n\r\n",
		"GET http://x/hello HTTP/1.1\r\n\r\n",
		"GET http://x/request HTTP/1.1\r\nHost: a b\r\n\r\n",
		"GET /hello HTTP/1.1\r\nHost: x\r\nBad(Name): v\r\n\r\n",
		"GET /hello HTTP/1.1\r\nHo",
		"ET /fast HTTP/1.1\r\nHost: x\r\n\r\n",
		" HTTP/1.1\r\nHost: x\r\n\r\n",
		"POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue, x-other\r\nContent-Length: 2\r\n\r\nhi",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc",
		"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\n\r\n" + getHello,
		"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum, x-more\r\n\r\n1\r\na\r\n0\r\nX-Sum: 1\r\nX-More: 2\r\n\r\n",
		"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTrailer: Content-Length\r\n\r\n0\r\n\r\n",
		"GET /hello HTTP/1.1\r\nHost: x\r\nPragma: no-cache\r\n\r\n",
		"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n",
		"CONNECT /rpc HTTP/1.1\r\nHost: x\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
		"GET /%7Euser/a%20b/x%2Fy?q=%zz HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /a? HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /a?? HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET //x/y HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /hello HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
		"GET /hello HTTP/0.9\r\n\r\n",
		"GET /hello HTTP/0.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"GET /hello HTTP/1.2\r\nHost: x\r\n\r\n",
		"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n\r\n",
		"\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET /hello HTTP/1.1\r\nHost: x\r\nX: " + strings.Repeat("v", 5000) + "\r\n\r\n",
		"",
		"GET",
		// smuggling classics
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +3\r\n\r\nabc",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length:  3 \r\n\r\nabc",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3 3\r\n\r\nabc",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3,3\r\n\r\nabc",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: CHUNKED\r\n\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding :chunked\r\n\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\tchunked\t\r\n\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\na\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3 ;a=\"b\"\r\nabc\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\n0\n\n",
		"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\nhi",
		"GET / HTTP/1.1\nHost: x\n\n",
		"GET / HTTP/1.1\r\nHost: x\rX: y\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\nX: a\x00b\r\n\r\n",
		"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\nX:\ta\t\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\nX: \xff\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\n X: folded\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\nX: a\r\n folded\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\nX y: z\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\n: empty\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: x\r\nNoColon\r\n\r\n",
		"GET  / HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET / HTTP/1.1 \r\nHost: x\r\n\r\n",
		"G(T / HTTP/1.1\r\nHost: x\r\n\r\n",
		"GET / HTTP/1.0\r\nConnection: Keep-Alive, Upgrade\r\n\r\n",
		"GET / HTTP/1.1\r\nConnection: keep-alive,  CLOSE \r\nHost: x\r\n\r\n",
	}
	for _, tt := range diffCases() {
		seeds = append(seeds, tt.req)
	}
	return seeds
}

// stricter says why the parser may refuse in what http.ReadRequest
// accepts, or "" when it must not. Both cases are in field lines, which
// no conforming client sends and RFC 9112 lets a server refuse:
//   - obsolete line folding (RFC 9112 5.2: a sender must not fold);
//   - a space before a field's colon (RFC 9112 5.1: a server must refuse
//     it with 400; net/http's parser keeps it and checkRequest refuses the
//     name, so the server's answer is 400 either way).
func stricter(in []byte) string {
	head, _, _ := bytes.Cut(in, []byte("\n\r\n"))
	head, _, _ = bytes.Cut(head, []byte("\n\n"))
	lines := bytes.Split(head, []byte("\n"))
	for _, line := range lines[1:] {
		switch {
		case len(line) > 0 && (line[0] == ' ' || line[0] == '\t'):
			return "obsolete line folding"
		case bytes.Contains(line, []byte(":")):
			if name, _, _ := bytes.Cut(line, []byte(":")); bytes.Contains(name, []byte(" ")) {
				return "a space before the colon"
			}
		}
	}
	return ""
}

// parsed is what a parse must agree on, the body read to its end.
type parsed struct {
	method, url, requestURI, proto, host string
	major, minor                         int
	header, trailerDeclared, trailer     http.Header
	contentLength                        int64
	transferEncoding                     []string
	close, noBody                        bool
	body                                 string
	bodyErr                              bool
	next                                 string // what is left for the next request
}

func summarize(t *testing.T, req *http.Request, br *bufio.Reader) parsed {
	t.Helper()
	p := parsed{method: req.Method, url: req.URL.String(), requestURI: req.RequestURI, proto: req.Proto, host: req.Host,
		major: req.ProtoMajor, minor: req.ProtoMinor, header: req.Header.Clone(), trailerDeclared: req.Trailer.Clone(),
		contentLength: req.ContentLength, transferEncoding: req.TransferEncoding, close: req.Close, noBody: req.Body == http.NoBody}
	b, err := io.ReadAll(req.Body)
	p.body, p.bodyErr, p.trailer = string(b), err != nil, req.Trailer
	rest, _ := io.ReadAll(br)
	p.next = string(rest)
	return p
}

func FuzzRequestHead(f *testing.F) {
	for _, s := range requestSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		wantBr := bufio.NewReader(bytes.NewReader(in))
		want, wantErr := http.ReadRequest(wantBr)
		gotBr := bufio.NewReader(bytes.NewReader(in))
		got, gotErr := readRequest(gotBr)
		if wantErr == nil && gotErr != nil {
			if why := stricter(in); why != "" {
				t.Logf("refused, stricter than net/http on %s: %v", why, gotErr)
				return
			}
		}
		require.Equal(t, wantErr == nil, gotErr == nil, "net/http: %v, h1: %v", wantErr, gotErr)
		if wantErr != nil {
			// the server answers a malformed head, not one cut short
			assert.Equal(t, errors.Is(wantErr, io.EOF), errors.Is(gotErr, io.EOF), "net/http: %v, h1: %v", wantErr, gotErr)
			if stricter(in) == "" {
				assert.Equal(t, errors.Is(wantErr, io.ErrUnexpectedEOF), errors.Is(gotErr, io.ErrUnexpectedEOF),
					"net/http: %v, h1: %v", wantErr, gotErr)
			}
			return
		}
		assert.Equal(t, want.URL, got.URL)
		assert.Equal(t, summarize(t, want, wantBr), summarize(t, got, gotBr))
	})
}
