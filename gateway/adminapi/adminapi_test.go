package adminapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/adminapi"
)

// contract checks every answer of the admin API against its document.
type contract struct {
	doc     *openapi3.T
	router  routers.Router
	covered map[string]int
}

func newContract(t *testing.T) *contract {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(adminapi.Document())
	require.NoError(t, err)
	require.True(t, doc.IsOpenAPI31OrLater())
	require.NoError(t, doc.Validate(context.Background()))
	r, err := gorillamux.NewRouter(doc)
	require.NoError(t, err)
	return &contract{doc: doc, router: r, covered: map[string]int{}}
}

// check validates the request and the answer rec of path against the
// document, and decodes the answer into v when it is not nil.
func (c *contract) check(t *testing.T, path string, rec *httptest.ResponseRecorder, v any) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	route, params, err := c.router.FindRoute(req)
	require.NoError(t, err, "%s is not in the document", path)
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: rec.Code, Header: rec.Header(),
		Body: io.NopCloser(bytes.NewReader(rec.Body.Bytes())), Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}}
	require.NoError(t, openapi3filter.ValidateResponse(context.Background(), out), "%s: the answer breaks the document: %s", path, rec.Body)
	c.covered[route.Operation.OperationID]++
	if v != nil {
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), v))
	}
}

func (c *contract) uncovered() []string {
	var out []string
	for _, item := range c.doc.Paths.Map() {
		for _, op := range item.Operations() {
			if c.covered[op.OperationID] == 0 {
				out = append(out, op.OperationID)
			}
		}
	}
	return out
}

// traffic sends what every panel shows: fast calls, a slow one with a
// secret in its body, duplicates, 502s from the broken backend, a 404,
// and a call with an OAuth token.
func traffic(t *testing.T, g *testGateway) {
	t.Helper()
	for range 5 {
		require.Equal(t, 200, g.call(t, "GET", "/v1/fast", ""))
	}
	require.Equal(t, 200, g.call(t, "GET", "/v2/slow", ""))
	require.Equal(t, 200, g.call(t, "POST", "/v1/fast", `{"name":"Acme","password":"hunter2","pin":"1234"}`))
	require.Equal(t, 200, g.call(t, "POST", "/v1/fast", `{"name":"Acme","password":"hunter2","pin":"1234"}`), "a duplicate")
	require.Equal(t, 502, g.call(t, "POST", "/v1/broken", `{"password":"hunter2"}`))
	require.Equal(t, 502, g.call(t, "GET", "/v1/broken", ""))
	require.Equal(t, 404, g.call(t, "GET", "/v1/nowhere", ""))
	require.Equal(t, 200, g.call(t, "GET", "/v1/token", ""))
}

func TestEveryAnswerFollowsTheDocument(t *testing.T) {
	t.Parallel()
	g := newGateway(t)
	c := newContract(t)
	traffic(t, g)
	// a refused reload and an applied one
	require.NoError(t, os.WriteFile(g.path, []byte(g.config+"colour: red\n"), 0o600))
	require.Error(t, g.reloader.Reload(context.Background(), "SIGHUP"))
	require.NoError(t, os.WriteFile(g.path, []byte(strings.Replace(g.config, "versions: [v1, v2]", "versions: [v1, v2, v3]", 1)), 0o600))
	require.NoError(t, g.reloader.Reload(context.Background(), "file changed"))

	for _, path := range []string{
		"/admin/api/v1/overview", "/admin/api/v1/routes", "/admin/api/v1/upstreams", "/admin/api/v1/slow-calls",
		"/admin/api/v1/slow-calls?window=1m&limit=2", "/admin/api/v1/duplicates", "/admin/api/v1/duplicates?window=5m",
		"/admin/api/v1/errors", "/admin/api/v1/reloads", "/admin/api/v1/openapi.json",
	} {
		rec := g.get(t, http.MethodGet, path)
		require.Equal(t, http.StatusOK, rec.Code, "%s: %s", path, rec.Body)
		assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
		assert.Equal(t, "no-store", rec.Header().Get("Cache-Control"))
		c.check(t, path, rec, nil)
	}
	for _, path := range []string{
		"/admin/api/v1/slow-calls?window=2m", "/admin/api/v1/slow-calls?limit=0", "/admin/api/v1/duplicates?limit=x",
		"/admin/api/v1/overview?x=1", "/admin/api/v1/errors?window=1m", "/admin/api/v1/slow-calls?window=1m&window=5m",
		"/admin/api/v1/routes?%zz",
	} {
		rec := g.get(t, http.MethodGet, path)
		require.Equal(t, http.StatusBadRequest, rec.Code, path)
		var e struct{ Error struct{ ID, Message string } }
		c.check(t, path, rec, &e)
		assert.Equal(t, "PARAMETER_INVALID", e.Error.ID, path)
		assert.NotEmpty(t, e.Error.Message)
	}
	assert.Empty(t, c.uncovered(), "every operation was checked")
}

