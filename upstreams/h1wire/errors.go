// Package h1wire is HTTP/1.x message syntax as the gateway's client and
// server both read it: tokens, field lines, framing fields and the parts of
// a body (chunked or of known length) whose rules do not depend on whether
// the message is a request or an answer. What does depend on it (the start
// line, which version knows transfer codings, when a connection closes,
// which limits apply, which sentinel an error is reported under) stays with
// each side. Both sides also set their connections' deadlines with the same
// slack (Slack).
package h1wire

import (
	"errors"
	"fmt"
)

// ErrMalformed is wrapped by the errors of text that is not HTTP/1.x
// syntax: a field line, a framing field. Such an error's message is only
// the detail (`field line "X-A : 1"`), so that a caller reporting it under
// its own sentinel with fmt.Errorf("%w: %w", ErrX, err) gets one message.
var ErrMalformed = errors.New("malformed HTTP/1.x message")

// ErrHeadTooLarge is returned by ReadHead for a head longer than its limit.
var ErrHeadTooLarge = errors.New("wire: head too large")

// ErrTrailerEOF and ErrLongTrailer are net/http's errors for a chunked
// body whose trailer is cut short or does not fit in the read buffer. They
// reach the readers of a body as they are, so their text is the one the
// client and the server have always reported.
var (
	ErrTrailerEOF  = errors.New("h1wire: unexpected EOF reading trailer")
	ErrLongTrailer = errors.New("h1wire: suspiciously long trailer after chunked body")
)

// malformedError is a syntax error: its message is the detail alone, and
// it unwraps to ErrMalformed.
type malformedError struct{ detail string }

func (e *malformedError) Error() string { return e.detail }

func (e *malformedError) Unwrap() error { return ErrMalformed }

func malformed(format string, args ...any) error {
	return &malformedError{detail: fmt.Sprintf(format, args...)}
}
