package h1wire

import (
	"io"
	"net/http"
	"net/textproto"
	"strings"
)

// Framing notes which of the fields that decide a message's framing a
// head has, so that the framing looks up only those: a map lookup hashes
// its key.
type Framing uint8

// The fields Framing notes.
const (
	FieldConnection Framing = 1 << iota
	FieldContentLength
	FieldTransferEncoding
	FieldTrailer
	FieldPragma
	FieldHost
)

func framingField(key string) Framing {
	switch key {
	case "Connection":
		return FieldConnection
	case "Content-Length":
		return FieldContentLength
	case "Transfer-Encoding":
		return FieldTransferEncoding
	case "Trailer":
		return FieldTrailer
	case "Pragma":
		return FieldPragma
	case "Host":
		return FieldHost
	}
	return 0
}

// ParseFields parses the field lines of text, which ends with the blank
// line ending them (as ReadHead returns a head, less its start line), into
// a header sized for them, and notes the framing fields among them. Keys
// already canonical and all values are slices of text; each key's first
// value shares one backing array, with capacity one per key.
//
// It refuses what net/http's textproto refuses (a name that is not a
// token, a value with control bytes, a line without a colon) and, stricter,
// what no conforming sender produces and RFC 9112 lets a recipient refuse:
// a folded line, and whitespace before a colon (which a proxy must remove,
// so it cannot pass it on). Its errors wrap ErrMalformed.
func ParseFields(text string) (http.Header, Framing, error) {
	return parseFields(text, true)
}

// ParseCutFields is ParseFields for text that was cut short (the
// connection ended inside the head): it is parsed as far as it goes, a
// last line without its end counting as a line, and, if nothing is wrong
// there, running out of lines is io.ErrUnexpectedEOF. net/http parses line
// by line, so a malformed line before the end is reported as such.
func ParseCutFields(text string) (http.Header, Framing, error) {
	return parseFields(text, false)
}

func parseFields(text string, complete bool) (http.Header, Framing, error) {
	n := strings.Count(text, "\n")
	if complete {
		n-- // the blank line
	} else {
		n++ // a last line without its end
	}
	n = max(n, 0)
	h := make(http.Header, n)
	strs := make([]string, n)
	var seen Framing
	for {
		if text == "" && !complete {
			return nil, 0, io.ErrUnexpectedEOF
		}
		line, rest := NextLine(text)
		text = rest
		if line == "" {
			return h, seen, nil
		}
		if line[0] == ' ' || line[0] == '\t' {
			return nil, 0, malformed("folded field line %q", line)
		}
		colon := strings.IndexByte(line, ':')
		if colon < 0 {
			return nil, 0, malformed("field line %q", line)
		}
		key, ok := CanonicalKey(line[:colon])
		value := TrimOWS(line[colon+1:])
		if !ok || !ValidValue(value) {
			return nil, 0, malformed("field line %q", line)
		}
		if vv, ok := h[key]; ok {
			h[key] = append(vv, value)
			continue
		}
		if len(strs) == 0 {
			// more lines than text has line ends: text is not a
			// complete field section
			return nil, 0, malformed("field section without its blank line")
		}
		// Capacity one, so that a second value never writes into the
		// next key's element.
		seen |= framingField(key)
		vv := strs[:1:1]
		strs = strs[1:]
		vv[0] = value
		h[key] = vv
	}
}

// CanonicalKey returns name in textproto.CanonicalMIMEHeaderKey's form,
// name itself (no copy) when it already is, and false when name is not a
// token.
func CanonicalKey(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	upper, canonical := true, true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !tokenByte(c) {
			return "", false
		}
		if upper && 'a' <= c && c <= 'z' || !upper && 'A' <= c && c <= 'Z' {
			canonical = false
		}
		upper = c == '-'
	}
	if canonical {
		return name, true
	}
	return textproto.CanonicalMIMEHeaderKey(name), true
}

// ValidToken reports an RFC 9110 token, the characters of a method or a
// field name: letters, digits and "!#$%&'*+-.^_`|~", at least one.
func ValidToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !tokenByte(s[i]) {
			return false
		}
	}
	return true
}

// tokenByte reports a tchar of RFC 9110. It is looked up in two bitmaps:
// it runs for every byte of every field name of every message.
func tokenByte(c byte) bool {
	const lo uint64 = 0 |
		(1<<10-1)<<'0' |
		1<<'!' | 1<<'#' | 1<<'$' | 1<<'%' | 1<<'&' | 1<<'\'' | 1<<'*' | 1<<'+' | 1<<'-' | 1<<'.'
	const hi uint64 = 0 |
		(1<<26-1)<<('a'-64) | (1<<26-1)<<('A'-64) |
		1<<('^'-64) | 1<<('_'-64) | 1<<('`'-64) | 1<<('|'-64) | 1<<('~'-64)
	switch {
	case c < 64:
		return lo&(1<<c) != 0
	case c < 128:
		return hi&(1<<(c-64)) != 0
	}
	return false
}

// ValidValue reports a field value of visible characters, spaces, tabs and
// obs-text (bytes from 0x80), as net/http accepts them: no control byte
// that could end the line or the head early.
func ValidValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// TrimOWS drops the spaces and tabs around s (RFC 9110's optional
// whitespace), and nothing else.
func TrimOWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
