package call

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/mapping"
)

// ReadBody reads the request body (bounded by the route's limit, which the
// router set) and keeps it on c for the call log. A body over the limit is
// REQUEST_TOO_LARGE.
func ReadBody(r *http.Request, c *Call) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, envelope.New(envelope.RequestTooLarge, fmt.Sprintf("the body is over %d bytes", tooLarge.Limit))
		}
		return nil, envelope.Wrap(envelope.JSONSerializationFailed, err)
	}
	c.Body = body
	return body, nil
}

// ReadInput reads a JSON body in exposed names and returns it in internal
// names, reverse-mapped with the route's map for the call's version. An
// exposed field the model does not know, two members that would reach the
// backend as one field ({"name": ..., "Name": ...}), invalid JSON (invalid
// UTF-8 included) or nesting deeper than maxDepth is
// JSON_SERIALIZATION_FAILED (400) naming the problem; an empty body is one
// too.
func ReadInput(r *http.Request, c *Call, maxDepth int) ([]byte, error) {
	body, err := ReadBody(r, c)
	if err != nil {
		return nil, err
	}
	if len(body) == 0 {
		return nil, &envelope.Error{ID: envelope.JSONSerializationFailed, Detail: "a JSON body is required"}
	}
	opts := mapping.Options{MaxDepth: maxDepth, MaxOutput: -1, RejectDuplicates: true}
	if o := c.Options; o != nil && o.MapKeys && o.KeyMap != nil {
		opts.Map = o.KeyMap.Reverse()
		opts.RejectUnknown = true
	}
	out, err := mapping.Rewrite(nil, body, opts)
	if err != nil {
		return nil, InputError(err)
	}
	return out, nil
}

// CheckJSON checks a client's JSON body the way ReadInput does, without
// mapping it: one JSON value, strings in valid UTF-8 (encoding/json would
// replace invalid bytes silently), nested at most maxDepth deep. Handlers
// that decode a body themselves call it first, so every route refuses the
// same bodies with the same JSON_SERIALIZATION_FAILED (400).
func CheckJSON(body []byte, maxDepth int) error {
	if _, err := mapping.Rewrite(nil, body, mapping.Options{MaxDepth: maxDepth, MaxOutput: -1}); err != nil {
		return InputError(err)
	}
	return nil
}

// InputError turns a mapping error on a client's body into the coded 400
// whose client message names the problem.
func InputError(err error) error {
	e := &envelope.Error{ID: envelope.JSONSerializationFailed, Cause: err}
	var unknown *mapping.UnknownFieldError
	var syntax *mapping.SyntaxError
	var dup *mapping.DuplicateFieldError
	switch {
	case errors.As(err, &unknown):
		e.Detail = fmt.Sprintf("unknown field %q", unknown.Field)
	case errors.As(err, &dup) && dup.First == dup.Second:
		e.Detail = fmt.Sprintf("field %q given twice", dup.First)
	case errors.As(err, &dup):
		e.Detail = fmt.Sprintf("fields %q and %q are the same field", dup.First, dup.Second)
	case errors.Is(err, mapping.ErrTooDeep):
		e.Detail = "the body is nested too deeply"
	case errors.As(err, &syntax):
		e.Detail = fmt.Sprintf("the body is not valid JSON (at byte %d)", syntax.Offset)
	default:
		e.Detail = "the body is not valid JSON"
	}
	return e
}
