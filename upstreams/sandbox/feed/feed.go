// Package feed is the sandbox's public feed (UPSTREAMS.md B5): messages
// posted to /sfdc/public/feed, kept in the feed_messages table.
package feed

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

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

const schema = `CREATE TABLE IF NOT EXISTS feed_messages (
	seq INTEGER PRIMARY KEY AUTOINCREMENT,
	id TEXT NOT NULL UNIQUE,
	name TEXT NOT NULL,
	message TEXT NOT NULL,
	created_date TEXT NOT NULL
)`

// Bounds of the feed: one message body, and one listing.
const (
	maxBody      = 64 << 10
	defaultLimit = 100
	maxLimit     = 1000
)

// New returns the reference public feed (UPSTREAMS.md B5):
//
//	POST /sfdc/public/feed  {"name": "...", "message": "..."}, both non-empty
//	                        strings -> 201 {"id", "name", "message", "createdDate"}
//	GET  /sfdc/public/feed  the stored messages, oldest first; ?limit=N (default
//	                        100, at most 1000) keeps the N newest
//
// A body that is not that JSON object is 400, one over 64 KiB 413, another
// content type than JSON 415; errors are [{"errorCode", "message"}]. Messages
// are rows of the feed_messages table.
func New(db *sql.DB) (http.Handler, error) {
	if _, err := db.Exec(schema); err != nil {
		return nil, fmt.Errorf("creating table feed_messages: %w", err)
	}
	h := &handler{db: db}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /sfdc/public/feed", h.post)
	mux.HandleFunc("GET /sfdc/public/feed", h.list)
	return mux, nil
}

// handler serves the feed; its fields are set by New.
type handler struct {
	db *sql.DB
}

// message is one posted message, as stored and as answered.
type message struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Message     string `json:"message"`
	CreatedDate string `json:"createdDate"`
}

func (h *handler) post(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			sfdc.WriteError(w, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE", "the body must be application/json")
			return
		}
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			sfdc.WriteError(w, http.StatusRequestEntityTooLarge, "REQUEST_TOO_LARGE", fmt.Sprintf("the body exceeds %d bytes", maxBody))
			return
		}
		sfdc.WriteError(w, http.StatusBadRequest, "JSON_PARSER_ERROR", err.Error())
		return
	}
	msg, err := parse(raw)
	if err != nil {
		sfdc.WriteError(w, http.StatusBadRequest, "JSON_PARSER_ERROR", err.Error())
		return
	}
	msg.ID = sfdc.NewID("0F7")
	msg.CreatedDate = time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	_, err = h.db.ExecContext(r.Context(), `INSERT INTO feed_messages (id, name, message, created_date) VALUES (?, ?, ?, ?)`,
		msg.ID, msg.Name, msg.Message, msg.CreatedDate)
	if err != nil {
		sfdc.WriteError(w, http.StatusInternalServerError, "UNKNOWN_EXCEPTION", err.Error())
		return
	}
	sfdc.WriteJSON(w, http.StatusCreated, msg)
}

// parse accepts exactly one JSON object with non-empty string name and
// message; other members are ignored, as a Java backend would.
func parse(raw []byte) (message, error) {
	var in struct {
		Name    *string `json:"name"`
		Message *string `json:"message"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&in); err != nil {
		return message{}, fmt.Errorf("the body is not a JSON object: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return message{}, errors.New("the body holds more than one JSON value")
	}
	switch {
	case in.Name == nil || strings.TrimSpace(*in.Name) == "":
		return message{}, errors.New("name is required")
	case in.Message == nil || strings.TrimSpace(*in.Message) == "":
		return message{}, errors.New("message is required")
	}
	return message{Name: *in.Name, Message: *in.Message}, nil
}

func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	limit := defaultLimit
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxLimit {
			sfdc.WriteError(w, http.StatusBadRequest, "INVALID_QUERY_PARAMETER", fmt.Sprintf("limit must be 1 to %d", maxLimit))
			return
		}
		limit = n
	}
	rows, err := h.db.QueryContext(r.Context(), `SELECT id, name, message, created_date FROM
		(SELECT seq, id, name, message, created_date FROM feed_messages ORDER BY seq DESC LIMIT ?) ORDER BY seq`, limit)
	if err != nil {
		sfdc.WriteError(w, http.StatusInternalServerError, "UNKNOWN_EXCEPTION", err.Error())
		return
	}
	defer rows.Close()
	out := []message{}
	for rows.Next() {
		var m message
		if err := rows.Scan(&m.ID, &m.Name, &m.Message, &m.CreatedDate); err != nil {
			sfdc.WriteError(w, http.StatusInternalServerError, "UNKNOWN_EXCEPTION", err.Error())
			return
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		sfdc.WriteError(w, http.StatusInternalServerError, "UNKNOWN_EXCEPTION", err.Error())
		return
	}
	sfdc.WriteJSON(w, http.StatusOK, out)
}
