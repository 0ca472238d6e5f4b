package files

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/restgate/gateway/upstreams"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

const batchPath = "/services/data/v35.0/connect/communities/0DBxx0000004CAe/chatter/feed-elements/batch"

func memFile(title, filename, content string) File {
	return File{
		Title: title, Filename: filename, Size: int64(len(content)),
		Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(content)), nil },
	}
}

// receivedPart is one part as the strict fake saw it.
type receivedPart struct {
	name, filename, contentType string
	body                        []byte
}

// strictBackend parses the batch request the way the real resource does and
// fails the test on anything undocumented; answer writes the reply.
func strictBackend(t *testing.T, answer func(w http.ResponseWriter, parts []receivedPart)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		assert.Equal(t, http.MethodPost, r.Method)
		assert.Equal(t, batchPath, r.URL.Path)
		assert.Equal(t, "application/json", r.Header.Get("Accept"))
		assert.Empty(t, r.TransferEncoding, "body must have a Content-Length, not be chunked")
		mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		assert.NoError(t, err)
		assert.Equal(t, "multipart/form-data", mt)
		counted := &countingReader{r: r.Body}
		mr := multipart.NewReader(counted, params["boundary"])
		var parts []receivedPart
		for {
			p, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			if !assert.NoError(t, err) {
				http.Error(w, "bad multipart", http.StatusBadRequest)
				return
			}
			b, err := io.ReadAll(p)
			assert.NoError(t, err)
			parts = append(parts, receivedPart{p.FormName(), p.FileName(), p.Header.Get("Content-Type"), b})
		}
		_, _ = io.Copy(io.Discard, counted)
		assert.Equal(t, r.ContentLength, counted.n, "Content-Length matches the body")
		answer(w, parts)
	}))
	t.Cleanup(srv.Close)
	return srv
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// newClient is a client of the files API at baseURL on a transport of the
// test's own: httptest's Close of another test's server closes
// http.DefaultTransport's idle connections, one of which a request here
// may be about to use.
func newClient(t *testing.T, baseURL string) *Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c, err := New(baseURL, "v35.0", "0DBxx0000004CAe", &http.Client{Transport: tr})
	require.NoError(t, err)
	return c
}

func TestUploadSendsTheDocumentedBatch(t *testing.T) {
	t.Parallel()
	binary := string([]byte{0, 1, 2, 0xff, '\r', '\n', '-', '-'})
	files := []File{
		memFile("Receipt", "receipt.pdf", "%PDF-1.4 body"),
		memFile("empty.txt", "empty.txt", ""),
		memFile(`A "quoted" title`, `na"me é.bin`, binary),
	}
	srv := strictBackend(t, func(w http.ResponseWriter, parts []receivedPart) {
		require.Len(t, parts, 4)
		assert.Equal(t, "json", parts[0].name)
		assert.Empty(t, parts[0].filename)
		assert.Equal(t, "application/json; charset=UTF-8", parts[0].contentType)
		assert.JSONEq(t, `{"inputs": [
			{"binaryPartNames": ["file1"], "richInput": {"subjectId": "001xx000003DGb2", "capabilities": {"content": {"title": "Receipt"}}, "feedElementType": "FeedItem"}},
			{"binaryPartNames": ["file2"], "richInput": {"subjectId": "001xx000003DGb2", "capabilities": {"content": {"title": "empty.txt"}}, "feedElementType": "FeedItem"}},
			{"binaryPartNames": ["file3"], "richInput": {"subjectId": "001xx000003DGb2", "capabilities": {"content": {"title": "A \"quoted\" title"}}, "feedElementType": "FeedItem"}}
		]}`, string(parts[0].body))
		wantNames := []string{"receipt.pdf", "empty.txt", `na"me é.bin`}
		wantBodies := []string{"%PDF-1.4 body", "", binary}
		for i, p := range parts[1:] {
			assert.Equal(t, "file"+strconv.Itoa(i+1), p.name)
			assert.Equal(t, wantNames[i], p.filename)
			assert.Equal(t, "application/octet-stream", p.contentType)
			assert.Equal(t, wantBodies[i], string(p.body))
		}
		_, _ = io.WriteString(w, `{"hasErrors": true, "results": [
			{"statusCode": 201, "result": {"id": "0D5xx0000000001", "type": "ContentPost"}},
			{"statusCode": 400, "result": [{"errorCode": "INVALID_API_INPUT", "message": "empty file"}]},
			{"statusCode": 201, "result": {"id": "0D5xx0000000003"}}]}`)
	})

	got, err := newClient(t, srv.URL+"/").Upload(context.Background(), "001xx000003DGb2", files)
	require.NoError(t, err)
	assert.Equal(t, []Result{
		{Title: "Receipt", StatusCode: 201, ID: "0D5xx0000000001"},
		{Title: "empty.txt", StatusCode: 400, Errors: []ItemError{{ErrorCode: "INVALID_API_INPUT", Message: "empty file"}}},
		{Title: `A "quoted" title`, StatusCode: 201, ID: "0D5xx0000000003"},
	}, got)
}

func TestUploadAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc     string
		status   int
		body     string
		wantKind upstreams.Kind
		wantCode string
		want     []Result
	}{
		{desc: "whole request rejected", status: 400, body: `[{"errorCode": "JSON_PARSER_ERROR", "message": "bad json"}]`, wantKind: upstreams.KindRejected, wantCode: "JSON_PARSER_ERROR"},
		{desc: "expired session", status: 401, body: `[{"errorCode": "INVALID_SESSION_ID", "message": "Session expired or invalid"}]`, wantKind: upstreams.KindRejected, wantCode: "INVALID_SESSION_ID"},
		{desc: "server error", status: 500, body: `oops`, wantKind: upstreams.KindFailed},
		{desc: "not JSON", status: 200, body: `<html>`, wantKind: upstreams.KindInvalid},
		{desc: "wrong result count", status: 200, body: `{"hasErrors": false, "results": []}`, wantKind: upstreams.KindInvalid},
		{desc: "success without id", status: 200, body: `{"hasErrors": false, "results": [{"statusCode": 201, "result": {}}]}`, wantKind: upstreams.KindInvalid},
		{desc: "item error as one object", status: 200, body: `{"hasErrors": true, "results": [{"statusCode": 403, "result": {"errorCode": "INSUFFICIENT_ACCESS", "message": "no"}}]}`,
			want: []Result{{Title: "t", StatusCode: 403, Errors: []ItemError{{ErrorCode: "INSUFFICIENT_ACCESS", Message: "no"}}}}},
		{desc: "item error without detail", status: 200, body: `{"hasErrors": true, "results": [{"statusCode": 500, "result": null}]}`,
			want: []Result{{Title: "t", StatusCode: 500, Errors: []ItemError{{Message: "Internal Server Error"}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			got, err := newClient(t, srv.URL).Upload(context.Background(), "001", []File{memFile("t", "t.txt", "x")})
			if tt.wantKind == 0 {
				require.NoError(t, err)
				assert.Equal(t, tt.want, got)
				return
			}
			ue := upstreams.AsError(err)
			require.NotNil(t, ue, "error %v", err)
			assert.Equal(t, Name, ue.Upstream)
			assert.Equal(t, tt.wantKind, ue.Kind)
			assert.Equal(t, tt.wantCode, ue.Code)
		})
	}
}

func TestUploadRefusesBadCalls(t *testing.T) {
	t.Parallel()
	many := make([]File, MaxFiles+1)
	for i := range many {
		many[i] = memFile("t", "f", "")
	}
	tests := []struct {
		desc    string
		subject string
		files   []File
		want    error
	}{
		{desc: "no subject", subject: " ", files: []File{memFile("t", "f", "x")}, want: ErrNoSubject},
		{desc: "no files", subject: "001", want: ErrNoFiles},
		{desc: "too many files", subject: "001", files: many, want: ErrTooManyFiles},
		{desc: "no Open", subject: "001", files: []File{{Title: "t", Filename: "f"}}, want: ErrBadFile},
	}
	c, err := New("http://127.0.0.1:1", "35.0", "c", doerFunc(func(*http.Request) (*http.Response, error) {
		t.Error("nothing may be sent")
		return nil, errors.New("unreachable")
	}))
	require.NoError(t, err)
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			_, err := c.Upload(context.Background(), tt.subject, tt.files)
			assert.ErrorIs(t, err, tt.want)
		})
	}
}

