package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/restgate/gateway/upstreams"
)

// ErrInvalidParam is in the chain of every *ParamError, for callers that
// only need to know the input was refused before anything was sent.
var ErrInvalidParam = errors.New("invalid workflow parameter")

// ParamError is a caller's input that the adapter refuses before it reaches
// the engine: a bad query parameter, an unusable id, an unknown body field.
type ParamError struct {
	// Param names the parameter as the caller spelled it ("size", "taskId").
	Param string
	// Value is the refused value, as given.
	Value string
	// Reason says what a valid value looks like.
	Reason string
}

// Error describes the refused parameter.
func (e *ParamError) Error() string {
	return fmt.Sprintf("invalid parameter %s=%q: %s", e.Param, e.Value, e.Reason)
}

// Unwrap returns ErrInvalidParam.
func (e *ParamError) Unwrap() error { return ErrInvalidParam }

// maxMessage bounds the engine text copied into an error: it ends up in
// logs and system messages, and an engine stack trace is not useful there.
const maxMessage = 500

// statusError turns a non-2xx answer of path into the upstream error, as
// upstreams.ClassifyStatus classifies every backend's: a 401, or a 403 that
// is not the engine's own refusal (BusinessRefusal), is the gateway's
// credentials failing (502); the engine's 403 refusals and other 4xx keep
// their status and message. The shared client classifies the same way
// before the answer reaches the adapter; this covers a plain *http.Client.
func statusError(resp *http.Response, path string, body []byte) *upstreams.Error {
	msg := errorMessage(body)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return upstreams.ClassifyStatus(Upstream, resp.StatusCode, resp.Header, path, "", msg, BusinessRefusal, 0)
}

// errorMessage reads the engine's error text from either body shape:
// the code's {"message": "Not found", "exception": "Could not find ..."}
// and the older documentation's {"statusCode": 404, "errorMessage": "..."}.
// It returns "" when the body holds neither.
func errorMessage(body []byte) string {
	var shape struct {
		Message      any `json:"message"`
		Exception    any `json:"exception"`
		ErrorMessage any `json:"errorMessage"`
	}
	if err := json.Unmarshal(body, &shape); err != nil {
		return ""
	}
	message, exception, legacy := text(shape.Message), text(shape.Exception), text(shape.ErrorMessage)
	var parts []string
	for _, p := range []string{message, exception, legacy} {
		if p != "" && !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	return clip(strings.Join(parts, ": "))
}

// text accepts only JSON strings: a number or object in a message field is
// not a message.
func text(v any) string {
	s, _ := v.(string)
	return strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
}

func clip(s string) string {
	if len(s) <= maxMessage {
		return s
	}
	cut := maxMessage
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
