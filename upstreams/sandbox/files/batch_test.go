package files

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	upfiles "github.com/restgate/gateway/upstreams/files"
	"github.com/restgate/gateway/upstreams/sandbox/sandboxdb"
)

const batchPath = "/services/data/v35.0/connect/communities/0DBxx0000004CAe/chatter/feed-elements/batch"

type fixture struct {
	db  *sql.DB
	dir string
	srv *httptest.Server
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	db, err := sandboxdb.Open(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	dir := filepath.Join(t.TempDir(), "files")
	h, err := New(db, dir)
	require.NoError(t, err)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &fixture{db: db, dir: dir, srv: srv}
}

// bearer adds the token the shared client would add from configuration.
type bearer struct{ c *http.Client }

func (b bearer) Do(r *http.Request) (*http.Response, error) {
	r.Header.Set("Authorization", "Bearer 00Dxx0000001gPL!token")
	return b.c.Do(r)
}

func (f *fixture) rowCount(t testing.TB) int {
	var n int
	require.NoError(t, f.db.QueryRow(`SELECT COUNT(*) FROM files_items`).Scan(&n))
	return n
}

func (f *fixture) storedDirs(t testing.TB) []os.DirEntry {
	entries, err := os.ReadDir(f.dir)
	require.NoError(t, err)
	return entries
}

func TestBatchThroughTheAdapter(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	client, err := upfiles.New(fx.srv.URL, "v35.0", "0DBxx0000004CAe", bearer{fx.srv.Client()})
	require.NoError(t, err)
	contents := []string{"%PDF-1.4 receipt", "\x00\x01binary\r\n--"}
	in := []upfiles.File{
		{Title: "Receipt", Filename: "receipt.pdf", Size: int64(len(contents[0])), Open: opener(contents[0])},
		{Title: "../../etc/passwd", Filename: "../../evil name.bin", Size: int64(len(contents[1])), Open: opener(contents[1])},
	}
	results, err := client.Upload(context.Background(), "001xx000003DGb2", in)
	require.NoError(t, err)
	require.Len(t, results, 2)
	for i, r := range results {
		assert.Equal(t, http.StatusCreated, r.StatusCode)
		assert.Equal(t, in[i].Title, r.Title)
		assert.True(t, strings.HasPrefix(r.ID, "0D5") && len(r.ID) == 18, r.ID)
		assert.Empty(t, r.Errors)

		var stored string
		var size int64
		require.NoError(t, fx.db.QueryRow(`SELECT stored_path, size FROM files_items WHERE id = ? AND subject_id = ? AND title = ?`,
			r.ID, "001xx000003DGb2", in[i].Title).Scan(&stored, &size))
		assert.Equal(t, int64(len(contents[i])), size)
		assert.Equal(t, filepath.Join(fx.dir, r.ID), filepath.Dir(stored), "stored inside the item's own directory")
		got, err := os.ReadFile(stored)
		require.NoError(t, err)
		assert.Equal(t, contents[i], string(got))
	}
	assert.Equal(t, 2, fx.rowCount(t))
}

func opener(s string) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(s)), nil }
}

// rawPart is a part of a hand-built batch body.
type rawPart struct {
	name, filename, contentType, body string
}

// batchBoundary is fixed so that fuzzed bodies can keep it.
const batchBoundary = "sandbox-batch-boundary-42"

func batchBody(t testing.TB, parts ...rawPart) (string, []byte) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	require.NoError(t, w.SetBoundary(batchBoundary))
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		cd := `form-data; name="` + p.name + `"`
		if p.filename != "" {
			cd += `; filename="` + p.filename + `"`
		}
		h.Set("Content-Disposition", cd)
		if p.contentType != "" {
			h.Set("Content-Type", p.contentType)
		}
		pw, err := w.CreatePart(h)
		require.NoError(t, err)
		_, err = io.WriteString(pw, p.body)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return w.FormDataContentType(), buf.Bytes()
}

func jsonPart(body string) rawPart {
	return rawPart{name: "json", contentType: "application/json; charset=UTF-8", body: body}
}

func binPart(name, filename, body string) rawPart {
	return rawPart{name: name, filename: filename, contentType: "application/octet-stream", body: body}
}

