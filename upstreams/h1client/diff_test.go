package h1client

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answerSeeds are the answer shapes of the package's tests, and the corners
// of net/http's framing, for FuzzAnswerHead and FuzzAnswer.
func answerSeeds() []string {
	return []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nDate: Mon, 02 Jan 2006 15:04:05 GMT\r\nContent-Length: 7\r\n\r\n{\"a\":1}",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-Sum, X-Count\r\n\r\n2\r\nok\r\n0\r\nX-Sum: 3\r\nx-count: 1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n2\r\nok\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: CHUNKED\r\n\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: Content-Length\r\n\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: 1\n\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 4\r\n\r\nmade",
		"HTTP/1.1 101 Switching Protocols\r\n\r\n",
		"HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\nabc",
		"HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length:  2 \r\n\r\nok",
		"HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\nok",
		"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
		"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 3\r\n\r\nbye",
		"HTTP/1.1 200 OK\r\nConnection: Keep-Alive, CLOSE\r\n\r\nuntil close",
		"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end",
		"HTTP/1.0 200 OK\r\n\r\nuntil close",
		"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok",
		"HTTP/1.1 200 OK\r\npragma: no-cache\r\nx-lower: a\r\nX-Many: 1\r\nx-many: 2\r\n\r\n",
		"HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
		"HTTP/1.1 200 OK\r\nX-Pad:  \t a b \t\r\nX-Empty:\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX-Obs: caf\xe9\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX-Bad: a\x00b\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX-Bad: a\rb\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX Bad: a\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\n\r\n",
		"HTTP/1.1 200 OK\r\n Leading: a\r\n\r\n",
		"HTTP/1.1 200 OK\r\nNo colon\r\n\r\n",
		"HTTP/1.1 200 OK\r\n: empty name\r\n\r\n",
		"HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 599 \r\n\r\n",
		"HTTP/1.1 099 Low\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 +20 OK\r\n\r\n",
		"HTTP/1.1  200 OK\r\n\r\n",
		"HTTP/1.1 2000 OK\r\n\r\n",
		"HTTP/2.0 200 OK\r\n\r\n",
		"HTTP/1.1 200 OK",
		"HTTP/1.1 200 OK\r\n",
		"HTTP/1.1 200 OK\r\nA: b",
		"HTTP/1.1 200 OK\r\n\r",
		"\r\nHTTP/1.1 200 OK\r\n\r\n",
		"garbage",
		"",
	}
}

// FuzzAnswerHead parses arbitrary bytes as an answer with readResponse and
// with http.ReadResponse: both fail, or both succeed with the same status,
// header, framing and body bytes. The only answers net/http takes that
// readResponse refuses are the deliberately stricter ones of parseHead.
func FuzzAnswerHead(f *testing.F) {
	for _, seed := range answerSeeds() {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, answer []byte, head bool) {
		method := http.MethodGet
		if head {
			method = http.MethodHead
		}
		req, err := http.NewRequest(method, "http://backend.test/", nil)
		require.NoError(t, err)

		ourIn := bytes.NewReader(answer)
		ourBR := bufio.NewReaderSize(ourIn, bufferSize)
		got, src, gotErr := readResponse(ourBR, req)
		stdIn := bytes.NewReader(bytes.Clone(answer))
		stdBR := bufio.NewReaderSize(stdIn, bufferSize)
		want, wantErr := http.ReadResponse(stdBR, req)

		if wantErr != nil {
			require.Error(t, gotErr, "net/http refuses %q: %v", answer, wantErr)
			return
		}
		if gotErr != nil {
			require.ErrorIs(t, gotErr, ErrMalformedAnswer)
			require.True(t, stricterByDesign(answer), "refused %q that net/http takes: %v", answer, gotErr)
			return
		}
		assert.Equal(t, want.Status, got.Status)
		assert.Equal(t, want.StatusCode, got.StatusCode)
		assert.Equal(t, want.Proto, got.Proto)
		assert.Equal(t, want.ProtoMajor, got.ProtoMajor)
		assert.Equal(t, want.ProtoMinor, got.ProtoMinor)
		assert.Equal(t, want.Header, got.Header)
		assert.Equal(t, want.ContentLength, got.ContentLength)
		assert.Equal(t, want.TransferEncoding, got.TransferEncoding)
		assert.Equal(t, want.Close, got.Close)
		assert.Equal(t, want.Trailer, got.Trailer)
		assert.Same(t, req, got.Request)
		assert.Equal(t, want.Body == http.NoBody, src.mode == bodyNone)

		wantBody, wantErr := io.ReadAll(want.Body)
		gotBody, gotErr := io.ReadAll(&src)
		if wantErr == nil && gotErr != nil && stricterByDesign(answer) {
			return // a trailer with what parseHead refuses in a head
		}
		assert.Equal(t, wantErr == nil, gotErr == nil, "body errors: net/http %v, h1 %v", wantErr, gotErr)
		assert.Equal(t, string(wantBody), string(gotBody))
		if wantErr == nil && gotErr == nil {
			assert.Equal(t, want.Trailer, got.Trailer)
			// Both stop at the same byte: the next answer on a kept-alive
			// connection starts where it should.
			assert.Equal(t, stdIn.Len()+stdBR.Buffered(), ourIn.Len()+ourBR.Buffered())
		}
	})
}

// stricterByDesign reports an answer with one of what parseHead refuses
// although net/http takes it: a status line other than
// "HTTP/1.x NNN[ reason]", a status below 100, a folded line, or a space in
// a field name.
func stricterByDesign(answer []byte) bool {
	lines := bytes.Split(answer, []byte("\n"))
	if !strictStatusLine(bytes.TrimSuffix(lines[0], []byte("\r"))) {
		return true
	}
	for _, line := range lines[1:] {
		if len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
			return true
		}
		if name, _, ok := bytes.Cut(line, []byte(":")); ok && bytes.Contains(name, []byte(" ")) {
			return true
		}
	}
	return false
}

func strictStatusLine(line []byte) bool {
	digit := func(c byte) bool { return '0' <= c && c <= '9' }
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || !digit(line[7]) || line[8] != ' ' ||
		!digit(line[9]) || line[9] == '0' || !digit(line[10]) || !digit(line[11]) {
		return false
	}
	if len(line) == 12 {
		return true
	}
	if line[12] != ' ' {
		return false
	}
	for _, c := range line[13:] {
		if c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
