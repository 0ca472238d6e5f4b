package mapping

import (
	"strconv"
	"unicode/utf8"
)

// This file validates JSON tokens in place. Each scan advances r.pos past
// one token and reports whether it was well formed; callers copy
// r.src[start:r.pos] when they keep the token.

func (r *rewriter) skipSpace() {
	// Compact input is the norm: one compare rejects every byte that
	// could be whitespace.
	for r.pos < len(r.src) && r.src[r.pos] <= ' ' {
		switch r.src[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

// scanString scans the string starting at r.pos (on its opening quote) and
// reports whether it contains escapes.
func (r *rewriter) scanString() (escaped bool, err error) {
	return r.scanStringRest(r.pos+1, false)
}

// scanStringRest scans a string from i, a byte after its opening quote,
// up to its closing quote, leaving r.pos after it. escaped says whether
// escapes were met before i.
func (r *rewriter) scanStringRest(i int, escaped bool) (bool, error) {
	src := r.src
	for {
		i = skipPlain(src, i)
		if i >= len(src) {
			return false, r.syntaxError(len(src), "unexpected end of JSON input in string")
		}
		switch c := src[i]; {
		case c == '"':
			r.pos = i + 1
			return escaped, nil
		case c == '\\':
			escaped = true
			n, err := r.escapeLen(i)
			if err != nil {
				return false, err
			}
			i += n
		case c >= utf8.RuneSelf:
			rn, size := utf8.DecodeRune(src[i:])
			if rn == utf8.RuneError && size == 1 {
				return false, r.syntaxError(i, "invalid UTF-8 in string")
			}
			i += size
		default: // c < 0x20
			return false, r.syntaxError(i, "invalid control character "+quoteChar(c)+" in string")
		}
	}
}

// escapeLen validates the escape sequence at i (on its backslash) and
// returns its length.
func (r *rewriter) escapeLen(i int) (int, error) {
	src := r.src
	if i+1 >= len(src) {
		return 0, r.syntaxError(len(src), "unexpected end of JSON input in string escape")
	}
	switch src[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, nil
	case 'u':
		for j := i + 2; j < i+6; j++ {
			if j >= len(src) {
				return 0, r.syntaxError(j, "unexpected end of JSON input in \\u escape")
			}
			if _, ok := hex4(src[j : j+1]); !ok {
				return 0, r.syntaxError(j, "invalid character "+quoteChar(src[j])+" in \\u escape")
			}
		}
		return 6, nil
	default:
		return 0, r.syntaxError(i+1, "invalid escape character "+quoteChar(src[i+1]))
	}
}

// scanScalar scans a number or a literal (true, false, null).
func (r *rewriter) scanScalar() error {
	switch r.src[r.pos] {
	case 't':
		return r.scanLiteral("true")
	case 'f':
		return r.scanLiteral("false")
	case 'n':
		return r.scanLiteral("null")
	default:
		return r.scanNumber()
	}
}

func (r *rewriter) scanLiteral(lit string) error {
	end := r.pos + len(lit)
	if end > len(r.src) || string(r.src[r.pos:end]) != lit {
		return r.syntaxError(r.pos, "invalid literal, expected "+lit)
	}
	r.pos = end
	return nil
}

// scanNumber accepts exactly the JSON number grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (r *rewriter) scanNumber() error {
	src := r.src
	i := r.pos
	if src[i] == '-' {
		i++
	}
	switch {
	case i >= len(src):
		return r.syntaxError(i, "unexpected end of JSON input in number")
	case src[i] == '0':
		i++
	case src[i] >= '1' && src[i] <= '9':
		i = skipDigits(src, i+1)
	default:
		return r.syntaxError(i, "invalid character "+quoteChar(src[i])+" looking for beginning of value")
	}
	if i < len(src) && src[i] == '.' {
		j := skipDigits(src, i+1)
		if j == i+1 {
			return r.syntaxError(j, "expected digit after decimal point")
		}
		i = j
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		j := skipDigits(src, i)
		if j == i {
			return r.syntaxError(j, "expected digit in exponent")
		}
		i = j
	}
	r.pos = i
	return nil
}

func skipDigits(src []byte, i int) int {
	for i < len(src) && src[i] >= '0' && src[i] <= '9' {
		i++
	}
	return i
}

// skipValue validates the value at r.pos without writing it, for members
// that Select or DropNulls remove. depth is the number of enclosing
// containers.
func (r *rewriter) skipValue(depth int) error {
	if r.pos >= len(r.src) {
		return r.syntaxError(r.pos, "unexpected end of JSON input")
	}
	switch r.src[r.pos] {
	case '{':
		return r.skipContainer(depth+1, '}', true)
	case '[':
		return r.skipContainer(depth+1, ']', false)
	case '"':
		_, err := r.scanString()
		return err
	default:
		return r.scanScalar()
	}
}

func (r *rewriter) skipContainer(depth int, closer byte, isObject bool) error {
	if depth > r.maxDepth {
		return ErrTooDeep
	}
	if r.open(closer) {
		return nil
	}
	after := afterElement
	if isObject {
		after = afterMember
	}
	for {
		if isObject {
			if err := r.memberKey(); err != nil {
				return err
			}
		}
		if err := r.skipValue(depth); err != nil {
			return err
		}
		if done, err := r.next(closer, after); err != nil || done {
			return err
		}
	}
}

// Contexts of the error for what follows a container's member or element.
const (
	afterMember  = "after object key:value pair"
	afterElement = "after array element"
)

// open steps over the bracket at r.pos and the space after it, and reports
// whether closer follows at once (an empty container), stepping over it too.
func (r *rewriter) open(closer byte) bool {
	r.pos++
	r.skipSpace()
	if r.pos < len(r.src) && r.src[r.pos] == closer {
		r.pos++
		return true
	}
	return false
}

// memberKey scans an object member's key at r.pos and the colon after it,
// leaving r.pos on the value.
func (r *rewriter) memberKey() error {
	if _, err := r.scanKey(); err != nil {
		return err
	}
	return r.colon()
}

// scanKey scans the key string at r.pos, leaving r.pos after its closing
// quote, and reports whether it contains escapes.
func (r *rewriter) scanKey() (escaped bool, err error) {
	if r.pos >= len(r.src) || r.src[r.pos] != '"' {
		return false, r.unexpected("looking for beginning of object key string")
	}
	return r.scanString()
}

// colon steps over the colon after a key and the space around it, leaving
// r.pos on the value.
func (r *rewriter) colon() error {
	r.skipSpace()
	if r.pos >= len(r.src) || r.src[r.pos] != ':' {
		return r.unexpected("after object key")
	}
	r.pos++
	r.skipSpace()
	return nil
}

// next steps over what follows a member or element: a comma and the space
// after it, or closer, which done reports. Anything else is a syntax error
// in context.
func (r *rewriter) next(closer byte, context string) (done bool, err error) {
	r.skipSpace()
	if r.pos < len(r.src) {
		switch r.src[r.pos] {
		case ',':
			r.pos++
			r.skipSpace()
			return false, nil
		case closer:
			r.pos++
			return true, nil
		}
	}
	return false, r.unexpected(context)
}

// decodeKey returns the decoded text of a key that contains escapes (the
// bytes between its quotes, already validated by scanString). The result
// may alias r.keyBuf and is valid until the next call. Invalid surrogates
// decode to U+FFFD, as encoding/json does.
func (r *rewriter) decodeKey(raw []byte) []byte {
	out := r.keyBuf[:0]
	for i := 0; i < len(raw); {
		c := raw[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		switch raw[i+1] {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			rn, _ := hex4(raw[i+2 : i+6])
			i += 6
			if rn >= 0xD800 && rn < 0xDC00 && i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
				if lo, ok := hex4(raw[i+2 : i+6]); ok && lo >= 0xDC00 && lo < 0xE000 {
					rn = (rn-0xD800)<<10 | (lo - 0xDC00) + 0x10000
					i += 6
				}
			}
			out = utf8.AppendRune(out, rn)
			continue
		default: // '"', '\\', '/'
			out = append(out, raw[i+1])
		}
		i += 2
	}
	return out
}

func hex4(b []byte) (rune, bool) {
	var v rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		v = v<<4 | rune(c)
	}
	return v, true
}

func (r *rewriter) unexpected(context string) error {
	if r.pos >= len(r.src) {
		return r.syntaxError(r.pos, "unexpected end of JSON input")
	}
	return r.syntaxError(r.pos, "invalid character "+quoteChar(r.src[r.pos])+" "+context)
}

func (r *rewriter) syntaxError(offset int, msg string) error {
	return &SyntaxError{Offset: int64(offset), Msg: msg}
}

func quoteChar(c byte) string {
	return strconv.QuoteRune(rune(c))
}
