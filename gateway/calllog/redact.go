package calllog

import (
	"strconv"
	"unicode/utf8"
)

// DefaultRedactFields returns the field names whose values are masked when
// Config.RedactFields is nil.
func DefaultRedactFields() []string {
	return []string{
		"password", "passwd", "secret", "token", "access_token", "refresh_token",
		"apiKey", "api_key", "authorization", "clientSecret", "client_secret", "privateKey",
	}
}

// Masks written in place of a sensitive value. The quoted forms keep a JSON
// body valid; the escaped form keeps JSON embedded in a JSON string valid.
const (
	maskBare    = "[REDACTED]"
	maskQuoted  = `"[REDACTED]"`
	maskEscaped = `\"[REDACTED]\"`
)

// maxNameLen bounds the configured names; longer names are ignored, which
// keeps the case-folding buffer on the stack.
const maxNameLen = 64

// Redactor masks the values of sensitive fields in a request body before it
// is logged. It is safe for concurrent use and does not allocate beyond dst.
//
// A field is sensitive when its name equals a configured name, ignoring ASCII
// case. Names are words of letters, digits, '_' and '-', so "user_token" does
// not match "token" but "user.token" does.
//
// The body is scanned as bytes, never decoded: a JSON member with a sensitive
// name has its whole value (string, number, object or array) replaced by
// "[REDACTED]" at any depth, including JSON carried inside a JSON string.
// Bodies that are not JSON, or were cut short, are still masked: every
// `name: value` and `name=value` occurrence of a sensitive name loses its
// value, a value cut short is masked to the end, and in doubt more is masked
// rather than less. In free text a bare value ends at the first whitespace
// (after '='), line end, or one of `&;,"}]`.
type Redactor struct {
	names map[string]struct{}
}

// NewRedactor returns a Redactor for the given field names; nil means
// DefaultRedactFields. Names that are empty, longer than 64 bytes, or hold
// characters other than letters, digits, '_' and '-' are ignored.
func NewRedactor(fields []string) *Redactor {
	if fields == nil {
		fields = DefaultRedactFields()
	}
	r := &Redactor{names: make(map[string]struct{}, len(fields))}
	for _, f := range fields {
		if f == "" || len(f) > maxNameLen || !isWord(f) {
			continue
		}
		var buf [maxNameLen]byte
		r.names[string(lowerASCII(buf[:0], f))] = struct{}{}
	}
	return r
}

// Append appends body to dst with every sensitive value masked.
func (r *Redactor) Append(dst, body []byte) []byte {
	if len(r.names) == 0 {
		return append(dst, body...)
	}
	jsonMode := looksLikeJSON(body)
	inStr := false
	start := 0 // first byte of body not yet copied to dst
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '\\':
			i += escapeLen(body, i)
		case c == '"':
			if !inStr {
				if end, ok := r.escapedKey(body, i); ok {
					if vs, ve, ctx, ok := valueSpan(body, end, true, jsonMode); ok {
						dst = append(dst, body[start:vs]...)
						dst = appendMask(dst, body, vs, ctx, jsonMode)
						start, i, inStr = ve, ve, ctx
						continue
					}
				}
			}
			if jsonMode {
				inStr = !inStr
			}
			i++
		case isWordByte(c):
			j := i + 1
			for j < len(body) && isWordByte(body[j]) {
				j++
			}
			if r.sensitive(body[i:j]) {
				if vs, ve, ctx, ok := valueSpan(body, j, inStr, jsonMode); ok {
					dst = append(dst, body[start:vs]...)
					dst = appendMask(dst, body, vs, ctx, jsonMode)
					start, i, inStr = ve, ve, ctx
					continue
				}
			}
			i = j
		default:
			i++
		}
	}
	return append(dst, body[start:]...)
}

