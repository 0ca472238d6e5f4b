// Package jsonspan walks the top level of a JSON document without decoding
// it: the byte spans of an array's elements or of an object's members, as
// subslices of the document. The gateway passes backend records on as
// bytes (the writer rewrites and validates every byte of an answer), so
// splitting a list or looking at a record's members needs their bounds,
// not their values; encoding/json's decoder spends several allocations on
// each element to find them.
//
// The walk checks structure only: brackets, braces and strings must
// balance and the top level must be what the caller asks for; scalars
// are not validated. A malformed document is refused, never a panic or a
// partial answer.
package jsonspan

import "bytes"

// Array calls fn with each element of the JSON array doc, in order, space
// trimmed, and reports whether doc is one array (surrounding space allowed)
// whose structure balances. fn is called as the walk finds each element:
// when Array reports false, discard what the calls built.
func Array(doc []byte, fn func(elem []byte)) bool {
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '[' {
		return false
	}
	i = skipSpace(doc, i+1)
	if i < len(doc) && doc[i] == ']' {
		return skipSpace(doc, i+1) == len(doc)
	}
	for {
		end, ok := skipValue(doc, i)
		if !ok {
			return false
		}
		fn(doc[i:end])
		i = skipSpace(doc, end)
		if i >= len(doc) {
			return false
		}
		if doc[i] == ']' {
			return skipSpace(doc, i+1) == len(doc)
		}
		if doc[i] != ',' {
			return false
		}
		i = skipSpace(doc, i+1)
	}
}

// Count is the number of elements of the JSON array doc, and whether doc
// is one balanced array; it allocates nothing.
func Count(doc []byte) (int, bool) {
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '[' {
		return 0, false
	}
	i = skipSpace(doc, i+1)
	if i < len(doc) && doc[i] == ']' {
		return 0, skipSpace(doc, i+1) == len(doc)
	}
	n := 0
	for {
		end, ok := skipValue(doc, i)
		if !ok {
			return 0, false
		}
		n++
		i = skipSpace(doc, end)
		if i >= len(doc) {
			return 0, false
		}
		if doc[i] == ']' {
			return n, skipSpace(doc, i+1) == len(doc)
		}
		if doc[i] != ',' {
			return 0, false
		}
		i = skipSpace(doc, i+1)
	}
}

// Object calls fn with each member of the JSON object doc, in order: its
// key as written, quotes included and escapes kept (see Key), and its
// value, space trimmed. It reports whether doc is one object whose
// structure balances. fn is called as the walk finds each member: when
// Object reports false, discard what the calls built.
func Object(doc []byte, fn func(key, value []byte)) bool {
	i := skipSpace(doc, 0)
	if i >= len(doc) || doc[i] != '{' {
		return false
	}
	i = skipSpace(doc, i+1)
	if i < len(doc) && doc[i] == '}' {
		return skipSpace(doc, i+1) == len(doc)
	}
	for {
		if i >= len(doc) || doc[i] != '"' {
			return false
		}
		keyStart := i
		keyEnd, ok := skipString(doc, i)
		if !ok {
			return false
		}
		i = skipSpace(doc, keyEnd)
		if i >= len(doc) || doc[i] != ':' {
			return false
		}
		v := skipSpace(doc, i+1)
		end, ok := skipValue(doc, v)
		if !ok {
			return false
		}
		fn(doc[keyStart:keyEnd], doc[v:end])
		i = skipSpace(doc, end)
		if i >= len(doc) {
			return false
		}
		if doc[i] == '}' {
			return skipSpace(doc, i+1) == len(doc)
		}
		if doc[i] != ',' {
			return false
		}
		i = skipSpace(doc, i+1)
	}
}

// Key returns the text of a key as Object gives it, when it has no escape;
// ok is false for a key with one (decode it with encoding/json then).
func Key(raw []byte) (string, bool) {
	if len(raw) < 2 || bytes.IndexByte(raw, '\\') >= 0 {
		return "", false
	}
	return string(raw[1 : len(raw)-1]), true
}

// skipValue returns the end of the value starting at i.
func skipValue(doc []byte, i int) (int, bool) {
	if i >= len(doc) {
		return 0, false
	}
	switch doc[i] {
	case '"':
		return skipString(doc, i)
	case '{', '[':
		return skipNested(doc, i)
	case ']', '}', ',', ':':
		return 0, false
	}
	j := i
	for j < len(doc) {
		switch doc[j] {
		case ',', ']', '}', ' ', '\t', '\r', '\n', '"', '[', '{', ':':
			return j, j > i
		}
		j++
	}
	return j, j > i
}

// skipString returns the end of the string whose opening quote is at i.
func skipString(doc []byte, i int) (int, bool) {
	j := i + 1
	for {
		k := bytes.IndexByte(doc[j:], '"')
		if k < 0 {
			return 0, false
		}
		j += k
		if !escaped(doc, j) {
			return j + 1, true
		}
		j++
	}
}

// escaped reports whether the quote at j is preceded by an odd number of
// backslashes.
func escaped(doc []byte, j int) bool {
	n := 0
	for k := j - 1; k >= 0 && doc[k] == '\\'; k-- {
		n++
	}
	return n%2 == 1
}

// skipNested returns the end of the array or object opening at i.
func skipNested(doc []byte, i int) (int, bool) {
	var buf [64]byte
	stack := buf[:0]
	for j := i; j < len(doc); j++ {
		switch c := doc[j]; c {
		case '"':
			end, ok := skipString(doc, j)
			if !ok {
				return 0, false
			}
			j = end - 1
		case '[', '{':
			stack = append(stack, c)
		case ']', '}':
			if len(stack) == 0 || stack[len(stack)-1] != c-2 { // '[' is ']'-2, '{' is '}'-2
				return 0, false
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return j + 1, true
			}
		}
	}
	return 0, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}
