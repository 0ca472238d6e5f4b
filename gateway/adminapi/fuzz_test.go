package adminapi_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

// FuzzQuery: whatever the query, every operation answers 200 or a coded
// 400 in JSON, never anything else.
func FuzzQuery(f *testing.F) {
	for _, seed := range []string{"", "window=1m", "window=15m&limit=1000", "limit=0", "window=%zz", "limit=99999999999999999999",
		"window=1m&window=5m", "x=1", "limit=-1", "window=1m;limit=2", "limit=1e3", "window=%E2%80%AE"} {
		f.Add(seed)
	}
	g := newGateway(f)
	ops := []string{"overview", "routes", "upstreams", "slow-calls", "duplicates", "errors", "reloads", "openapi.json"}
	f.Fuzz(func(t *testing.T, query string) {
		for _, op := range ops {
			req := &http.Request{Method: "GET", URL: &url.URL{Path: "/admin/api/v1/" + op, RawQuery: query},
				Host: "127.0.0.1:9090", Header: http.Header{}}
			rec := httptest.NewRecorder()
			g.admin.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK && rec.Code != http.StatusBadRequest {
				t.Fatalf("%s?%s: status %d: %s", op, query, rec.Code, rec.Body)
			}
			if !json.Valid(rec.Body.Bytes()) {
				t.Fatalf("%s?%s: not JSON: %s", op, query, rec.Body)
			}
			if rec.Code == http.StatusBadRequest {
				var e struct{ Error struct{ ID string } }
				if json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Error.ID != "PARAMETER_INVALID" {
					t.Fatalf("%s?%s: 400 without PARAMETER_INVALID: %s", op, query, rec.Body)
				}
			}
		}
	})
}
