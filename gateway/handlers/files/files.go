// Package files serves POST /{version}/files: a client's multipart/form-data
// upload (one or more "file" parts, a "subjectId" field, optional "title"
// fields) turned into ONE batch upload through upstreams/files, with one
// {title, statusCode, id | errors} per file as the result.
//
// No file is held in memory: gateway/upload spools each part to a file in
// the process's spool directory (gateway/spool) while the client sends it,
// and the adapter streams the spooled files to the backend; the spooled
// files are removed before the handler returns, whatever happened. The
// route's maxBodyBytes is the upload's total size limit, its maxConcurrent
// the uploads in flight at once, and the spool's budget the bytes of all
// uploads together.
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
//   - the route's uploads in flight at its maxConcurrent, or an announced
//     size (Content-Length) that does not fit in what is left of the spool
//     budget (server.limits.maxSpoolBytes): DATABASE_OPERATION_FAILED 503
//     with Retry-After, before the body is read; an upload of unannounced
//     length that runs past the budget: DATABASE_OPERATION_FAILED 507
//     Insufficient Storage;
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
	"mime"
	"mime/multipart"
	"net/http"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/gateway/spool"
	"github.com/restgate/gateway/gateway/upload"
	upfiles "github.com/restgate/gateway/upstreams/files"
)

// Options configure the handler.
type Options struct {
	// Spool holds the files of uploads in progress and bounds them: the
	// process's spool (gateway/spool), opened once at start. Required.
	Spool *spool.Spool
	// MaxFiles caps the files of one upload. Default (and most) 500, the
	// batch upload's own limit.
	MaxFiles int
}

// retryAfter is the Retry-After, in seconds, of an upload refused for
// capacity: uploads in flight end or make room within seconds to minutes.
const retryAfter = 5

// New returns the factory of kind files: POST uploads the client's form,
// at most the route's maxConcurrent at once. The factory fails when the
// upstream has no client or there is no spool.
func New(clients router.Resolver[*upfiles.Client], opts Options) router.Factory {
	return func(rt *routes.Route) (map[string]call.Handler, error) {
		client, err := clients.Resolve(rt.Spec.Upstream)
		if err != nil {
			return nil, err
		}
		if opts.Spool == nil {
			return nil, errors.New("no upload spool")
		}
		maxFiles := opts.MaxFiles
		if maxFiles <= 0 || maxFiles > upfiles.MaxFiles {
			maxFiles = upfiles.MaxFiles
		}
		h := &handler{client: client, spool: opts.Spool, route: rt.Spec.Path, maxInFlight: rt.Spec.MaxConcurrent,
			limits: upload.Limits{MaxFiles: maxFiles, MaxTotalBytes: rt.Spec.MaxBodyBytes}}
		return map[string]call.Handler{http.MethodPost: h.post}, nil
	}
}

type handler struct {
	client      *upfiles.Client
	spool       *spool.Spool
	route       string
	maxInFlight int
	limits      upload.Limits
}

func (h *handler) post(r *http.Request, c *call.Call) (call.Result, error) {
	mr, err := multipartReader(r)
	if err != nil {
		return call.Result{}, err
	}
	lease, err := h.spool.Admit(h.route, h.maxInFlight, r.ContentLength)
	if err != nil {
		return call.Result{}, capacityError(err)
	}
	defer lease.Release()
	limits := h.limits
	limits.Reserve = lease.Reserve
	up, err := upload.Read(mr, h.spool.Dir(), limits)
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

// capacityError is the answer to an upload the spool did not admit: 503
// with Retry-After, since room is made as uploads in flight end.
func capacityError(err error) error {
	detail := "the upload spool has no room for this upload now; try again later"
	if errors.Is(err, spool.ErrBusy) {
		detail = "too many uploads are in progress on this route; try again later"
	}
	return &envelope.Error{ID: envelope.DatabaseOperationFailed, Status: http.StatusServiceUnavailable,
		RetryAfter: retryAfter, Detail: detail, Cause: err}
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
	case errors.Is(err, spool.ErrFull):
		return &envelope.Error{ID: envelope.DatabaseOperationFailed, Status: http.StatusInsufficientStorage,
			Detail: "the upload spool ran out of room for this upload", Cause: err}
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
