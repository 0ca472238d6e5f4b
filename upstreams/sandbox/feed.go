package sandbox

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

const feedSchema = `CREATE TABLE IF NOT EXISTS feed_messages (
	seq INTEGER PRIMARY KEY AUTOINCREMENT,
	id TEXT NOT NULL UNIQUE,
	name TEXT NOT NULL,
	message TEXT NOT NULL,
	created_date TEXT NOT NULL
)`

// Bounds of the feed: one message body, and one listing.
const (
	feedMaxBody      = 64 << 10
	feedDefaultLimit = 100
	feedMaxLimit     = 1000
)

// NewFeed returns the reference public feed (UPSTREAMS.md B5):
//
//	POST /sfdc/public/feed  {"name": "...", "message": "..."}, both non-empty
//	                        strings -> 201 {"id", "name", "message", "createdDate"}
//	GET  /sfdc/public/feed  the stored messages, oldest first; ?limit=N (default
//	                        100, at most 1000) keeps the N newest
//
// A body that is not that JSON object is 400, one over 64 KiB 413, another
// content type than JSON 415; errors are [{"errorCode", "message"}]. Messages
// are rows of the feed_messages table.
func NewFeed(db *sql.DB) (http.Handler, error) {
	if _, err := db.Exec(feedSchema); err != nil {
		return nil, fmt.Errorf("creating table feed_messages: %w", err)
	}
	h := &feedHandler{db: db}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /sfdc/public/feed", h.post)
	mux.HandleFunc("GET /sfdc/public/feed", h.list)
	return mux, nil
}

type feedHandler struct {
	db *sql.DB
}

type feedMessage struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Message     string `json:"message"`
	CreatedDate string `json:"createdDate"`
}

func (h *feedHandler) post(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			writeAPIError(w, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", "the body must be application/json")
			return
		}
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, feedMaxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeAPIError(w, http.StatusRequestEntityTooLarge, "REQUEST_TOO_LARGE", fmt.Sprintf("the body exceeds %d bytes", feedMaxBody))
			return
		}
		writeAPIError(w, http.StatusBadRequest, "JSON_PARSER_ERROR", err.Error())
		return
	}
	msg, err := feedParse(raw)
	if err != nil {
		writeAPIError(w, http.StatusBadRequest, "JSON_PARSER_ERROR", err.Error())
		return
	}
	msg.ID = newRecordID("0F7")
	msg.CreatedDate = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	_, err = h.db.ExecContext(r.Context(), `INSERT INTO feed_messages (id, name, message, created_date) VALUES (?, ?, ?, ?)`,
		msg.ID, msg.Name, msg.Message, msg.CreatedDate)
	if err != nil {
		writeAPIError(w, http.StatusInternalServerError, "UNKNOWN_EXCEPTION", err.Error())
		return
	}
	writeAPIJSON(w, http.StatusCreated, msg)
}

// feedParse accepts exactly one JSON object with non-empty string name and
// message; other members are ignored, as a Java backend would.
func feedParse(raw []byte) (feedMessage, error) {
	var in struct {
		Name    *string `json:"name"`
		Message *string `json:"message"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&in); err != nil {
		return feedMessage{}, fmt.Errorf("the body is not a JSON object: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return feedMessage{}, errors.New("the body holds more than one JSON value")
	}
	switch {
	case in.Name == nil || strings.TrimSpace(*in.Name) == "":
		return feedMessage{}, errors.New("name is required")
	case in.Message == nil || strings.TrimSpace(*in.Message) == "":
		return feedMessage{}, errors.New("message is required")
	}
	return feedMessage{Name: *in.Name, Message: *in.Message}, nil
}

func (h *feedHandler) list(w http.ResponseWriter, r *http.Request) {
	limit := feedDefaultLimit
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > feedMaxLimit {
			writeAPIError(w, http.StatusBadRequest, "INVALID_QUERY_PARAMETER", fmt.Sprintf("limit must be 1 to %d", feedMaxLimit))
			return
		}
		limit = n
	}
	rows, err := h.db.QueryContext(r.Context(), `SELECT id, name, message, created_date FROM
		(SELECT seq, id, name, message, created_date FROM feed_messages ORDER BY seq DESC LIMIT ?) ORDER BY seq`, limit)
	if err != nil {
		writeAPIError(w, http.StatusInternalServerError, "UNKNOWN_EXCEPTION", err.Error())
		return
	}
	defer rows.Close()
	out := []feedMessage{}
	for rows.Next() {
		var m feedMessage
		if err := rows.Scan(&m.ID, &m.Name, &m.Message, &m.CreatedDate); err != nil {
			writeAPIError(w, http.StatusInternalServerError, "UNKNOWN_EXCEPTION", err.Error())
			return
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		writeAPIError(w, http.StatusInternalServerError, "UNKNOWN_EXCEPTION", err.Error())
		return
	}
	writeAPIJSON(w, http.StatusOK, out)
}