func TestUnknownPathsAndMethods(t *testing.T) {
	t.Parallel()
	g := newGateway(t)
	rec := g.get(t, http.MethodGet, "/admin/api/v1/nothing")
	assert.Equal(t, http.StatusNotFound, rec.Code)
	assert.Contains(t, rec.Body.String(), `"id":"URL_INVALID"`)
	for _, method := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		rec = g.get(t, method, "/admin/api/v1/overview")
		assert.Equal(t, http.StatusMethodNotAllowed, rec.Code, method)
		assert.Equal(t, "GET, HEAD", rec.Header().Get("Allow"))
	}
	rec = g.get(t, http.MethodHead, "/admin/api/v1/overview")
	assert.Equal(t, http.StatusOK, rec.Code)
}

func TestPanelsShowTheTraffic(t *testing.T) {
	t.Parallel()
	g := newGateway(t)
	traffic(t, g)
	c := newContract(t)

	var slow struct {
		Recording bool
		Calls     []struct {
			Path, Route, Body, TraceID, TraceURL, User, Code string
			TotalMs                                          float64
			Status                                           int
		}
	}
	c.check(t, "/admin/api/v1/slow-calls", g.get(t, "GET", "/admin/api/v1/slow-calls"), &slow)
	require.True(t, slow.Recording)
	require.NotEmpty(t, slow.Calls)
	first := slow.Calls[0]
	assert.Equal(t, "/v2/slow", first.Path, "the slowest call first")
	assert.GreaterOrEqual(t, first.TotalMs, 120.0)
	assert.Equal(t, "/{version}/slow", first.Route)
	assert.Equal(t, "https://jaeger.example.com/trace/"+first.TraceID, first.TraceURL)
	assert.Equal(t, "anonymous", first.User)
	var posted string
	for _, call := range slow.Calls {
		if call.Path == "/v1/fast" && call.Body != "" {
			posted = call.Body
		}
		assert.NotContains(t, call.Body, "hunter2", "bodies are masked")
		assert.NotContains(t, call.Body, "1234")
	}
	assert.Equal(t, `{"name":"Acme","password":"[REDACTED]","pin":"[REDACTED]"}`, posted)

	var dups struct {
		Users []struct {
			User   string
			Count  int
			Routes []struct {
				Method, Route string
				Count         int
			}
		}
	}
	c.check(t, "/admin/api/v1/duplicates", g.get(t, "GET", "/admin/api/v1/duplicates"), &dups)
	require.NotEmpty(t, dups.Users)
	assert.Equal(t, "anonymous", dups.Users[0].User)
	assert.Contains(t, dups.Users[0].Routes, struct {
		Method, Route string
		Count         int
	}{"POST", "/{version}/fast", 1})

	var errs struct {
		Codes []struct {
			Code   string
			Counts []struct {
				Window string
				Count  int
			}
			Last       *struct{ SystemMessage, Upstream, Route string }
			ByUpstream []struct{ Upstream string }
			ByRoute    []struct{ Method, Route string }
		}
	}
	c.check(t, "/admin/api/v1/errors", g.get(t, "GET", "/admin/api/v1/errors"), &errs)
	byCode := map[string]int{}
	for i, code := range errs.Codes {
		byCode[code.Code] = i
	}
	require.Contains(t, byCode, "CALLOUT_FAILED")
	require.Contains(t, byCode, "URL_INVALID")
	cf := errs.Codes[byCode["CALLOUT_FAILED"]]
	assert.Equal(t, 2, cf.Counts[0].Count)
	require.NotNil(t, cf.Last)
	assert.Equal(t, "broken", cf.Last.Upstream)
	assert.Equal(t, "broken", cf.ByUpstream[0].Upstream)
	assert.Len(t, cf.ByRoute, 2, "GET and POST of /{version}/broken")
	assert.Contains(t, cf.Last.SystemMessage, "Callout failed.")
	for _, code := range errs.Codes {
		if code.Last != nil {
			assert.NotContains(t, code.Last.SystemMessage, "hunter2", "system messages are masked")
		}
	}
	assert.Equal(t, "unmatched", errs.Codes[byCode["URL_INVALID"]].Last.Route)

	var routes struct {
		Routes []struct {
			Method, Route, Kind, Upstream string
			Versions                      []string
			Windows                       []struct {
				Window        string
				Count, Errors int
				ErrorRatio    float64
				P50           *float64
			}
			Series []struct{ Count int }
			Cache  map[string]float64
		}
		Other []struct{ Method, Route string }
		Total struct{ Windows []struct{ Count int } }
	}
	c.check(t, "/admin/api/v1/routes", g.get(t, "GET", "/admin/api/v1/routes"), &routes)
	require.Len(t, routes.Routes, 7, "every route and method of the table")
	assert.Equal(t, "GET", routes.Routes[0].Method)
	assert.Equal(t, "/{version}/fast", routes.Routes[0].Route)
	assert.Equal(t, "proxy", routes.Routes[0].Kind)
	assert.Equal(t, "fast", routes.Routes[0].Upstream)
	assert.Equal(t, []string{"v1", "v2"}, routes.Routes[0].Versions)
	assert.Equal(t, 5, routes.Routes[0].Windows[0].Count)
	assert.NotNil(t, routes.Routes[0].Windows[0].P50)
	assert.Len(t, routes.Routes[0].Series, 15)
	assert.Nil(t, routes.Routes[0].Cache, "no cache metrics, no cache figures")
	broken := routes.Routes[4]
	require.Equal(t, "/{version}/broken", broken.Route)
	assert.Equal(t, 1, broken.Windows[0].Errors)
	assert.InDelta(t, 1, broken.Windows[0].ErrorRatio, 1e-9)
	assert.Equal(t, []struct{ Method, Route string }{{"GET", "unmatched"}}, routes.Other)
	assert.Equal(t, 12, routes.Total.Windows[0].Count)
}

