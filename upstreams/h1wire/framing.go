package h1wire

import (
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
)

// ContentLength returns the length a head's Content-Length values declare,
// -1 when it has none, as net/http reads it: repeated equal values are
// merged into one (in h too), differing ones are an error, as is a value
// that is not a decimal number below 2^63. Errors wrap ErrMalformed.
// Whether the length holds (chunked, HEAD, a status without a body) is the
// caller's to decide.
func ContentLength(h http.Header) (int64, error) {
	lens := h["Content-Length"]
	if len(lens) == 0 {
		return -1, nil
	}
	if len(lens) > 1 {
		for _, v := range lens[1:] {
			if v != lens[0] {
				return 0, malformed("several Content-Length values %q", lens)
			}
		}
		h["Content-Length"] = lens[:1:1]
	}
	n, err := strconv.ParseUint(lens[0], 10, 63)
	if err != nil {
		return 0, malformed("Content-Length %q", lens[0])
	}
	return int64(n), nil
}

// OnlyChunked checks a Transfer-Encoding field's values: one value,
// "chunked" in any ASCII case, is all that net/http (and nginx) accept;
// anything else is where request smuggling hides, and the error wraps
// ErrMalformed. Which versions have transfer codings at all is the
// caller's to decide.
func OnlyChunked(te []string) error {
	if len(te) != 1 || !EqualFoldASCII(te[0], "chunked") {
		return malformed("unsupported transfer encoding %q", te)
	}
	return nil
}

// DeclaredTrailer removes a chunked message's Trailer field from h and
// returns the names it announces, canonical and with nil values (nil for
// none), refusing framing fields there with an error wrapping
// ErrMalformed.
func DeclaredTrailer(h http.Header) (http.Header, error) {
	vv, ok := h["Trailer"]
	if !ok {
		return nil, nil
	}
	delete(h, "Trailer")
	var trailer http.Header
	for _, v := range vv {
		for name := range strings.SplitSeq(v, ",") {
			name = textproto.TrimString(name)
			if name == "" {
				continue
			}
			name = textproto.CanonicalMIMEHeaderKey(name)
			switch name {
			case "Transfer-Encoding", "Trailer", "Content-Length":
				return nil, malformed("trailer field %q", name)
			}
			if trailer == nil {
				trailer = make(http.Header)
			}
			trailer[name] = nil
		}
	}
	return trailer, nil
}

// FixPragma makes "Pragma: no-cache" visible as "Cache-Control: no-cache"
// when the head has no Cache-Control, as RFC 9111 counts it and net/http
// does for requests and answers alike. seen is what ParseFields noted.
func FixPragma(h http.Header, seen Framing) {
	if seen&FieldPragma == 0 {
		return
	}
	if hp := h["Pragma"]; len(hp) > 0 && hp[0] == "no-cache" {
		if _, ok := h["Cache-Control"]; !ok {
			h["Cache-Control"] = []string{"no-cache"}
		}
	}
}

// HasToken reports whether the comma-separated values hold token, ASCII
// case-insensitively (as httpguts does: no Unicode folding, which would
// let "cloſe" mean "close").
func HasToken(values []string, token string) bool {
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			if EqualFoldASCII(TrimOWS(part), token) {
				return true
			}
		}
	}
	return false
}

// EqualFoldASCII reports whether s and t are equal under ASCII case
// folding only.
func EqualFoldASCII(s, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if lowerASCII(s[i]) != lowerASCII(t[i]) {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
