package files_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/handlers/handlertest"
)

// received is one binary part as the backend got it.
type received struct {
	name, filename, contentType, content string
}

// batchInput is one input of the rich json part.
type batchInput struct {
	BinaryPartNames []string `json:"binaryPartNames"`
	RichInput       struct {
		SubjectID    string `json:"subjectId"`
		Capabilities struct {
			Content struct {
				Title string `json:"title"`
			} `json:"content"`
		} `json:"capabilities"`
		FeedElementType string `json:"feedElementType"`
	} `json:"richInput"`
}

// strictBatch is a batch upload backend that reads the request exactly as
// UPSTREAMS.md B3 describes it and answers 418 for any deviation; it
// records what it got and answers every file 201, except the filenames in
// refuse, answered 400 with an item error.
func strictBatch(t *testing.T, refuse ...string) (*httptest.Server, *[]batchInput, *[]received, *atomic.Int32) {
	t.Helper()
	var inputs []batchInput
	var parts []received
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		fail := func(format string, args ...any) {
			t.Errorf("batch backend: "+format, args...)
			w.WriteHeader(http.StatusTeapot)
			_, _ = io.WriteString(w, `[{"errorCode":"FAKE_MISMATCH","message":"mismatch"}]`)
		}
		if r.Method != http.MethodPost || r.URL.Path != batchPath {
			fail("request %s %s", r.Method, r.URL)
			return
		}
		mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mt != "multipart/form-data" || r.ContentLength <= 0 {
			fail("content type %q, length %d", r.Header.Get("Content-Type"), r.ContentLength)
			return
		}
		mr := multipart.NewReader(r.Body, params["boundary"])
		first, err := mr.NextPart()
		if err != nil || first.FormName() != "json" || first.Header.Get("Content-Type") != "application/json; charset=UTF-8" {
			fail("first part is not the json part: %v", err)
			return
		}
		var rich struct {
			Inputs []batchInput `json:"inputs"`
		}
		dec := json.NewDecoder(first)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rich); err != nil {
			fail("json part: %v", err)
			return
		}
		inputs = rich.Inputs
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				fail("reading parts: %v", err)
				return
			}
			content, _ := io.ReadAll(p)
			parts = append(parts, received{p.FormName(), p.FileName(), p.Header.Get("Content-Type"), string(content)})
		}
		if len(parts) != len(inputs) {
			fail("%d inputs, %d binary parts", len(inputs), len(parts))
			return
		}
		results := make([]string, len(parts))
		for i, p := range parts {
			results[i] = fmt.Sprintf(`{"statusCode":201,"result":{"id":"0D5xx000000000%d","type":"ContentPost"}}`, i)
			for _, name := range refuse {
				if p.filename == name {
					results[i] = `{"statusCode":400,"result":[{"errorCode":"INVALID_FILE","message":"file type not allowed"}]}`
				}
			}
		}
		_, _ = fmt.Fprintf(w, `{"hasErrors":%t,"results":[%s]}`, len(refuse) > 0, strings.Join(results, ","))
	}))
	t.Cleanup(srv.Close)
	return srv, &inputs, &parts, &calls
}

