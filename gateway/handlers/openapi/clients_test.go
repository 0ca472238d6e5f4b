package openapi_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/handlers/openapi"
	"github.com/restgate/gateway/gateway/routes"
)

// loaded is the document of version v with s, through JSON and kin-openapi's
// loader (refs resolved), as a generator reads it.
func loaded(t *testing.T, reg contract.Registry, s openapi.Settings, v string) (*openapi3.T, map[string]any) {
	t.Helper()
	b, err := json.Marshal(openapi.Document(testTable(t), reg, s, v))
	require.NoError(t, err)
	doc, err := openapi3.NewLoader().LoadFromData(b)
	require.NoError(t, err)
	var raw map[string]any
	require.NoError(t, json.Unmarshal(b, &raw))
	return doc, raw
}

// TestEveryOperationIsDescribed: a tag, a description and a unique
// operationId on every operation, HEAD and OPTIONS included; info.contact
// set (Spectral's spectral:oas warns otherwise).
func TestEveryOperationIsDescribed(t *testing.T) {
	t.Parallel()
	doc, _ := loaded(t, registry(), openapi.Settings{AuthMode: config.AuthJWT, Contact: config.Contact{Email: "api@example.com"}}, "v2")
	require.NotNil(t, doc.Info.Contact)
	assert.Equal(t, "api@example.com", doc.Info.Contact.Email)
	assert.Equal(t, config.DefaultContactName, doc.Info.Contact.Name, "a name even when only an address is configured")
	ids := map[string]bool{}
	tags := map[string]bool{}
	for _, t := range doc.Tags {
		tags[t.Name] = true
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			assert.NotEmpty(t, op.Description, "%s %s", method, path)
			require.Len(t, op.Tags, 1, "%s %s", method, path)
			assert.True(t, tags[op.Tags[0]], "%s %s: tag %s is listed", method, path, op.Tags[0])
			assert.False(t, ids[op.OperationID], "%s is given twice", op.OperationID)
			ids[op.OperationID] = true
		}
	}
}

// TestHeadAndOptionsAreDeclared: HEAD beside every GET, with its
// parameters and statuses and no content; OPTIONS on every path, 204 with
// Allow, its path parameters, and no credentials required.
func TestHeadAndOptionsAreDeclared(t *testing.T) {
	t.Parallel()
	doc, _ := loaded(t, registry(), openapi.Settings{AuthMode: config.AuthJWT}, "v2")
	for path, item := range doc.Paths.Map() {
		require.NotNil(t, item.Options, path)
		ok := item.Options.Responses.Status(http.StatusNoContent)
		require.NotNil(t, ok, path)
		assert.Contains(t, ok.Value.Headers, "Allow")
		assert.Len(t, item.Options.Parameters, strings.Count(path, "{"), "%s: OPTIONS takes the path's parameters", path)
		assert.Contains(t, *item.Options.Security, openapi3.SecurityRequirement{}, "%s: a preflight has no credentials", path)
		if item.Get == nil {
			assert.Nil(t, item.Head, path)
			continue
		}
		require.NotNil(t, item.Head, path)
		assert.Equal(t, item.Get.Parameters, item.Head.Parameters, path)
		assert.Equal(t, len(item.Get.Responses.Map()), len(item.Head.Responses.Map()), path)
		for code, r := range item.Head.Responses.Map() {
			assert.Empty(t, r.Value.Content, "%s HEAD %s has no body", path, code)
			assert.NotNil(t, item.Get.Responses.Value(code), "%s: HEAD answers %s as GET does", path, code)
		}
	}
	assert.Contains(t, doc.Paths.Value("/v2/settings/openapi").Options.Description, "CORS preflight")
}