type doerFunc func(*http.Request) (*http.Response, error)

func (f doerFunc) Do(r *http.Request) (*http.Response, error) { return f(r) }

func TestUploadBodyCanBeProducedAgain(t *testing.T) {
	t.Parallel()
	c, err := New("https://example.my.salesforce.com", "v35.0", "0DB", doerFunc(func(r *http.Request) (*http.Response, error) {
		// For the shared client to send it again after renewing a token;
		// a POST is never retried after a failure.
		require.NotNil(t, r.GetBody)
		again, err := r.GetBody()
		require.NoError(t, err)
		first, _ := io.ReadAll(r.Body)
		second, _ := io.ReadAll(again)
		assert.Equal(t, first, second)
		_ = again.Close()
		assert.Equal(t, "https://example.my.salesforce.com"+strings.Replace(batchPath, "0DBxx0000004CAe", "0DB", 1), r.URL.String())
		return nil, errors.New("connection reset")
	}))
	require.NoError(t, err)
	_, err = c.Upload(context.Background(), "001", []File{memFile("t", "f", "x")})
	ue := upstreams.AsError(err)
	require.NotNil(t, ue)
	assert.Equal(t, upstreams.KindFailed, ue.Kind)
}

func TestUploadLocalFileFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc string
		file File
	}{
		{desc: "open fails", file: File{Title: "t", Filename: "gone.bin", Size: 3, Open: func() (io.ReadCloser, error) { return nil, errors.New("no such file") }}},
		{desc: "shorter than announced", file: File{Title: "t", Filename: "short.bin", Size: 10, Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("abc")), nil }}},
		{desc: "longer than announced", file: File{Title: "t", Filename: "long.bin", Size: 1, Open: func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("abc")), nil }}},
		{desc: "read fails", file: File{Title: "t", Filename: "bad.bin", Size: 3, Open: func() (io.ReadCloser, error) { return io.NopCloser(failingReader{}), nil }}},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, `{"hasErrors": false, "results": [{"statusCode": 201, "result": {"id": "0D5"}}]}`)
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, srv.URL)
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			_, err := c.Upload(context.Background(), "001", []File{tt.file})
			var le *LocalError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, tt.file.Filename, le.Filename)
			assert.Nil(t, upstreams.AsError(err), "not the backend's failure")
		})
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk error") }

func TestUploadBackendAnswersBeforeReadingTheBody(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `[{"errorCode": "INVALID_SESSION_ID", "message": "Session expired or invalid"}]`)
	}))
	defer srv.Close()
	big := bytes.Repeat([]byte("x"), 8<<20)
	f := File{Title: "big", Filename: "big.bin", Size: int64(len(big)), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(big)), nil
	}}
	_, err := newClient(t, srv.URL).Upload(context.Background(), "001", []File{f})
	ue := upstreams.AsError(err)
	require.NotNil(t, ue, "error %v", err)
	if ue.Kind == upstreams.KindRejected {
		assert.Equal(t, http.StatusUnauthorized, ue.Status)
	} else {
		// The transport may see the closed connection before the answer.
		assert.Equal(t, upstreams.KindFailed, ue.Kind)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, base, version, community string
		doer                           upstreams.Doer
		wantURL                        string
	}{
		{desc: "documented form", base: "https://x.my.salesforce.com/", version: "v35.0", community: "0DB1", doer: http.DefaultClient,
			wantURL: "https://x.my.salesforce.com/services/data/v35.0/connect/communities/0DB1/chatter/feed-elements/batch"},
		{desc: "bare version, escaped community", base: "http://127.0.0.1:8080", version: "34.0", community: "a/b", doer: http.DefaultClient,
			wantURL: "http://127.0.0.1:8080/services/data/v34.0/connect/communities/a%2Fb/chatter/feed-elements/batch"},
		{desc: "relative base", base: "/x", version: "v35.0", community: "c", doer: http.DefaultClient},
		{desc: "bad version", base: "http://h", version: "35", community: "c", doer: http.DefaultClient},
		{desc: "empty community", base: "http://h", version: "v35.0", community: "", doer: http.DefaultClient},
		{desc: "nil doer", base: "http://h", version: "v35.0", community: "c"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			c, err := New(tt.base, tt.version, tt.community, tt.doer)
			if tt.wantURL == "" {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantURL, c.url)
		})
	}
}

