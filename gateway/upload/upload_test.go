package upload

import (
	"bytes"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// formPart is one part of a test body: a field when filename is empty and
// file is false, a file part otherwise.
type formPart struct {
	name, filename, body string
	file                 bool
}

func field(name, v string) formPart { return formPart{name: name, body: v} }
func filePart(filename, body string) formPart {
	return formPart{name: "file", filename: filename, body: body, file: true}
}

const boundary = "test-boundary-0123456789"

func buildBody(t testing.TB, parts ...formPart) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	require.NoError(t, w.SetBoundary(boundary))
	for _, p := range parts {
		var pw io.Writer
		var err error
		if p.file {
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", `form-data; name="`+p.name+`"; filename="`+p.filename+`"`)
			h.Set("Content-Type", "application/octet-stream")
			pw, err = w.CreatePart(h)
		} else {
			pw, err = w.CreateFormField(p.name)
		}
		require.NoError(t, err)
		_, err = io.WriteString(pw, p.body)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func readBody(body []byte, dir string, limits Limits) (*Upload, error) {
	return Read(multipart.NewReader(bytes.NewReader(body), boundary), dir, limits)
}

func assertEmptyDir(t testing.TB, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "spool files left behind")
}

func TestReadAccepts(t *testing.T) {
	t.Parallel()
	type want struct{ title, filename, content string }
	tests := []struct {
		desc    string
		parts   []formPart
		subject string
		files   []want
	}{
		{
			desc:    "one file, default title",
			parts:   []formPart{field("subjectId", "001A"), filePart("receipt.pdf", "%PDF-1.4")},
			subject: "001A",
			files:   []want{{"receipt.pdf", "receipt.pdf", "%PDF-1.4"}},
		},
		{
			desc: "titles pair with files in order, subject last, empty title defaults",
			parts: []formPart{
				field("title", "First"), filePart("a.txt", "aaa"), filePart("b.txt", ""),
				field("title", ""), filePart("c.bin", "\x00\x01\xff"), field("subjectId", " 001B "),
			},
			subject: "001B",
			files:   []want{{"First", "a.txt", "aaa"}, {"b.txt", "b.txt", ""}, {"c.bin", "c.bin", "\x00\x01\xff"}},
		},
		{
			desc:    "a path in the filename keeps only its base",
			parts:   []formPart{field("subjectId", "001C"), filePart("dir/sub/x.png", "png")},
			subject: "001C",
			files:   []want{{"x.png", "x.png", "png"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			up, err := readBody(buildBody(t, tt.parts...), dir, Limits{})
			require.NoError(t, err)
			assert.Equal(t, tt.subject, up.SubjectID)
			require.Len(t, up.Files, len(tt.files))
			for i, w := range tt.files {
				f := up.Files[i]
				assert.Equal(t, w.title, f.Title)
				assert.Equal(t, w.filename, f.Filename)
				assert.Equal(t, int64(len(w.content)), f.Size)
				rc, err := f.Open()
				require.NoError(t, err)
				got, err := io.ReadAll(rc)
				require.NoError(t, err)
				require.NoError(t, rc.Close())
				assert.Equal(t, w.content, string(got))
			}
			require.NoError(t, up.Close())
			require.NoError(t, up.Close(), "Close twice")
			assertEmptyDir(t, dir)
		})
	}
}

func TestReadRefuses(t *testing.T) {
	t.Parallel()
	ok := field("subjectId", "001A")
	tests := []struct {
		desc      string
		body      []byte
		limits    Limits
		wantField string
		tooLarge  bool
	}{
		{desc: "missing subjectId", body: buildBody(t, filePart("a", "x")), wantField: "subjectId"},
		{desc: "blank subjectId", body: buildBody(t, field("subjectId", "  "), filePart("a", "x")), wantField: "subjectId"},
		{desc: "subjectId twice", body: buildBody(t, ok, field("subjectId", "002"), filePart("a", "x")), wantField: "subjectId"},
		{desc: "no file", body: buildBody(t, ok), wantField: "file"},
		{desc: "file part without filename", body: buildBody(t, ok, field("file", "x")), wantField: "file"},
		{desc: "unknown part", body: buildBody(t, ok, filePart("a", "x"), field("subject", "x")), wantField: "subject"},
		{desc: "more titles than files", body: buildBody(t, ok, field("title", "a"), field("title", "b"), filePart("a", "x")), wantField: "title"},
		{desc: "too many files", body: buildBody(t, ok, filePart("a", "x"), filePart("b", "y"), filePart("c", "z")), limits: Limits{MaxFiles: 2}, wantField: "file"},
		{desc: "field too long", body: buildBody(t, field("subjectId", strings.Repeat("1", 9)), filePart("a", "x")), limits: Limits{MaxFieldBytes: 8}, wantField: "subjectId"},
		{desc: "malformed body", body: []byte("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nunterminated"), wantField: ""},
		{desc: "not multipart at all", body: []byte("hello"), wantField: ""},
		{desc: "files over the total", body: buildBody(t, ok, filePart("a", "12345"), filePart("b", "67890")), limits: Limits{MaxTotalBytes: 12}, tooLarge: true},
		{desc: "fields count toward the total", body: buildBody(t, field("subjectId", "0123456789"), filePart("a", "12")), limits: Limits{MaxTotalBytes: 11}, tooLarge: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			up, err := readBody(tt.body, dir, tt.limits)
			require.Error(t, err)
			assert.Nil(t, up)
			if tt.tooLarge {
				assert.ErrorIs(t, err, ErrTooLarge)
			} else {
				var ie *InputError
				require.ErrorAs(t, err, &ie)
				assert.Equal(t, tt.wantField, ie.Field)
				assert.NotEmpty(t, ie.Reason)
			}
			assertEmptyDir(t, dir)
		})
	}
}

func TestReadExactTotalFits(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	body := buildBody(t, field("subjectId", "01"), filePart("a", "123"))
	up, err := readBody(body, dir, Limits{MaxTotalBytes: 5})
	require.NoError(t, err)
	assert.Equal(t, int64(3), up.Files[0].Size)
	require.NoError(t, up.Close())
	assertEmptyDir(t, dir)
}

func TestReadMaxBytesReaderIsTooLarge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	body := buildBody(t, field("subjectId", "01"), filePart("a", strings.Repeat("x", 4096)))
	req := httptest.NewRequest(http.MethodPost, "/v1/files", bytes.NewReader(body))
	req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
	req.Body = http.MaxBytesReader(httptest.NewRecorder(), req.Body, 1024)
	mr, err := req.MultipartReader()
	require.NoError(t, err)
	_, err = Read(mr, dir, Limits{})
	assert.ErrorIs(t, err, ErrTooLarge)
	assertEmptyDir(t, dir)
}

