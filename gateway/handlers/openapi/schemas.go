package openapi

import (
	"net/http"
	"slices"
	"sort"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/routes"
)

func ref(name string) *openapi3.SchemaRef {
	return openapi3.NewSchemaRef("#/components/schemas/"+name, nil)
}

func described(s *openapi3.Schema, d string) *openapi3.Schema {
	s.Description = d
	return s
}

// metaProps are the members every envelope ends with.
func metaProps() openapi3.Schemas {
	return openapi3.Schemas{
		"timeStamp":      {Value: described(openapi3.NewDateTimeSchema(), "ISO 8601 UTC with milliseconds")},
		"totalTime":      {Value: described(openapi3.NewFloat64Schema(), "milliseconds spent in the gateway for this request")},
		"userId":         {Value: described(openapi3.NewStringSchema(), "the caller")},
		"mapKeysFlag":    {Value: described(openapi3.NewBoolSchema(), "whether the version's key map was applied")},
		"serializeNulls": {Value: described(openapi3.NewBoolSchema(), "true: null members were removed")},
	}
}

// commonSchemas are the envelope, the error envelope, its responseCode and
// the page member, the same for every route and version.
func commonSchemas() openapi3.Schemas {
	env := metaProps()
	env["result"] = &openapi3.SchemaRef{Value: &openapi3.Schema{Description: `the result; "" when the operation produces nothing`}}
	env["mapKeys"] = &openapi3.SchemaRef{Value: described(openapi3.NewObjectSchema().WithAdditionalProperties(openapi3.NewStringSchema()),
		"the published key map, internal -> exposed (settings/model only)")}
	errEnv := metaProps()
	errEnv["responseCode"] = ref("ResponseCode")
	ids := make([]any, 0, 16)
	for _, id := range slices.Sorted(mapsKeys(envelope.Catalogue())) {
		ids = append(ids, id)
	}
	str := func(d string) *openapi3.SchemaRef { return &openapi3.SchemaRef{Value: contract.Str(d)} }
	return openapi3.Schemas{
		"Envelope": {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Properties: env,
			Required: []string{"result", "timeStamp", "totalTime", "userId"}, Description: "Every successful answer."}},
		"ErrorEnvelope": {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Properties: errEnv,
			Required: []string{"responseCode", "timeStamp", "totalTime", "userId"}, Description: "Every error answer."}},
		"Page": {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Required: []string{"start", "size"},
			Description: "Where a list result sits in the whole list (docs/concepts/paging.md); only on lists that are part of a longer one.",
			Properties: openapi3.Schemas{
				"start": {Value: described(openapi3.NewIntegerSchema().WithMin(0), "position of the result's first item in the whole list, from 0")},
				"size":  {Value: described(openapi3.NewIntegerSchema().WithMin(0), "number of items in the result")},
				"total": {Value: described(openapi3.NewIntegerSchema().WithMin(0), "number of items in the whole list; absent when the backend does not say")},
				"next":  str("gateway path and query of the next page; absent on the last page"),
			}}},
		"ResponseCode": {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject},
			Required: []string{"id", "code", "clientTemplate", "formattedClientMessage"},
			Properties: openapi3.Schemas{
				"id":             {Value: openapi3.NewStringSchema().WithEnum(ids...)},
				"code":           {Value: described(openapi3.NewIntegerSchema(), "the id's number (989 ...)")},
				"clientTemplate": str("the code's client template"),
				"formattedClientMessage": str("the client template formatted; a client-safe detail " +
					"(the parameter at fault, the backend's reason) follows it after \": \""),
				"systemTemplate":         str("only when the gateway exposes system messages"),
				"formattedSystemMessage": str("only when the gateway exposes system messages"),
			}}},
	}
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// envelopeOf is the success envelope whose result is result, with the
// page member when paged.
func envelopeOf(result *openapi3.Schema, paged bool) *openapi3.Schema {
	props := openapi3.Schemas{"result": {Value: result}}
	if paged {
		props["page"] = ref("Page")
	}
	return &openapi3.Schema{AllOf: openapi3.SchemaRefs{ref("Envelope"), {Value: &openapi3.Schema{Properties: props}}}}
}

func errorResponse(always200 bool) *openapi3.Response {
	d := "an error; responseCode names it"
	if always200 {
		d += " (answered with status 200 by this gateway)"
	}
	return openapi3.NewResponse().WithDescription(d).
		WithContent(openapi3.NewContentWithJSONSchemaRef(ref("ErrorEnvelope")))
}

