package h1

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/textproto"
)

// errTrailerEOF and errLongTrailer are net/http's errors for a chunked
// body whose trailer is cut short or does not fit in the read buffer.
var (
	errTrailerEOF  = errors.New("h1: unexpected EOF reading trailer")
	errLongTrailer = errors.New("h1: suspiciously long trailer after chunked body")
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
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.br.Read(p)
	b.left -= int64(n)
	switch {
	case b.left == 0:
		err = io.EOF
		b.err = err
	case errors.Is(err, io.EOF):
		err = io.ErrUnexpectedEOF
		b.err = err
	}
	return n, err
}

// Close does nothing: the server decides what becomes of an unread rest.
func (b *requestBody) Close() error { return nil }

// readTrailer reads the trailer section after a chunked body's last chunk
// into req.Trailer, as net/http does: it must fit in br's buffer.
func readTrailer(br *bufio.Reader, req *http.Request) error {
	buf, err := br.Peek(2)
	switch {
	case len(buf) == 2 && buf[0] == '\r' && buf[1] == '\n':
		_, _ = br.Discard(2)
		return nil
	case len(buf) < 2:
		return errTrailerEOF
	case err != nil:
		return err
	case !doubleCRLFAhead(br):
		return errLongTrailer
	}
	// rare: net/http's own reader, so its field rules hold here exactly
	fields, err := textproto.NewReader(br).ReadMIMEHeader()
	if err != nil {
		if err == io.EOF {
			return errTrailerEOF
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

// doubleCRLFAhead reports whether "\r\n\r\n" arrives before br's buffer is
// full or the connection ends, reading as needed.
func doubleCRLFAhead(br *bufio.Reader) bool {
	for {
		buf, _ := br.Peek(br.Buffered())
		if bytes.Contains(buf, []byte("\r\n\r\n")) {
			return true
		}
		if len(buf) == br.Size() {
			return false
		}
		if _, err := br.Peek(len(buf) + 1); err != nil {
			buf, _ = br.Peek(br.Buffered())
			return bytes.Contains(buf, []byte("\r\n\r\n"))
		}
	}
}