func TestUpstreamsShowStateWithoutSecrets(t *testing.T) {
	t.Parallel()
	g := newGateway(t)
	traffic(t, g)
	c := newContract(t)
	rec := g.get(t, "GET", "/admin/api/v1/upstreams")
	for _, secret := range []string{"the-access-token", "the-client-secret"} {
		assert.NotContains(t, rec.Body.String(), secret)
	}
	var ans struct {
		Upstreams []struct {
			Name, URL string
			Breaker   struct {
				State   string
				History []struct{ From, To string }
			}
			Concurrency struct{ Limit int }
			Windows     []struct{ Count, Errors int }
			Token       *struct {
				Flow      string
				Held      bool
				Refreshed *string
			}
			Routes    []string
			Cache     map[string]float64
			Allowance *struct{ Used, Limit *float64 }
		}
	}
	c.check(t, "/admin/api/v1/upstreams", rec, &ans)
	byName := map[string]int{}
	for i, u := range ans.Upstreams {
		byName[u.Name] = i
	}
	require.Len(t, ans.Upstreams, 4)
	broken := ans.Upstreams[byName["broken"]]
	assert.Equal(t, "open", broken.Breaker.State, "two failures in a row opened it")
	assert.Equal(t, []struct{ From, To string }{{"closed", "open"}}, broken.Breaker.History)
	assert.Equal(t, 2, broken.Windows[0].Errors)
	assert.Equal(t, []string{"GET /{version}/broken", "POST /{version}/broken"}, broken.Routes)
	assert.Positive(t, ans.Upstreams[byName["fast"]].Concurrency.Limit)
	tok := ans.Upstreams[byName["oauth"]].Token
	require.NotNil(t, tok)
	assert.Equal(t, "client-credentials", tok.Flow)
	assert.True(t, tok.Held)
	assert.NotNil(t, tok.Refreshed)
	assert.Nil(t, ans.Upstreams[byName["fast"]].Token)
	assert.Nil(t, broken.Cache)
	assert.Nil(t, broken.Allowance)
}