// responses fills out with op's answers: the success status with its
// envelope, and every error status the operation may answer, each an error
// envelope. With always200 errors are answered 200, so the 200 answer is
// either.
func (b *builder) responses(out *openapi3.Responses, rt *routes.Route, method string, op contract.Operation, rec contract.RecordSchemas) {
	status := op.Status
	if status == 0 {
		status = http.StatusOK
	}
	var success *openapi3.Schema
	if op.Document {
		success = described(contract.AnyObject(), "this OpenAPI document, not enveloped")
	} else {
		result := &openapi3.Schema{}
		if op.Result != nil {
			result = op.Result(rec)
		}
		success = envelopeOf(result, op.Paged)
	}
	desc := "success"
	if b.settings.Always200 && status == http.StatusOK {
		success = &openapi3.Schema{AnyOf: openapi3.SchemaRefs{{Value: success}, ref("ErrorEnvelope")}}
		desc = "success, or an error envelope (errors are answered 200 by this gateway)"
	}
	out.Set(strconv.Itoa(status), &openapi3.ResponseRef{Value: openapi3.NewResponse().WithDescription(desc).
		WithContent(openapi3.NewContentWithJSONSchema(success))})
	errRef := &openapi3.ResponseRef{Ref: "#/components/responses/Error"}
	if b.settings.Always200 {
		if status != http.StatusOK {
			out.Set("200", errRef)
		}
		return
	}
	for _, code := range b.errorStatuses(rt, method, op) {
		out.Set(code, errRef)
	}
}

// errorStatuses lists the statuses op may answer errors with: those every
// route may (400 a refused parameter, 413 a URL or header over its limit,
// 500), those of the gateway's settings (401, 429), of the route (403 for
// roles) and of op itself; an operation that calls a backend may also
// answer the backend's rejection with its 4xx status, and 502, 503, 504.
func (b *builder) errorStatuses(rt *routes.Route, method string, op contract.Operation) []string {
	codes := []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusInternalServerError}
	if b.settings.AuthMode != config.AuthNone && b.settings.AuthMode != "" {
		codes = append(codes, http.StatusUnauthorized)
	}
	if b.settings.RateLimited {
		codes = append(codes, http.StatusTooManyRequests)
	}
	if len(rt.Spec.Roles[method]) > 0 || len(rt.Spec.Roles["*"]) > 0 {
		codes = append(codes, http.StatusForbidden)
	}
	if op.Body != nil && op.Body.Media == contract.Multipart {
		codes = append(codes, http.StatusUnsupportedMediaType)
	}
	codes = append(codes, op.Errors...)
	if op.Upstream {
		codes = append(codes, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout)
	}
	slices.Sort(codes)
	out := make([]string, 0, len(codes)+1)
	for _, c := range slices.Compact(codes) {
		out = append(out, strconv.Itoa(c))
	}
	if op.Upstream {
		out = append(out, "4XX") // the backend's other rejections keep their status
	}
	return out
}

// securitySchemes are the schemes of auth mode; none has none.
func securitySchemes(mode string) openapi3.SecuritySchemes {
	switch mode {
	case config.AuthJWT:
		return openapi3.SecuritySchemes{"bearerAuth": {Value: openapi3.NewJWTSecurityScheme()}}
	case config.AuthAPIKey:
		s := openapi3.NewSecurityScheme()
		s.Type, s.In, s.Name = "apiKey", "header", "X-API-Key"
		s.Description = "an API key; Authorization: ApiKey <key> is read too"
		return openapi3.SecuritySchemes{"apiKey": {Value: s}}
	}
	return nil
}

// schemeName is the security scheme operations require under mode; "":
// none (auth.mode none serves loopback callers without credentials).
func schemeName(mode string) string {
	switch mode {
	case config.AuthJWT:
		return "bearerAuth"
	case config.AuthAPIKey:
		return "apiKey"
	}
	return ""
}

// records are the route's record schemas for o: typed by the model's
// types, in the names the version exposes.
func (b *builder) records(o *routes.VersionOptions) contract.RecordSchemas {
	if o == nil || o.KeyMap == nil {
		return contract.RecordSchemas{}
	}
	var types map[string]string
	if o.Model != nil {
		types = o.Model.Types
	}
	pairs := o.KeyMap.Pairs() // internal -> exposed
	out := openapi3.NewObjectSchema().WithAnyAdditionalProperties()
	in := openapi3.NewObjectSchema().WithoutAdditionalProperties()
	var r contract.RecordSchemas
	for _, internal := range sortedKeys(pairs) {
		name := internal
		if o.MapKeys {
			name = pairs[internal]
			in.Properties[name] = &openapi3.SchemaRef{Value: fieldSchema(types[internal])}
		}
		if internal == "Id" {
			r.ID = name
		}
		if o.Select == nil || o.Select.Has(internal) {
			out.Properties[name] = &openapi3.SchemaRef{Value: fieldSchema(types[internal])}
		}
	}
	r.Out = out
	if o.MapKeys {
		r.In = in
	}
	return r
}

// fieldSchema is a record field of type typ (config.FieldTypes), nullable:
// a version that keeps nulls answers them.
func fieldSchema(typ string) *openapi3.Schema {
	var s *openapi3.Schema
	switch typ {
	case "integer":
		s = openapi3.NewIntegerSchema()
	case "number":
		s = openapi3.NewFloat64Schema()
	case "boolean":
		s = openapi3.NewBoolSchema()
	case "date":
		s = openapi3.NewStringSchema().WithFormat("date")
	case "date-time":
		s = openapi3.NewDateTimeSchema()
	default:
		s = openapi3.NewStringSchema()
	}
	return contract.Nullable(s)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
