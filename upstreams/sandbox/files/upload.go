package files

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

const documentSchema = `CREATE TABLE IF NOT EXISTS files_documents (
	id TEXT PRIMARY KEY,
	title TEXT NOT NULL,
	filename TEXT NOT NULL,
	stored_path TEXT NOT NULL,
	size INTEGER NOT NULL,
	created_date TEXT NOT NULL
)`

// upload is POST .../files/users/me: one file to the context user's files,
// answered 201 with a File Detail.
func (h *handler) upload(w http.ResponseWriter, r *http.Request) {
	if _, ok := h.admit(w, r); !ok {
		return
	}
	mr, err := r.MultipartReader()
	if err != nil {
		sfdc.WriteError(w, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", "the upload must be multipart/form-data")
		return
	}
	id := sfdc.NewID("069")
	var in struct {
		Title string `json:"title"`
		Desc  string `json:"desc"`
	}
	var path, filename string
	var size int64
	buf := make([]byte, 32<<10)
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			h.dropDocument(id)
			sfdc.WriteError(w, http.StatusBadRequest, "INVALID_MULTIPART_REQUEST", "Cannot read the multipart body: "+err.Error())
			return
		}
		switch part.FormName() {
		case "json":
			if err := json.NewDecoder(io.LimitReader(part, maxJSONPart)).Decode(&in); err != nil {
				h.dropDocument(id)
				sfdc.WriteError(w, http.StatusBadRequest, "JSON_PARSER_ERROR", "Cannot read the json part: "+err.Error())
				return
			}
		case "fileData":
			if path != "" {
				h.dropDocument(id)
				sfdc.WriteError(w, http.StatusBadRequest, "INVALID_MULTIPART_REQUEST", "fileData was sent twice")
				return
			}
			filename = part.FileName()
			if path, size, err = save(h.dir, id, filename, part, buf); err != nil {
				h.dropDocument(id)
				sfdc.WriteError(w, http.StatusBadRequest, "INVALID_MULTIPART_REQUEST", "Cannot store fileData: "+err.Error())
				return
			}
		default:
			h.dropDocument(id)
			sfdc.WriteError(w, http.StatusBadRequest, "INVALID_MULTIPART_REQUEST", "Unexpected part "+part.FormName())
			return
		}
	}
	if path == "" {
		sfdc.WriteError(w, http.StatusBadRequest, "INVALID_API_INPUT", "The request needs a binary part named fileData")
		return
	}
	title := in.Title
	if title == "" {
		title = filename
	}
	now := time.Now().UTC()
	if _, err := h.db.ExecContext(r.Context(), `INSERT INTO files_documents (id, title, filename, stored_path, size, created_date)
		VALUES (?, ?, ?, ?, ?, ?)`, id, title, filename, path, size, now.Format(time.RFC3339Nano)); err != nil {
		h.dropDocument(id)
		sfdc.WriteError(w, http.StatusInternalServerError, "UNKNOWN_EXCEPTION", err.Error())
		return
	}
	sfdc.WriteJSON(w, http.StatusCreated, map[string]any{
		"id": id, "title": title, "description": in.Desc, "contentSize": size,
		"fileExtension": strings.TrimPrefix(filepath.Ext(filename), "."), "mimeType": "application/octet-stream",
		"createdDate": now.Format("2006-01-02T15:04:05.000Z"), "type": "File",
		"url": "/services/data/" + r.PathValue("version") + "/connect/files/" + id,
	})
}

func (h *handler) dropDocument(id string) { _ = os.RemoveAll(filepath.Join(h.dir, id)) }

// jsonInput is one input of a batch without binary parts.
type jsonInput struct {
	RichInput struct {
		SubjectID       string `json:"subjectId"`
		FeedElementType string `json:"feedElementType"`
		Capabilities    struct {
			Files struct {
				Items []struct {
					ID string `json:"id"`
				} `json:"items"`
			} `json:"files"`
		} `json:"capabilities"`
	} `json:"richInput"`
}

// batchJSON is the batch as application/json: feed items attaching files
// uploaded before, by id.
func (h *handler) batchJSON(w http.ResponseWriter, r *http.Request, version string) {
	var body struct {
		Inputs []jsonInput `json:"inputs"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, maxJSONPart)).Decode(&body); err != nil {
		sfdc.WriteError(w, http.StatusBadRequest, "JSON_PARSER_ERROR", "Cannot read the batch: "+err.Error())
		return
	}
	if len(body.Inputs) == 0 || len(body.Inputs) > maxInputs {
		sfdc.WriteError(w, http.StatusBadRequest, "INVALID_API_INPUT", "A batch holds 1 to "+strconv.Itoa(maxInputs)+" inputs")
		return
	}
	slots := make([]*slot, len(body.Inputs))
	var created []feedItem
	now := time.Now()
	for i, in := range body.Inputs {
		s := &slot{}
		slots[i] = s
		rich := in.RichInput
		items := rich.Capabilities.Files.Items
		switch {
		case strings.TrimSpace(rich.SubjectID) == "":
			s.err = &inputError{"INVALID_API_INPUT", "richInput.subjectId is required"}
		case rich.FeedElementType != "FeedItem":
			s.err = &inputError{"INVALID_API_INPUT", "richInput.feedElementType must be FeedItem"}
		case len(items) != 1:
			s.err = &inputError{"INVALID_API_INPUT", "This sandbox attaches exactly one file per feed item"}
		}
		if s.err != nil {
			continue
		}
		doc, err := h.document(r.Context(), items[0].ID)
		if err != nil {
			s.err = &inputError{"NOT_FOUND", "No file with id " + items[0].ID}
			s.status = http.StatusNotFound
			continue
		}
		s.item = feedItem{ID: sfdc.NewID("0D5"), ContentID: doc.ID, CommunityID: r.PathValue("community"),
			SubjectID: rich.SubjectID, Title: doc.Title, Filename: doc.Filename, StoredPath: doc.StoredPath,
			Size: doc.Size, Created: now}
		created = append(created, s.item)
	}
	if err := insertItems(r.Context(), h.db, created); err != nil {
		sfdc.WriteError(w, http.StatusInternalServerError, "UNKNOWN_EXCEPTION", err.Error())
		return
	}
	h.answer(w, version, slots)
}

// document reads an uploaded file's row.
func (h *handler) document(ctx context.Context, id string) (feedItem, error) {
	var d feedItem
	err := h.db.QueryRowContext(ctx, `SELECT id, title, filename, stored_path, size FROM files_documents WHERE id = ?`, id).
		Scan(&d.ID, &d.Title, &d.Filename, &d.StoredPath, &d.Size)
	return d, err
}
