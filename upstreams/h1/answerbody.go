package h1

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
)

// bodyMode is how an answer's body is delimited.
type bodyMode uint8

const (
	bodyNone bodyMode = iota
	bodyLength
	bodyChunked
	bodyUntilClose
)

// errTrailerEOF and errLongTrailer are net/http's errors for a chunked
// body whose trailer is cut short or does not fit in the read buffer.
var (
	errTrailerEOF  = errors.New("h1: unexpected EOF reading trailer")
	errLongTrailer = errors.New("h1: suspiciously long trailer after chunked body")
)

// answerBody reads an answer's body from the connection's reader as
// net/http's body does: io.EOF comes with the last bytes of a body of
// known length (so the connection is released without one more Read), a
// body cut short ends in io.ErrUnexpectedEOF, and a chunked body's trailer
// is read into resp.Trailer. It is held by value in the exchange's body,
// saving an allocation per answer.
type answerBody struct {
	br     *bufio.Reader
	mode   bodyMode
	left   int64          // bodyLength: bytes still to come
	chunks io.Reader      // bodyChunked
	resp   *http.Response // bodyChunked: receives the trailer
	err    error          // sticky: io.EOF at the end, or what broke
}

// Read implements io.Reader.
func (a *answerBody) Read(p []byte) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	var n int
	var err error
	switch a.mode {
	case bodyNone:
		err = io.EOF
	case bodyLength:
		if int64(len(p)) > a.left {
			p = p[:a.left]
		}
		n, err = a.br.Read(p)
		a.left -= int64(n)
		switch {
		case a.left == 0:
			err = io.EOF
		case errors.Is(err, io.EOF):
			err = io.ErrUnexpectedEOF
		}
	case bodyChunked:
		n, err = a.chunks.Read(p)
		if err == io.EOF {
			if terr := readTrailer(a.br, a.resp); terr != nil {
				err = terr
			}
		}
	default:
		n, err = a.br.Read(p)
	}
	if err != nil {
		a.err = err
	}
	return n, err
}

// readTrailer reads the trailer section after a chunked body's last chunk
// into resp.Trailer, as net/http does: it must fit in br's buffer.
func readTrailer(br *bufio.Reader, resp *http.Response) error {
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
	// The blank line is buffered, so readHead does not read further.
	text, err := readHead(br, br.Size())
	if err != nil {
		return err
	}
	fields, _, err := parseFields(text)
	if err != nil {
		return err
	}
	if resp.Trailer == nil {
		resp.Trailer = fields
		return nil
	}
	for k, vv := range fields {
		resp.Trailer[k] = vv
	}
	return nil
}

// doubleCRLFAhead reports whether "\r\n\r\n" arrives before br's buffer
// is full or the connection ends, reading as needed.
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
