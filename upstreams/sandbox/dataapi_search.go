package sandbox

import (
	"fmt"
	"net/http"
	"strings"
)

// soslBoundTarget is a RETURNING entry checked against the record types.
type soslBoundTarget struct {
	Type   dataType
	Fields []Field
}

// bind resolves the RETURNING types and fields; without RETURNING every type
// is searched and returns its Id.
func (s soslSearch) bind() ([]soslBoundTarget, error) {
	if len(s.Returning) == 0 {
		var all []soslBoundTarget
		for _, t := range dataTypes() {
			id, _ := t.field("Id")
			all = append(all, soslBoundTarget{Type: t, Fields: []Field{id}})
		}
		return all, nil
	}
	var out []soslBoundTarget
	for _, r := range s.Returning {
		t, ok := lookupDataType(r.Type)
		if !ok {
			return nil, &soqlError{Code: "INVALID_TYPE",
				Message: fmt.Sprintf("sObject type '%s' is not supported.", r.Type)}
		}
		target := soslBoundTarget{Type: t}
		names := r.Fields
		if len(names) == 0 {
			names = []string{"Id"}
		}
		for _, name := range names {
			f, err := bindField(t, name)
			if err != nil {
				return nil, err
			}
			target.Fields = append(target.Fields, f)
		}
		out = append(out, target)
	}
	return out, nil
}

// searchSQL selects Id then the target's fields of the records whose Name
// matches the pattern parameter.
func (t soslBoundTarget) searchSQL() string {
	return selectIDAnd(t.Type, t.Fields) + ` WHERE "Name" LIKE ? ESCAPE '\' ORDER BY rowid LIMIT ?`
}

func (a *dataAPI) search(w http.ResponseWriter, r *http.Request, v string) {
	q := r.URL.Query().Get("q")
	if strings.TrimSpace(q) == "" {
		writeAPIError(w, http.StatusBadRequest, "MALFORMED_SEARCH", "A search string has to be specified")
		return
	}
	s, err := parseSOSL(q)
	if err != nil {
		failQuery(w, err)
		return
	}
	targets, err := s.bind()
	if err != nil {
		failQuery(w, err)
		return
	}
	limit := soslMaxLimit
	if s.Limit >= 0 {
		limit = s.Limit
	}
	found := []dataRecord{}
	pattern := s.likePattern()
	for _, t := range targets {
		if len(found) >= limit {
			break
		}
		recs, err := a.records(r.Context(), v, t.Type, t.Fields, t.searchSQL(), pattern, limit-len(found))
		if err != nil {
			failQuery(w, err)
			return
		}
		found = append(found, recs...)
	}
	writeAPIJSON(w, http.StatusOK, struct {
		SearchRecords []dataRecord `json:"searchRecords"`
	}{found})
}
