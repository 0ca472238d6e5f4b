package openapi_test

import (
	"context"
	"encoding/json"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/handlers/openapi"
	"github.com/restgate/gateway/gateway/handlers/proxy"
	"github.com/restgate/gateway/gateway/handlers/settings"
	"github.com/restgate/gateway/gateway/middleware"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/upstreams"
)

var update = flag.Bool("update", false, "rewrite golden files")

func testTable(t testing.TB) *routes.Table {
	t.Helper()
	cfg := &config.Config{
		Versions: []string{"v1", "v2"},
		Models: map[string]config.Model{"Contact": {Fields: []string{"Id", "FirstName", "LastName", "Email"},
			Versions: map[string]config.ModelVersion{"v1": {MapKeys: map[string]string{"FirstName": "firstname", "LastName": "lastname"}}}}},
		Upstreams: map[string]upstreams.Settings{"data": {URL: "http://unused"}},
		Routes: []config.Route{
			{Path: "/{version}/settings/endpoints", Kind: config.KindEndpoints, Summary: "Lists every endpoint"},
			{Path: "/{version}/settings/openapi", Kind: config.KindOpenAPI, Summary: "This version's OpenAPI document"},
			{Path: "/{version}/contacts", Kind: config.KindProxy, Upstream: "data", Model: "Contact", Summary: "Lists contacts",
				Methods: []string{"GET", "POST"}, UpstreamPath: "/query?q=SELECT+Id+FROM+Contact", ResultPath: "records", Query: []string{"limit", "offset"},
				Versions: map[string]config.RouteVersion{"v1": {Fields: []string{"Id", "LastName"}}, "v2": {}}},
			{Path: "/{version}/contacts/{contactId}", Kind: config.KindProxy, Upstream: "data", Model: "Contact",
				Methods: []string{"GET", "PATCH", "DELETE"}, UpstreamPath: "/sobjects/Contact/{contactId}",
				Versions: map[string]config.RouteVersion{"v2": {}},
				Cache:    &config.RouteCache{TTL: time.Minute, NotFoundTTL: 10 * time.Second}},
		},
	}
	config.Defaults(cfg)
	table, err := routes.Build(cfg)
	require.NoError(t, err)
	return table
}

// registry declares the test table's kinds as the gateway does.
func registry() contract.Registry {
	return contract.Registry{
		config.KindEndpoints: settings.EndpointsContract,
		config.KindOpenAPI:   openapi.Contract,
		config.KindProxy:     proxy.Contract(func(string) bool { return false }),
	}
}

// noop stands in for the proxy handlers, which this package does not test.
func noop(rt *routes.Route) (map[string]call.Handler, error) {
	out := map[string]call.Handler{}
	for _, m := range rt.Spec.Methods {
		out[m] = func(*http.Request, *call.Call) (call.Result, error) { return call.Result{}, nil }
	}
	return out, nil
}

func newGateway(t testing.TB) http.Handler {
	t.Helper()
	table := testTable(t)
	w := call.NewWriter(call.WriterConfig{Catalog: envelope.NewCatalog(), MaxOutput: 50000, MaxDepth: 64})
	h, err := router.New(table, router.Options{Writer: w, MaxBodyBytes: 1 << 20, Contracts: registry(), Kinds: map[string]router.Factory{
		config.KindEndpoints: settings.Endpoints(table),
		config.KindOpenAPI:   openapi.New(table, registry(), openapi.Settings{AuthMode: config.AuthNone}),
		config.KindProxy:     noop,
	}})
	require.NoError(t, err)
	return middleware.Trace(h, time.Now)
}

