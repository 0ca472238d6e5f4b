package h1client

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/restgate/gateway/upstreams/h1wire"
)

// MaxHeadBytes bounds an answer's head (status line, fields and the blank
// line): 1 MiB, net/http's server default for request heads. net/http's
// Transport allows 10 MiB; the shared client sets its fallback to this
// bound (MaxResponseHeaderBytes), so both paths refuse the same heads, and
// no backend makes a call hold 10 MiB before its body starts.
const MaxHeadBytes = 1 << 20

// ErrMalformedAnswer is wrapped by the errors of an answer head that is not
// HTTP/1.x: a bad status line, field line or framing field.
var ErrMalformedAnswer = errors.New("h1client: malformed answer")

// ErrHeadTooLarge is returned for an answer head longer than MaxHeadBytes.
var ErrHeadTooLarge = errors.New("h1client: answer head too large")

// readResponse reads one answer head from br and decides its framing as
// net/http's ReadResponse does; the body is read through the returned
// answerBody (resp.Body is left to the caller unless there is no body, when
// it is http.NoBody).
func readResponse(br *bufio.Reader, req *http.Request) (*http.Response, answerBody, error) {
	return readResponseInto(br, req, new(http.Response))
}

// readResponseInto is readResponse into resp, which it overwrites whole;
// the exchange's resp lives in its body (conn.roundTrip), so that an
// answer is not an allocation of its own.
func readResponseInto(br *bufio.Reader, req *http.Request, resp *http.Response) (*http.Response, answerBody, error) {
	head, err := readHead(br, MaxHeadBytes)
	if err != nil {
		return nil, answerBody{}, err
	}
	seen, err := parseHead(head, req, resp)
	if err != nil {
		return nil, answerBody{}, err
	}
	method := http.MethodGet
	if req != nil && req.Method != "" {
		method = req.Method
	}
	ab, err := frame(resp, seen, method, br)
	if err != nil {
		return nil, answerBody{}, err
	}
	return resp, ab, nil
}

// readHead returns the text of the head at the start of br, through its
// blank line, and consumes it (see h1wire.ReadHead), reporting a head over
// limit as ErrHeadTooLarge and one cut short as io.ErrUnexpectedEOF, as
// net/http does.
func readHead(br *bufio.Reader, limit int) (string, error) {
	head, err := h1wire.ReadHead(br, limit)
	switch {
	case err == nil:
		return head, nil
	case errors.Is(err, h1wire.ErrHeadTooLarge):
		return "", ErrHeadTooLarge
	case errors.Is(err, io.EOF):
		return "", io.ErrUnexpectedEOF
	}
	return "", err
}

// malformed reports a syntax error wire found under ErrMalformedAnswer,
// keeping its detail; other errors pass as they are.
func malformed(err error) error {
	if errors.Is(err, h1wire.ErrMalformed) {
		return fmt.Errorf("%w: %w", ErrMalformedAnswer, err)
	}
	return err
}

// parseHead parses a head that readHead returned. It is stricter than
// net/http in four ways, none of which a conforming server produces: the
// status line must be exactly "HTTP/1.x NNN[ reason]" with a reason of
// field-value characters, a status below 100 is refused (net/http takes it
// as a final answer, RFC 9110 defines none), obsolete line folding is
// refused (RFC 9112 lets a client refuse it), and so is whitespace before a
// field's colon (RFC 9112 says a proxy must remove it, so it cannot pass it
// on). It fills resp, overwriting it whole.
func parseHead(head string, req *http.Request, resp *http.Response) (h1wire.Framing, error) {
	line, rest := h1wire.NextLine(head)
	*resp = http.Response{Request: req}
	if err := parseStatusLine(line, resp); err != nil {
		return 0, err
	}
	h, seen, err := h1wire.ParseFields(rest)
	if err != nil {
		return 0, malformed(err)
	}
	h1wire.FixPragma(h, seen)
	resp.Header = h
	return seen, nil
}

// parseStatusLine fills resp from "HTTP/1.x NNN[ reason]".
func parseStatusLine(line string, resp *http.Response) error {
	const short = len("HTTP/1.x NNN")
	if len(line) < short || line[:7] != "HTTP/1." || !isDigit(line[7]) || line[8] != ' ' ||
		!isDigit(line[9]) || !isDigit(line[10]) || !isDigit(line[11]) ||
		len(line) > short && (line[short] != ' ' || !h1wire.ValidValue(line[short+1:])) {
		return fmt.Errorf("%w: status line %q", ErrMalformedAnswer, line)
	}
	resp.Proto = line[:8]
	resp.ProtoMajor, resp.ProtoMinor = 1, int(line[7]-'0')
	resp.StatusCode = int(line[9]-'0')*100 + int(line[10]-'0')*10 + int(line[11]-'0')
	resp.Status = line[9:]
	if resp.StatusCode < 100 {
		// not an interim answer either (net/http would return it as a
		// final one): its body would be read as the next answer
		return fmt.Errorf("%w: status %d", ErrMalformedAnswer, resp.StatusCode)
	}
	return nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