func TestReadUnwritableDirIsLocalError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/missing"
	_, err := readBody(buildBody(t, field("subjectId", "01"), filePart("a", "x")), dir, Limits{})
	require.Error(t, err)
	var ie *InputError
	assert.False(t, errors.As(err, &ie), "a local failure is not the client's fault")
	assert.NotErrorIs(t, err, ErrTooLarge)
}

func FuzzRead(f *testing.F) {
	f.Add(buildBody(f, field("subjectId", "001"), filePart("a.txt", "hello"), field("title", "T")))
	f.Add(buildBody(f, filePart("a", "x"), filePart("", "y")))
	f.Add(buildBody(f, field("subjectId", "1"), field("title", "a"), field("title", "b")))
	f.Add([]byte("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\nxx"))
	f.Add([]byte("--" + boundary + "--\r\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, body []byte) {
		dir := t.TempDir()
		up, err := readBody(body, dir, Limits{MaxFiles: 4, MaxTotalBytes: 1 << 16, MaxFieldBytes: 64})
		if err == nil {
			require.NotNil(t, up)
			assert.NotEmpty(t, up.SubjectID)
			assert.NotEmpty(t, up.Files)
			for _, file := range up.Files {
				assert.NotEmpty(t, file.Title)
				assert.NotEmpty(t, file.Filename)
			}
			require.NoError(t, up.Close())
		} else {
			var ie *InputError
			if !errors.As(err, &ie) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("unclassified error: %v", err)
			}
		}
		assertEmptyDir(t, dir)
	})
}

func BenchmarkRead(b *testing.B) {
	body := buildBody(b, field("subjectId", "001"), filePart("a.bin", strings.Repeat("x", 1<<20)), field("title", "A"))
	dir := b.TempDir()
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		up, err := readBody(body, dir, Limits{})
		if err != nil {
			b.Fatal(err)
		}
		if err := up.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