// sensitive reports whether word is a configured name, ignoring ASCII case.
func (r *Redactor) sensitive(word []byte) bool {
	if len(word) > maxNameLen {
		return false
	}
	var buf [maxNameLen]byte
	_, ok := r.names[string(lowerASCII(buf[:0], word))]
	return ok
}

// escapedKey handles a JSON string at body[open] whose content uses escapes,
// such as "pass\u0077ord": it decodes the content and, when it is a
// sensitive name, returns the index of the closing quote. Plain names are
// found by the word scan, so this only matters for escaped ones.
func (r *Redactor) escapedKey(body []byte, open int) (int, bool) {
	var buf [maxNameLen]byte
	n, escaped := 0, false
	for i := open + 1; i < len(body); {
		c := body[i]
		switch {
		case c == '"':
			return i, escaped && r.sensitive(buf[:n])
		case n == len(buf):
			return 0, false
		case c == '\\':
			escaped = true
			d, size := decodeEscape(body, i)
			if d < 0 {
				return 0, false
			}
			buf[n] = byte(d)
			n, i = n+1, i+size
		default:
			buf[n] = c
			n, i = n+1, i+1
		}
	}
	return 0, false
}

// decodeEscape decodes the JSON escape at body[i] when it stands for an
// ASCII byte; it returns -1 otherwise.
func decodeEscape(body []byte, i int) (int, int) {
	if i+1 >= len(body) {
		return -1, 0
	}
	switch c := body[i+1]; c {
	case '"', '\\', '/':
		return int(c), 2
	case 'u':
		if i+6 > len(body) || !isHex(body[i+2:i+6]) {
			return -1, 0
		}
		v := 0
		for _, h := range body[i+2 : i+6] {
			v = v<<4 | hexValue(h)
		}
		if v >= utf8.RuneSelf {
			return -1, 0
		}
		return v, 6
	}
	return -1, 0
}

// valueSpan looks after a sensitive name ending at body[j] for an optional
// closing quote, a ':' or '=' separator and a value. It returns the value's
// span and whether the value sits inside a JSON string; ok is false when no
// separator follows, so the name was not a field name.
func valueSpan(body []byte, j int, inStr, jsonMode bool) (vs, ve int, ctx, ok bool) {
	k, ctx := j, inStr
	switch {
	case k < len(body) && body[k] == '"':
		k++
		if jsonMode {
			ctx = !ctx
		}
	case k+1 < len(body) && body[k] == '\\' && body[k+1] == '"':
		k += 2
	case k < len(body) && body[k] == '\'':
		k++
	}
	k = skipSpace(body, k)
	if k >= len(body) || (body[k] != ':' && body[k] != '=') {
		return 0, 0, false, false
	}
	sep := body[k]
	vs = skipSpace(body, k+1)
	return vs, valueEnd(body, vs, sep, ctx, jsonMode), ctx, true
}

// valueEnd returns the end of the value starting at body[k]. A value that
// runs past the end of the body (a truncated body) ends at the end, so it
// is masked whole. Where the shape is unclear the span errs on the long side.
func valueEnd(body []byte, k int, sep byte, ctx, jsonMode bool) int {
	if k >= len(body) {
		return len(body)
	}
	switch body[k] {
	case '"':
		return quotedEnd(body, k+1)
	case '{', '[':
		return balancedEnd(body, k)
	case '\\':
		if k+1 < len(body) && body[k+1] == '"' {
			return escapedQuotedEnd(body, k+2)
		}
	}
	stopAtSpace := sep == '=' || (jsonMode && !ctx)
	for m := k; m < len(body); m++ {
		switch body[m] {
		case ',', ';', '&', '}', ']', '"', '\r', '\n':
			return m
		case ' ', '\t':
			if stopAtSpace {
				return m
			}
		case '\\':
			if ctx {
				return m
			}
		}
	}
	return len(body)
}

// quotedEnd returns the index after the closing quote of a JSON string whose
// content starts at body[m].
func quotedEnd(body []byte, m int) int {
	for m < len(body) {
		switch body[m] {
		case '\\':
			m += 2
		case '"':
			return m + 1
		default:
			m++
		}
	}
	return len(body)
}

