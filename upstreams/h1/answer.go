package h1

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"strings"
)

// maxHeadBytes bounds an answer's head (status line, fields and the blank
// line). It is net/http's Transport default, the bound the fallback
// applies, so both paths refuse the same heads.
const maxHeadBytes = 10 << 20

// ErrMalformedAnswer is wrapped by the errors of an answer head that is not
// HTTP/1.x: a bad status line, field line or framing field.
var ErrMalformedAnswer = errors.New("h1: malformed answer")

// ErrHeadTooLarge is returned for an answer head longer than 10 MiB.
var ErrHeadTooLarge = errors.New("h1: answer head too large")

// readResponse reads one answer head from br and decides its framing as
// net/http's ReadResponse does; the body is read through the returned
// answerBody (resp.Body is left to the caller unless there is no body, when
// it is http.NoBody).
func readResponse(br *bufio.Reader, req *http.Request) (*http.Response, answerBody, error) {
	head, err := readHead(br, maxHeadBytes)
	if err != nil {
		return nil, answerBody{}, err
	}
	resp, seen, err := parseHead(head, req)
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

// readHead returns the text of the head at the start of br, up to and
// including its blank line, and consumes it. The text is one string that
// the parsed fields slice: one allocation for the whole head.
func readHead(br *bufio.Reader, limit int) (string, error) {
	scanned := 0
	var err error
	for {
		buf, _ := br.Peek(br.Buffered())
		if end := headEnd(buf, &scanned); end > 0 {
			if end > limit {
				return "", ErrHeadTooLarge
			}
			head := string(buf[:end])
			_, _ = br.Discard(end)
			return head, nil
		}
		switch {
		case err != nil:
			return "", readError(err)
		case len(buf) >= limit:
			return "", ErrHeadTooLarge
		case len(buf) == br.Size():
			return readLongHead(br, limit)
		}
		_, err = br.Peek(len(buf) + 1)
	}
}

// readLongHead reads a head that does not fit in br's buffer by copying
// it out line by line.
func readLongHead(br *bufio.Reader, limit int) (string, error) {
	acc := make([]byte, 0, 2*br.Size())
	scanned := 0
	for {
		chunk, err := br.ReadSlice('\n')
		acc = append(acc, chunk...)
		if end := headEnd(acc, &scanned); end > 0 && end <= limit {
			return string(acc[:end]), nil
		}
		if len(acc) > limit {
			return "", ErrHeadTooLarge
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return "", readError(err)
		}
	}
}

// headEnd returns the length of the head in buf, through its first blank
// line ("\n" or "\r\n", as bufio.Reader.ReadLine ends lines), or 0 when
// buf does not hold it yet. *scanned keeps where the first line not known
// to be complete begins, so that a head arriving in pieces is scanned once.
func headEnd(buf []byte, scanned *int) int {
	for {
		i := bytes.IndexByte(buf[*scanned:], '\n')
		if i < 0 {
			return 0
		}
		line := buf[*scanned : *scanned+i]
		*scanned += i + 1
		if len(line) == 0 || len(line) == 1 && line[0] == '\r' {
			return *scanned
		}
	}
}

// readError is err as net/http reports a head cut short.
func readError(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// parseHead parses a head that readHead returned. It is stricter than
// net/http in three ways, none of which a conforming server produces: the
// status line must be exactly "HTTP/1.x NNN[ reason]" with a reason of
// field-value characters, obsolete line folding is refused (RFC 9112 lets a
// client refuse it), and so is whitespace before a field's colon (RFC 9112
// says a proxy must remove it, so it cannot pass it on).
func parseHead(head string, req *http.Request) (*http.Response, framingFields, error) {
	line, rest := nextLine(head)
	resp := &http.Response{Request: req}
	if err := parseStatusLine(line, resp); err != nil {
		return nil, 0, err
	}
	h, seen, err := parseFields(rest)
	if err != nil {
		return nil, 0, err
	}
	// RFC 9111: "Pragma: no-cache" counts as "Cache-Control: no-cache",
	// which net/http makes visible.
	if seen&fieldPragma != 0 {
		if hp := h["Pragma"]; len(hp) > 0 && hp[0] == "no-cache" {
			if _, ok := h["Cache-Control"]; !ok {
				h["Cache-Control"] = []string{"no-cache"}
			}
		}
	}
	resp.Header = h
	return resp, seen, nil
}

// nextLine splits s after its first line, whose end ("\n" or "\r\n") is
// dropped. s holds a whole line.
func nextLine(s string) (line, rest string) {
	i := strings.IndexByte(s, '\n')
	line, rest = s[:i], s[i+1:]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest
}

// parseStatusLine fills resp from "HTTP/1.x NNN[ reason]".
func parseStatusLine(line string, resp *http.Response) error {
	const short = len("HTTP/1.x NNN")
	if len(line) < short || line[:7] != "HTTP/1." || !isDigit(line[7]) || line[8] != ' ' ||
		!isDigit(line[9]) || !isDigit(line[10]) || !isDigit(line[11]) ||
		len(line) > short && (line[short] != ' ' || !validValue(line[short+1:])) {
		return fmt.Errorf("%w: status line %q", ErrMalformedAnswer, line)
	}
	resp.Proto = line[:8]
	resp.ProtoMajor, resp.ProtoMinor = 1, int(line[7]-'0')
	resp.StatusCode = int(line[9]-'0')*100 + int(line[10]-'0')*10 + int(line[11]-'0')
	resp.Status = line[9:]
	return nil
}

// framingFields notes which of the fields framing reads a head has, so
// that framing looks up only those: a map lookup hashes its key.
type framingFields uint8

const (
	fieldConnection framingFields = 1 << iota
	fieldContentLength
	fieldTransferEncoding
	fieldTrailer
	fieldPragma
)

func framingField(key string) framingFields {
	switch key {
	case "Connection":
		return fieldConnection
	case "Content-Length":
		return fieldContentLength
	case "Transfer-Encoding":
		return fieldTransferEncoding
	case "Trailer":
		return fieldTrailer
	case "Pragma":
		return fieldPragma
	}
	return 0
}

// parseFields parses field lines up to the blank line ending text, into a
// header sized for them. Keys already canonical and all values are slices
// of text; each key's first value shares one backing array.
func parseFields(text string) (http.Header, framingFields, error) {
	n := strings.Count(text, "\n") - 1
	h := make(http.Header, n)
	strs := make([]string, n)
	var seen framingFields
	for {
		line, rest := nextLine(text)
		text = rest
		if line == "" {
			return h, seen, nil
		}
		if line[0] == ' ' || line[0] == '\t' {
			return nil, 0, fmt.Errorf("%w: folded field line %q", ErrMalformedAnswer, line)
		}
		colon := strings.IndexByte(line, ':')
		if colon < 0 {
			return nil, 0, fmt.Errorf("%w: field line %q", ErrMalformedAnswer, line)
		}
		key, ok := canonicalKey(line[:colon])
		value := trimOWS(line[colon+1:])
		if !ok || !validValue(value) {
			return nil, 0, fmt.Errorf("%w: field line %q", ErrMalformedAnswer, line)
		}
		if vv, seen := h[key]; seen {
			h[key] = append(vv, value)
			continue
		}
		// Capacity one, so a second value never writes into the next
		// key's element.
		seen |= framingField(key)
		vv := strs[:1:1]
		strs = strs[1:]
		vv[0] = value
		h[key] = vv
	}
}

// canonicalKey returns name in textproto.CanonicalMIMEHeaderKey's form,
// name itself (no copy) when it already is, and false when name is not a
// token.
func canonicalKey(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	upper, canonical := true, true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !tokenByte(c) {
			return "", false
		}
		if upper && 'a' <= c && c <= 'z' || !upper && 'A' <= c && c <= 'Z' {
			canonical = false
		}
		upper = c == '-'
	}
	if canonical {
		return name, true
	}
	return textproto.CanonicalMIMEHeaderKey(name), true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// tokenByte reports a tchar of RFC 9110: letters, digits and
// "!#$%&'*+-.^_`|~".
func tokenByte(c byte) bool {
	const lo uint64 = 0 |
		(1<<10-1)<<'0' |
		1<<'!' | 1<<'#' | 1<<'$' | 1<<'%' | 1<<'&' | 1<<'\'' | 1<<'*' | 1<<'+' | 1<<'-' | 1<<'.'
	const hi uint64 = 0 |
		(1<<26-1)<<('a'-64) | (1<<26-1)<<('A'-64) |
		1<<('^'-64) | 1<<('_'-64) | 1<<('`'-64) | 1<<('|'-64) | 1<<('~'-64)
	switch {
	case c < 64:
		return lo&(1<<c) != 0
	case c < 128:
		return hi&(1<<(c-64)) != 0
	}
	return false
}

// trimOWS drops the spaces and tabs around s.
func trimOWS(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
