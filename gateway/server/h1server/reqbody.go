package h1server

import (
	"bufio"
	"io"
	"maps"
	"net/http"
	"net/textproto"

	"github.com/restgate/gateway/upstreams/h1wire"
)

// requestBody reads a request's body from the connection's reader as
// net/http's does: io.EOF comes with the last bytes of a body of known
// length, a body cut short ends in io.ErrUnexpectedEOF, and a chunked
// body's trailer is read into req.Trailer. The end and a broken trailer
// are final; other errors (a read deadline) are not, so a handler that
// moves its deadline can read on.
type requestBody struct {
	br     *bufio.Reader
	left   int64         // without chunks: bytes still to come
	chunks io.Reader     // chunked bodies' decoder
	req    *http.Request // chunked: receives the trailer
	err    error         // final: io.EOF, io.ErrUnexpectedEOF or the trailer's
}

// Read implements io.Reader.
func (b *requestBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.chunks != nil {
		n, err := b.chunks.Read(p)
		if err == io.EOF {
			if terr := readTrailer(b.br, b.req); terr != nil {
				// nothing after a broken trailer can be trusted
				b.err = http.ErrBodyReadAfterClose
				return n, terr
			}
			b.err = io.EOF
		}
		return n, err
	}
	n, end, err := h1wire.ReadLength(b.br, p, &b.left)
	if end {
		b.err = err
	}
	return n, err
}

// Close does nothing: the server decides what becomes of an unread rest.
func (b *requestBody) Close() error { return nil }

// readTrailer reads the trailer section after a chunked body's last chunk
// into req.Trailer, as net/http does: it must fit in br's buffer.
func readTrailer(br *bufio.Reader, req *http.Request) error {
	if ok, err := h1wire.TrailerFollows(br); !ok {
		return err
	}
	// rare: net/http's own reader, so its field rules hold here exactly
	fields, err := textproto.NewReader(br).ReadMIMEHeader()
	if err != nil {
		if err == io.EOF {
			return h1wire.ErrTrailerEOF
		}
		return err
	}
	if req.Trailer == nil {
		req.Trailer = http.Header(fields)
		return nil
	}
	maps.Copy(req.Trailer, http.Header(fields))
	return nil
}
