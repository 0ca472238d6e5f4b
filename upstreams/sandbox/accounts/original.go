package accounts

import (
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// NewOriginal returns the account controller as the original service
// behaves (UPSTREAMS.md B1 and the seed's controller), over the same
// accounts table as New, so that the adapter can be tested against both:
//
//	GET    /api/v1/account/       every account as {"Name": ...}, no Id; limit and offset are ignored
//	POST   /api/v1/account/       create from ?Name= or a JSON account -> the text {id:001...}
//	GET    /api/v1/account/{id}   [{"Name": ...}]; 400 invalid id, 404 unknown
//	POST   /api/v1/account/{id}   the body binds a whole account, which replaces the stored one:
//	                              a field not sent is wiped -> {status: success}
//	DELETE /api/v1/account/{id}   -> {status: success}
//
// Its account model has only Name and ignores the other members of a
// body; an update or delete of an unknown account answers
// {status : failure}. The status and id answers are not valid JSON, as the
// original writes them; errors are Spring's JSON error body. It creates and
// seeds the table like New.
func NewOriginal(db *sql.DB) (http.Handler, error) {
	return serve(db, func(s *store) routes {
		h := &original{store: s}
		return routes{list: h.list, create: h.create, get: h.get, update: h.replace, remove: h.remove}
	})
}

// original serves the original controller's routes from one store.
type original struct {
	store *store
}

// nameOnly is the original's account model.
type nameOnly struct {
	Name *string `json:"Name"`
}

func (h *original) list(w http.ResponseWriter, r *http.Request) {
	rows, err := h.store.db.QueryContext(r.Context(), `SELECT "Name" FROM accounts ORDER BY created_seq, "Id"`)
	if err != nil {
		writeError(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	defer rows.Close()
	out := []nameOnly{}
	for rows.Next() {
		var name sql.NullString
		if err := rows.Scan(&name); err != nil {
			writeError(w, r, http.StatusInternalServerError, err.Error())
			return
		}
		out = append(out, nameOnly{Name: nullable(name)})
	}
	if err := rows.Err(); err != nil {
		writeError(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	body, _ := json.Marshal(out)
	writeJSON(w, body)
}

func (h *original) get(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	var name sql.NullString
	err := h.store.db.QueryRowContext(r.Context(), `SELECT "Name" FROM accounts WHERE `+idWhere(id), id).Scan(&name)
	if errors.Is(err, sql.ErrNoRows) {
		writeError(w, r, http.StatusNotFound, "account "+id+" not found")
		return
	}
	if err != nil {
		writeError(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	body, _ := json.Marshal([]nameOnly{{Name: nullable(name)}})
	writeJSON(w, body)
}

func (h *original) create(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var acc nameOnly
	if len(body) > 0 && json.Unmarshal(body, &acc) != nil {
		writeError(w, r, http.StatusBadRequest, "JSON parse error")
		return
	}
	if acc.Name == nil || *acc.Name == "" {
		if name := r.URL.Query().Get("Name"); name != "" {
			acc.Name = &name
		}
	}
	if acc.Name == nil || *acc.Name == "" {
		writeError(w, r, http.StatusInternalServerError, "Required field is missing: Name")
		return
	}
	id, err := h.store.insert(r.Context(), []fieldValue{{index: h.store.nameIndex, value: *acc.Name}})
	if err != nil {
		writeError(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, []byte("{id:"+id+"}"))
}

// replace binds the body to a whole account and stores it in place of the
// old one: every field the model lacks, and Name when it is not sent, ends
// up empty.
func (h *original) replace(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var acc nameOnly
	if json.Unmarshal(body, &acc) != nil {
		writeError(w, r, http.StatusBadRequest, "JSON parse error")
		return
	}
	sets := make([]string, 0, len(h.store.fields))
	for _, f := range h.store.fields {
		if f.Name != "Id" && f.Name != "Name" {
			sets = append(sets, `"`+f.Name+`" = NULL`)
		}
	}
	var name any
	if acc.Name != nil {
		name = *acc.Name
	}
	res, err := h.store.db.ExecContext(r.Context(),
		`UPDATE accounts SET "Name" = ?, `+strings.Join(sets, ", ")+` WHERE `+idWhere(id), name, id)
	if err == nil {
		err = affectedOne(res)
	}
	h.status(w, r, err)
}

func (h *original) remove(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(w, r)
	if !ok {
		return
	}
	h.status(w, r, h.store.remove(r.Context(), id))
}

// status answers the original's status text.
func (h *original) status(w http.ResponseWriter, r *http.Request, err error) {
	switch {
	case err == nil:
		writeJSON(w, []byte("{status: success}"))
	case errors.Is(err, errNotFound):
		writeJSON(w, []byte("{status : failure}"))
	default:
		writeError(w, r, http.StatusInternalServerError, err.Error())
	}
}

func nullable(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	return &s.String
}
