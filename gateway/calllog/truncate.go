package calllog

import (
	"strconv"
	"unicode/utf8"
)

// AppendTruncated appends b to dst, cut to at most max bytes on a UTF-8
// boundary. When it cuts, or when omitted bytes were already dropped before
// b got here, it adds the marker "...[truncated N bytes]" with N the total
// left out. A max below 1 keeps no bytes of b. b may be a string, which
// is then not converted (no copy beyond dst).
func AppendTruncated[T string | []byte](dst []byte, b T, max, omitted int) []byte {
	cut := len(b)
	if max < 0 {
		max = 0
	}
	if cut > max {
		cut = max
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
	}
	dst = append(dst, b[:cut]...)
	if left := len(b) - cut + omitted; left > 0 {
		dst = append(dst, "...[truncated "...)
		dst = strconv.AppendInt(dst, int64(left), 10)
		dst = append(dst, " bytes]"...)
	}
	return dst
}