// TestErrorStatusesHaveResponsesOfTheirOwn: each error status refers to a
// shared response of its own (one shared by explicit codes and 4XX breaks
// ogen's generated code), each with the headers it is sent with.
func TestErrorStatusesHaveResponsesOfTheirOwn(t *testing.T) {
	t.Parallel()
	_, raw := loaded(t, registry(), openapi.Settings{AuthMode: config.AuthJWT, RateLimited: true}, "v2")
	get := raw["paths"].(map[string]any)["/v2/contacts"].(map[string]any)["get"].(map[string]any)
	refs := map[string]string{}
	for code, r := range get["responses"].(map[string]any) {
		if ref, ok := r.(map[string]any)["$ref"].(string); ok {
			refs[code] = strings.TrimPrefix(ref, "#/components/responses/")
		}
	}
	assert.Equal(t, map[string]string{"400": "BadRequest", "401": "Unauthorized", "413": "ContentTooLarge", "429": "TooManyRequests",
		"500": "InternalServerError", "502": "BadGateway", "503": "ServiceUnavailable", "504": "GatewayTimeout", "4XX": "BackendRejection"}, refs)
	responses := raw["components"].(map[string]any)["responses"].(map[string]any)
	headers := func(name string) []string {
		var out []string
		for h := range responses[name].(map[string]any)["headers"].(map[string]any) {
			out = append(out, h)
		}
		slices.Sort(out)
		return out
	}
	assert.Equal(t, []string{"RateLimit", "RateLimit-Policy", "Retry-After"}, headers("TooManyRequests"), "the quota fields beside Retry-After")
	assert.Equal(t, []string{"Retry-After"}, headers("ServiceUnavailable"))
	assert.Equal(t, []string{"WWW-Authenticate"}, headers("Unauthorized"))
	retry := raw["components"].(map[string]any)["headers"].(map[string]any)["Retry-After"].(map[string]any)
	assert.Equal(t, map[string]any{"type": "integer", "format": "int32", "minimum": 1.0}, retry["schema"])
}

// TestCacheAndQuotaFieldsAreDeclared: a cached route's GET (and so its
// HEAD) declares the cache's headers, the 304 to If-None-Match and, when
// it keeps the backend's 404s, theirs; with a rate limit or quotas every
// success declares the RateLimit fields.
func TestCacheAndQuotaFieldsAreDeclared(t *testing.T) {
	t.Parallel()
	doc, _ := loaded(t, registry(), openapi.Settings{AuthMode: config.AuthJWT, RateLimited: true}, "v2")
	require.NoError(t, doc.Validate(context.Background()))
	names := func(h openapi3.Headers) []string { return slices.Sorted(maps.Keys(h)) }

	item := doc.Paths.Value("/v2/contacts/{contactId}")
	for _, op := range []*openapi3.Operation{item.Get, item.Head} {
		assert.Equal(t, []string{"Age", "Cache-Control", "Cache-Status", "ETag", "RateLimit", "RateLimit-Policy", "Warning"},
			names(op.Responses.Status(http.StatusOK).Value.Headers))
		notModified := op.Responses.Status(http.StatusNotModified)
		require.NotNil(t, notModified, "304 to a matching If-None-Match")
		assert.Equal(t, []string{"Age", "Cache-Control", "Cache-Status", "ETag", "RateLimit", "RateLimit-Policy"},
			names(notModified.Value.Headers))
		assert.Empty(t, notModified.Value.Content)
		assert.Equal(t, []string{"Age", "Cache-Status"}, names(op.Responses.Status(http.StatusNotFound).Value.Headers),
			"cache.notFoundTTL keeps the backend's 404s")
	}
	assert.Equal(t, []string{"RateLimit", "RateLimit-Policy"}, names(item.Patch.Responses.Status(http.StatusOK).Value.Headers),
		"a write is not cached")
	uncached := doc.Paths.Value("/v2/contacts").Get
	assert.Nil(t, uncached.Responses.Status(http.StatusNotModified))
	assert.Equal(t, []string{"RateLimit", "RateLimit-Policy"}, names(uncached.Responses.Status(http.StatusOK).Value.Headers))
}

// TestResponseHeadersDeclaredOnce: the headers an operation declares for
// its success answer are held once under components.headers and referred
// to; two operations share the one declaration.
func TestResponseHeadersDeclaredOnce(t *testing.T) {
	t.Parallel()
	version := contract.Header{Name: "X-Answer-Version", Description: "the answer's version", Schema: openapi3.NewStringSchema()}
	reg := registry()
	reg[config.KindProxy] = func(*routes.Route, string) contract.Operation {
		return contract.Operation{Result: contract.Record, Headers: []contract.Header{version}, Description: "d"}
	}
	_, raw := loaded(t, reg, openapi.Settings{}, "v2")
	paths := raw["paths"].(map[string]any)
	for _, p := range []string{"/v2/contacts", "/v2/contacts/{contactId}"} {
		ok := paths[p].(map[string]any)["get"].(map[string]any)["responses"].(map[string]any)["200"].(map[string]any)
		assert.Equal(t, map[string]any{"$ref": "#/components/headers/X-Answer-Version"},
			ok["headers"].(map[string]any)["X-Answer-Version"], p)
		head := paths[p].(map[string]any)["head"].(map[string]any)["responses"].(map[string]any)["200"].(map[string]any)
		assert.Equal(t, ok["headers"], head["headers"], "%s: HEAD carries GET's headers", p)
	}
	assert.Equal(t, map[string]any{"description": "the answer's version", "schema": map[string]any{"type": "string"}},
		raw["components"].(map[string]any)["headers"].(map[string]any)["X-Answer-Version"])
}

