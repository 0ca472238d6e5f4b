// Package files is the sandbox's batch file upload (UPSTREAMS.md B3): the
// Salesforce Connect feed-elements batch resource, storing each uploaded
// file under a directory and each created feed item in the files_items
// table.
package files

import (
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"strconv"
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
func New(db *sql.DB, dir string) (http.Handler, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("creating files dir %q: %w", dir, err)
	}
	if _, err := db.Exec(schema); err != nil {
		return nil, fmt.Errorf("creating table files_items: %w", err)
	}
	h := &handler{db: db, dir: dir}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /services/data/{version}/connect/communities/{community}/chatter/feed-elements/batch", h.batch)
	return mux, nil
}

// handler serves the batch resource; its fields are set by New.
type handler struct {
	db  *sql.DB
	dir string
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
}

type inputError struct{ code, msg string }

func (h *handler) batch(w http.ResponseWriter, r *http.Request) {
	if token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); !ok || strings.TrimSpace(token) == "" {
		sfdc.WriteError(w, http.StatusUnauthorized, "INVALID_SESSION_ID", "Session expired or invalid")
		return
	}
	version := r.PathValue("version")
	v, err := strconv.ParseFloat(strings.TrimPrefix(version, "v"), 64)
	if !strings.HasPrefix(version, "v") || err != nil {
		sfdc.WriteError(w, http.StatusNotFound, "NOT_FOUND", "The requested resource does not exist")
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