func FuzzParseAnswer(f *testing.F) {
	f.Add([]byte(`{"hasErrors": true, "results": [{"statusCode": 201, "result": {"id": "0D5"}}, {"statusCode": 400, "result": [{"errorCode": "E", "message": "m"}]}]}`))
	f.Add([]byte(`{"results": [{"statusCode": 404, "result": "text"}, {"statusCode": 500}]}`))
	f.Add([]byte(`{"results": [{"statusCode": 201, "result": []}, {"statusCode": 0}]}`))
	f.Add([]byte(`[]`))
	files := []File{memFile("a", "a", ""), memFile("b", "b", "")}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := parseAnswer(body, files)
		if err != nil {
			ue := upstreams.AsError(err)
			require.NotNil(t, ue)
			assert.Equal(t, upstreams.KindInvalid, ue.Kind)
			return
		}
		require.Len(t, got, 2)
		for _, r := range got {
			if r.StatusCode >= 200 && r.StatusCode <= 299 {
				assert.NotEmpty(t, r.ID)
			} else {
				assert.NotEmpty(t, r.Errors)
			}
		}
		_, err = json.Marshal(got)
		assert.NoError(t, err)
	})
}

func BenchmarkUpload(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, `{"hasErrors": false, "results": [{"statusCode": 201, "result": {"id": "0D5"}}, {"statusCode": 201, "result": {"id": "0D6"}}]}`)
	}))
	defer srv.Close()
	c, err := New(srv.URL, "v35.0", "c", srv.Client())
	require.NoError(b, err)
	content := bytes.Repeat([]byte("x"), 1<<20)
	f := File{Title: "t", Filename: "f.bin", Size: int64(len(content)), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(content)), nil
	}}
	files := []File{f, f}
	b.SetBytes(2 * int64(len(content)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Upload(context.Background(), "001", files); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzWriteBody(f *testing.F) {
	f.Add("Receipt", "receipt.pdf", "%PDF")
	f.Add(`q"uo\te`, "a\r\nX-Injected: 1", "")
	f.Add("日本", `..\..\x`, "\r\n--boundary--\r\n")
	f.Fuzz(func(t *testing.T, title, filename, content string) {
		files := []File{memFile(title, filename, content), memFile("second", "b.bin", "b")}
		rich, err := batchJSON("001", files)
		require.NoError(t, err)
		const boundary = "fuzz-boundary-0123456789"
		want, err := measure(func(w io.Writer, send bool) error { return writeBody(w, boundary, rich, files, partName, send) }, files)
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, writeBody(&buf, boundary, rich, files, partName, true))
		assert.Equal(t, want, int64(buf.Len()), "announced length is the written length")

		mr := multipart.NewReader(&buf, boundary)
		var names []string
		var bodies [][]byte
		for {
			p, err := mr.NextPart()
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			b, err := io.ReadAll(p)
			require.NoError(t, err)
			names = append(names, p.FormName())
			bodies = append(bodies, b)
		}
		require.Equal(t, []string{"json", "file1", "file2"}, names, "no part injected or lost")
		var got struct {
			Inputs []batchInput `json:"inputs"`
		}
		require.NoError(t, json.Unmarshal(bodies[0], &got))
		require.Len(t, got.Inputs, 2)
		if utf8.ValidString(title) {
			assert.Equal(t, title, got.Inputs[0].RichInput.Capabilities.Content.Title)
		}
		assert.Equal(t, content, string(bodies[1]))
	})
}
