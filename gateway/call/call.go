// Package call holds the state of one gateway request (who called, its trace,
// the matched route and version, the time spent upstream) and the one writer
// that turns a handler's result or error into the enveloped answer. Every
// answer the API listener sends goes through Writer, so the envelope,
// Server-Timing, totalTime and the response-code bookkeeping cannot diverge.
package call

import (
	"net/http"
	"time"

	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams"
)

// Identity is the authenticated caller. It comes only from a verified
// credential, never from a header the client set.
type Identity struct {
	UserID string
	Roles  []string
	// Key names the API key the caller presented (config.APIKey.ID: the
	// start of its digest, never the key); empty in the other modes.
	Key string
}

// HasRole reports whether the caller holds one of roles.
func (i Identity) HasRole(roles []string) bool {
	for _, want := range roles {
		for _, have := range i.Roles {
			if have == want {
				return true
			}
		}
	}
	return false
}

// Call is the state of one request. The first middleware creates it; the
// router fills the route and version; handlers read it; the writer records
// the outcome that the metrics and the call log read after the handler
// returns. Only the goroutine serving the request touches it, except
// Upstream's Timing, which is safe for concurrent use.
type Call struct {
	Start    time.Time
	Identity Identity
	// TraceID is the W3C trace id (32 hex digits) of the request.
	TraceID string
	// Route is the matched route; nil when nothing matched.
	Route *routes.Route
	// Version is the {version} of the path when a route matched.
	Version string
	// Options are the route's settings for Version.
	Options *routes.VersionOptions
	// Upstream is what the shared upstream client reads and records for
	// this request: the time spent waiting on backends (Timing), the
	// request's W3C trace headers, captured once by the trace middleware
	// and shared by the answer and every upstream call (Trace), and the
	// route's call options, set by the router (Options).
	Upstream upstreams.CallState
	// Body is the request body as the handler read it (bounded), for the call
	// log and the system messages.
	Body []byte

	// Set by the writer: the status sent, the response-code id of an error
	// ("" on success) and totalTime in milliseconds.
	Status      int
	CodeID      string
	TotalMillis float64
	// Set by the writer with an error: its system message (the body in it
	// masked as the call log masks it) and the upstream whose failure it
	// reports ("" when no backend failed).
	SystemMessage string
	ErrorUpstream string

	// ctx is the context node of the first With, kept here so that binding
	// a Call allocates nothing of its own.
	ctx callContext
	// answer backs the answer's header values the writer sets (send), so
	// that they are no allocation of their own.
	answer [4]string
}

// Handler serves one route. It returns the result in the backend's internal
// field names (the writer maps, filters and envelopes it) or an error (an
// *envelope.Error, an *upstreams.Error through Upstream, or anything else,
// which becomes REST_DISPATCHER_FAILED).
type Handler func(r *http.Request, c *Call) (Result, error)

// Result is what a handler produced.
type Result struct {
	// Status is the HTTP status; 0 means 200.
	Status int
	// JSON is the result; nil means the empty-string result "".
	JSON []byte
	// Form says what JSON is, and so what the writer does with it; the zero
	// value is InternalNames.
	Form Form
	// MapKeys, when set, is a JSON object written as the envelope's
	// "mapKeys" member after the result (the published key map);
	// mapKeysFlag is then true.
	MapKeys []byte
	// Links, when not nil, rewrites or removes the backend addresses of
	// JSON as the writer maps it (mapping.Options.Links), so that no
	// backend host or path reaches the client.
	Links *mapping.Links
	// Page, when not nil, places a list result in the whole list; it is
	// written as the envelope's "page" member after the result (see
	// envelope.Page). Every handler that answers a part of a longer list
	// sets it, so that no list is cut short silently.
	Page *envelope.Page
	// Paging, when not nil, makes Page from the number of elements of
	// JSON, a top-level array whose records nobody counted yet: the writer
	// counts them in its rewrite (mapping.RewriteCount) and calls
	// Paging with the count; the page it returns replaces Page, and an
	// error it returns is answered instead of the result (nothing is sent
	// before). For lists that would otherwise be walked once more only to
	// be counted.
	Paging func(n int) (*envelope.Page, error)
	// SizeParam, when set, names the query parameter that bounds the
	// size of a list result (limit, size): a list that reaches the output
	// limit is then PARAMETER_INVALID 400 naming it with the largest value
	// that fits, instead of SERIALIZATION_FAILED 500.
	SizeParam string
	// Rendered, when not nil, is the answer, rendered ahead (a response
	// cache's): the writer sends it with the request's own timeStamp,
	// totalTime and userId, and every other field but Status and Header is
	// ignored. Status 304 sends its headers alone (Not Modified).
	Rendered *Rendered
	// Header, with Rendered, is added to the answer's headers (a response
	// cache's Cache-Status, Age, ETag, Cache-Control).
	Header http.Header
	// Owner, when not nil, owns JSON's memory (a pooled upstream answer):
	// the writer releases it once the answer is written or refused, and
	// nothing may use JSON after that. Before, it rejects it when the
	// backend's answer is at fault (see Owner).
	Owner Owner
}

// Owner owns a Result's JSON: *upstreams.Answer, whose upstream call is
// reported only once it is released, so that the writer's verdict on the
// answer is the call's outcome.
type Owner interface {
	// Reject says that the backend's answer is unusable: not valid JSON,
	// or a page that breaks the backend's contract (a KindInvalid error
	// of Paging). The call is then counted invalid and a breaker failure.
	// The writer's own bounds (the output limit, the nesting depth) are
	// not the backend's failure and reject nothing.
	Reject(err error)
	// Release gives JSON's memory back; JSON must not be used after it.
	Release()
}

// Form is what a Result's JSON is. Every form but Document is enveloped,
// and every form's nulls are dropped when the version drops them, except
// Document's.
type Form int

const (
	// InternalNames (the zero value): records in the backend's internal
	// names. The writer applies the version's field selection and key map;
	// mapKeysFlag says whether a key map was applied.
	InternalNames Form = iota
	// ExposedNames: already in exposed names or of a fixed shape (settings,
	// the {"id"} of a create, per-item results): neither the key map nor
	// the field selection is applied; the envelope's flags are the
	// version's.
	ExposedNames
	// MappedByHandler: as ExposedNames, for records the handler key-mapped
	// itself (each by its own type); mapKeysFlag is true.
	MappedByHandler
	// Listing: as ExposedNames, with mapKeysFlag and serializeNulls left
	// out of the envelope (the endpoint listing).
	Listing
	// Document: JSON is the whole answer: no key map, no null removal, no
	// envelope. Only for documents whose shape another standard fixes (the
	// OpenAPI document); Server-Timing and the call's bookkeeping are kept,
	// and errors are still enveloped. JSON must be valid and non-nil.
	Document
)

// LoggedMethod is the method as the call log and system messages name it:
// "HTTP" and the method ("HTTPGET"). The common methods' names are
// constants, so naming them allocates nothing.
func LoggedMethod(method string) string {
	switch method {
	case http.MethodGet:
		return "HTTPGET"
	case http.MethodPost:
		return "HTTPPOST"
	case http.MethodPut:
		return "HTTPPUT"
	case http.MethodPatch:
		return "HTTPPATCH"
	case http.MethodDelete:
		return "HTTPDELETE"
	case http.MethodHead:
		return "HTTPHEAD"
	case http.MethodOptions:
		return "HTTPOPTIONS"
	}
	return "HTTP" + method
}
