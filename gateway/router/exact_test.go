package router

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/routes"
)

// exactTable is a table whose literal paths meet every case the map must
// leave to mux: a variable route registered first that serves one version
// of a literal path, methods split over two routes of one template, a
// version served by one route only, a template mux matches only unencoded.
func exactTable() *routes.Table {
	versions := func(vs ...string) map[string]*routes.VersionOptions {
		m := make(map[string]*routes.VersionOptions)
		for _, v := range vs {
			m[v] = &routes.VersionOptions{}
		}
		return m
	}
	specs := []struct {
		path     string
		methods  []string
		versions []string
	}{
		{"/{version}/{name}", []string{"GET"}, []string{"v1"}},
		{"/{version}/shadowed", []string{"GET"}, []string{"v1", "v2"}},
		{"/{version}/accounts", []string{"GET", "POST"}, []string{"v1", "v2"}},
		{"/{version}/accounts", []string{"DELETE"}, []string{"v2"}},
		{"/{version}/accounts/{id}", []string{"GET"}, []string{"v1", "v2"}},
		{"/{version}/a b", []string{"GET"}, []string{"v2"}},
	}
	t := &routes.Table{Versions: []string{"v1", "v2"}}
	for i, s := range specs {
		t.Routes = append(t.Routes, &routes.Route{Template: s.path, Index: i,
			Spec: config.Route{Path: s.path, Kind: "name", Methods: s.methods}, Versions: versions(s.versions...)})
	}
	return t
}

// nameFactory answers every method with the route's index and the method.
func nameFactory(rt *routes.Route) (map[string]call.Handler, error) {
	hs := make(map[string]call.Handler)
	for _, m := range rt.Spec.Methods {
		name := fmt.Sprintf(`"route %d %s"`, rt.Index, m)
		hs[m] = func(*http.Request, *call.Call) (call.Result, error) {
			return call.Result{JSON: []byte(name)}, nil
		}
	}
	return hs, nil
}

func TestExactAnswersAsMuxDoes(t *testing.T) {
	t.Parallel()
	w := call.NewWriter(call.WriterConfig{Catalog: envelope.NewCatalog()})
	h, err := New(exactTable(), Options{Writer: w, MaxBodyBytes: 1 << 20, Kinds: map[string]Factory{"name": nameFactory}})
	require.NoError(t, err)
	e := h.exact.(*exact)

	// GET /v1/accounts and GET /v1/shadowed are route 0's in mux.
	inMap := []exactKey{{"GET", "/v2/shadowed"}, {"GET", "/v2/accounts"}, {"POST", "/v1/accounts"},
		{"POST", "/v2/accounts"}, {"DELETE", "/v2/accounts"}, {"HEAD", "/v2/shadowed"}, {"HEAD", "/v2/accounts"}}
	assert.ElementsMatch(t, inMap, slices.Collect(maps.Keys(e.routes)))

	tests := []struct{ method, target, want string }{
		{"GET", "/v1/shadowed", "route 0 GET"},
		{"GET", "/v1/accounts", "route 0 GET"},
		{"GET", "/v2/shadowed", "route 1 GET"},
		{"GET", "/v2/accounts", "route 2 GET"},
		{"POST", "/v1/accounts", "route 2 POST"},
		{"DELETE", "/v2/accounts", "route 3 DELETE"},
		{"DELETE", "/v1/accounts", "405"},
		{"PUT", "/v2/accounts", "405"},
		{"HEAD", "/v2/accounts", "route 2 GET"},
		{"OPTIONS", "/v2/accounts", "204"},
		{"GET", "/v3/accounts", "404"},
		{"GET", "/v2/accounts/", "404"},
		{"GET", "/v2/%61ccounts", "404"},
		{"GET", "/v2/accounts?limit=1", "route 2 GET"},
		{"GET", "/v2/accounts/7", "route 4 GET"},
		{"GET", "/v2/a%20b", "404"},
		{"GET", "/V2/accounts", "404"},
		{"GET", "//v2/accounts", "404"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			t.Parallel()
			got, want := httptest.NewRecorder(), httptest.NewRecorder()
			h.ServeHTTP(got, httptest.NewRequest(tt.method, tt.target, nil))
			e.mux.ServeHTTP(want, httptest.NewRequest(tt.method, tt.target, nil))
			assert.Equal(t, want.Code, got.Code)
			assert.Equal(t, want.Header().Values("Allow"), got.Header().Values("Allow"))
			assert.Equal(t, untimed(want.Body.String()), untimed(got.Body.String()))
			if len(tt.want) == 3 {
				assert.Equal(t, tt.want, fmt.Sprint(got.Code), got.Body.String())
			} else {
				assert.Contains(t, got.Body.String(), tt.want)
			}
		})
	}
}

// untimed drops an envelope's clock readings.
func untimed(body string) string {
	return timing.ReplaceAllString(body, "")
}

var timing = regexp.MustCompile(`"timeStamp":"[^"]*","totalTime":[0-9.]*`)

// FuzzExact holds the map to mux's answer for any method and request target.
func FuzzExact(f *testing.F) {
	for _, s := range []string{"/v2/accounts", "/v1/accounts", "/v2/shadowed", "/v2/%61ccounts", "/v2/a%20b", "/v2/accounts/"} {
		f.Add("GET", s)
	}
	f.Add("DELETE", "/v1/accounts")
	w := call.NewWriter(call.WriterConfig{Catalog: envelope.NewCatalog()})
	h, err := New(exactTable(), Options{Writer: w, MaxBodyBytes: 1 << 20, Kinds: map[string]Factory{"name": nameFactory}})
	require.NoError(f, err)
	e := h.exact.(*exact)
	f.Fuzz(func(t *testing.T, method, target string) {
		u, err := url.ParseRequestURI(target)
		if err != nil || method == "" {
			return
		}
		request := func() *http.Request {
			return (&http.Request{Method: method, URL: u, RequestURI: target, Header: http.Header{}}).
				WithContext(context.Background())
		}
		got, want := httptest.NewRecorder(), httptest.NewRecorder()
		h.ServeHTTP(got, request())
		e.mux.ServeHTTP(want, request())
		if got.Code != want.Code || untimed(got.Body.String()) != untimed(want.Body.String()) {
			t.Fatalf("%s %q: map %d %s, mux %d %s", method, target, got.Code, got.Body, want.Code, want.Body)
		}
	})
}

func BenchmarkRouter(b *testing.B) {
	w := call.NewWriter(call.WriterConfig{Catalog: envelope.NewCatalog()})
	h, err := New(exactTable(), Options{Writer: w, MaxBodyBytes: 1 << 20, Kinds: map[string]Factory{"name": nameFactory}})
	require.NoError(b, err)
	for _, target := range []string{"/v2/accounts", "/v2/accounts/7"} {
		b.Run(target, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, target, nil)
			rec := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				rec.Body.Reset()
				h.ServeHTTP(rec, req)
			}
		})
	}
}
