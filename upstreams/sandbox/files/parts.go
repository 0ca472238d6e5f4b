package files

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

// readInputs reads the rich input part, which must come first so that the
// binary parts can be stored as they stream by. byPart maps a binary part
// name to the input that named it.
func (h *handler) readInputs(mr *multipart.Reader, community string, noBinaries bool) (slots []*slot, byPart map[string]*slot, ferr *inputError) {
	part, err := mr.NextPart()
	if err != nil || part.FormName() != "json" {
		return nil, nil, &inputError{"INVALID_API_INPUT", "The batch needs a rich input part named json before any binary part"}
	}
	if mt, _, err := mime.ParseMediaType(part.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, nil, &inputError{"INVALID_API_INPUT", "The json part must be application/json"}
	}
	var body struct {
		Inputs []batchInput `json:"inputs"`
	}
	dec := json.NewDecoder(io.LimitReader(part, maxJSONPart))
	if err := dec.Decode(&body); err != nil {
		return nil, nil, &inputError{"JSON_PARSER_ERROR", "Cannot read the json part: " + err.Error()}
	}
	if len(body.Inputs) == 0 || len(body.Inputs) > maxInputs {
		return nil, nil, &inputError{"INVALID_API_INPUT", fmt.Sprintf("A batch holds 1 to %d inputs, not %d", maxInputs, len(body.Inputs))}
	}
	byPart = map[string]*slot{}
	now := time.Now()
	for _, in := range body.Inputs {
		s := &slot{in: in}
		slots = append(slots, s)
		rich := in.RichInput
		switch {
		case strings.TrimSpace(rich.SubjectID) == "":
			s.err = &inputError{"INVALID_API_INPUT", "richInput.subjectId is required"}
		case rich.FeedElementType != "FeedItem":
			s.err = &inputError{"INVALID_API_INPUT", "richInput.feedElementType must be FeedItem"}
		case len(in.BinaryPartNames) > 1:
			s.err = &inputError{"INVALID_API_INPUT", "binaryPartNames can hold only one value on this resource"}
		case len(in.BinaryPartNames) == 1 && noBinaries:
			s.err = &inputError{"INVALID_API_INPUT", "Binary parts in a feed post need API version 35.0 or earlier"}
		case len(in.BinaryPartNames) == 0:
			s.err = &inputError{"INVALID_API_INPUT", "This sandbox only creates content posts: name one binary part"}
		}
		if len(in.BinaryPartNames) == 1 {
			name := in.BinaryPartNames[0]
			if _, dup := byPart[name]; dup {
				return nil, nil, &inputError{"INVALID_API_INPUT", "Binary part name " + name + " is used by two inputs"}
			}
			byPart[name] = s
		}
		s.item = feedItem{
			ID: sfdc.NewID("0D5"), ContentID: sfdc.NewID("069"), CommunityID: community,
			SubjectID: rich.SubjectID, Title: rich.Capabilities.Content.Title, Created: now,
		}
	}
	return slots, byPart, nil
}

// readBinaries stores each binary part as it arrives. A part of an input
// that already failed is read and dropped, as the real resource does.
func (h *handler) readBinaries(mr *multipart.Reader, slots []*slot, byPart map[string]*slot) *inputError {
	buf := make([]byte, 32<<10)
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &inputError{"INVALID_MULTIPART_REQUEST", "Cannot read the multipart body: " + err.Error()}
		}
		name := part.FormName()
		s, ok := byPart[name]
		if !ok {
			return &inputError{"INVALID_MULTIPART_REQUEST", "No input names the binary part " + name}
		}
		if s.received {
			return &inputError{"INVALID_MULTIPART_REQUEST", "Binary part " + name + " was sent twice"}
		}
		s.received = true
		if s.err != nil {
			if _, err := io.CopyBuffer(io.Discard, part, buf); err != nil {
				return &inputError{"INVALID_MULTIPART_REQUEST", "Cannot read the multipart body: " + err.Error()}
			}
			continue
		}
		filename := part.FileName()
		if filename == "" {
			return &inputError{"INVALID_MULTIPART_REQUEST", "Binary part " + name + " has no filename"}
		}
		path, n, err := save(h.dir, s.item.ID, filename, part, buf)
		s.item.StoredPath, s.item.Size, s.item.Filename = path, n, filename
		if err != nil {
			return &inputError{"INVALID_MULTIPART_REQUEST", "Cannot store binary part " + name + ": " + err.Error()}
		}
		if s.item.Title == "" {
			s.item.Title = filename
		}
	}
}

// discard removes what a failed request stored.
func (h *handler) discard(slots []*slot) {
	for _, s := range slots {
		_ = os.RemoveAll(filepath.Join(h.dir, s.item.ID))
	}
}

type itemResult struct {
	StatusCode int `json:"statusCode"`
	Result     any `json:"result"`
}

func (h *handler) answer(w http.ResponseWriter, version string, slots []*slot) {
	out := struct {
		HasErrors bool         `json:"hasErrors"`
		Results   []itemResult `json:"results"`
	}{Results: make([]itemResult, len(slots))}
	for i, s := range slots {
		if s.err != nil {
			out.HasErrors = true
			status := s.status
			if status == 0 {
				status = http.StatusBadRequest
			}
			out.Results[i] = itemResult{status, sfdc.Errors(s.err.code, s.err.msg)}
			continue
		}
		out.Results[i] = itemResult{http.StatusCreated, s.item.feedItemJSON(version)}
	}
	sfdc.WriteJSON(w, http.StatusOK, out)
}
