package upstreams

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
)

// MaxMessage bounds the backend text an adapter copies into an error, so
// that an error page cannot fill the log line or the system message.
const MaxMessage = 512

// maxErrorAnswer bounds how much of an error answer ReadStatusError reads.
const maxErrorAnswer = 64 << 10

// TrimMessage fits backend text for an error: surrounding space trimmed,
// invalid UTF-8 replaced, and cut to MaxMessage bytes at a character
// boundary, with "..." appended when cut.
func TrimMessage(s string) string {
	s = strings.ToValidUTF8(strings.TrimSpace(s), "\uFFFD")
	if len(s) <= MaxMessage {
		return s
	}
	n := MaxMessage
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// ReadStatusError reads the answer of a non-2xx status (at most 64 KiB; the
// caller still closes the body) and returns its NewStatusError. Code and
// message come from the shapes backends send: the Salesforce family's
// [{"errorCode", "message"}], an object with "message" or Spring's "error"
// (and "errorCode"), else the text itself; the status text when the body
// says nothing. Flowable's error body, {"message": "Forbidden", "exception":
// "Cannot delete a task that is part of a process instance."}, gives the
// message "Forbidden: Cannot delete ...": its message is a fixed word per
// status and the exception says what happened.
func ReadStatusError(upstream string, resp *http.Response) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorAnswer))
	code, msg := errorOf(body)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return NewStatusError(upstream, resp.StatusCode, code, msg)
}

// errorOf extracts the error code and the bounded message of an error body.
func errorOf(body []byte) (code, msg string) {
	type shape struct {
		ErrorCode string `json:"errorCode"`
		Message   string `json:"message"`
		Error     string `json:"error"`
		Exception string `json:"exception"`
	}
	text := func(s shape) string {
		msg, exc := strings.TrimSpace(cmp.Or(s.Message, s.Error)), strings.TrimSpace(s.Exception)
		if exc == "" || exc == msg {
			return TrimMessage(msg)
		}
		if msg == "" {
			return TrimMessage(exc)
		}
		return TrimMessage(msg + ": " + exc)
	}
	body = bytes.TrimSpace(body)
	var list []shape
	if json.Unmarshal(body, &list) == nil && len(list) > 0 {
		return list[0].ErrorCode, text(list[0])
	}
	var one shape
	if json.Unmarshal(body, &one) == nil && one != (shape{}) {
		return one.ErrorCode, text(one)
	}
	return "", TrimMessage(string(body))
}

// TransportError is the *Error of a failed Do, or of a failed read of its
// answer, made with ctx, the request's context. An *Error from the shared
// client passes through as it is; the bare errors of a plain *http.Client
// are classified as the shared client classifies its own.
func TransportError(ctx context.Context, upstream string, err error) error {
	if AsError(err) != nil {
		return err
	}
	return classify(upstream, ctx, ctx, err)
}
