package h1client

import (
	"bufio"
	"bytes"
	"cmp"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// written writes req with writeRequest and reads it back with net/http's
// server-side parser.
func written(t testing.TB, req *http.Request) (*http.Request, string, error) {
	var out bytes.Buffer
	bw := bufio.NewWriter(&out)
	if err := writeRequest(bw, req); err != nil {
		return nil, out.String(), err
	}
	if err := bw.Flush(); err != nil {
		return nil, "", err
	}
	got, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(out.Bytes())))
	if err != nil {
		t.Fatalf("net/http cannot read what was written: %v\n%s", err, out.String())
	}
	return got, out.String(), nil
}

func TestWriteRequest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		method  string
		url     string
		body    string
		setup   func(*http.Request)
		wantLen string
		wantUA  string
		check   func(t *testing.T, got *http.Request)
	}{
		{desc: "get", method: "GET", url: "http://b.test:8080/api/v1/account/?limit=2&offset=1", wantUA: defaultUserAgent,
			check: func(t *testing.T, got *http.Request) {
				assert.Equal(t, "/api/v1/account/?limit=2&offset=1", got.RequestURI)
				assert.Equal(t, "b.test:8080", got.Host)
			}},
		{desc: "post with body", method: "POST", url: "http://b.test/x", body: `{"Name":"A"}`, wantLen: "12", wantUA: defaultUserAgent},
		{desc: "delete without body says zero", method: "DELETE", url: "http://b.test/x/1", wantLen: "0", wantUA: defaultUserAgent},
		{desc: "escaped path kept", method: "GET", url: "http://b.test/a%2Fb/c%20d", wantUA: defaultUserAgent,
			check: func(t *testing.T, got *http.Request) { assert.Equal(t, "/a%2Fb/c%20d", got.RequestURI) }},
		{desc: "headers, several values, own user agent", method: "GET", url: "http://b.test/", wantUA: "restgate",
			setup: func(r *http.Request) {
				r.Header.Set("User-Agent", "restgate")
				r.Header.Add("Accept", "application/json")
				r.Header.Add("X-Many", "1")
				r.Header.Add("X-Many", "2")
			},
			check: func(t *testing.T, got *http.Request) {
				assert.Equal(t, "application/json", got.Header.Get("Accept"))
				assert.Equal(t, []string{"1", "2"}, got.Header["X-Many"])
			}},
		{desc: "empty user agent is left out", method: "GET", url: "http://b.test/", wantUA: "",
			setup: func(r *http.Request) { r.Header["User-Agent"] = []string{""} }},
		{desc: "host override and close", method: "GET", url: "http://10.0.0.1/", wantUA: defaultUserAgent,
			setup: func(r *http.Request) { r.Host = "crm.internal"; r.Close = true },
			check: func(t *testing.T, got *http.Request) {
				assert.Equal(t, "crm.internal", got.Host)
				assert.True(t, got.Close)
			}},
		{desc: "framing headers of the caller are not sent twice", method: "POST", url: "http://b.test/", body: "abc", wantLen: "3",
			wantUA: defaultUserAgent,
			setup: func(r *http.Request) {
				r.Header.Set("Content-Length", "99")
				r.Header.Set("Transfer-Encoding", "chunked")
				r.Header.Set("Host", "evil.test")
			},
			check: func(t *testing.T, got *http.Request) {
				assert.Equal(t, "b.test", got.Host)
				assert.Empty(t, got.TransferEncoding)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			req, err := http.NewRequest(tt.method, tt.url, body)
			require.NoError(t, err)
			if tt.setup != nil {
				tt.setup(req)
			}
			got, raw, err := written(t, req)
			require.NoError(t, err)
			assert.Equal(t, tt.method, got.Method)
			assert.Equal(t, tt.wantLen, got.Header.Get("Content-Length"), raw)
			assert.Equal(t, tt.wantUA, got.Header.Get("User-Agent"))
			b, err := io.ReadAll(got.Body)
			require.NoError(t, err)
			assert.Equal(t, tt.body, string(b))
			if tt.check != nil {
				tt.check(t, got)
			}
		})
	}
}

func TestWriteRequestRefusesInjection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc  string
		setup func(*http.Request)
	}{
		{desc: "newline in a value", setup: func(r *http.Request) { r.Header["X-A"] = []string{"1\r\nX-Injected: yes"} }},
		{desc: "bare newline in a value", setup: func(r *http.Request) { r.Header["X-A"] = []string{"1\nX-Injected: yes"} }},
		{desc: "space in a name", setup: func(r *http.Request) { r.Header["X A"] = []string{"1"} }},
		{desc: "colon in a name", setup: func(r *http.Request) { r.Header["X:A"] = []string{"1"} }},
		{desc: "method with a space", setup: func(r *http.Request) { r.Method = "GET /other" }},
		{desc: "host with a newline", setup: func(r *http.Request) { r.Host = "a.test\r\nX-Injected: yes" }},
		{desc: "user agent with a newline", setup: func(r *http.Request) { r.Header["User-Agent"] = []string{"x\r\ny: z"} }},
		{desc: "body shorter than its length", setup: func(r *http.Request) {
			r.Body = io.NopCloser(strings.NewReader("ab"))
			r.ContentLength = 3
		}},
		{desc: "body longer than its length", setup: func(r *http.Request) {
			r.Body = io.NopCloser(strings.NewReader("abcd"))
			r.ContentLength = 3
		}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			req, err := http.NewRequest(http.MethodPost, "http://b.test/", nil)
			require.NoError(t, err)
			tt.setup(req)
			_, raw, err := written(t, req)
			require.ErrorIs(t, err, ErrInvalidRequest)
			assert.NotContains(t, raw, "X-Injected")
		})
	}
}

// FuzzWriteRequest writes requests with arbitrary method, path, header and
// body: writeRequest either refuses one or writes what net/http reads back
// as the same request, never a second message.
func FuzzWriteRequest(f *testing.F) {
	f.Add("GET", "/api/v1/account/", "Accept", "application/json", "")
	f.Add("POST", "/x?y=1", "X-Key", "a\tb", `{"a":1}`)
	f.Add("PUT", "/", "X-A", "1\r\n\r\nGET / HTTP/1.1", "body")
	f.Add("GET", "/ HTTP/1.1\r\nX: y", "X", "y", "")
	f.Fuzz(func(t *testing.T, method, path, name, value, body string) {
		req, err := http.NewRequest(http.MethodGet, "http://b.test/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Method = method
		req.URL.Path = path
		req.Header[name] = []string{value}
		if body != "" {
			req.Body = io.NopCloser(strings.NewReader(body))
			req.ContentLength = int64(len(body))
		}
		var out bytes.Buffer
		bw := bufio.NewWriter(&out)
		if err := writeRequest(bw, req); err != nil {
			return
		}
		_ = bw.Flush()
		br := bufio.NewReader(bytes.NewReader(out.Bytes()))
		got, err := http.ReadRequest(br)
		if err != nil {
			// net/http's reader is stricter on some values it would
			// also have written; what matters is that nothing else
			// follows as a second request.
			return
		}
		b, _ := io.ReadAll(got.Body)
		if string(b) != body {
			t.Fatalf("body %q read back as %q", body, b)
		}
		if want := cmp.Or(method, http.MethodGet); got.Method != want {
			t.Fatalf("method %q read back as %q", want, got.Method)
		}
		if br.Buffered() != 0 {
			t.Fatalf("bytes after the request: %q", out.String())
		}
	})
}
