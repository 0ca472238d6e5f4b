package mapping

import (
	"errors"
	"fmt"
)

// ErrTooDeep is returned by Rewrite when objects and arrays nest deeper than
// Options.MaxDepth.
var ErrTooDeep = errors.New("mapping: JSON nested too deeply")

// ErrTooLarge is returned by Rewrite when the output would reach
// Options.MaxOutput bytes. The gateway answers it with SERIALIZATION_FAILED
// and tells the client to page.
var ErrTooLarge = errors.New("mapping: output too large")

// SyntaxError reports input that is not valid JSON: bad grammar, a string
// with invalid UTF-8 or a raw control character, or data after the value.
// Offset is the byte offset in the input where the problem was found.
type SyntaxError struct {
	Offset int64
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("mapping: invalid JSON at offset %d: %s", e.Offset, e.Msg)
}

// UnknownFieldError reports a record key that Options.RejectUnknown refused:
// a name the KeyMap knows on neither side. Field is the decoded key. For an
// input body the gateway answers it with a 400.
type UnknownFieldError struct {
	Field string
}

func (e *UnknownFieldError) Error() string {
	return fmt.Sprintf("mapping: unknown field %q", e.Field)
}
