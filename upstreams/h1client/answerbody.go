package h1client

import (
	"bufio"
	"io"
	"net/http"

	"github.com/restgate/gateway/upstreams/h1wire"
)

// bodyMode is how an answer's body is delimited.
type bodyMode uint8

const (
	bodyNone bodyMode = iota
	bodyLength
	bodyChunked
	bodyUntilClose
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
	// ambiguous marks an answer framed by chunks that also declared a
	// Content-Length: read as net/http reads it, but its connection is not
	// reused, since the backend may have meant the other framing (RFC 9112
	// 6.1 has such a message handled as an error).
	ambiguous bool
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
		n, _, err = h1wire.ReadLength(a.br, p, &a.left)
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
// into resp.Trailer, as net/http does: it must fit in br's buffer. It is
// parsed with the answer head's own field rules (the server side takes
// net/http's reader instead: a trailer is rare there, and its rules are
// then net/http's exactly).
func readTrailer(br *bufio.Reader, resp *http.Response) error {
	if ok, err := h1wire.TrailerFollows(br); !ok {
		return err
	}
	// The blank line is buffered, so readHead does not read further.
	text, err := readHead(br, br.Size())
	if err != nil {
		return err
	}
	fields, _, err := h1wire.ParseFields(text)
	if err != nil {
		return malformed(err)
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
