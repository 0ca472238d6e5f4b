package openapi

import (
	"maps"
	"slices"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/contract"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/routes"
)

// metaProps are the members every envelope ends with.
func metaProps() openapi3.Schemas {
	return openapi3.Schemas{
		"timeStamp":      {Value: contract.Described(openapi3.NewDateTimeSchema(), "ISO 8601 UTC with milliseconds")},
		"totalTime":      {Value: contract.Described(contract.Double(), "milliseconds spent in the gateway for this request")},
		"userId":         {Value: contract.Described(openapi3.NewStringSchema(), "the caller")},
		"mapKeysFlag":    {Value: contract.Described(openapi3.NewBoolSchema(), "whether the version's key map was applied")},
		"serializeNulls": {Value: contract.Described(openapi3.NewBoolSchema(), "true: null members were removed")},
	}
}

// commonSchemas are the envelope, the error envelope, its responseCode and
// the page member, the same for every route and version.
func commonSchemas() openapi3.Schemas {
	env := metaProps()
	env["result"] = &openapi3.SchemaRef{Value: &openapi3.Schema{Description: `the result; "" when the operation produces nothing`}}
	env["mapKeys"] = &openapi3.SchemaRef{Value: contract.Described(openapi3.NewObjectSchema().WithAdditionalProperties(openapi3.NewStringSchema()),
		"the published key map, internal -> exposed (settings/model only)")}
	errEnv := metaProps()
	errEnv["responseCode"] = ref("ResponseCode")
	ids := make([]any, 0, 16)
	for _, id := range slices.Sorted(maps.Keys(envelope.Catalogue())) {
		ids = append(ids, id)
	}
	str := func(d string) *openapi3.SchemaRef { return &openapi3.SchemaRef{Value: contract.Str(d)} }
	count := func(d string) *openapi3.SchemaRef {
		return &openapi3.SchemaRef{Value: contract.Described(contract.Int64().WithMin(0), d)}
	}
	return openapi3.Schemas{
		"Envelope": {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Properties: env,
			Required: []string{"result", "timeStamp", "totalTime", "userId"}, Description: "Every successful answer."}},
		"ErrorEnvelope": {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Properties: errEnv,
			Required: []string{"responseCode", "timeStamp", "totalTime", "userId"}, Description: "Every error answer."}},
		"Page": {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}, Required: []string{"start", "size"},
			Description: "Where a list result sits in the whole list (docs/concepts/paging.md); only on lists that are part of a longer one.",
			Properties: openapi3.Schemas{
				"start": count("position of the result's first item in the whole list, from 0"),
				"size":  count("number of items in the result"),
				"total": count("number of items in the whole list; absent when the backend does not say"),
				"next":  str("gateway path and query of the next page; absent on the last page"),
			}}},
		"ResponseCode": {Value: &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject},
			Description: "What went wrong: the code's id and number, its template, and the template formatted.",
			Required:    []string{"id", "code", "clientTemplate", "formattedClientMessage"},
			Properties: openapi3.Schemas{
				"id":             {Value: openapi3.NewStringSchema().WithEnum(ids...)},
				"code":           {Value: contract.Described(contract.Int32(), "the id's number (989 ...)")},
				"clientTemplate": str("the code's client template"),
				"formattedClientMessage": str("the client template formatted; a client-safe detail " +
					"(the parameter at fault, the backend's reason) follows it after \": \""),
				"systemTemplate":         str("only when the gateway exposes system messages"),
				"formattedSystemMessage": str("only when the gateway exposes system messages"),
			}}},
	}
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

// records are the route's record schemas for o, named components typed by
// the model's types, in the names the version exposes: the answer's record
// is the model's name (Account), or, when the version selects fields on
// the route, the model's name and Selected; a body's record is the
// model's name and Input.
func (b *builder) records(rt *routes.Route, o *routes.VersionOptions) contract.RecordSchemas {
	if o == nil || o.KeyMap == nil {
		return contract.RecordSchemas{}
	}
	name := contract.PathName(rt.Template) + "Record"
	var types map[string]string
	if o.Model != nil {
		name, types = o.Model.Name, o.Model.Types
	}
	pairs := o.KeyMap.Pairs() // internal -> exposed
	out := openapi3.NewObjectSchema().WithAnyAdditionalProperties()
	in := openapi3.NewObjectSchema().WithoutAdditionalProperties()
	var r contract.RecordSchemas
	for _, internal := range slices.Sorted(maps.Keys(pairs)) {
		exposed := internal
		if o.MapKeys {
			exposed = pairs[internal]
			in.Properties[exposed] = &openapi3.SchemaRef{Value: fieldSchema(types[internal])}
		}
		if internal == "Id" {
			r.ID = exposed
		}
		if o.Select == nil || o.Select.Has(internal) {
			out.Properties[exposed] = &openapi3.SchemaRef{Value: fieldSchema(types[internal])}
		}
	}
	if len(out.Properties) < len(pairs) {
		r.Out = contract.Named(name+"Selected", contract.Described(out, name+" as "+rt.Template+" answers it in "+b.version+
			": the fields the version selects, null when the backend has none; open to members the model does not declare."))
	} else {
		r.Out = contract.Named(name, contract.Described(out, name+" as "+b.version+" answers it: every field of the model "+
			"in the version's names, null when the backend has none; open to members the model does not declare."))
	}
	if o.MapKeys {
		r.In = contract.Named(name+"Input", contract.Described(in, name+" as "+b.version+" takes it in a request body: "+
			"any of the model's fields in the version's names, and no other."))
	}
	return r
}

// fieldSchema is a record field of type typ (config.FieldTypes), nullable:
// a version that keeps nulls answers them. A number is a double: what the
// backends hold (Salesforce's currency and number fields are doubles in
// its API); its text passes the gateway unchanged.
func fieldSchema(typ string) *openapi3.Schema {
	var s *openapi3.Schema
	switch typ {
	case "integer":
		s = contract.Int64()
	case "number":
		s = contract.Double()
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
