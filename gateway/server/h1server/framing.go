package h1server

import (
	"bufio"
	"net/http"
	"net/http/httputil"

	"github.com/restgate/gateway/upstreams/h1wire"
)

// frame decides how req's body is delimited, as net/http's server does
// (readRequest and readTransfer in net/http), and fills Close,
// ContentLength, TransferEncoding, Trailer and Body. Like net/http it
// removes from the header the framing fields it consumed:
// Transfer-Encoding, a Content-Length overridden by chunked, and a chunked
// request's Trailer; repeated equal Content-Length values become one.
func frame(req *http.Request, seen h1wire.Framing, br *bufio.Reader) error {
	h := req.Header
	var conn []string
	if seen&h1wire.FieldConnection != 0 {
		conn = h["Connection"]
	}
	req.Close = shouldClose(req.ProtoMajor, req.ProtoMinor, conn)

	// Only one Transfer-Encoding, "chunked": anything else is where
	// request smuggling hides. Before HTTP/1.1 there are no transfer
	// codings and the field is dropped (net/http counts HTTP/0.0 as 1.1).
	chunked := false
	if seen&h1wire.FieldTransferEncoding != 0 {
		te := h["Transfer-Encoding"]
		delete(h, "Transfer-Encoding")
		if req.ProtoMajor > 1 || req.ProtoMajor == 1 && req.ProtoMinor >= 1 || req.ProtoMajor == 0 && req.ProtoMinor == 0 {
			if err := h1wire.OnlyChunked(te); err != nil {
				return malformed(err)
			}
			chunked = true
		}
	}

	length := int64(0)
	if seen&h1wire.FieldContentLength != 0 {
		n, err := h1wire.ContentLength(h)
		if err != nil {
			return malformed(err)
		}
		length = n
	}
	if chunked {
		// RFC 9112: Transfer-Encoding overrides Content-Length, which must
		// not be passed on
		delete(h, "Content-Length")
		length = -1
		req.TransferEncoding = []string{"chunked"}
		if seen&h1wire.FieldTrailer != 0 {
			trailer, err := h1wire.DeclaredTrailer(h)
			if err != nil {
				return malformed(err)
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
	if req.Method == "PRI" && len(h) == 0 && seen&h1wire.FieldHost == 0 && req.URL.Path == "*" && req.Proto == "HTTP/2.0" {
		req.ContentLength = -1
		req.Close = true
	}
	return nil
}

// shouldClose reports whether the connection ends with this request, from
// its version and Connection values, as net/http decides it. Unlike the
// client's answers, a request keeps its "Connection: close" in the header
// (net/http's server leaves it for the handler), and a version below 1.0
// always closes.
func shouldClose(major, minor int, conn []string) bool {
	switch {
	case major < 1:
		return true
	case major == 1 && minor == 0:
		return h1wire.HasToken(conn, "close") || !h1wire.HasToken(conn, "keep-alive")
	}
	return h1wire.HasToken(conn, "close")
}
