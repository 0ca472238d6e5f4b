package dataapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
	"github.com/restgate/gateway/upstreams/sandbox/soql"
)

// search answers GET .../search?q= with the records of every target whose
// Name matches, in target order, at most the search's LIMIT (2000 without).
func (a *api) search(w http.ResponseWriter, r *http.Request, v string) {
	q := r.URL.Query().Get("q")
	if strings.TrimSpace(q) == "" {
		sfdc.WriteError(w, http.StatusBadRequest, "MALFORMED_SEARCH", "A search string has to be specified")
		return
	}
	s, err := soql.ParseSearch(q)
	if err != nil {
		failQuery(w, err)
		return
	}
	targets, err := s.Bind(a.schema)
	if err != nil {
		failQuery(w, err)
		return
	}
	limit := soql.MaxSearchLimit
	if s.Limit >= 0 {
		limit = s.Limit
	}
	found := []*record{}
	pattern := s.LikePattern()
	for _, t := range targets {
		if len(found) >= limit {
			break
		}
		recs, err := a.records(r.Context(), v, plainBound(t.Type, t.Fields), t.SQL(), pattern, limit-len(found))
		if err != nil {
			failQuery(w, err)
			return
		}
		found = append(found, recs...)
	}
	if n, _ := strconv.ParseFloat(strings.TrimPrefix(v, "v"), 64); n < firstWrappedSearch {
		// Up to API 36.0 a search answers the bare array.
		sfdc.WriteJSON(w, http.StatusOK, found)
		return
	}
	sfdc.WriteJSON(w, http.StatusOK, struct {
		SearchRecords []*record `json:"searchRecords"`
	}{found})
}

// firstWrappedSearch is the first API version whose search answers
// {"searchRecords": [...]} instead of a bare array (Summer '16).
const firstWrappedSearch = 37.0
