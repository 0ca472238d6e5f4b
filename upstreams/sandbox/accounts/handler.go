// Package accounts is the sandbox's account controller (UPSTREAMS.md B1):
// the CRM service's /api/v1/account resource over the accounts table that
// the data API reads too.
package accounts

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

// maxBody bounds a create or update body.
const maxBody = 1 << 20

// New returns the reference account controller (UPSTREAMS.md B1),
// serving from the root:
//
//	GET    /api/v1/account/       list (?limit=&offset= applied in SQL)
//	POST   /api/v1/account/       create from a JSON account body or ?Name=
//	GET    /api/v1/account/{id}   an array holding the one account
//	POST   /api/v1/account/{id}   update the fields given, keep the others
//	DELETE /api/v1/account/{id}   delete
//
// Records carry every field of sfdc.AccountFields, in that order, with NULL as
// null. Unlike the original service it answers valid JSON: {"id": "..."} and
// {"status": "success"}, both with 200. Errors are 400 (invalid id or body),
// 404 (unknown id) and 500, with a Spring-style JSON error body.
//
// It creates the accounts table if needed and, the first time it finds the
// table empty, seeds 36 accounts; deleting them all later does not bring them
// back. db should come from sandboxdb.Open, whose single connection
// serialises the writers.
func New(db *sql.DB) (http.Handler, error) {
	return serve(db, func(s *store) routes {
		h := &handler{store: s}
		return routes{list: h.list, create: h.create, get: h.get, update: h.update, remove: h.remove}
	})
}

// routes are the handlers of the resource's five routes.
type routes struct {
	list, create, get, update, remove http.HandlerFunc
}

// serve creates and seeds the table in db and serves the routes build
// makes over its store.
func serve(db *sql.DB, build func(*store) routes) (http.Handler, error) {
	if err := sfdc.EnsureTables(db); err != nil {
		return nil, err
	}
	s := newStore(db)
	if err := s.seedOnce(context.Background()); err != nil {
		return nil, fmt.Errorf("seeding accounts: %w", err)
	}
	rs := build(s)
	mux := http.NewServeMux()
	for _, base := range []string{"/api/v1/account", "/api/v1/account/{$}"} {
		mux.HandleFunc("GET "+base, rs.list)
		mux.HandleFunc("POST "+base, rs.create)
	}
	mux.HandleFunc("GET /api/v1/account/{id}", rs.get)
	mux.HandleFunc("POST /api/v1/account/{id}", rs.update)
	mux.HandleFunc("DELETE /api/v1/account/{id}", rs.remove)
	return mux, nil
}

// handler serves the resource's routes from one store.
type handler struct {
	store *store
}

func (h *handler) list(w http.ResponseWriter, r *http.Request) {
	limit, offset, err := parsePage(r.URL.Query())
	if err != nil {
		writeError(w, r, http.StatusBadRequest, err.Error())
		return
	}
	body, err := h.store.list(r.Context(), limit, offset)
	if err != nil {
		writeError(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, body)
}

func (h *handler) get(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	rec, err := h.store.get(r.Context(), id)
	if err != nil {
		writeStoreError(w, r, err)
		return
	}
	body := make([]byte, 0, len(rec)+2)
	body = append(append(append(body, '['), rec...), ']')
	writeJSON(w, body)
}

func (h *handler) create(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var vals []fieldValue
	if len(body) > 0 {
		var err error
		if vals, err = h.store.parseFields(body); err != nil {
			writeError(w, r, http.StatusBadRequest, err.Error())
			return
		}
	}
	if name := r.URL.Query().Get("Name"); name != "" && !hasField(vals, h.store.nameIndex) {
		vals = append(vals, fieldValue{index: h.store.nameIndex, value: name})
	}
	if v, _ := fieldOf(vals, h.store.nameIndex); v == nil || v == "" {
		writeError(w, r, http.StatusBadRequest, "Name is required")
		return
	}
	id, err := h.store.insert(r.Context(), vals)
	if err != nil {
		writeError(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, append(mapping.AppendString([]byte(`{"id":`), id), '}'))
}

func (h *handler) update(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	vals, err := h.store.parseFields(body)
	if err != nil {
		writeError(w, r, http.StatusBadRequest, err.Error())
		return
	}
	if v, found := fieldOf(vals, h.store.nameIndex); found && (v == nil || v == "") {
		writeError(w, r, http.StatusBadRequest, "Name must not be empty")
		return
	}
	if err := h.store.update(r.Context(), id, vals); err != nil {
		writeStoreError(w, r, err)
		return
	}
	writeJSON(w, []byte(`{"status":"success"}`))
}

func (h *handler) remove(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	if err := h.store.remove(r.Context(), id); err != nil {
		writeStoreError(w, r, err)
		return
	}
	writeJSON(w, []byte(`{"status":"success"}`))
}

// parsePage reads ?limit= and ?offset=; -1 means no limit.
func parsePage(q url.Values) (limit, offset int, err error) {
	limit = -1
	if s := q.Get("limit"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 0 {
			return 0, 0, errors.New("limit must be a non-negative integer")
		}
	}
	if s := q.Get("offset"); s != "" {
		if offset, err = strconv.Atoi(s); err != nil || offset < 0 {
			return 0, 0, errors.New("offset must be a non-negative integer")
		}
	}
	return limit, offset, nil
}

func pathID(w http.ResponseWriter, r *http.Request) (string, bool) {
	id := r.PathValue("id")
	if !sfdc.ValidID(id) {
		writeError(w, r, http.StatusBadRequest, "invalid account id")
		return "", false
	}
	return id, true
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		status := http.StatusBadRequest
		if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
			status = http.StatusRequestEntityTooLarge
		}
		writeError(w, r, status, "reading body: "+err.Error())
		return nil, false
	}
	return []byte(strings.TrimSpace(string(body))), true
}

func writeStoreError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, errNotFound) {
		writeError(w, r, http.StatusNotFound, "account "+r.PathValue("id")+" not found")
		return
	}
	writeError(w, r, http.StatusInternalServerError, err.Error())
}

// writeError answers in the shape of Spring's default error body.
func writeError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	b := []byte(`{"status":`)
	b = strconv.AppendInt(b, int64(status), 10)
	b = mapping.AppendString(append(b, `,"error":`...), http.StatusText(status))
	b = mapping.AppendString(append(b, `,"message":`...), msg)
	b = mapping.AppendString(append(b, `,"path":`...), r.URL.Path)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '}'))
}

func writeJSON(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write(body)
}
