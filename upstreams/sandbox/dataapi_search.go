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
	var sb strings.Builder
	sb.WriteString(`SELECT "Id"`)
	for _, f := range t.Fields {
		sb.WriteString(", " + quoteColumn(f.Name))
	}
	sb.WriteString(" FROM " + t.Type.Table + ` WHERE "Name" LIKE ? ESCAPE '\' ORDER BY rowid LIMIT ?`)
	return sb.String()
}

func (a *dataAPI) search(w http.ResponseWriter, r *http.Request, v string) {
	q := r.URL.Query().Get("q")
	if strings.TrimSpace(q) == "" {
		a.fail(w, http.StatusBadRequest, "MALFORMED_SEARCH", "A search string has to be specified")
		return
	}
	s, err := parseSOSL(q)
	if err != nil {
		a.failQuery(w, err)
		return
	}
	targets, err := s.bind()
	if err != nil {
		a.failQuery(w, err)
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
		recs, err := a.searchType(r, v, t, pattern, limit-len(found))
		if err != nil {
			a.failQuery(w, err)
			return
		}
		found = append(found, recs...)
	}
	a.writeJSON(w, http.StatusOK, struct {
		SearchRecords []dataRecord `json:"searchRecords"`
	}{found})
}

func (a *dataAPI) searchType(r *http.Request, v string, t soslBoundTarget, pattern string, limit int) ([]dataRecord, error) {
	rows, err := a.db.QueryContext(r.Context(), t.searchSQL(), pattern, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	names := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		names[i] = f.Name
	}
	var out []dataRecord
	for rows.Next() {
		vals := make([]any, len(t.Fields)+1)
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, newDataRecord(t.Type, v, vals[0], names, vals[1:]))
	}
	return out, rows.Err()
}