// TestRecordsAreNamedComponents: no object with properties is declared
// inline, outside components.schemas (the envelope's result part aside),
// and a title taken by another schema is numbered.
func TestRecordsAreNamedComponents(t *testing.T) {
	t.Parallel()
	_, raw := loaded(t, registry(), openapi.Settings{}, "v1")
	schemas := raw["components"].(map[string]any)["schemas"].(map[string]any)
	assert.Contains(t, schemas, "ContactSelected", "v1's list selects fields")
	assert.Contains(t, schemas, "ContactInput")
	for name, s := range schemas {
		_, props := s.(map[string]any)["properties"]
		_, says := s.(map[string]any)["additionalProperties"]
		if props && !slices.Contains([]string{"Envelope", "ErrorEnvelope", "Page", "ResponseCode"}, name) {
			assert.True(t, says, "%s says whether it takes other members: generators drop them unless told", name)
		}
	}
	for path, item := range raw["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			walkSchemas(op, func(s map[string]any, where string) {
				if _, ok := s["properties"]; ok && !strings.HasSuffix(where, "allOf/1") {
					t.Errorf("%s %s: an inline object at %s", method, path, where)
				}
			}, "")
		}
	}

	reg := registry()
	reg[config.KindProxy] = func(rt *routes.Route, _ string) contract.Operation {
		s := contract.Named("Thing", contract.Obj(map[string]*openapi3.Schema{rt.Template: openapi3.NewStringSchema()}))
		return contract.Operation{Result: contract.Fixed(s), Description: "d"}
	}
	_, raw = loaded(t, reg, openapi.Settings{}, "v2")
	schemas = raw["components"].(map[string]any)["schemas"].(map[string]any)
	assert.Contains(t, schemas["Thing"].(map[string]any)["properties"], "/{version}/contacts")
	assert.Contains(t, schemas["Thing2"].(map[string]any)["properties"], "/{version}/contacts/{contactId}")
}

// TestNumbersHaveFormats: every integer says int32 or int64 and every
// number double, so that no generator picks a float32 or an int of the
// machine's size.
func TestNumbersHaveFormats(t *testing.T) {
	t.Parallel()
	_, raw := loaded(t, registry(), openapi.Settings{RateLimited: true}, "v2")
	walkSchemas(raw, func(s map[string]any, where string) {
		types := []any{s["type"]}
		if list, ok := s["type"].([]any); ok {
			types = list
		}
		for _, typ := range types {
			switch typ {
			case "integer":
				assert.Contains(t, []any{"int32", "int64"}, s["format"], where)
			case "number":
				assert.Equal(t, "double", s["format"], where)
			}
		}
	}, "")
}

// TestAlways200AnswersOneOrTheOther: with errors answered 200 the 200
// answer is oneOf the success and the error envelope (ogen cannot tell an
// anyOf of objects apart); the document's own answer stays any object.
func TestAlways200AnswersOneOrTheOther(t *testing.T) {
	t.Parallel()
	doc, _ := loaded(t, registry(), openapi.Settings{Always200: true}, "v2")
	list := doc.Paths.Value("/v2/contacts").Get.Responses.Status(200).Value.Content.Get("application/json").Schema.Value
	require.Len(t, list.OneOf, 2)
	assert.Equal(t, "#/components/schemas/ErrorEnvelope", list.OneOf[1].Ref)
	assert.Empty(t, list.AnyOf)
	own := doc.Paths.Value("/v2/settings/openapi").Get.Responses.Status(200).Value.Content.Get("application/json").Schema.Value
	assert.Empty(t, own.OneOf)
	assert.True(t, own.Type.Is(openapi3.TypeObject))
	assert.Len(t, doc.Paths.Value("/v2/contacts").Get.Responses.Map(), 1, "no other status is sent")
}

// walkSchemas calls f on every object under v that looks like a schema
// (has type, properties or items), with its path.
func walkSchemas(v any, f func(s map[string]any, where string), where string) {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["type"]; ok {
			f(x, where)
		} else if _, ok := x["properties"]; ok {
			f(x, where)
		}
		for k, c := range x {
			walkSchemas(c, f, where+"/"+k)
		}
	case []any:
		for i, c := range x {
			walkSchemas(c, f, where+"/"+strconv.Itoa(i))
		}
	}
}
