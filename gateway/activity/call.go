package activity

import "time"

// Call is one answered request as the recording sees it. Record copies
// what it keeps, so the caller may reuse Body once Record returns; the
// strings are kept as they are (they must not change afterwards, which
// Go's strings never do).
type Call struct {
	// Start is when the request arrived, End when its answer was done.
	Start, End time.Time
	// Method is the request method; Route the matched route template, ""
	// when no route matched; Version the served version.
	Method, Route, Version string
	// Path is the request path with its ids, as the call log writes it.
	Path string
	// User is the caller's user id; TraceID the request's trace id.
	User, TraceID string
	// Total is the time to answer; Upstream the time spent waiting on
	// backends.
	Total, Upstream time.Duration
	// Status is the status answered; Code the response-code id of an
	// error ("" on success).
	Status int
	Code   string
	// SystemMessage is the error's system message (its body already
	// masked); ErrorUpstream the upstream whose failure it reports.
	SystemMessage, ErrorUpstream string
	// Body is the request body as the handler read it; kept only for a
	// slow call, masked as the call log masks it.
	Body []byte
	// Duplicate says the duplicate detector saw the same request within
	// its window.
	Duplicate bool
}
