package accounts

import (
	"math"
	"strconv"

	"github.com/restgate/gateway/mapping"
)

// appendRecord writes one account row as a JSON object, every field in
// sfdc.AccountFields order. It appends to buf directly instead of going through
// a map and encoding/json: listing is the sandbox's hot path.
func (s *store) appendRecord(buf []byte, vals []any) []byte {
	buf = append(buf, '{')
	for i, v := range vals {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, s.keys[i]...)
		buf = appendValue(buf, v)
	}
	return append(buf, '}')
}

// appendValue writes a value as the SQLite driver returns it: NULL
// as null, INTEGER and REAL as numbers, TEXT and BLOB as strings.
func appendValue(buf []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(buf, "null"...)
	case string:
		return mapping.AppendString(buf, v)
	case []byte:
		return mapping.AppendString(buf, string(v))
	case int64:
		return strconv.AppendInt(buf, v, 10)
	case float64:
		return appendFloat(buf, v)
	case bool:
		return strconv.AppendBool(buf, v)
	}
	return append(buf, "null"...)
}

// appendFloat formats like encoding/json: plain decimals unless the
// magnitude is tiny or huge; NaN and infinities, which JSON cannot carry,
// become null.
func appendFloat(buf []byte, f float64) []byte {
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
