package proxy

import (
	"errors"
	"fmt"
	"strconv"
)

// errNoMember means the backend's answer is not an object holding the
// route's resultPath member.
var errNoMember = errors.New("proxy: the answer has no such member")

// errSyntax means the answer is not well-formed where member looked.
var errSyntax = errors.New("proxy: malformed JSON in the answer")

// member returns the raw JSON value of the top-level member name of the
// object src, without copying it and without decoding anything into maps:
// the members before it are skipped by a scanner that only tracks strings
// and nesting, and the members after it are not read. The returned value
// itself is checked by the writer's rewrite, which validates every byte it
// maps. A src that is not a JSON object, or has no such member, is
// errNoMember; malformed JSON on the way is errSyntax.
func member(src []byte, name string) ([]byte, error) {
	i := skipSpace(src, 0)
	if i >= len(src) || src[i] != '{' {
		return nil, fmt.Errorf("%w %q: the answer is not an object", errNoMember, name)
	}
	i = skipSpace(src, i+1)
	if i < len(src) && src[i] == '}' {
		return nil, fmt.Errorf("%w %q", errNoMember, name)
	}
	for i < len(src) {
		if src[i] != '"' {
			return nil, syntaxAt(i)
		}
		end, escaped, err := skipString(src, i)
		if err != nil {
			return nil, err
		}
		key := src[i+1 : end-1]
		i = skipSpace(src, end)
		if i >= len(src) || src[i] != ':' {
			return nil, syntaxAt(i)
		}
		start := skipSpace(src, i+1)
		stop, err := skipValue(src, start)
		if err != nil {
			return nil, err
		}
		if keyIs(key, escaped, name) {
			return src[start:stop], nil
		}
		i = skipSpace(src, stop)
		if i >= len(src) {
			break
		}
		switch src[i] {
		case ',':
			i = skipSpace(src, i+1)
		case '}':
			return nil, fmt.Errorf("%w %q", errNoMember, name)
		default:
			return nil, syntaxAt(i)
		}
	}
	return nil, syntaxAt(len(src))
}

func keyIs(key []byte, escaped bool, name string) bool {
	if !escaped {
		return string(key) == name
	}
	s, err := strconv.Unquote(`"` + string(key) + `"`)
	return err == nil && s == name
}

func skipSpace(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at src[i] ('"').
func skipString(src []byte, i int) (end int, escaped bool, err error) {
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j + 1, escaped, nil
		}
	}
	return 0, false, syntaxAt(len(src))
}

// skipValue returns the index after the value starting at src[i].
func skipValue(src []byte, i int) (int, error) {
	if i >= len(src) {
		return 0, syntaxAt(i)
	}
	switch src[i] {
	case '"':
		end, _, err := skipString(src, i)
		return end, err
	case '{', '[':
		depth := 0
		for j := i; j < len(src); j++ {
			switch src[j] {
			case '"':
				end, _, err := skipString(src, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, syntaxAt(len(src))
	case ',', '}', ']', ':':
		return 0, syntaxAt(i)
	}
	j := i
	for j < len(src) && src[j] != ',' && src[j] != '}' && src[j] != ']' && src[j] != ' ' &&
		src[j] != '\t' && src[j] != '\n' && src[j] != '\r' {
		j++
	}
	return j, nil
}

func syntaxAt(offset int) error { return fmt.Errorf("%w at byte %d", errSyntax, offset) }
