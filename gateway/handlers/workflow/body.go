package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/envelope"
)

// maxDetailName bounds a member name quoted back to the client: the name is
// the caller's own text and may be as long as the body.
const maxDetailName = 64

// readObject reads the request body (kept on c for the call log) and
// decodes it strictly into dst. An empty body is refused when required and
// leaves dst untouched otherwise.
func readObject(r *http.Request, c *call.Call, maxDepth int, dst any, required bool) error {
	body, err := call.ReadBody(r, c)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if required {
			return bodyError("a JSON body is required")
		}
		return nil
	}
	return decodeStrict(body, maxDepth, dst)
}

// decodeStrict decodes body, which must be one JSON object nested at most
// maxDepth deep, into the struct dst, refusing members dst does not have
// and members of the wrong type. Numbers are kept as json.Number so that a
// variable's value reaches the engine with its exact digits. Every refusal
// is JSON_SERIALIZATION_FAILED (400) whose detail names the problem.
func decodeStrict(body []byte, maxDepth int, dst any) error {
	// The streaming scan checks syntax, trailing data and depth before the
	// decoder allocates anything for a hostile body.
	if err := call.CheckJSON(body, maxDepth); err != nil {
		return err
	}
	if trimmed := bytes.TrimSpace(body); len(trimmed) == 0 || trimmed[0] != '{' {
		return bodyError("the body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return decodeError(err)
	}
	return nil
}

// decodeError names what the decoder refused. encoding/json reports an
// unknown member only as text, so that text is read.
func decodeError(err error) error {
	e := bodyError("the body is not the JSON this operation takes")
	e.Cause = err
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		e.Detail = fmt.Sprintf("member %s must be %s", quoteName(typeErr.Field), jsonKind(typeErr.Type))
	} else if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if unquoted, uerr := strconv.Unquote(name); uerr == nil {
			name = unquoted
		}
		e.Detail = "unknown member " + quoteName(name)
	}
	return e
}

// bodyError is the 400 for a body that is not what the operation takes.
func bodyError(detail string) *envelope.Error {
	return &envelope.Error{ID: envelope.JSONSerializationFailed, Detail: detail}
}

// stringOrNull reports whether raw is a JSON string or null.
func stringOrNull(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return bytes.Equal(raw, []byte("null")) || len(raw) > 0 && raw[0] == '"'
}

// quoteName quotes a member name for a client message, clipped on a rune
// boundary.
func quoteName(name string) string {
	if len(name) > maxDetailName {
		cut := maxDetailName
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut] + "..."
	}
	return fmt.Sprintf("%q", name)
}

// jsonKind says in JSON's words what a Go type takes.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "of another type"
	}
	if t == reflect.TypeFor[json.Number]() {
		return "a number"
	}
	switch t.Kind() {
	case reflect.Pointer:
		return jsonKind(t.Elem())
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "of another type"
}