// escapedQuotedEnd ends a string of JSON carried inside a JSON string (it
// opened with \" and closes with \"; its own escaped quotes are \\\"). A raw
// quote ends the carrying string, and the value with it.
func escapedQuotedEnd(body []byte, m int) int {
	for m < len(body) {
		switch body[m] {
		case '"':
			return m
		case '\\':
			if m+1 < len(body) && body[m+1] == '"' {
				return m + 2
			}
			if m+1 < len(body) && body[m+1] == '\\' {
				// An escaped backslash of the inner string: it escapes the
				// next inner character, which may itself be written \" or \\.
				m += 2
				if m < len(body) && body[m] == '\\' {
					m++
				}
			}
			m++
		default:
			m++
		}
	}
	return len(body)
}

// balancedEnd returns the index after the bracket closing the object or
// array opening at body[k], skipping brackets inside strings.
func balancedEnd(body []byte, k int) int {
	depth := 0
	for m := k; m < len(body); {
		switch body[m] {
		case '\\':
			m += 2
			continue
		case '"':
			m = quotedEnd(body, m+1)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return m + 1
			}
		}
		m++
	}
	return len(body)
}

func appendMask(dst, body []byte, vs int, ctx, jsonMode bool) []byte {
	if vs < len(body) {
		switch body[vs] {
		case '"':
			return append(dst, maskQuoted...)
		case '\\':
			if vs+1 < len(body) && body[vs+1] == '"' {
				return append(dst, maskEscaped...)
			}
		case '{', '[':
			if ctx {
				return append(dst, maskEscaped...)
			}
			return append(dst, maskQuoted...)
		}
	}
	if jsonMode && !ctx {
		// A bare JSON value (number, literal, or nothing yet).
		return append(dst, maskQuoted...)
	}
	return append(dst, maskBare...)
}

// escapeLen returns how many bytes the backslash at body[i] starts, so that
// an escaped quote does not flip the string state and the letter of an
// escape such as \n does not glue onto the word after it.
func escapeLen(body []byte, i int) int {
	if i+1 >= len(body) {
		return 1
	}
	switch body[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2
	case 'u':
		if i+6 <= len(body) && isHex(body[i+2:i+6]) {
			return 6
		}
	}
	return 1
}

func skipSpace(body []byte, k int) int {
	for k < len(body) {
		switch body[k] {
		case ' ', '\t', '\r', '\n':
			k++
		case '\\':
			// Whitespace written as an escape, in JSON carried in a string.
			if k+1 < len(body) && (body[k+1] == 'n' || body[k+1] == 'r' || body[k+1] == 't') {
				k += 2
				continue
			}
			return k
		default:
			return k
		}
	}
	return k
}

func looksLikeJSON(body []byte) bool {
	k := skipSpace(body, 0)
	return k < len(body) && (body[k] == '{' || body[k] == '[' || body[k] == '"')
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

func isWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return false
		}
	}
	return true
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func hexValue(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

func lowerASCII[T string | []byte](dst []byte, s T) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// AppendTruncated appends b to dst, cut to at most max bytes on a UTF-8
// boundary. When it cuts, or when omitted bytes were already dropped before
// b got here, it adds the marker "...[truncated N bytes]" with N the total
// left out. A max below 1 keeps no bytes of b.
func AppendTruncated(dst, b []byte, max, omitted int) []byte {
	cut := len(b)
	if max < 0 {
		max = 0
	}
	if cut > max {
		cut = max
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
	}
	dst = append(dst, b[:cut]...)
	if left := len(b) - cut + omitted; left > 0 {
		dst = append(dst, "...[truncated "...)
		dst = strconv.AppendInt(dst, int64(left), 10)
		dst = append(dst, " bytes]"...)
	}
	return dst
}