func input(part, subject, title string) string {
	return `{"binaryPartNames": ["` + part + `"], "richInput": {"subjectId": "` + subject +
		`", "capabilities": {"content": {"title": "` + title + `"}}, "feedElementType": "FeedItem"}}`
}

func postBatch(t testing.TB, fx *fixture, path, contentType string, body []byte, auth bool) (int, []byte) {
	req, err := http.NewRequest(http.MethodPost, fx.srv.URL+path, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", contentType)
	if auth {
		req.Header.Set("Authorization", "Bearer tok")
	}
	resp, err := fx.srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, data
}

func TestBatchItemErrors(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	ct, body := batchBody(t,
		jsonPart(`{"inputs": [`+input("file1", "001A", "")+`, `+input("file2", "001A", "missing")+`, `+input("file3", "", "no subject")+`]}`),
		binPart("file1", "a.txt", "aaa"),
		binPart("file3", "c.txt", "ccc"),
	)
	status, data := postBatch(t, fx, batchPath, ct, body, true)
	require.Equal(t, http.StatusOK, status, string(data))
	var got struct {
		HasErrors bool `json:"hasErrors"`
		Results   []struct {
			StatusCode int             `json:"statusCode"`
			Result     json.RawMessage `json:"result"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal(data, &got))
	assert.True(t, got.HasErrors)
	require.Len(t, got.Results, 3)
	assert.Equal(t, []int{201, 400, 400}, []int{got.Results[0].StatusCode, got.Results[1].StatusCode, got.Results[2].StatusCode})

	var item struct {
		ID           string `json:"id"`
		Type         string `json:"type"`
		Capabilities struct {
			Content struct {
				ID    string `json:"id"`
				Title string `json:"title"`
			} `json:"content"`
		} `json:"capabilities"`
	}
	require.NoError(t, json.Unmarshal(got.Results[0].Result, &item))
	assert.Equal(t, "ContentPost", item.Type)
	assert.True(t, strings.HasPrefix(item.ID, "0D5"))
	assert.True(t, strings.HasPrefix(item.Capabilities.Content.ID, "069"))
	assert.Equal(t, "a.txt", item.Capabilities.Content.Title, "title defaults to the filename")
	for _, r := range got.Results[1:] {
		var errs []struct{ ErrorCode, Message string }
		require.NoError(t, json.Unmarshal(r.Result, &errs))
		require.Len(t, errs, 1)
		assert.Equal(t, "INVALID_API_INPUT", errs[0].ErrorCode)
		assert.NotEmpty(t, errs[0].Message)
	}
	assert.Equal(t, 1, fx.rowCount(t))
	assert.Len(t, fx.storedDirs(t), 1, "only the created item keeps a file")
}

func TestBatchRejects(t *testing.T) {
	t.Parallel()
	one := `{"inputs": [` + input("file1", "001A", "t") + `]}`
	multipartOf := func(parts ...rawPart) func(testing.TB) (string, []byte) {
		return func(t testing.TB) (string, []byte) { return batchBody(t, parts...) }
	}
	tests := []struct {
		desc     string
		path     string
		noAuth   bool
		body     func(testing.TB) (string, []byte)
		status   int
		code     string
		itemCode string
	}{
		{desc: "no token", noAuth: true, body: multipartOf(jsonPart(one), binPart("file1", "a", "x")), status: 401, code: "INVALID_SESSION_ID"},
		{desc: "neither multipart nor JSON", body: func(testing.TB) (string, []byte) { return "text/plain", []byte(one) }, status: 415, code: "UNSUPPORTED_MEDIA_TYPE"},
		{desc: "json part missing", body: multipartOf(binPart("file1", "a", "x")), status: 400, code: "INVALID_API_INPUT"},
		{desc: "json part not JSON typed", body: multipartOf(rawPart{name: "json", contentType: "text/plain", body: one}), status: 400, code: "INVALID_API_INPUT"},
		{desc: "json part invalid", body: multipartOf(jsonPart(`{"inputs": [`)), status: 400, code: "JSON_PARSER_ERROR"},
		{desc: "no inputs", body: multipartOf(jsonPart(`{"inputs": []}`)), status: 400, code: "INVALID_API_INPUT"},
		{desc: "part no input names", body: multipartOf(jsonPart(one), binPart("file1", "a", "x"), binPart("file9", "b", "y")), status: 400, code: "INVALID_MULTIPART_REQUEST"},
		{desc: "part sent twice", body: multipartOf(jsonPart(one), binPart("file1", "a", "x"), binPart("file1", "b", "y")), status: 400, code: "INVALID_MULTIPART_REQUEST"},
		{desc: "binary part without filename", body: multipartOf(jsonPart(one), rawPart{name: "file1", body: "x"}), status: 400, code: "INVALID_MULTIPART_REQUEST"},
		{desc: "two inputs name one part", body: multipartOf(jsonPart(`{"inputs": [` + input("file1", "001A", "t") + `, ` + input("file1", "001A", "u") + `]}`)), status: 400, code: "INVALID_API_INPUT"},
		{desc: "binary parts on v36.0", path: strings.Replace(batchPath, "v35.0", "v36.0", 1),
			body: multipartOf(jsonPart(one), binPart("file1", "a", "x")), status: 200, itemCode: "INVALID_API_INPUT"},
		{desc: "bad version", path: strings.Replace(batchPath, "v35.0", "latest", 1),
			body: multipartOf(jsonPart(one), binPart("file1", "a", "x")), status: 404, code: "NOT_FOUND"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			fx := newFixture(t)
			path := tt.path
			if path == "" {
				path = batchPath
			}
			ct, body := tt.body(t)
			status, data := postBatch(t, fx, path, ct, body, !tt.noAuth)
			require.Equal(t, tt.status, status, string(data))
			if tt.itemCode != "" {
				assert.Contains(t, string(data), `"hasErrors":true`)
				assert.Contains(t, string(data), tt.itemCode)
			} else {
				var errs []struct{ ErrorCode, Message string }
				require.NoError(t, json.Unmarshal(data, &errs), string(data))
				require.Len(t, errs, 1)
				assert.Equal(t, tt.code, errs[0].ErrorCode)
			}
			assert.Zero(t, fx.rowCount(t))
			assert.Empty(t, fx.storedDirs(t), "nothing stored")
		})
	}
}

func TestSafeName(t *testing.T) {
	t.Parallel()
	tests := []struct{ desc, in, want string }{
		{desc: "plain", in: "receipt.pdf", want: "receipt.pdf"},
		{desc: "path", in: "../../etc/passwd", want: "passwd"},
		{desc: "windows path", in: `C:\Users\a\b.txt`, want: "b.txt"},
		{desc: "hidden", in: "..hidden", want: "hidden"},
		{desc: "spaces and unicode", in: "my fïle.txt", want: "my_f_le.txt"},
		{desc: "nothing left", in: "..", want: "file"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, safeName(tt.in))
		})
	}
}

func FuzzSafeName(f *testing.F) {
	for _, s := range []string{"a.txt", "../x", `..\..\y`, "", "/", "日本.pdf", strings.Repeat("z", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := safeName(in)
		assert.NotEmpty(t, out)
		assert.LessOrEqual(t, len(out), 200)
		assert.NotContains(t, out, "/")
		assert.NotContains(t, out, `\`)
		assert.False(t, strings.HasPrefix(out, "."))
	})
}

func FuzzBatch(f *testing.F) {
	fx := newFixture(f)
	_, body := batchBody(f, jsonPart(`{"inputs": [`+input("file1", "001A", "t")+`]}`), binPart("file1", "a.txt", "x"))
	f.Add(body)
	_, body = batchBody(f, jsonPart(`{"inputs": [`+input("file1", "", "t")+`, `+input("file2", "1", "")+`]}`), binPart("file2", "b", "y"))
	f.Add(body)
	f.Add([]byte("--" + batchBoundary + "\r\n\r\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		status, data := postBatch(t, fx, batchPath, "multipart/form-data; boundary="+batchBoundary, body, true)
		if status != http.StatusOK && status != http.StatusBadRequest {
			t.Fatalf("status %d: %s", status, data)
		}
		assert.True(t, json.Valid(data))
	})
}
