package h1wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// ReadLength reads into p the next bytes of a body of known length, at
// most *left, from r, and takes what it read from *left. It returns io.EOF
// with the last bytes, as net/http's body does, so that a caller can
// release the connection without one more Read; a body cut short (r's
// io.EOF before the end) ends in io.ErrUnexpectedEOF; r's other errors are
// returned as they are. end reports that the body is over either way, so
// a caller whose other errors are not final (a read deadline it may move)
// can tell the two apart.
func ReadLength(r io.Reader, p []byte, left *int64) (n int, end bool, err error) {
	if int64(len(p)) > *left {
		p = p[:*left]
	}
	n, err = r.Read(p)
	*left -= int64(n)
	switch {
	case *left == 0:
		return n, true, io.EOF
	case errors.Is(err, io.EOF):
		return n, true, io.ErrUnexpectedEOF
	}
	return n, false, err
}

// TrailerFollows is called after a chunked body's last chunk. With an
// empty trailer section it consumes the blank line and returns false and
// nil. Otherwise it returns true once the whole section is in br's buffer,
// for the caller to parse with its own field rules; or, as net/http does,
// ErrTrailerEOF when br ends first and ErrLongTrailer when the section does
// not fit in br's buffer; or br's error.
func TrailerFollows(br *bufio.Reader) (bool, error) {
	buf, err := br.Peek(2)
	switch {
	case len(buf) == 2 && buf[0] == '\r' && buf[1] == '\n':
		_, _ = br.Discard(2)
		return false, nil
	case len(buf) < 2:
		return false, ErrTrailerEOF
	case err != nil:
		return false, err
	case !doubleCRLFAhead(br):
		return false, ErrLongTrailer
	}
	return true, nil
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
