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

// frame decides how resp's body is delimited, as net/http's client does
// (readTransfer in net/http/transfer.go), and fills ContentLength,
// TransferEncoding, Close and Trailer. Like net/http it removes from the
// header the framing fields it consumed: Transfer-Encoding, a
// Content-Length overridden by chunked, a declared Trailer, and on
// HTTP/1.1 "Connection: close".
func frame(resp *http.Response, seen framingFields, method string, br *bufio.Reader) (answerBody, error) {
	h := resp.Header
	var conn []string
	if seen&fieldConnection != 0 {
		conn = h["Connection"]
	}
	resp.Close = shouldClose(resp.ProtoMinor, conn, h)

	// Only one Transfer-Encoding, "chunked", as net/http (and nginx)
	// accept: anything else is where request smuggling hides. HTTP/1.0
	// has no transfer codings; the field is ignored there.
	chunked := false
	if seen&fieldTransferEncoding != 0 {
		te := h["Transfer-Encoding"]
		delete(h, "Transfer-Encoding")
		if resp.ProtoMinor >= 1 {
			if len(te) != 1 || !asciiEqualFold(te[0], "chunked") {
				return answerBody{}, fmt.Errorf("%w: unsupported transfer encoding %q", ErrMalformedAnswer, te)
			}
			chunked = true
			resp.TransferEncoding = []string{"chunked"}
		}
	}

	var lens []string
	if seen&fieldContentLength != 0 {
		lens = h["Content-Length"]
	}
	length, err := answerLength(resp.StatusCode, method, h, lens, chunked)
	if err != nil {
		return answerBody{}, err
	}
	resp.ContentLength = length
	if method == http.MethodHead {
		// A HEAD answer's Content-Length is the one a GET would have.
		// (answerLength left its one value in lens[0] when there are several.)
		if resp.ContentLength, err = parseContentLength(lens); err != nil {
			return answerBody{}, err
		}
	}
	if chunked && seen&fieldTrailer != 0 {
		if resp.Trailer, err = declaredTrailer(h); err != nil {
			return answerBody{}, err
		}
	}

	noBody := method == http.MethodHead || !bodyAllowed(resp.StatusCode)
	switch {
	case chunked && noBody, length == 0:
		resp.Body = http.NoBody
		return answerBody{}, nil
	case chunked:
		return answerBody{br: br, mode: bodyChunked, chunks: httputil.NewChunkedReader(br), resp: resp}, nil
	case length > 0:
		return answerBody{br: br, mode: bodyLength, left: length}, nil
	}
	// Neither length nor chunked: the body ends when the server closes.
	resp.Close = true
	return answerBody{br: br, mode: bodyUntilClose}, nil
}

// shouldClose reports whether the connection ends with this answer, from
// its Connection values, and drops an HTTP/1.1 "Connection: close" from h,
// as net/http does.
func shouldClose(minor int, conn []string, h http.Header) bool {
	hasClose := containsToken(conn, "close")
	if minor == 0 {
		return hasClose || !containsToken(conn, "keep-alive")
	}
	if hasClose {
		delete(h, "Connection")
	}
	return hasClose
}

// answerLength is the body's length, -1 for chunked or until the close, as
// net/http's fixLength decides it; repeated equal Content-Length values are
// merged into one, differing ones are an error.
func answerLength(status int, method string, h http.Header, lens []string, chunked bool) (int64, error) {
	if len(lens) > 1 {
		for _, v := range lens[1:] {
			if v != lens[0] {
				return 0, fmt.Errorf("%w: several Content-Length values %q", ErrMalformedAnswer, lens)
			}
		}
		lens = lens[:1:1]
		h["Content-Length"] = lens
	}
	n := int64(-1)
	if len(lens) > 0 {
		var err error
		if n, err = parseContentLength(lens); err != nil {
			return 0, err
		}
	}
	switch {
	case method == http.MethodHead, status/100 == 1, status == http.StatusNoContent, status == http.StatusNotModified:
		return 0, nil
	case chunked:
		// RFC 9112: Transfer-Encoding overrides Content-Length, which
		// must not be passed on.
		delete(h, "Content-Length")
		return -1, nil
	}
	return n, nil
}

// parseContentLength is the first value as a length, -1 when there is
// none.
func parseContentLength(values []string) (int64, error) {
	if len(values) == 0 {
		return -1, nil
	}
	n, err := strconv.ParseUint(values[0], 10, 63)
	if err != nil {
		return 0, fmt.Errorf("%w: Content-Length %q", ErrMalformedAnswer, values[0])
	}
	return int64(n), nil
}

// declaredTrailer removes a chunked answer's Trailer field and returns the
// names it announces (nil for none), refusing framing fields there.
func declaredTrailer(h http.Header) (http.Header, error) {
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
				return nil, fmt.Errorf("%w: trailer field %q", ErrMalformedAnswer, name)
			}
			if trailer == nil {
				trailer = make(http.Header)
			}
			trailer[name] = nil
		}
	}
	return trailer, nil
}

// bodyAllowed reports whether an answer of this status may have a body.
func bodyAllowed(status int) bool {
	return (status < 100 || status > 199) && status != http.StatusNoContent && status != http.StatusNotModified
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
