package h1

import (
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strings"
)

// framingFields notes which of the fields the request's framing reads a
// head has, so that only those are looked up: a map lookup hashes its key.
type framingFields uint8

const (
	fieldConnection framingFields = 1 << iota
	fieldContentLength
	fieldTransferEncoding
	fieldTrailer
	fieldPragma
	fieldHost
)

func framingField(key string) framingFields {
	switch key {
	case "Connection":
		return fieldConnection
	case "Content-Length":
		return fieldContentLength
	case "Transfer-Encoding":
		return fieldTransferEncoding
	case "Trailer":
		return fieldTrailer
	case "Pragma":
		return fieldPragma
	case "Host":
		return fieldHost
	}
	return 0
}

// parseFields parses field lines up to the blank line ending text into a
// header sized for them, refusing what net/http's textproto refuses (a
// name that is not a token, a value with control bytes, a line without a
// colon) and, stricter, what no conforming client sends and RFC 9112 lets
// a server refuse: a folded line and a space before the colon. Keys
// already canonical and all values are slices of text. complete false says
// text was cut short: running out of lines is io.ErrUnexpectedEOF then.
func parseFields(text string, complete bool) (http.Header, framingFields, error) {
	n := strings.Count(text, "\n")
	if complete {
		n-- // the blank line
	} else {
		n++ // a last line without its end
	}
	h := make(http.Header, n)
	strs := make([]string, n)
	var seen framingFields
	for {
		if text == "" && !complete {
			return nil, 0, io.ErrUnexpectedEOF
		}
		line, rest := nextLine(text)
		text = rest
		if line == "" {
			return h, seen, nil
		}
		if line[0] == ' ' || line[0] == '\t' {
			return nil, 0, fmt.Errorf("%w: folded field line %q", errMalformed, line)
		}
		colon := strings.IndexByte(line, ':')
		if colon < 0 {
			return nil, 0, fmt.Errorf("%w: field line %q", errMalformed, line)
		}
		key, ok := canonicalKey(line[:colon])
		value := trimOWS(line[colon+1:])
		if !ok || !validValue(value) {
			return nil, 0, fmt.Errorf("%w: field line %q", errMalformed, line)
		}
		if vv, ok := h[key]; ok {
			h[key] = append(vv, value)
			continue
		}
		// capacity one, so that a second value never writes into the next
		// key's element
		seen |= framingField(key)
		vv := strs[:1:1]
		strs = strs[1:]
		vv[0] = value
		h[key] = vv
	}
}

// canonicalKey returns name in textproto.CanonicalMIMEHeaderKey's form,
// name itself (no copy) when it already is, and false when name is not a
// token.
func canonicalKey(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	upper, canonical := true, true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !isTokenByte(c) {
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

// validValue reports a field value of visible characters, spaces, tabs and
// obs-text (bytes from 0x80), as net/http accepts them.
func validValue(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// trimOWS drops the spaces and tabs around s.
func trimOWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
