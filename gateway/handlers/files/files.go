// Package files serves POST /{version}/files: a client's multipart/form-data
// upload (one or more "file" parts, a "subjectId" field, optional "title"
// fields) turned into ONE batch upload through upstreams/files, with one
// {title, statusCode, id | errors} per file as the result.
//
// No file is held in memory: gateway/upload spools each part to a file in
// the spool directory while the client sends it, and the adapter streams
// the spooled files to the backend; the spooled files are removed before
// the handler returns, whatever happened. The route's maxBodyBytes is the
// upload's total size limit.
//
// Answers:
//   - a Content-Type that is not multipart/form-data with a boundary:
//     JSON_SERIALIZATION_FAILED with 415 Unsupported Media Type (the code of
//     "the body is not what the operation takes", with the status HTTP has
//     for exactly this case);
//   - a form the upload reader refuses (no subjectId, no file, a file part
//     without filename, more than 500 files, an unknown part, a malformed
//     body): PARAMETER_INVALID 400 naming the field;
//   - more bytes than the limit: REQUEST_TOO_LARGE 413;
//   - the spool directory failing (disk full): DATABASE_OPERATION_FAILED 500,
//     the code of the gateway's own storage failing;
//   - the backend refusing the whole batch: SOBJECT_OPERATION_FAILED with
//     its 4xx; failing: CALLOUT_FAILED. A file the backend refused alone is
//     a result with its own statusCode and errors, and the answer is 200.
//
// The call log never sees the file bytes: Call.Body is a short summary,
// {"files": N, "subjectId": "..."}.
package files

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"mime/multipart"
	"net/http"
	"os"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/gateway/upload"
	upfiles "github.com/restgate/gateway/upstreams/files"
)

// Options configure the handler.
type Options struct {
	// SpoolDir holds the files of uploads in progress. It is created when
	// missing. Empty: os.TempDir(). It should be on a disk with room for the
	// largest upload times the concurrent uploads.
	SpoolDir string
	// MaxFiles caps the files of one upload. Default (and most) 500, the
	// batch upload's own limit.
	MaxFiles int
}

// New returns the factory of kind files: POST uploads the client's form.
// The factory fails when the upstream has no client or the spool directory
// cannot be created.
func New(clients router.Resolver[*upfiles.Client], opts Options) router.Factory {
	return func(rt *routes.Route) (map[string]call.Handler, error) {
		client, err := clients.Resolve(rt.Spec.Upstream)
		if err != nil {
			return nil, err
		}
		dir := opts.SpoolDir
		if dir == "" {
			dir = os.TempDir()
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("creating the upload spool directory: %w", err)
		}
		maxFiles := opts.MaxFiles
		if maxFiles <= 0 || maxFiles > upfiles.MaxFiles {
			maxFiles = upfiles.MaxFiles
		}
		h := &handler{client: client, dir: dir,
			limits: upload.Limits{MaxFiles: maxFiles, MaxTotalBytes: rt.Spec.MaxBodyBytes}}
		return map[string]call.Handler{http.MethodPost: h.post}, nil
	}
}

type handler struct {
	client *upfiles.Client
	dir    string
	limits upload.Limits
}

func (h *handler) post(r *http.Request, c *call.Call) (call.Result, error) {
	mr, err := multipartReader(r)
	if err != nil {
		return call.Result{}, err
	}
	up, err := upload.Read(mr, h.dir, h.limits)
	if err != nil {
		return call.Result{}, readError(err)
	}
	defer up.Close()
	c.Body = summary(up)

	batch := make([]upfiles.File, len(up.Files))
	for i, f := range up.Files {
		batch[i] = upfiles.File{Title: f.Title, Filename: f.Filename, Size: f.Size, Open: f.Open}
	}
	results, err := h.client.Upload(r.Context(), up.SubjectID, batch)
	if err != nil {
		var local *upfiles.LocalError
		if errors.As(err, &local) {
			return call.Result{}, envelope.Wrap(envelope.DatabaseOperationFailed, err)
		}
		return call.Result{}, call.Upstream(err, envelope.SObjectOperationFailed)
	}
	out, err := json.Marshal(results)
	if err != nil {
		return call.Result{}, err
	}
	return call.Result{JSON: out, Form: call.ExposedNames}, nil
}

// multipartReader checks the media type itself, so the client learns what
// is wrong instead of the standard library's generic error.
func multipartReader(r *http.Request) (*multipart.Reader, error) {
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, &envelope.Error{ID: envelope.JSONSerializationFailed, Status: http.StatusUnsupportedMediaType,
			Detail: "the body must be multipart/form-data with a boundary"}
	}
	return r.MultipartReader()
}

// readError maps the upload reader's errors to coded answers.
func readError(err error) error {
	var input *upload.InputError
	switch {
	case errors.Is(err, upload.ErrTooLarge):
		return envelope.New(envelope.RequestTooLarge, "the upload is over its size limit")
	case errors.As(err, &input) && input.Field != "":
		return &envelope.Error{ID: envelope.ParameterInvalid, Args: []string{input.Field, input.Reason}, Cause: err}
	case errors.As(err, &input):
		return &envelope.Error{ID: envelope.ParameterInvalid, Args: []string{"body", input.Reason}, Cause: err}
	}
	return envelope.Wrap(envelope.DatabaseOperationFailed, err)
}

// summary is what the call log records of an upload instead of its bytes.
func summary(up *upload.Upload) []byte {
	b, _ := json.Marshal(struct {
		Files     int    `json:"files"`
		SubjectID string `json:"subjectId"`
	}{len(up.Files), up.SubjectID})
	return b
}