// The cache's and the allowance's metrics are read by name when some part
// of the gateway registers them: the cache's here by hand (the response
// cache registers them when the gateway starts one), the allowance's by the
// gateway's metrics, as a guard records an org's usage.
func TestCacheAndAllowanceFiguresWhereTheyExist(t *testing.T) {
	t.Parallel()
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "gateway_cache_requests_total", Help: "h"}, []string{"route", "result"})
	bytes := prometheus.NewGauge(prometheus.GaugeOpts{Name: "gateway_cache_bytes", Help: "h"})
	entries := prometheus.NewGauge(prometheus.GaugeOpts{Name: "gateway_cache_entries", Help: "h"})
	evictions := prometheus.NewCounter(prometheus.CounterOpts{Name: "gateway_cache_evictions_total", Help: "h"})
	g := newGateway(t, requests, bytes, entries, evictions)
	requests.WithLabelValues("/{version}/fast", "hit").Add(7)
	requests.WithLabelValues("/{version}/fast", "miss").Add(3)
	requests.WithLabelValues("/{version}/slow", "coalesced").Add(2)
	bytes.Set(4096)
	entries.Set(12)
	evictions.Add(1)
	g.metrics.AllowanceUsage("fast", 900, 15000, 1500, time.Now())
	c := newContract(t)

	var o struct {
		Cache *struct {
			Requests                  map[string]float64
			Bytes, Entries, Evictions *float64
		}
	}
	c.check(t, "/admin/api/v1/overview", g.get(t, "GET", "/admin/api/v1/overview"), &o)
	require.NotNil(t, o.Cache)
	assert.Equal(t, map[string]float64{"hit": 7, "miss": 3, "coalesced": 2}, o.Cache.Requests)
	assert.Equal(t, 4096.0, *o.Cache.Bytes)
	assert.Equal(t, 12.0, *o.Cache.Entries)
	assert.Equal(t, 1.0, *o.Cache.Evictions)

	var r struct {
		Routes []struct {
			Method, Route string
			Cache         map[string]float64
		}
	}
	c.check(t, "/admin/api/v1/routes", g.get(t, "GET", "/admin/api/v1/routes"), &r)
	assert.Equal(t, map[string]float64{"hit": 7, "miss": 3}, r.Routes[0].Cache)
	assert.Equal(t, map[string]float64{}, r.Routes[6].Cache, "a route without lookups has none")

	var u struct {
		Upstreams []struct {
			Name      string
			Cache     map[string]float64
			Allowance *struct{ Used, Limit *float64 }
		}
	}
	c.check(t, "/admin/api/v1/upstreams", g.get(t, "GET", "/admin/api/v1/upstreams"), &u)
	for _, up := range u.Upstreams {
		switch up.Name {
		case "fast":
			assert.Equal(t, map[string]float64{"hit": 7, "miss": 3}, up.Cache, "GET and POST share the template: counted once")
			require.NotNil(t, up.Allowance)
			assert.Equal(t, 900.0, *up.Allowance.Used)
			assert.Equal(t, 15000.0, *up.Allowance.Limit)
		case "slow":
			assert.Equal(t, map[string]float64{"coalesced": 2}, up.Cache)
			assert.Nil(t, up.Allowance, "no allowance series for it")
		}
	}
}

func TestOverviewAndReloads(t *testing.T) {
	t.Parallel()
	g := newGateway(t)
	traffic(t, g)
	require.NoError(t, os.WriteFile(g.path, []byte(g.config+"colour: red\n"), 0o600))
	require.Error(t, g.reloader.Reload(context.Background(), "SIGHUP"))
	c := newContract(t)
	var o struct {
		Build  struct{ Version string }
		Config struct {
			Revision    string
			Routes      int
			LastReloads []struct {
				Applied  bool
				Problems []string
			}
		}
		Auth      struct{ Mode string }
		Recording bool
		Cluster   struct{ Store, State string }
		CallLog   struct {
			Enabled bool
			Dropped map[string]float64
		}
		Traffic struct {
			Windows []struct{ Count int }
			Series  []struct{ Count int }
		}
		Cache *struct{}
	}
	c.check(t, "/admin/api/v1/overview", g.get(t, "GET", "/admin/api/v1/overview"), &o)
	assert.Equal(t, "1.2.3", o.Build.Version)
	assert.Len(t, o.Config.Revision, 12)
	assert.Equal(t, 7, o.Config.Routes)
	require.Len(t, o.Config.LastReloads, 1)
	assert.False(t, o.Config.LastReloads[0].Applied)
	require.Len(t, o.Config.LastReloads[0].Problems, 1)
	assert.Contains(t, o.Config.LastReloads[0].Problems[0], "colour (line ")
	assert.Equal(t, "none", o.Auth.Mode)
	assert.True(t, o.Recording)
	assert.Equal(t, "memory", o.Cluster.Store)
	assert.Equal(t, "up", o.Cluster.State)
	assert.False(t, o.CallLog.Enabled)
	assert.Contains(t, o.CallLog.Dropped, "queue_full")
	assert.Equal(t, 12, o.Traffic.Windows[0].Count)
	assert.Nil(t, o.Cache)
}
