package envelope

import (
	"fmt"
	"strconv"
	"strings"
)

// Error is a failure answered with an error envelope. Handlers return it (or
// any error: the writer turns an unknown error into REST_DISPATCHER_FAILED).
type Error struct {
	// ID is the response-code id; an id missing from the catalogue is
	// answered as UNEXPECTED_RESPONSE_CODE with ID as its only argument.
	ID string
	// Args fill the templates of codes whose arguments are given (ArgsGiven);
	// codes with call arguments get theirs from the writer.
	Args []string
	// Detail is a client-safe explanation appended to both formatted
	// messages ("parameter limit must be a non-negative integer"). It never
	// holds a credential, a stack or another user's data.
	Detail string
	// Status narrows the HTTP status within the code's family (the upstream's
	// 4xx, 503 for an open breaker, 504 on timeout); 0 means the default.
	Status int
	// RetryAfter, when > 0, is sent as Retry-After in whole seconds.
	RetryAfter int
	// Allow, for a 405, lists the methods of the path.
	Allow []string
	// Cause is the underlying error; its type and message are appended to the
	// system message, never to the client message.
	Cause error
}

// New returns an Error with the given id and template arguments.
func New(id string, args ...string) *Error { return &Error{ID: id, Args: args} }

// Wrap returns an Error with the given id whose system message ends with cause.
func Wrap(id string, cause error, args ...string) *Error {
	return &Error{ID: id, Args: args, Cause: cause}
}

// Error describes the failure for logs.
func (e *Error) Error() string {
	msg := e.ID
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// InvalidParameter is the 400 for a query, path or body parameter that is not
// acceptable; the client message names the parameter and the reason.
func InvalidParameter(name, reason string) *Error {
	return New(ParameterInvalid, name, reason)
}

// Format substitutes {0}, {1} ... in tmpl with args. With no arguments the
// template is returned unchanged (the seed's rule); a placeholder without an
// argument stays as it is.
func Format(tmpl string, args []string) string {
	if len(args) == 0 || !strings.Contains(tmpl, "{") {
		return tmpl
	}
	var b strings.Builder
	b.Grow(len(tmpl) + 32)
	for i := 0; i < len(tmpl); i++ {
		if tmpl[i] == '{' {
			if end := strings.IndexByte(tmpl[i:], '}'); end > 1 {
				if n, err := strconv.Atoi(tmpl[i+1 : i+end]); err == nil && n >= 0 && n < len(args) {
					b.WriteString(args[n])
					i += end
					continue
				}
			}
		}
		b.WriteByte(tmpl[i])
	}
	return b.String()
}

// describeCause renders an underlying error as the seed asks: its type and
// message, with markup stripped so an upstream's HTML error page cannot
// inject into logs or clients.
func describeCause(err error) string {
	return fmt.Sprintf("%T: %s", err, StripMarkup(err.Error()))
}

// StripMarkup removes <...> tags and collapses the whitespace they leave.
func StripMarkup(s string) string {
	if !strings.ContainsRune(s, '<') {
		return s
	}
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '<':
			depth++
		case r == '>' && depth > 0:
			depth--
			b.WriteByte(' ')
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
