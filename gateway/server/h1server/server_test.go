package h1server

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// step is bytes sent at once and the answers they must bring, in order.
type step struct {
	send string
	want []exchange
}

func TestServeFraming(t *testing.T) {
	t.Parallel()
	big := bigBody()
	unread := strings.Repeat("u", 1000)
	tests := []struct {
		desc   string
		steps  []step
		closed bool // the server ends the connection after the last answer
	}{
		{desc: "keep-alive over several requests", steps: []step{
			{getHello, []exchange{{status: 200, body: "hello", header: map[string]string{"Content-Length": "5", "Connection": "-"}}}},
			{getHello, []exchange{{status: 200, body: "hello"}}},
			{"GET /cl HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 200, body: "0123456789"}}},
		}},
		{desc: "pipelined requests answered in order", steps: []step{
			{getHello + "GET /cl HTTP/1.1\r\nHost: x\r\n\r\n" + "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc" + getHello,
				[]exchange{{status: 200, body: "hello"}, {status: 200, body: "0123456789"}, {status: 200, body: "got 3: abc"}, {status: 200, body: "hello"}}},
		}},
		{desc: "HTTP/1.0 closes by default", closed: true, steps: []step{
			{"GET /hello HTTP/1.0\r\n\r\n", []exchange{{status: 200, body: "hello"}}},
		}},
		{desc: "HTTP/1.0 with keep-alive stays", steps: []step{
			{"GET /hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", []exchange{{status: 200, body: "hello", header: map[string]string{"Connection": "keep-alive"}}}},
		}},
		{desc: "Connection: close from the client", closed: true, steps: []step{
			{"GET /hello HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", []exchange{{status: 200, body: "hello", header: map[string]string{"Connection": "close"}}}},
		}},
		{desc: "Content-Length with Transfer-Encoding: framed by chunks, then closed (RFC 9112 6.1)", closed: true, steps: []step{
			{"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n" + getHello,
				[]exchange{{status: 200, body: "got 3: abc", header: map[string]string{"Connection": "close"}}}},
		}},
		{desc: "Content-Length with Transfer-Encoding from HTTP/1.0: framed by length, then closed", closed: true, steps: []step{
			{"POST /echo HTTP/1.0\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\nabc" + getHello,
				[]exchange{{status: 200, body: "got 3: abc", header: map[string]string{"Connection": "close"}}}},
		}},
		{desc: "Connection: close from the handler", closed: true, steps: []step{
			{"GET /close HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 200, body: "bye", header: map[string]string{"Connection": "close"}}}},
		}},
		{desc: "HEAD has no body and GET's length", steps: []step{
			{"HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{method: "HEAD", status: 200, header: map[string]string{"Content-Length": "5"}}}},
			{"HEAD /big HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{method: "HEAD", status: 200, header: map[string]string{"Content-Length": strconv.Itoa(bigSize)}}}},
		}},
		{desc: "204 and 304 carry no body", steps: []step{
			{"GET /status/204 HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 204, header: map[string]string{"Content-Length": "-", "X-Late": "-"}}}},
			{"GET /status/304 HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 304, header: map[string]string{"Transfer-Encoding": "-"}}}},
		}},
		{desc: "a handler that writes nothing", steps: []step{
			{"GET /empty HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 200, header: map[string]string{"Content-Length": "0", "Content-Type": "-"}}}},
		}},
		{desc: "declared length in one write and in several", steps: []step{
			{"GET /cl HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 200, body: "0123456789", header: map[string]string{"Content-Length": "10"}}}},
			{"GET /clparts HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 200, body: "0123456789", header: map[string]string{"Content-Length": "10"}}}},
		}},
		{desc: "overlong write refused with ErrContentLength", steps: []step{
			{"GET /over HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 200, body: "true", header: map[string]string{"Content-Length": "4"}}}},
		}},
		{desc: "long answer without length is chunked", steps: []step{
			{"GET /big HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 200, body: big, header: map[string]string{"Content-Length": "-", "Content-Type": "text/plain; charset=utf-8"}}}},
			{getHello, []exchange{{status: 200, body: "hello"}}},
		}},
		{desc: "long answer with length", steps: []step{
			{"GET /bigcl HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 200, body: big, header: map[string]string{"Content-Length": strconv.Itoa(bigSize)}}}},
		}},
		{desc: "HTTP/1.0 long answer ends with the close", closed: true, steps: []step{
			{"GET /big HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", []exchange{{status: 200, body: big, header: map[string]string{"Content-Length": "-"}}}},
		}},
		{desc: "content type sniffed only when unset", steps: []step{
			{"GET /sniff HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 200, body: "<html><body>hi</body></html>", header: map[string]string{"Content-Type": "text/html; charset=utf-8"}}}},
			{"GET /typed HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 200, body: "<html>", header: map[string]string{"Content-Type": "text/plain"}}}},
			{"GET /gzip HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 200, body: string(gzipped("<html>hello</html>")), header: map[string]string{"Content-Type": "-"}}}},
		}},
		{desc: "Date present unless the handler removes it", steps: []step{
			{getHello, []exchange{{status: 200, body: "hello", header: map[string]string{"Date": "*"}}}},
			{"GET /nodate HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 200, body: "x", header: map[string]string{"Date": "-"}}}},
		}},
		{desc: "header values sanitized, invalid names dropped", steps: []step{
			{"GET /badheader HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 200, body: "ok", header: map[string]string{"X-Bad": "a  Injected: yes", "Injected": "-", "Bad Name": "-"}}}},
		}},
		{desc: "first WriteHeader wins, later header changes are not sent", steps: []step{
			{"GET /twice HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 201, body: "x"}}},
			{"GET /late HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 200, body: "x", header: map[string]string{"X-Late": "-"}}}},
		}},
		{desc: "chunked request body", steps: []step{
			{"POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
				[]exchange{{status: 200, body: "got 5: abcde"}}},
			{getHello, []exchange{{status: 200, body: "hello"}}},
		}},
		{desc: "small unread body drained, connection kept", steps: []step{
			{"POST /ignore HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n" + unread + getHello,
				[]exchange{{status: 200, body: "ignored", header: map[string]string{"Connection": "-"}}, {status: 200, body: "hello"}}},
		}},
		{desc: "100-continue sent before the first read", steps: []step{
			{"POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n", []exchange{{status: 100}}},
			{"hi", []exchange{{status: 200, body: "got 2: hi"}}},
		}},
		{desc: "100-continue not sent when the handler does not read", closed: true, steps: []step{
			{"POST /ignore HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n",
				[]exchange{{status: 200, body: "ignored", header: map[string]string{"Connection": "close"}}}},
		}},
		{desc: "100-continue among other expectations", steps: []step{
			{"POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue, x-other\r\nContent-Length: 2\r\n\r\n", []exchange{{status: 100}}},
			{"hi", []exchange{{status: 200, body: "got 2: hi"}}},
		}},
		{desc: "other Expect values refused", closed: true, steps: []step{
			{"POST /echo HTTP/1.1\r\nHost: x\r\nExpect: something\r\nContent-Length: 2\r\n\r\nhi", []exchange{{status: 417, body: "417 Expectation Failed"}}},
		}},
		{desc: "malformed request line", closed: true, steps: []step{
			{"GARBAGE\r\n\r\n", []exchange{{status: 400, body: "400 Bad Request"}}},
		}},
		{desc: "missing Host on HTTP/1.1", closed: true, steps: []step{
			{"GET /hello HTTP/1.1\r\n\r\n", []exchange{{status: 400, body: "400 Bad Request: missing required Host header"}}},
		}},
		{desc: "absolute form: the target's host prevails over a valid Host field", steps: []step{
			{"GET http://x/request HTTP/1.1\r\nHost: y\r\n\r\n", []exchange{{status: 200, body: `GET /request host=x q= rep=[] hostfield=""`}}},
			{"GET http://x/hello HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", []exchange{{status: 200, body: "hello"}}},
		}},
		{desc: "absolute form still needs a Host field from HTTP/1.1 on", closed: true, steps: []step{
			{"GET http://x/hello HTTP/1.1\r\n\r\n", []exchange{{status: 400, body: "400 Bad Request: missing required Host header"}}},
		}},
		{desc: "absolute form with an invalid Host field", closed: true, steps: []step{
			{"GET http://x/request HTTP/1.1\r\nHost: a b\r\n\r\n", []exchange{{status: 400, body: "400 Bad Request: malformed Host header"}}},
		}},
		{desc: "invalid Host", closed: true, steps: []step{
			{"GET /hello HTTP/1.1\r\nHost: a b\r\n\r\n", []exchange{{status: 400, body: "400 Bad Request: malformed Host header"}}},
		}},
		{desc: "invalid header name", closed: true, steps: []step{
			{"GET /hello HTTP/1.1\r\nHost: x\r\nBad(Name): v\r\n\r\n", []exchange{{status: 400, body: "400 Bad Request"}}},
		}},
		{desc: "HTTP/2 preface", closed: true, steps: []step{
			{"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", []exchange{{status: 505, body: "505 HTTP Version Not Supported: unsupported protocol version"}}},
		}},
		{desc: "major version 2", closed: true, steps: []step{
			{"GET /hello HTTP/2.0\r\nHost: x\r\n\r\n", []exchange{{status: 505, body: "505 HTTP Version Not Supported: unsupported protocol version"}}},
		}},
		{desc: "head over MaxHeaderBytes", closed: true, steps: []step{
			{"GET /hello HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 1<<20+8<<10) + "\r\n\r\n", []exchange{{status: 431, body: "431 Request Header Fields Too Large"}}},
		}},
		{desc: "OPTIONS *", steps: []step{
			{"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n", []exchange{{status: 200, header: map[string]string{"Content-Length": "0"}}}},
		}},
		{desc: "the Host field moves to Request.Host", steps: []step{
			{"GET /request?a=1&b=2 HTTP/1.1\r\nHost: example.com\r\nx-rep: 1\r\nX-REP: 2\r\n\r\n",
				[]exchange{{status: 200, body: `GET /request host=example.com q=a=1&b=2 rep=["1" "2"] hostfield=""`}}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			ts := startServer(t, routes(), Options{})
			c := dial(t, ts.addr)
			for _, s := range tt.steps {
				c.send(s.send)
				for _, want := range s.want {
					c.expect(want)
				}
			}
			if tt.closed {
				assert.True(t, c.closed(), "the connection should be closed")
				return
			}
			c.send(getHello)
			c.expect(exchange{status: http.StatusOK, body: "hello"})
		})
	}
}
