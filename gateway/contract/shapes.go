package contract

import "github.com/getkin/kin-openapi/openapi3"

// Record is the route's record in an answer; any JSON object when the
// route has none.
func Record(r RecordSchemas) *openapi3.Schema {
	if r.Out == nil {
		return AnyObject()
	}
	return r.Out
}

// Records is an array of the route's records.
func Records(r RecordSchemas) *openapi3.Schema {
	return openapi3.NewArraySchema().WithItems(Record(r))
}

// Input is the route's record in a request body; any JSON object when the
// route has none.
func Input(r RecordSchemas) *openapi3.Schema {
	if r.In == nil {
		return AnyObject()
	}
	return r.In
}

// Empty is the result "" of an operation that produces nothing.
func Empty(RecordSchemas) *openapi3.Schema {
	return &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}, Const: "",
		Description: "the empty string: the operation produces nothing"}
}

// Fixed is a shape that does not depend on the route's record.
func Fixed(s *openapi3.Schema) Shape {
	return func(RecordSchemas) *openapi3.Schema { return s }
}

// AnyObject is a JSON object with any members.
func AnyObject() *openapi3.Schema {
	return openapi3.NewObjectSchema().WithAnyAdditionalProperties()
}

// Nullable adds null to s's types.
func Nullable(s *openapi3.Schema) *openapi3.Schema {
	if s.Type != nil && !s.Type.Includes(openapi3.TypeNull) {
		t := append(s.Type.Clone(), openapi3.TypeNull)
		s.Type = &t
	}
	return s
}

// Str is a string schema with a description.
func Str(description string) *openapi3.Schema {
	s := openapi3.NewStringSchema()
	s.Description = description
	return s
}

// Obj is an object schema of props, open to further members, with the
// required ones listed. It says additionalProperties: true, which JSON
// Schema assumes anyway, because client generators do not: without it
// oapi-codegen and ogen drop the members a record has beyond props (a
// query record's fields, a task's createTime).
func Obj(props map[string]*openapi3.Schema, required ...string) *openapi3.Schema {
	s := openapi3.NewObjectSchema().WithProperties(props).WithAnyAdditionalProperties()
	if len(required) > 0 {
		s.Required = required
	}
	return s
}

// Closed is Obj refusing members it does not list (a request body).
func Closed(props map[string]*openapi3.Schema, required ...string) *openapi3.Schema {
	return Obj(props, required...).WithoutAdditionalProperties()
}

// Named makes s a named component: the OpenAPI document holds it once,
// under components.schemas.<name>, and refers to it wherever it is used,
// so that generated clients have one type for it whose members (and
// additionalProperties) are kept, instead of an anonymous type per use.
// The name travels as s's title; a different schema under a name already
// taken is numbered (Account2).
func Named(name string, s *openapi3.Schema) *openapi3.Schema {
	s.Title = name
	return s
}

// Int32 is an integer that fits 32 bits.
func Int32() *openapi3.Schema { return openapi3.NewInt32Schema() }

// Int64 is an integer that fits 64 bits.
func Int64() *openapi3.Schema { return openapi3.NewInt64Schema() }

// Double is a JSON number read as an IEEE 754 double: what a backend that
// holds a double (Salesforce's currency and number fields, Java's double)
// sends. Its text passes the gateway unchanged.
func Double() *openapi3.Schema { return openapi3.NewFloat64Schema().WithFormat("double") }

// Described sets s's description and returns s.
func Described(s *openapi3.Schema, description string) *openapi3.Schema {
	s.Description = description
	return s
}
