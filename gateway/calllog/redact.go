package calllog

import "unicode/utf8"

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
// (after '='), line end, or one of `&;,"}]`. A value that is a string or a
// word followed by a separator of its own was the name of another field (a
// sensitive name with no value on its line, then `"pin": {...}` or
// `pin: 1234` on the next): the mask runs on through that field's value.
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
			// A name that starts with an escape ("\u0070assword"), met
			// where the scan does not expect a string (a body that is not
			// quite JSON): decode it as the word scan would read it.
			if i == 0 || !isWordByte(body[i-1]) {
				if j, ok := r.escapedWord(body, i); ok {
					if vs, ve, ctx, ok := valueSpan(body, j, inStr, jsonMode); ok {
						dst = append(dst, body[start:vs]...)
						dst = appendMask(dst, body, vs, ctx, jsonMode)
						start, i, inStr = ve, ve, ctx
						continue
					}
				}
			}
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

// escapedWord decodes the word starting with the escape at body[i] (word
// bytes and escapes of word bytes) and, when it is a sensitive name,
// returns the index after it.
func (r *Redactor) escapedWord(body []byte, i int) (int, bool) {
	var buf [maxNameLen]byte
	n := 0
	for i < len(body) && n < len(buf) {
		c, size := body[i], 1
		if c == '\\' {
			d, dsize := decodeEscape(body, i)
			if d < 0 {
				break
			}
			c, size = byte(d), dsize
		}
		if !isWordByte(c) {
			break
		}
		buf[n] = c
		n, i = n+1, i+size
	}
	if n == len(buf) || (i < len(body) && isWordByte(body[i])) {
		return 0, false
	}
	return i, r.sensitive(buf[:n])
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
