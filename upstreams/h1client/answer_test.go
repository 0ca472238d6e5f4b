package h1client

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadResponse(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("v", 40<<10) // more than the read buffer
	tests := []struct {
		desc    string
		answer  string
		method  string
		wantErr error
		check   func(t *testing.T, resp *http.Response, body string)
	}{
		{desc: "fields are canonical, trimmed and grouped",
			answer: "HTTP/1.1 200 OK\r\ncontent-type:  application/json \t\r\nX-Many: 1\r\nx-many: 2\r\nContent-Length: 2\r\n\r\nok",
			check: func(t *testing.T, resp *http.Response, body string) {
				assert.Equal(t, "200 OK", resp.Status)
				assert.Equal(t, "HTTP/1.1", resp.Proto)
				assert.Equal(t, http.Header{"Content-Type": {"application/json"}, "X-Many": {"1", "2"}, "Content-Length": {"2"}}, resp.Header)
				assert.Equal(t, int64(2), resp.ContentLength)
				assert.False(t, resp.Close)
				assert.Equal(t, "ok", body)
			}},
		{desc: "chunked drops Content-Length and reads the trailer",
			answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 9\r\nTrailer: X-Sum\r\n\r\n2\r\nok\r\n0\r\nX-Sum: 3\r\n\r\n",
			check: func(t *testing.T, resp *http.Response, body string) {
				assert.Equal(t, []string{"chunked"}, resp.TransferEncoding)
				assert.Equal(t, int64(-1), resp.ContentLength)
				assert.Empty(t, resp.Header)
				assert.Equal(t, "ok", body)
				assert.Equal(t, http.Header{"X-Sum": {"3"}}, resp.Trailer)
			}},
		{desc: "head keeps the length a get would have", method: http.MethodHead,
			answer: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n",
			check: func(t *testing.T, resp *http.Response, body string) {
				assert.Equal(t, int64(10), resp.ContentLength)
				assert.Equal(t, http.NoBody, resp.Body)
			}},
		{desc: "no length reads until the close",
			answer: "HTTP/1.1 200 OK\r\n\r\nthe rest",
			check: func(t *testing.T, resp *http.Response, body string) {
				assert.True(t, resp.Close)
				assert.Equal(t, int64(-1), resp.ContentLength)
				assert.Equal(t, "the rest", body)
			}},
		{desc: "connection close is consumed",
			answer: "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n",
			check: func(t *testing.T, resp *http.Response, _ string) {
				assert.True(t, resp.Close)
				assert.Empty(t, resp.Header)
			}},
		{desc: "http/1.0 keep-alive",
			answer: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n",
			check: func(t *testing.T, resp *http.Response, _ string) {
				assert.False(t, resp.Close)
				assert.Equal(t, 0, resp.ProtoMinor)
			}},
		{desc: "a head longer than the read buffer",
			answer: "HTTP/1.1 200 OK\r\nX-Long: " + long + "\r\nContent-Length: 2\r\n\r\nok",
			check: func(t *testing.T, resp *http.Response, body string) {
				assert.Equal(t, long, resp.Header.Get("X-Long"))
				assert.Equal(t, "ok", body)
			}},
		{desc: "several lengths", answer: "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nok", wantErr: ErrMalformedAnswer},
		{desc: "unsupported coding", answer: "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", wantErr: ErrMalformedAnswer},
		{desc: "folded field", answer: "HTTP/1.1 200 OK\r\nX-A: 1\r\n 2\r\n\r\n", wantErr: ErrMalformedAnswer},
		{desc: "space before the colon", answer: "HTTP/1.1 200 OK\r\nX-A : 1\r\n\r\n", wantErr: ErrMalformedAnswer},
		{desc: "control byte in a value", answer: "HTTP/1.1 200 OK\r\nX-A: 1\x002\r\n\r\n", wantErr: ErrMalformedAnswer},
		{desc: "not http/1.x", answer: "HTTP/2.0 200 OK\r\n\r\n", wantErr: ErrMalformedAnswer},
		{desc: "signed status", answer: "HTTP/1.1 +20 OK\r\n\r\n", wantErr: ErrMalformedAnswer},
		{desc: "head cut short", answer: "HTTP/1.1 200 OK\r\nX-A: 1\r\n", wantErr: io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			method := tt.method
			if method == "" {
				method = http.MethodGet
			}
			req, err := http.NewRequest(method, "http://backend.test/", nil)
			require.NoError(t, err)
			resp, src, err := readResponse(bufio.NewReaderSize(strings.NewReader(tt.answer), bufferSize), req)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			body, err := io.ReadAll(&src)
			require.NoError(t, err)
			tt.check(t, resp, string(body))
		})
	}
}

func TestReadHeadBound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		head    string
		limit   int
		bufSize int
		wantErr error
	}{
		{desc: "within the buffer", head: "HTTP/1.1 200 OK\r\nX: 1\r\n\r\n", limit: 64, bufSize: 1024},
		{desc: "over the bound within the buffer", head: "HTTP/1.1 200 OK\r\nX: 1\r\n\r\n", limit: 16, bufSize: 1024, wantErr: ErrHeadTooLarge},
		{desc: "over the bound, nothing ends it", head: strings.Repeat("x", 100), limit: 16, bufSize: 1024, wantErr: ErrHeadTooLarge},
		{desc: "longer than the buffer", head: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("1", 100) + "\r\n\r\n", limit: 1024, bufSize: 16},
		{desc: "longer than the buffer and the bound", head: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("1", 100) + "\r\n\r\n", limit: 64, bufSize: 16,
			wantErr: ErrHeadTooLarge},
		{desc: "longer than the buffer, cut short", head: "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("1", 100), limit: 1024, bufSize: 16,
			wantErr: io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			br := bufio.NewReaderSize(strings.NewReader(tt.head+"body"), tt.bufSize)
			got, err := readHead(br, tt.limit)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.head, got)
			rest, err := io.ReadAll(br)
			require.NoError(t, err)
			assert.Equal(t, "body", string(rest))
		})
	}
}
