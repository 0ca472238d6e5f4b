package h1

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"strconv"
	"strings"
)

// frame decides how req's body is delimited, as net/http's server does
// (readRequest and readTransfer in net/http), and fills Close,
// ContentLength, TransferEncoding, Trailer and Body. Like net/http it
// removes from the header the framing fields it consumed:
// Transfer-Encoding, a Content-Length overridden by chunked, and a chunked
// request's Trailer; repeated equal Content-Length values become one.
func frame(req *http.Request, seen framingFields, br *bufio.Reader) error {
	h := req.Header
	var conn []string
	if seen&fieldConnection != 0 {
		conn = h["Connection"]
	}
	req.Close = shouldClose(req.ProtoMajor, req.ProtoMinor, conn)

	// Only one Transfer-Encoding, "chunked": anything else is where
	// request smuggling hides. Before HTTP/1.1 there are no transfer
	// codings and the field is dropped (net/http counts HTTP/0.0 as 1.1).
	chunked := false
	if seen&fieldTransferEncoding != 0 {
		te := h["Transfer-Encoding"]
		delete(h, "Transfer-Encoding")
		if req.ProtoMajor > 1 || req.ProtoMajor == 1 && req.ProtoMinor >= 1 || req.ProtoMajor == 0 && req.ProtoMinor == 0 {
			if len(te) != 1 || !asciiEqualFold(te[0], "chunked") {
				return fmt.Errorf("%w: unsupported transfer encoding %q", errMalformed, te)
			}
			chunked = true
		}
	}

	length := int64(0)
	if seen&fieldContentLength != 0 {
		n, err := contentLength(h)
		if err != nil {
			return err
		}
		length = n
	}
	if chunked {
		// RFC 9112: Transfer-Encoding overrides Content-Length, which must
		// not be passed on
		delete(h, "Content-Length")
		length = -1
		req.TransferEncoding = []string{"chunked"}
		if seen&fieldTrailer != 0 {
			trailer, err := declaredTrailer(h)
			if err != nil {
				return err
			}
			req.Trailer = trailer
		}
	}
	req.ContentLength = length

	switch {
	case chunked:
		req.Body = &requestBody{br: br, chunks: httputil.NewChunkedReader(br), req: req}
	case length > 0:
		req.Body = &requestBody{br: br, left: length}
	default:
		req.Body = http.NoBody
	}
	// HTTP/2's connection preface read as a request: neither chunked nor
	// of a declared length, and the connection cannot go on
	if req.Method == "PRI" && len(h) == 0 && seen&fieldHost == 0 && req.URL.Path == "*" && req.Proto == "HTTP/2.0" {
		req.ContentLength = -1
		req.Close = true
	}
	return nil
}

// shouldClose reports whether the connection ends with this request, from
// its version and Connection values, as net/http decides it.
func shouldClose(major, minor int, conn []string) bool {
	switch {
	case major < 1:
		return true
	case major == 1 && minor == 0:
		return containsToken(conn, "close") || !containsToken(conn, "keep-alive")
	}
	return containsToken(conn, "close")
}

// contentLength is the request's declared length. Repeated equal values
// are merged into one (in h too), differing ones are an error, as is a
// value that is not a decimal number.
func contentLength(h http.Header) (int64, error) {
	lens := h["Content-Length"]
	if len(lens) > 1 {
		for _, v := range lens[1:] {
			if v != lens[0] {
				return 0, fmt.Errorf("%w: several Content-Length values %q", errMalformed, lens)
			}
		}
		h["Content-Length"] = []string{lens[0]}
	}
	n, err := strconv.ParseUint(lens[0], 10, 63)
	if err != nil {
		return 0, fmt.Errorf("%w: Content-Length %q", errMalformed, lens[0])
	}
	return int64(n), nil
}

// declaredTrailer removes a chunked request's Trailer field and returns
// the names it announces (nil for none), refusing framing fields there.
func declaredTrailer(h http.Header) (http.Header, error) {
	vv := h["Trailer"]
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
				return nil, fmt.Errorf("%w: trailer field %q", errMalformed, name)
			}
			if trailer == nil {
				trailer = make(http.Header)
			}
			trailer[name] = nil
		}
	}
	return trailer, nil
}

// containsToken reports whether the comma-separated values hold token,
// ASCII case-insensitively (as httpguts does: no Unicode folding, which
// would let "cloſe" mean "close").
func containsToken(values []string, token string) bool {
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			if asciiEqualFold(trimOWS(part), token) {
				return true
			}
		}
	}
	return false
}

func asciiEqualFold(s, t string) bool {
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
