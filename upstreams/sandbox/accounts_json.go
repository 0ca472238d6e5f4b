package sandbox

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// appendRecord writes one account row as a JSON object, every field in
// AccountFields order. It appends to buf directly instead of going through
// a map and encoding/json: listing is the sandbox's hot path.
func (s *accountStore) appendRecord(buf []byte, vals []any) []byte {
	buf = append(buf, '{')
	for i, v := range vals {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, s.keys[i]...)
		buf = appendAccountValue(buf, v)
	}
	return append(buf, '}')
}

// appendAccountValue writes a value as the SQLite driver returns it: NULL
// as null, INTEGER and REAL as numbers, TEXT and BLOB as strings.
func appendAccountValue(buf []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(buf, "null"...)
	case string:
		return appendAccountString(buf, v)
	case []byte:
		return appendAccountString(buf, string(v))
	case int64:
		return strconv.AppendInt(buf, v, 10)
	case float64:
		return appendAccountFloat(buf, v)
	case bool:
		return strconv.AppendBool(buf, v)
	}
	return append(buf, "null"...)
}

// appendAccountFloat formats like encoding/json: plain decimals unless the
// magnitude is tiny or huge; NaN and infinities, which JSON cannot carry,
// become null.
func appendAccountFloat(buf []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(buf, "null"...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(buf)
	buf = strconv.AppendFloat(buf, f, format, -1, 64)
	if format == 'e' {
		// 1e-07 reads better as 1e-7, as encoding/json writes it.
		if n := len(buf) - start; n >= 4 && buf[len(buf)-4] == 'e' && buf[len(buf)-3] == '-' && buf[len(buf)-2] == '0' {
			buf[len(buf)-2] = buf[len(buf)-1]
			buf = buf[:len(buf)-1]
		}
	}
	return buf
}

// appendAccountString writes s as a JSON string. Control characters, quote
// and backslash are escaped, so are U+2028 and U+2029 (which break
// JavaScript), and invalid UTF-8 becomes U+FFFD as encoding/json does.
func appendAccountString(buf []byte, s string) []byte {
	const hex = "0123456789abcdef"
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}
