// Package files is the sandbox's batch file upload (UPSTREAMS.md B3): the
// Salesforce Connect feed-elements batch resource, storing each uploaded
// file under a directory and each created feed item in the files_items
// table.
package files

import (
	"database/sql"
	"fmt"
	"mime"
	"net/http"
	"os"
	"strings"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

// Limits of the batch resource as the Connect API documents them.
const (
	maxInputs   = 500
	maxJSONPart = 4 << 20
	// lastBinaryVersion is the last API version that takes binary
	// parts in a feed post.
	lastBinaryVersion = 35.0
)

// New returns the reference batch upload (UPSTREAMS.md B3):
//
//	POST /services/data/{version}/connect/communities/{communityId}/chatter/feed-elements/batch
//
// It wants "Authorization: Bearer <any non-empty token>" (else 401
// INVALID_SESSION_ID) and a multipart/form-data body read as a stream: the
// rich input part "json" first ({"inputs": [{"binaryPartNames": ["file1"],
// "richInput": {"subjectId", "capabilities": {"content": {"title"}},
// "feedElementType": "FeedItem"}}]}, at most 500 inputs), then one binary
// part per input, named as its binaryPartNames says. Each file is stored as
// dir/<feedItemId>/<sanitised filename> and each created item as a row of
// the files_items table.
//
// The answer is 200 {"hasErrors", "results": [{"statusCode", "result"}]}
// in input order: 201 with a ContentPost feed item, or the item's own 400
// with [{"errorCode", "message"}] (no subjectId, a binary part named but not
// sent, more than one part name, binary parts on API v36.0 or later). The
// whole request fails with 400 and an error array when the json part is
// missing, not first, or invalid, or a binary part is not named by any input
// or sent twice; nothing is stored then.
//
// From API 36.0 the batch takes no binary part: files are uploaded first,
// one per request, to
//
//	POST /services/data/{version}/connect/communities/{communityId}/files/users/me
//
// (multipart: an optional "json" part {"title", "desc"} and the binary part
// "fileData"; 201 with a File Detail whose id starts 069), and the batch is
// an application/json {"inputs": [{"richInput": {"subjectId",
// "feedElementType": "FeedItem", "capabilities": {"files": {"items":
// [{"id": "069..."}]}}}}]}, each item attaching uploaded files by id (an
// unknown id is that item's 404). With WithOrg, the org's token endpoint,
// sessions, limit and version floor apply as on the data API.
func New(db *sql.DB, dir string, opts ...Option) (http.Handler, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("creating files dir %q: %w", dir, err)
	}
	for _, stmt := range []string{schema, documentSchema} {
		if _, err := db.Exec(stmt); err != nil {
			return nil, fmt.Errorf("creating the files tables: %w", err)
		}
	}
	h := &handler{db: db, dir: dir, org: sfdc.NewOrg(sfdc.OrgOptions{})}
	for _, o := range opts {
		o(h)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /services/data/{version}/connect/communities/{community}/chatter/feed-elements/batch", h.batch)
	mux.HandleFunc("POST /services/data/{version}/connect/communities/{community}/files/users/me", h.upload)
	mux.HandleFunc("POST /services/oauth2/token", h.org.ServeToken)
	return mux, nil
}

// Option changes a default of New.
type Option func(*handler)

// WithOrg makes the resources org's: live bearer tokens of org only (401
// INVALID_SESSION_ID otherwise), 403 REQUEST_LIMIT_EXCEEDED while org says
// so, 410 GONE below its version floor, and its token endpoint at
// /services/oauth2/token. Without it any non-empty bearer token passes.
func WithOrg(org *sfdc.Org) Option {
	return func(h *handler) { h.org, h.authorize = org, true }
}

// handler serves the batch resource; its fields are set by New.
type handler struct {
	db        *sql.DB
	dir       string
	org       *sfdc.Org
	authorize bool
}

// admit checks a call's credentials and version; it answers the refusal
// and reports false when the call may not go on.
func (h *handler) admit(w http.ResponseWriter, r *http.Request) (float64, bool) {
	if h.authorize {
		if !h.org.Authorize(w, r) {
			return 0, false
		}
	} else if token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); !ok || strings.TrimSpace(token) == "" {
		sfdc.WriteError(w, http.StatusUnauthorized, "INVALID_SESSION_ID", "Session expired or invalid")
		return 0, false
	}
	return h.org.CheckVersion(w, r.PathValue("version"))
}

type batchInput struct {
	BinaryPartNames []string `json:"binaryPartNames"`
	RichInput       struct {
		SubjectID       string `json:"subjectId"`
		FeedElementType string `json:"feedElementType"`
		Capabilities    struct {
			Content struct {
				Title string `json:"title"`
			} `json:"content"`
		} `json:"capabilities"`
	} `json:"richInput"`
}

// slot is the state of one input while the binary parts stream in.
type slot struct {
	in       batchInput
	err      *inputError
	item     feedItem
	received bool
	// status is the item's error status; 0 means 400.
	status int
}

type inputError struct{ code, msg string }

func (h *handler) batch(w http.ResponseWriter, r *http.Request) {
	v, ok := h.admit(w, r)
	if !ok {
		return
	}
	version := r.PathValue("version")
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "application/json" {
		h.batchJSON(w, r, version)
		return
	}
	mr, err := r.MultipartReader()
	if err != nil {
		sfdc.WriteError(w, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", "the batch must be multipart/form-data")
		return
	}
	slots, byPart, ferr := h.readInputs(mr, r.PathValue("community"), v > lastBinaryVersion)
	if ferr != nil {
		sfdc.WriteError(w, http.StatusBadRequest, ferr.code, ferr.msg)
		return
	}
	if ferr := h.readBinaries(mr, slots, byPart); ferr != nil {
		h.discard(slots)
		sfdc.WriteError(w, http.StatusBadRequest, ferr.code, ferr.msg)
		return
	}
	var created []feedItem
	for _, s := range slots {
		if s.err == nil && len(s.in.BinaryPartNames) == 1 && !s.received {
			s.err = &inputError{"INVALID_API_INPUT", "Binary part " + s.in.BinaryPartNames[0] + " is missing from the request"}
		}
		if s.err == nil {
			created = append(created, s.item)
		}
	}
	if err := insertItems(r.Context(), h.db, created); err != nil {
		h.discard(slots)
		sfdc.WriteError(w, http.StatusInternalServerError, "UNKNOWN_EXCEPTION", err.Error())
		return
	}
	h.answer(w, version, slots)
}
