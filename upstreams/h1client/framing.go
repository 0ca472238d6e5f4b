package h1client

import (
	"bufio"
	"net/http"
	"net/http/httputil"

	"github.com/restgate/gateway/upstreams/h1wire"
)

// frame decides how resp's body is delimited, as net/http's client does
// (readTransfer in net/http/transfer.go), and fills ContentLength,
// TransferEncoding, Close and Trailer. Like net/http it removes from the
// header the framing fields it consumed: Transfer-Encoding, a
// Content-Length overridden by chunked, a declared Trailer, and on
// HTTP/1.1 "Connection: close". A chunked answer that also declared a
// Content-Length is marked ambiguous: its connection is not reused.
func frame(resp *http.Response, seen h1wire.Framing, method string, br *bufio.Reader) (answerBody, error) {
	h := resp.Header
	var conn []string
	if seen&h1wire.FieldConnection != 0 {
		conn = h["Connection"]
	}
	resp.Close = shouldClose(resp.ProtoMinor, conn, h)

	// HTTP/1.0 has no transfer codings: there the field is ignored. (The
	// server side also counts a request's HTTP/0.0 as 1.1, as net/http's
	// server does; an answer's version is only ever 1.0 or 1.1 here.)
	chunked := false
	if seen&h1wire.FieldTransferEncoding != 0 {
		te := h["Transfer-Encoding"]
		delete(h, "Transfer-Encoding")
		if resp.ProtoMinor >= 1 {
			if err := h1wire.OnlyChunked(te); err != nil {
				return answerBody{}, malformed(err)
			}
			chunked = true
			resp.TransferEncoding = []string{"chunked"}
		}
	}

	declared := int64(-1)
	if seen&h1wire.FieldContentLength != 0 {
		var err error
		if declared, err = h1wire.ContentLength(h); err != nil {
			return answerBody{}, malformed(err)
		}
	}
	length := answerLength(resp.StatusCode, method, h, declared, chunked)
	resp.ContentLength = length
	if method == http.MethodHead {
		// A HEAD answer's Content-Length is the one a GET would have.
		resp.ContentLength = declared
	}
	if chunked && seen&h1wire.FieldTrailer != 0 {
		var err error
		if resp.Trailer, err = h1wire.DeclaredTrailer(h); err != nil {
			return answerBody{}, malformed(err)
		}
	}

	noBody := method == http.MethodHead || !bodyAllowed(resp.StatusCode)
	switch {
	case chunked && noBody, length == 0:
		resp.Body = http.NoBody
		return answerBody{}, nil
	case chunked:
		return answerBody{br: br, mode: bodyChunked, chunks: httputil.NewChunkedReader(br), resp: resp,
			ambiguous: seen&h1wire.FieldContentLength != 0}, nil
	case length > 0:
		return answerBody{br: br, mode: bodyLength, left: length}, nil
	}
	// Neither length nor chunked: the body ends when the server closes.
	resp.Close = true
	return answerBody{br: br, mode: bodyUntilClose}, nil
}

// shouldClose reports whether the connection ends with this answer, from
// its Connection values, and drops an HTTP/1.1 "Connection: close" from h,
// as net/http's client does (its server keeps the field: the request side
// decides this on its own).
func shouldClose(minor int, conn []string, h http.Header) bool {
	hasClose := h1wire.HasToken(conn, "close")
	if minor == 0 {
		return hasClose || !h1wire.HasToken(conn, "keep-alive")
	}
	if hasClose {
		delete(h, "Connection")
	}
	return hasClose
}

// answerLength is the body's length, -1 for chunked or until the close, as
// net/http's fixLength decides it for an answer (declared is what
// Content-Length says, -1 for nothing): a HEAD answer and the statuses
// without a body have none, whatever they declare.
func answerLength(status int, method string, h http.Header, declared int64, chunked bool) int64 {
	switch {
	case method == http.MethodHead, status/100 == 1, status == http.StatusNoContent, status == http.StatusNotModified:
		return 0
	case chunked:
		// RFC 9112: Transfer-Encoding overrides Content-Length, which
		// must not be passed on.
		delete(h, "Content-Length")
		return -1
	}
	return declared
}

// bodyAllowed reports whether an answer of this status may have a body.
func bodyAllowed(status int) bool {
	return (status < 100 || status > 199) && status != http.StatusNoContent && status != http.StatusNotModified
}
