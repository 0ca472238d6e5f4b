package h1wire

import (
	"bufio"
	"bytes"
	"errors"
	"strings"
)

// ReadHead returns the text of the head at the start of br, through its
// first blank line ("\n" or "\r\n", as bufio.Reader.ReadLine ends lines),
// and consumes it. The text is one string, which parsed fields can slice:
// one allocation for the whole head.
//
// A head longer than limit is ErrHeadTooLarge (math.MaxInt for no bound
// but what br's source delivers). When br fails before the blank line,
// ReadHead returns br's error as it is (io.EOF included: whether that is a
// head cut short is the caller's to say) with the part of the head read,
// which is consumed.
func ReadHead(br *bufio.Reader, limit int) (string, error) {
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
			partial := string(buf)
			_, _ = br.Discard(len(buf))
			return partial, err
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
			return string(acc), err
		}
	}
}

// headEnd returns the length of the head in buf, through its first blank
// line, or 0 when buf does not hold it yet. *scanned keeps where the first
// line not known to be complete begins, so that a head arriving in pieces
// is scanned once.
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

// NextLine splits s after its first line, whose end ("\n" or "\r\n") is
// dropped; a last line without an end is taken whole (rest is then "").
func NextLine(s string) (line, rest string) {
	i := strings.IndexByte(s, '\n')
	if i < 0 {
		return s, ""
	}
	line, rest = s[:i], s[i+1:]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest
}
