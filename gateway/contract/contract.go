// Package contract declares what each operation of the API takes and
// answers: its query and path parameters (name, type, bounds, whether
// required, the backend name each maps to), its request body and its
// result. Each route kind declares its operations once, in its handler
// package; the router checks every request's query against the declaration
// (CheckQuery) before the handler runs, and the OpenAPI document
// (gateway/handlers/openapi) is rendered from the same declarations, so
// what is checked and what is documented cannot drift apart.
package contract

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/restgate/gateway/gateway/routes"
)

// Type is the type of a parameter's value.
type Type int

const (
	// String (the zero value): any text, bounded by MaxLength when set.
	String Type = iota
	// Integer: plain decimal digits (no sign, space or exponent), within
	// Min and Max.
	Integer
	// Boolean: true or false.
	Boolean
)

// Param is one query or path parameter of an operation.
type Param struct {
	// Name is the parameter's name in the gateway's API.
	Name string
	// Type of the value; Enum, when set, lists every accepted value.
	Type Type
	// Min and Max bound an Integer, inclusively.
	Min, Max int64
	// Enum lists the accepted values of a String; nil accepts any.
	Enum []string
	// MaxLength bounds a String's length in bytes; 0 is unbounded.
	MaxLength int
	// Pattern is the regular expression a path parameter matches
	// (documentation; the handler checks it).
	Pattern string
	// Required: a request without the parameter is refused.
	Required bool
	// AllowEmpty: an empty value counts as not given (limit=); otherwise
	// an empty value is refused.
	AllowEmpty bool
	// Default is the value used when the parameter is not given
	// (documentation).
	Default string
	// Backend names what the parameter is sent to the backend as
	// (documentation: "candidateUser (open), taskInvolvedUser (closed)").
	Backend string
	// Description says what the parameter does.
	Description string
}

// Operation is what one (route, method) takes and answers.
type Operation struct {
	// ID is the operationId stem ("listAccounts"); the document makes it
	// unique per version.
	ID string
	// Query lists every query parameter the operation takes; any other is
	// refused (CheckQuery).
	Query []Param
	// Path lists the path parameters of the route's template, {version}
	// excluded; a parameter the template has but this list lacks is
	// documented as a plain string.
	Path []Param
	// Body is the request body; nil takes none.
	Body *Body
	// Status is the success status; 0 means 200.
	Status int
	// Result is the schema of the envelope's result; nil is any JSON.
	Result Shape
	// Paged: the envelope may carry the page member.
	Paged bool
	// Document: the answer is a document of its own, not enveloped (the
	// OpenAPI document).
	Document bool
	// Upstream: the operation calls a backend, so it may answer the
	// backend's rejections (4xx) and 502, 503 and 504.
	Upstream bool
	// Errors lists further statuses the operation itself answers (404 of
	// an unknown record, 409 of a claimed task, 415 ...).
	Errors []int
	// Headers are the response headers the success answer may carry, each
	// declared once in the document (see Header).
	Headers []Header
	// Description says what the operation does, beyond the route's
	// summary: what it answers, when it refuses, what it costs the
	// backend. Every operation has one.
	Description string
}

// Body is a request body.
type Body struct {
	// Media is the media type: application/json (the default) or
	// multipart/form-data.
	Media string
	// Required: a request without a body is refused.
	Required bool
	// Shape is the body's schema.
	Shape Shape
	// Description says what the body is.
	Description string
}

// Media types of bodies.
const (
	JSON      = "application/json"
	Multipart = "multipart/form-data"
)

// Shape builds a schema from the route's record schemas for the version
// being documented. Shapes that do not depend on the record ignore them.
type Shape func(r RecordSchemas) *openapi3.Schema

// RecordSchemas are a route's record as one version shows it.
type RecordSchemas struct {
	// Out is a record of an answer: the version's selected fields in the
	// names it exposes, typed, nullable, open to members the model does
	// not declare. nil when the route has no model.
	Out *openapi3.Schema
	// In is a record of a request body: every field of the version's key
	// map in its exposed name, refusing any other. nil when the route has
	// no model.
	In *openapi3.Schema
	// ID is the exposed name of the record's Id field; "" when it has
	// none.
	ID string
}

// Declare returns the operation a route serves for method.
type Declare func(rt *routes.Route, method string) Operation

// Registry maps a route kind to the declarations of its operations.
type Registry map[string]Declare

// Of returns the operation of rt for method, and false when the route's
// kind declares none.
func (r Registry) Of(rt *routes.Route, method string) (Operation, bool) {
	d, ok := r[rt.Spec.Kind]
	if !ok || d == nil {
		return Operation{}, false
	}
	return d(rt, method), true
}

// PathName names a path template by its segments, the version left out: a
// literal segment capitalised (process-definitions: ProcessDefinitions), a
// parameter as By and its name ({taskId}: ByTaskId). operationIds made
// from a method and a path are method + PathName (getContactsByContactId).
func PathName(template string) string {
	var b strings.Builder
	for _, seg := range strings.Split(template, "/") {
		switch {
		case seg == "" || seg == "{version}":
		case strings.HasPrefix(seg, "{"):
			b.WriteString("By")
			b.WriteString(capitalise(strings.Trim(seg, "{}")))
		default:
			b.WriteString(capitalise(seg))
		}
	}
	return b.String()
}

// capitalise upper-cases the first letter of s and each letter after a
// '-', '_' or '.', which it drops.
func capitalise(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if r == '-' || r == '_' || r == '.' {
			up = true
			continue
		}
		if up && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		up = false
		b.WriteRune(r)
	}
	return b.String()
}
