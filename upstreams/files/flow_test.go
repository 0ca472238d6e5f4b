package files

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// connectFake is the Connect API of v36.0 and later as its documentation
// shows it: POST .../files/users/me takes a multipart body with a "json"
// part ({"title"}) and the binary part "fileData" and answers 201 with a
// File Detail; the feed-elements batch takes application/json inputs whose
// richInput attaches files by id (capabilities.files.items) and answers
// {"hasErrors", "results": [{"statusCode", "result"}]}. A file named
// "refused.exe" is refused with 400 FILE_EXTENSION_NOT_ALLOWED.
type connectFake struct {
	mu      sync.Mutex
	uploads []string
	batch   []string
}

func (f *connectFake) serve(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/services/data/v62.0/connect/communities/0DB/files/users/me":
			mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
			require.NoError(t, err)
			require.Equal(t, "multipart/form-data", mt)
			mr := multipart.NewReader(r.Body, params["boundary"])
			var title, filename, content string
			for {
				p, err := mr.NextPart()
				if errors.Is(err, io.EOF) {
					break
				}
				require.NoError(t, err)
				b, _ := io.ReadAll(p)
				switch p.FormName() {
				case "json":
					var in struct{ Title string }
					require.NoError(t, json.Unmarshal(b, &in))
					title = in.Title
				case "fileData":
					filename, content = p.FileName(), string(b)
				default:
					t.Errorf("unexpected part %q", p.FormName())
				}
			}
			if filename == "refused.exe" {
				w.WriteHeader(http.StatusBadRequest)
				_, _ = io.WriteString(w, `[{"errorCode":"FILE_EXTENSION_NOT_ALLOWED","message":"File extension not allowed"}]`)
				return
			}
			f.mu.Lock()
			f.uploads = append(f.uploads, title+"="+content)
			id := "069xx00000000" + string(rune('A'+len(f.uploads)))
			f.mu.Unlock()
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, `{"id":"`+id+`","title":"`+title+`","url":"/services/data/v62.0/connect/files/`+id+`"}`)
		case "/services/data/v62.0/connect/communities/0DB/chatter/feed-elements/batch":
			assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
			var body struct {
				Inputs []struct {
					BinaryPartNames []string `json:"binaryPartNames"`
					RichInput       struct {
						SubjectID    string `json:"subjectId"`
						Capabilities struct {
							Files struct {
								Items []struct{ ID string } `json:"items"`
							} `json:"files"`
						} `json:"capabilities"`
					} `json:"richInput"`
				} `json:"inputs"`
			}
			require.NoError(t, json.NewDecoder(r.Body).Decode(&body))
			var results []string
			for _, in := range body.Inputs {
				assert.Empty(t, in.BinaryPartNames, "no binary part from v36.0")
				require.Len(t, in.RichInput.Capabilities.Files.Items, 1)
				fileID := in.RichInput.Capabilities.Files.Items[0].ID
				f.mu.Lock()
				f.batch = append(f.batch, in.RichInput.SubjectID+":"+fileID)
				f.mu.Unlock()
				results = append(results, `{"statusCode":201,"result":{"id":"0D5`+fileID[3:]+`","capabilities":{"files":{"items":[{"id":"`+fileID+`"}]}}}}`)
			}
			_, _ = io.WriteString(w, `{"hasErrors":false,"results":[`+strings.Join(results, ",")+`]}`)
		default:
			t.Errorf("unexpected path %s", r.URL.Path)
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestUploadThenPostFromVersion36(t *testing.T) {
	t.Parallel()
	fake := &connectFake{}
	srv := fake.serve(t)
	c, err := New(srv.URL, "v62.0", "0DB", srv.Client())
	require.NoError(t, err)
	results, err := c.Upload(context.Background(), "001A", []File{
		memFile("Receipt", "receipt.pdf", "%PDF-1"),
		memFile("Virus", "refused.exe", "MZ"),
		memFile("Notes", "notes.txt", "hello"),
	})
	require.NoError(t, err)
	assert.Equal(t, []Result{
		{Title: "Receipt", StatusCode: 201, ID: "0D5xx00000000B"},
		{Title: "Virus", StatusCode: 400, Errors: []ItemError{{ErrorCode: "FILE_EXTENSION_NOT_ALLOWED", Message: "File extension not allowed"}}},
		{Title: "Notes", StatusCode: 201, ID: "0D5xx00000000C"},
	}, results)
	assert.Equal(t, []string{"Receipt=%PDF-1", "Notes=hello"}, fake.uploads)
	assert.Equal(t, []string{"001A:069xx00000000B", "001A:069xx00000000C"}, fake.batch, "one batch post for the uploaded files")
}
