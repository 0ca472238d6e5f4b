package soql

import (
	"strconv"
	"strings"
)

type tokenKind int

const (
	tokEOF tokenKind = iota
	tokIdent
	tokString
	tokNumber
	tokComma
	tokOp
	tokLParen
	tokRParen
)

// token is one lexical token; text is decoded for strings.
type token struct {
	kind tokenKind
	text string
}

// String names the token for error messages.
func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "end of query"
	case tokString:
		return strconv.Quote(t.text)
	}
	return "'" + t.text + "'"
}

// maxLen bounds the text a query may have: the real API refuses
// queries longer than 100,000 characters.
const maxLen = 100_000

// tokens splits q into tokens. It is shared by the SOQL and SOSL parsers
// (SOSL only adds the braces of FIND, which its parser handles first).
func tokens(q string) ([]token, error) {
	if len(q) > maxLen {
		return nil, malformed("query is longer than %d characters", maxLen)
	}
	var toks []token
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == ',':
			toks = append(toks, token{kind: tokComma, text: ","})
			i++
		case c == '(':
			toks = append(toks, token{kind: tokLParen, text: "("})
			i++
		case c == ')':
			toks = append(toks, token{kind: tokRParen, text: ")"})
			i++
		case c == '=':
			toks = append(toks, token{kind: tokOp, text: "="})
			i++
		case c == '!' && i+1 < len(q) && q[i+1] == '=':
			toks = append(toks, token{kind: tokOp, text: "!="})
			i += 2
		case c == '\'':
			s, n, err := stringLiteral(q[i:])
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tokString, text: s})
			i += n
		case c == '-' || isDigit(c):
			n := numberLen(q[i:])
			if n == 0 {
				return nil, malformed("unexpected character %q at column %d", c, i+1)
			}
			toks = append(toks, token{kind: tokNumber, text: q[i : i+n]})
			i += n
		case isIdentStart(c):
			n := 1
			// A dot between names is a relationship path: Account.Name.
			for i+n < len(q) && (isIdentPart(q[i+n]) || q[i+n] == '.' && i+n+1 < len(q) && isIdentStart(q[i+n+1])) {
				n++
			}
			toks = append(toks, token{kind: tokIdent, text: q[i : i+n]})
			i += n
		default:
			return nil, malformed("unexpected character %q at column %d", c, i+1)
		}
	}
	return toks, nil
}

// stringLiteral decodes the quoted string at the start of s and returns
// it with the number of bytes it took.
func stringLiteral(s string) (string, int, error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			return b.String(), i + 1, nil
		case '\\':
			if i+1 >= len(s) {
				return "", 0, malformed("unterminated string literal")
			}
			i++
			switch e := s[i]; e {
			case '\\', '\'', '"':
				b.WriteByte(e)
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			default:
				return "", 0, malformed(`invalid escape sequence \%c`, e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, malformed("unterminated string literal")
}

// numberLen is the length of the number at the start of s: an optional
// minus, digits, and an optional fraction. Zero when there is none.
func numberLen(s string) int {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i == start || i-start > 18 {
		return 0
	}
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == i+1 || j-i > 19 {
			return 0
		}
		i = j
	}
	if i < len(s) && isIdentPart(s[i]) {
		return 0
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) }