func TestUploadSendsOneBatch(t *testing.T) {
	t.Parallel()
	srv, inputs, parts, calls := strictBatch(t, "virus.exe")
	g := newGateway(t, srv.URL, handlertest.Client(t), 1<<30)
	ct, body := form(t,
		part{name: "subjectId", content: subject},
		part{name: "title", content: "Receipt"},
		part{name: "file", filename: "receipt.pdf", content: "%PDF-1.4 receipt"},
		part{name: "file", filename: "virus.exe", content: "MZ"},
		part{name: "file", filename: "notes.txt", content: ""},
	)
	a := send(t, g, ct, bytes.NewReader(body))
	require.Equal(t, http.StatusOK, a.Status, "%+v", a.ResponseCode)
	assert.JSONEq(t, `[
		{"title":"Receipt","statusCode":201,"id":"0D5xx0000000000"},
		{"title":"virus.exe","statusCode":400,"errors":[{"errorCode":"INVALID_FILE","message":"file type not allowed"}]},
		{"title":"notes.txt","statusCode":201,"id":"0D5xx0000000002"}]`, string(a.Result))
	assert.Equal(t, int32(1), calls.Load(), "one batch request")

	require.Len(t, *inputs, 3)
	wantTitles := []string{"Receipt", "virus.exe", "notes.txt"}
	for i, in := range *inputs {
		assert.Equal(t, []string{fmt.Sprintf("file%d", i+1)}, in.BinaryPartNames)
		assert.Equal(t, subject, in.RichInput.SubjectID)
		assert.Equal(t, "FeedItem", in.RichInput.FeedElementType)
		assert.Equal(t, wantTitles[i], in.RichInput.Capabilities.Content.Title)
	}
	assert.Equal(t, []received{
		{"file1", "receipt.pdf", "application/octet-stream", "%PDF-1.4 receipt"},
		{"file2", "virus.exe", "application/octet-stream", "MZ"},
		{"file3", "notes.txt", "application/octet-stream", ""},
	}, *parts)

	assert.JSONEq(t, `{"files":3,"subjectId":"`+subject+`"}`, string(g.loggedBody()), "the log gets a summary, not the bytes")
	assert.Empty(t, g.spooled(t), "spool files removed")
}

func TestUploadRefusedForms(t *testing.T) {
	t.Parallel()
	srv, _, _, calls := strictBatch(t)
	g := newGateway(t, srv.URL, handlertest.Client(t), 1<<30)
	small := newGateway(t, srv.URL, handlertest.Client(t), 64)
	file := part{name: "file", filename: "a.txt", content: "a"}
	subj := part{name: "subjectId", content: subject}
	many := []part{subj}
	for i := 0; i < 501; i++ {
		many = append(many, part{name: "file", filename: fmt.Sprintf("f%d.txt", i), content: "x"})
	}
	tests := []struct {
		desc        string
		gw          *gateway
		contentType string
		parts       []part
		raw         string
		status      int
		code        string
		client      string
	}{
		{desc: "JSON body", gw: g, contentType: "application/json", raw: `{"subjectId":"x"}`,
			status: 415, code: "JSON_SERIALIZATION_FAILED", client: "multipart/form-data"},
		{desc: "no content type", gw: g, raw: "x", status: 415, code: "JSON_SERIALIZATION_FAILED", client: "multipart/form-data"},
		{desc: "multipart without boundary", gw: g, contentType: "multipart/form-data", raw: "x",
			status: 415, code: "JSON_SERIALIZATION_FAILED", client: "boundary"},
		{desc: "missing subjectId", gw: g, parts: []part{file}, status: 400, code: "PARAMETER_INVALID",
			client: "Invalid parameter subjectId: missing"},
		{desc: "blank subjectId", gw: g, parts: []part{{name: "subjectId", content: "  "}, file}, status: 400,
			code: "PARAMETER_INVALID", client: "Invalid parameter subjectId: missing"},
		{desc: "no file", gw: g, parts: []part{subj}, status: 400, code: "PARAMETER_INVALID",
			client: "Invalid parameter file: no file given"},
		{desc: "file part without filename", gw: g, parts: []part{subj, {name: "file", content: "a"}}, status: 400,
			code: "PARAMETER_INVALID", client: "Invalid parameter file: a file part without a filename"},
		{desc: "too many files", gw: g, parts: many, status: 400, code: "PARAMETER_INVALID",
			client: "Invalid parameter file: more than 500 files"},
		{desc: "unknown part", gw: g, parts: []part{subj, file, {name: "subject", content: "x"}}, status: 400,
			code: "PARAMETER_INVALID", client: "Invalid parameter subject: unknown part name"},
		{desc: "more titles than files", gw: g, parts: []part{subj, {name: "title", content: "a"}, {name: "title", content: "b"}, file},
			status: 400, code: "PARAMETER_INVALID", client: "Invalid parameter title"},
		{desc: "no parts", gw: g, contentType: "multipart/form-data; boundary=xyz", raw: "--xyz--\r\n", status: 400,
			code: "PARAMETER_INVALID", client: "Invalid parameter body"},
		{desc: "over the route's limit", gw: small, parts: []part{subj, {name: "file", filename: "big.bin", content: strings.Repeat("x", 100)}},
			status: 413, code: "REQUEST_TOO_LARGE"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			ct, body := tt.contentType, []byte(tt.raw)
			if tt.parts != nil {
				ct, body = form(t, tt.parts...)
			}
			a := send(t, tt.gw, ct, bytes.NewReader(body))
			assert.Equal(t, tt.status, a.Status)
			assert.Equal(t, tt.code, a.ResponseCode.ID)
			assert.Contains(t, a.ResponseCode.FormattedClientMessage, tt.client)
		})
	}
	t.Cleanup(func() {
		assert.Equal(t, int32(0), calls.Load(), "nothing reaches the backend")
		assert.Empty(t, g.spooled(t))
		assert.Empty(t, small.spooled(t))
	})
}

