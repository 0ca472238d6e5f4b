package calllog

// The byte-level pieces of the redaction scan: where a sensitive value
// starts and ends, and what replaces it.

// valueSpan looks after a sensitive name ending at body[j] for an optional
// closing quote, a ':' or '=' separator and a value. It returns the value's
// span and whether the value sits inside a JSON string; ok is false when no
// separator follows, so the name was not a field name.
//
// What looks like the value may be the name of the next field, as in
// "password:" at a line's end followed by `"pin": {...}` or `pin: 1234`: a
// string or a word followed by a separator of its own is a name, and the
// span runs on through that field's value, and so on.
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
	vs = skipSpace(body, k+1)
	m, sep := vs, body[k]
	for {
		next, nsep, isName := nameAt(body, m)
		if !isName {
			break
		}
		m, sep = skipSpace(body, next), nsep
	}
	ve = valueEnd(body, m, sep, ctx, jsonMode)
	if m != vs {
		// never less than the value read as one, from vs
		ve = max(ve, valueEnd(body, vs, body[k], ctx, jsonMode))
	}
	return vs, ve, ctx, true
}

// nameAt reports whether a field name starts at body[m]: a JSON string
// (plain or carried in a JSON string) or a word, followed by a ':' or '='
// separator. It returns the index after the separator and the separator.
func nameAt(body []byte, m int) (next int, sep byte, ok bool) {
	if m >= len(body) {
		return 0, 0, false
	}
	e := m
	switch {
	case body[m] == '"':
		e = quotedEnd(body, m+1)
	case body[m] == '\\' && m+1 < len(body) && body[m+1] == '"':
		e = escapedQuotedEnd(body, m+2)
	default:
		for e < len(body) && isWordByte(body[e]) {
			e++
		}
		if e == m {
			return 0, 0, false
		}
	}
	k := skipSpace(body, e)
	if k >= len(body) || (body[k] != ':' && body[k] != '=') {
		return 0, 0, false
	}
	return k + 1, body[k], true
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
