package envelope

import (
	"errors"
	"net/http"
)

// CallArgs are the per-call facts that fill the system templates of codes
// 989, 991-997 and 999.
type CallArgs struct {
	UserID, TraceID, TotalTime, Method, Path, Body string
}

// Rendered is an Error resolved against the catalogue: what goes in the
// envelope, the status line and the log.
type Rendered struct {
	Code            ResponseCode
	Status          int
	ClientMessage   string
	SystemMessage   string
	RetryAfter      int
	Allow           []string
	WWWAuthenticate bool
}

// Catalog resolves errors against the response-code catalogue. Build it once
// with NewCatalog; it is read-only and safe for concurrent use.
type Catalog struct {
	codes map[string]ResponseCode
}

// NewCatalog returns the catalogue of Catalogue().
func NewCatalog() *Catalog { return &Catalog{codes: Catalogue()} }

// Lookup returns the code with the given id.
func (c *Catalog) Lookup(id string) (ResponseCode, bool) {
	rc, ok := c.codes[id]
	return rc, ok
}

// Render resolves err: an *Error by its id, any other error as
// REST_DISPATCHER_FAILED with err as its cause. An id missing from the
// catalogue becomes UNEXPECTED_RESPONSE_CODE with that id as its only
// argument and the supplied arguments ignored.
func (c *Catalog) Render(err error, call CallArgs) Rendered {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{ID: RestDispatcherFailed, Cause: err}
	}
	rc, ok := c.codes[e.ID]
	if !ok {
		rc = c.codes[UnexpectedResponseCode]
		e = &Error{ID: UnexpectedResponseCode, Args: []string{e.ID}, Cause: e.Cause}
	}
	var args []string
	switch rc.Args {
	case ArgsCall:
		args = []string{call.UserID, call.TraceID, call.TotalTime, call.Method, call.Path, call.Body}
	case ArgsRequest:
		args = []string{call.UserID, call.Method, call.Path, call.Body}
	default:
		args = e.Args
	}
	client := Format(rc.ClientTemplate, clientArgs(rc, args))
	system := Format(rc.SystemTemplate, args)
	if system == "" {
		system = client
	}
	if e.Detail != "" {
		client += ": " + e.Detail
		system += " | Detail: " + e.Detail
	}
	if e.Cause != nil {
		system += " | Cause: " + describeCause(e.Cause)
	}
	status := rc.Status
	if e.Status != 0 && sameFamily(rc, e.Status) {
		status = e.Status
	}
	return Rendered{
		Code: rc, Status: status, ClientMessage: client, SystemMessage: system,
		RetryAfter: e.RetryAfter, Allow: e.Allow,
		WWWAuthenticate: rc.ID == AuthenticationRequired,
	}
}

// clientArgs keeps call arguments (user, trace, body ...) out of client
// templates: only codes whose arguments are given format the client text.
func clientArgs(rc ResponseCode, args []string) []string {
	if rc.Args != ArgsGiven {
		return nil
	}
	return args
}

// sameFamily keeps a code's status within what DESIGN.md section 4 allows:
// URL_INVALID 404/405; upstream codes any 4xx or 5xx;
// DATABASE_OPERATION_FAILED 500, 503 or 507; the rest their own.
func sameFamily(rc ResponseCode, status int) bool {
	switch rc.ID {
	case URLInvalid:
		return status == http.StatusNotFound || status == http.StatusMethodNotAllowed
	case QueryOperationFailed, SObjectOperationFailed, SearchFailed, CalloutFailed, JSONSerializationFailed:
		return status >= 400 && status < 600
	case DatabaseOperationFailed:
		// the local storage failing (500), full for now (503), or out of room (507)
		return status == http.StatusInternalServerError || status == http.StatusServiceUnavailable ||
			status == http.StatusInsufficientStorage
	}
	return status == rc.Status
}
