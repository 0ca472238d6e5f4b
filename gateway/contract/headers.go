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

// Names of the response cache's headers that answers other than the
// success refer to.
const (
	// WarningField is the header a stale cached answer carries.
	WarningField = "Warning"
	// CacheStatusField and AgeField are also on a kept 404.
	CacheStatusField = "Cache-Status"
	AgeField         = "Age"
)

// CacheFields are the headers the response cache adds to the answers of a
// cached route's GET (docs/guides/caching.md).
func CacheFields() []Header {
	return []Header{
		{Name: CacheStatusField, Description: `RFC 9211: restgate; hit; ttl=N, or restgate; fwd=miss|stale; fwd-status=N; stored; collapsed; detail="..."`},
		{Name: AgeField, Schema: Int32().WithMin(0), Description: "seconds since the backend gave or confirmed the answer"},
		{Name: "ETag", Description: "a weak validator of the result (not of timeStamp, totalTime or userId); send it in If-None-Match"},
		{Name: "Cache-Control", Description: "private, no-cache; private, max-age=N; or no-store"},
		{Name: WarningField, Description: `111 - "Revalidation Failed": a stale answer, served because the backend failed`},
	}
}

// RateLimitFields are the fields of draft-ietf-httpapi-ratelimit-headers
// the gateway sends on every answer of a caller with a rate limit or a
// quota (docs/guides/allowance.md).
func RateLimitFields() []Header {
	return []Header{
		{Name: "RateLimit-Policy", Description: `the caller's policies: "day";q=1000;w=86400, "rate";q=20;w=2 (quota q per window w seconds)`},
		{Name: "RateLimit", Description: `what is left of each policy: "day";r=998;t=3600 (r requests left, t seconds to the window's reset)`},
	}
}
