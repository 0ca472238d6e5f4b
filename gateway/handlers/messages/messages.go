// Package messages serves POST /{version}/messages: a client's
// {"name", "message"} published on the public feed through upstreams/feed.
//
// The body is decoded strictly: it is first checked as every route checks a
// JSON body (call.CheckJSON: syntax, invalid UTF-8, depth),
// then a member other than name and message, a value that is not a string,
// or anything after the object is JSON_SERIALIZATION_FAILED (400). A missing or blank member, or one longer
// than its limit (counted in characters), is PARAMETER_INVALID (400) naming
// it. Nothing is key-mapped: the two names are the feed's own.
//
// The feed's answer is not specified, so any 2xx is success and the result
// is "" (status 200). A feed that refuses the message (4xx) is
// SOBJECT_OPERATION_FAILED with the feed's status, since the message is a
// record the feed would have created; a failing, slow or unreachable feed is
// CALLOUT_FAILED (502, 504, or 503 while its breaker is open). The post is
// never retried: a failed POST may still have been published.
package messages

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/upstreams/feed"
)

// Limits of the two members, in characters.
const (
	DefaultMaxNameChars    = 255
	DefaultMaxMessageChars = 10000
)

// maxEchoedName bounds the unknown member name a client message repeats.
const maxEchoedName = 80

// Member names of the body.
const (
	fieldName    = "name"
	fieldMessage = "message"
)

// Options tune the handler. The zero value works: each zero field takes its
// documented default.
type Options struct {
	// MaxNameChars bounds name. Default 255.
	MaxNameChars int
	// MaxMessageChars bounds message. Default 10000.
	MaxMessageChars int
	// MaxDepth bounds the body's nesting (server.limits.maxJSONDepth).
	// Default mapping.DefaultMaxDepth.
	MaxDepth int
}

func (o Options) withDefaults() Options {
	if o.MaxNameChars <= 0 {
		o.MaxNameChars = DefaultMaxNameChars
	}
	if o.MaxMessageChars <= 0 {
		o.MaxMessageChars = DefaultMaxMessageChars
	}
	return o
}

// New returns the factory of kind messages: POST publishes the body's
// message on the feed of the route's upstream. The factory fails when the
// upstream has no feed client.
func New(clients router.Resolver[*feed.Client], opts Options) router.Factory {
	opts = opts.withDefaults()
	return func(rt *routes.Route) (map[string]call.Handler, error) {
		client, err := clients.Resolve(rt.Spec.Upstream)
		if err != nil {
			return nil, err
		}
		h := &handler{client: client, opts: opts}
		return map[string]call.Handler{http.MethodPost: h.post}, nil
	}
}

type handler struct {
	client *feed.Client
	opts   Options
}

func (h *handler) post(r *http.Request, c *call.Call) (call.Result, error) {
	body, err := call.ReadBody(r, c)
	if err != nil {
		return call.Result{}, err
	}
	if len(bytes.TrimSpace(body)) > 0 {
		// Invalid UTF-8 and depth are refused as on every route, before
		// encoding/json would replace invalid bytes.
		if err := call.CheckJSON(body, h.opts.MaxDepth); err != nil {
			return call.Result{}, err
		}
	}
	in, err := parse(body, h.opts)
	if err != nil {
		return call.Result{}, err
	}
	if err := h.client.Post(r.Context(), in.name, in.message); err != nil {
		return call.Result{}, call.Upstream(err, envelope.SObjectOperationFailed)
	}
	return call.Result{}, nil
}

type input struct {
	name, message string
}

// parse reads the strict {"name", "message"} body and checks both members.
// Member names match exactly (encoding/json alone would accept "NAME"), and
// a member given twice is refused rather than letting the last one win.
func parse(body []byte, opts Options) (input, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return input{}, bodyError("a JSON body is required")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil {
		return input{}, decodeError(err)
	} else if tok != json.Delim('{') {
		return input{}, bodyError("the body must be a JSON object")
	}
	values := map[string]*string{fieldName: nil, fieldMessage: nil}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return input{}, decodeError(err)
		}
		key, _ := tok.(string)
		if _, known := values[key]; !known {
			return input{}, bodyError("unknown member " + echo(key))
		}
		if seen[key] {
			return input{}, bodyError("member " + echo(key) + " given twice")
		}
		seen[key] = true
		var v *string
		if err := dec.Decode(&v); err != nil {
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &typeErr) {
				e := bodyError("member " + echo(key) + " must be a string")
				e.Cause = err
				return input{}, e
			}
			return input{}, decodeError(err)
		}
		values[key] = v
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return input{}, decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return input{}, bodyError("data after the JSON object")
	}
	name, err := member(fieldName, values[fieldName], opts.MaxNameChars)
	if err != nil {
		return input{}, err
	}
	message, err := member(fieldMessage, values[fieldMessage], opts.MaxMessageChars)
	if err != nil {
		return input{}, err
	}
	return input{name: name, message: message}, nil
}

// echo quotes a client's member name for a client message, bounded.
func echo(key string) string {
	if len(key) > maxEchoedName {
		key = strings.ToValidUTF8(key[:maxEchoedName], "") + "..."
	}
	return strconv.Quote(key)
}

func member(field string, v *string, maxChars int) (string, error) {
	switch {
	case v == nil:
		return "", envelope.InvalidParameter(field, "required")
	case strings.TrimSpace(*v) == "":
		return "", envelope.InvalidParameter(field, "must not be blank")
	case utf8.RuneCountInString(*v) > maxChars:
		return "", envelope.InvalidParameter(field, fmt.Sprintf("longer than %d characters", maxChars))
	}
	return *v, nil
}

// decodeError names what is wrong with the body without echoing it.
func decodeError(err error) error {
	e := bodyError("the body is not valid JSON")
	e.Cause = err
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) {
		e.Detail = fmt.Sprintf("the body is not valid JSON (at byte %d)", syntaxErr.Offset)
	}
	return e
}

// bodyError is the 400 for a body that is not the {"name", "message"}
// object.
func bodyError(detail string) *envelope.Error {
	return &envelope.Error{ID: envelope.JSONSerializationFailed, Detail: detail}
}