func TestDocumentIsValidOpenAPI31(t *testing.T) {
	t.Parallel()
	h := newGateway(t)
	tests := []struct {
		desc, version string
		paths, absent []string
		// contactFields a body takes (every mapped field), listed the
		// fields a record of the list has (the version's selection).
		contactFields, listed []string
	}{
		{desc: "v1", version: "v1", paths: []string{"/v1/contacts", "/v1/settings/openapi", "/v1/settings/endpoints"},
			absent: []string{"/v1/contacts/{contactId}"}, contactFields: []string{"email", "firstname", "id", "lastname"},
			listed: []string{"id", "lastname"}},
		{desc: "v2", version: "v2", paths: []string{"/v2/contacts", "/v2/contacts/{contactId}"},
			contactFields: []string{"email", "firstName", "id", "lastName"}, listed: []string{"email", "firstName", "id", "lastName"}},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/"+tt.version+"/settings/openapi", nil))
			require.Equal(t, 200, rec.Code)
			assert.Equal(t, "application/json; charset=utf-8", rec.Header().Get("Content-Type"))
			assert.Contains(t, rec.Header().Get("Server-Timing"), "total;dur=")

			loader := openapi3.NewLoader()
			doc, err := loader.LoadFromData(rec.Body.Bytes())
			require.NoError(t, err)
			require.True(t, doc.IsOpenAPI31OrLater())
			require.NoError(t, doc.Validate(context.Background()), "the document is valid OpenAPI 3.1")
			assert.Equal(t, tt.version, doc.Info.Version)
			for _, p := range tt.paths {
				assert.NotNil(t, doc.Paths.Value(p), p)
			}
			for _, p := range tt.absent {
				assert.Nil(t, doc.Paths.Value(p), p)
			}
			list := doc.Paths.Value("/" + tt.version + "/contacts")
			require.NotNil(t, list.Get)
			assert.Equal(t, "Lists contacts", list.Get.Summary)
			assert.NotNil(t, list.Get.Parameters.GetByInAndName("query", "limit"))
			require.NotNil(t, list.Post.RequestBody)
			body := list.Post.RequestBody.Value.Content.Get("application/json").Schema.Value
			var fields []string
			for f := range body.Properties {
				fields = append(fields, f)
			}
			assert.ElementsMatch(t, tt.contactFields, fields)
			assert.False(t, *body.AdditionalProperties.Has, "a body refuses fields the model does not have")
			result := list.Get.Responses.Status(200).Value.Content.Get("application/json").Schema.Value.AllOf[1].Value.Properties["result"].Value
			fields = nil
			for f := range result.Properties {
				fields = append(fields, f)
			}
			assert.ElementsMatch(t, tt.listed, fields)
			if item := doc.Paths.Value("/" + tt.version + "/contacts/{contactId}"); item != nil {
				assert.NotNil(t, item.Get.Parameters.GetByInAndName("path", "contactId"))
				assert.NotNil(t, item.Patch.Parameters.GetByInAndName("path", "contactId"))
			}
			assert.Contains(t, doc.Components.Schemas, "ErrorEnvelope")
			assert.Contains(t, doc.Components.Schemas["ResponseCode"].Value.Properties, "formattedClientMessage")
		})
	}
}

func TestDocumentGolden(t *testing.T) {
	t.Parallel()
	got, err := json.MarshalIndent(openapi.Document(testTable(t), registry(), openapi.Settings{AuthMode: config.AuthJWT}, "v2"), "", "  ")
	require.NoError(t, err)
	path := filepath.Join("testdata", "openapi_v2.json")
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.JSONEq(t, string(want), string(got))
}

func TestErrorsStayEnveloped(t *testing.T) {
	t.Parallel()
	h := newGateway(t)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/settings/openapi", nil))
	assert.Equal(t, 405, rec.Code)
	var env map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &env))
	assert.Contains(t, env, "responseCode")
}

func BenchmarkServeDocument(b *testing.B) {
	h := newGateway(b)
	req := httptest.NewRequest("GET", "/v2/settings/openapi", nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
	}
}

// TestValidatorRejectsBrokenDocument shows the validation above can fail:
// a path parameter the path does not have is refused.
func TestValidatorRejectsBrokenDocument(t *testing.T) {
	t.Parallel()
	doc := openapi.Document(testTable(t), registry(), openapi.Settings{AuthMode: config.AuthJWT}, "v2")
	doc.Paths.Set("/v2/broken", doc.Paths.Value("/v2/contacts/{contactId}"))
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	loaded, err := openapi3.NewLoader().LoadFromData(b)
	require.NoError(t, err)
	assert.Error(t, loaded.Validate(context.Background()))
}