func TestUploadTooLargeWithoutContentLength(t *testing.T) {
	t.Parallel()
	srv, _, _, calls := strictBatch(t)
	g := newGateway(t, srv.URL, handlertest.Client(t), 1024)
	ct, body := form(t, part{name: "subjectId", content: subject},
		part{name: "file", filename: "big.bin", content: strings.Repeat("x", 4096)})
	// A reader of unknown length: only the body limit can stop it.
	a := send(t, g, ct, io.MultiReader(bytes.NewReader(body)))
	assert.Equal(t, http.StatusRequestEntityTooLarge, a.Status)
	assert.Equal(t, "REQUEST_TOO_LARGE", a.ResponseCode.ID)
	assert.Equal(t, int32(0), calls.Load())
	assert.Empty(t, g.spooled(t))
}

func TestUploadBackendFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc   string
		status int
		body   string
		want   int
		code   string
		system string
	}{
		{desc: "whole batch refused", status: 400, body: `[{"errorCode":"INVALID_ID_FIELD","message":"Invalid subject id"}]`,
			want: 400, code: "SOBJECT_OPERATION_FAILED", system: "Invalid subject id"},
		{desc: "session expired", status: 401, body: `[{"errorCode":"INVALID_SESSION_ID","message":"Session expired or invalid"}]`,
			want: 401, code: "SOBJECT_OPERATION_FAILED", system: "Session expired"},
		{desc: "server error", status: 500, body: `[{"errorCode":"UNKNOWN_EXCEPTION","message":"boom"}]`,
			want: 502, code: "CALLOUT_FAILED", system: "boom"},
		{desc: "success without results", status: 200, body: `{"hasErrors":false,"results":[]}`,
			want: 502, code: "CALLOUT_FAILED", system: "0 results for 1 files"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.WriteHeader(tt.status)
				_, _ = io.WriteString(w, tt.body)
			}))
			t.Cleanup(srv.Close)
			g := newGateway(t, srv.URL, handlertest.Client(t), 1<<20)
			ct, body := form(t, part{name: "subjectId", content: "001x"}, part{name: "file", filename: "a.txt", content: "a"})
			a := send(t, g, ct, bytes.NewReader(body))
			assert.Equal(t, tt.want, a.Status)
			assert.Equal(t, tt.code, a.ResponseCode.ID)
			assert.Contains(t, a.ResponseCode.FormattedSystemMessage, tt.system)
			assert.Empty(t, g.spooled(t), "spool files removed after a failure")
		})
	}
}
