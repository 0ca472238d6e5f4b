package contract

import "github.com/getkin/kin-openapi/openapi3"

// Header is a response header an answer may carry. The OpenAPI document
// declares each once, under components.headers.<Name>, and every answer
// that carries it refers to that declaration: an operation lists the
// headers of its success answer in Operation.Headers; the error answers'
// headers are the document's own (gateway/handlers/openapi). Two headers
// of one name must be declared alike.
type Header struct {
	// Name is the header's name as sent (Retry-After).
	Name string
	// Description says what the value means and when it is sent.
	Description string
	// Schema is the value's schema; nil is any text.
	Schema *openapi3.Schema
}

// RetryAfter is sent with 429 and 503: whole seconds to wait before
// calling again (the rate limit's next token, an open breaker's remaining
// time, the backend's own Retry-After).
func RetryAfter() Header {
	return Header{Name: "Retry-After", Schema: Int32().WithMin(1),
		Description: "whole seconds to wait before calling again"}
}

// Allow is sent with 405 and with the 204 of OPTIONS: the methods the path
// serves.
func Allow() Header {
	return Header{Name: "Allow", Description: "the methods the path serves, comma-separated (GET, HEAD, OPTIONS ...)"}
}

// WWWAuthenticate is sent with 401: the scheme the gateway expects.
func WWWAuthenticate() Header {
	return Header{Name: "WWW-Authenticate", Description: "the authentication scheme the gateway expects (Bearer, ApiKey)"}
}

// AccessControl are the headers of a CORS preflight's answer, when the
// route has a CORS policy (docs/guides/cors.md).
func AccessControl() []Header {
	return []Header{
		{Name: "Access-Control-Allow-Origin", Description: "CORS: the origin allowed, when the route's policy allows the request's Origin"},
		{Name: "Access-Control-Allow-Methods", Description: "CORS: the methods a browser may use on the path"},
		{Name: "Access-Control-Allow-Headers", Description: "CORS: the request headers a browser may send"},
		{Name: "Access-Control-Max-Age", Schema: Int32().WithMin(0), Description: "CORS: seconds a browser may keep this answer"},
	}
}
