package cache

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// PurgeHandler serves POST /admin/cache/purge on the admin listener: with
// route=<template> the answers of that route, with prefix=<path> those
// whose path is it or under it (whole segments), with neither every answer,
// on every replica. The answer is JSON: what was purged, and whether the
// other replicas were told ("shared": false when the shared store did not
// take it; they drop everything once it does). cache is read at each
// request: nil (no cached route yet) answers 404.
func PurgeHandler(cache func() *Cache) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		q := r.URL.Query()
		route, prefix := q.Get("route"), q.Get("prefix")
		c := cache()
		switch {
		case c == nil:
			w.WriteHeader(http.StatusNotFound)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "no route is cached"})
			return
		case route != "" && !strings.HasPrefix(route, "/{version}/"), prefix != "" && !strings.HasPrefix(prefix, "/"):
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]string{
				"error": "route is a template (/{version}/sobjects/{type}/describe), prefix a path (/v1/sobjects)"})
			return
		}
		err := c.Purge(r.Context(), route, prefix)
		scope := "all"
		switch {
		case route != "" && prefix != "":
			scope = "route and prefix"
		case route != "":
			scope = "route"
		case prefix != "":
			scope = "prefix"
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"purged": scope, "route": route, "prefix": prefix,
			"shared": !errors.Is(err, ErrPurgeNotShared)})
	})
}
