package envelope

import (
	"strconv"
	"time"

	"github.com/restgate/gateway/mapping"
)

// TimeLayout is the envelope's timeStamp: ISO 8601 UTC with milliseconds.
const TimeLayout = "2006-01-02T15:04:05.000Z"

// Meta is what every envelope carries besides its result or response code.
type Meta struct {
	// Time is the answer's time; it is written in UTC.
	Time time.Time
	// TotalMillis is the time spent in the gateway for this request, in
	// milliseconds (the unit of totalTime), upstream time included.
	TotalMillis float64
	UserID      string
	// MapKeys and DropNulls echo the serializer settings of the route and
	// version, as mapKeysFlag and serializeNulls (the seed's name: true
	// means null members were dropped).
	MapKeys, DropNulls bool
	// OmitFlags leaves mapKeysFlag and serializeNulls out (the endpoint
	// listing).
	OmitFlags bool
}

// AppendSuccess appends {"result": result, ...meta} to dst. result must be
// valid JSON; nil means the empty string result "".
func AppendSuccess(dst, result []byte, m Meta) []byte {
	dst = AppendResultStart(dst)
	if result == nil {
		dst = append(dst, `""`...)
	} else {
		dst = append(dst, result...)
	}
	return AppendMeta(dst, m)
}

// AppendResultStart appends the envelope's opening up to the result value,
// so a caller can stream the result in place and close with AppendMeta.
func AppendResultStart(dst []byte) []byte { return append(dst, `{"result":`...) }

// AppendError appends the error envelope of r. System template and message
// are included only when exposeSystem is set; they always go to the log.
func AppendError(dst []byte, r Rendered, exposeSystem bool, m Meta) []byte {
	dst = append(dst, `{"responseCode":{"id":`...)
	dst = mapping.AppendString(dst, r.Code.ID)
	dst = append(dst, `,"code":`...)
	dst = strconv.AppendInt(dst, int64(r.Code.Code), 10)
	dst = append(dst, `,"clientTemplate":`...)
	dst = mapping.AppendString(dst, r.Code.ClientTemplate)
	if exposeSystem {
		dst = append(dst, `,"systemTemplate":`...)
		dst = mapping.AppendString(dst, r.Code.SystemTemplate)
	}
	dst = append(dst, `,"formattedClientMessage":`...)
	dst = mapping.AppendString(dst, r.ClientMessage)
	if exposeSystem {
		dst = append(dst, `,"formattedSystemMessage":`...)
		dst = mapping.AppendString(dst, r.SystemMessage)
	}
	dst = append(dst, '}')
	return AppendMeta(dst, m)
}

// AppendMeta appends the members after the result or response code and the
// closing brace.
func AppendMeta(dst []byte, m Meta) []byte {
	dst = append(dst, `,"timeStamp":"`...)
	dst = AppendTimestamp(dst, m.Time)
	dst = append(dst, `","totalTime":`...)
	dst = AppendMillis(dst, m.TotalMillis)
	dst = append(dst, `,"userId":`...)
	dst = mapping.AppendString(dst, m.UserID)
	if !m.OmitFlags {
		dst = append(dst, `,"mapKeysFlag":`...)
		dst = strconv.AppendBool(dst, m.MapKeys)
		dst = append(dst, `,"serializeNulls":`...)
		dst = strconv.AppendBool(dst, m.DropNulls)
	}
	return append(dst, '}')
}

// AppendMillis appends a millisecond figure with three decimals, the form
// of totalTime and of Server-Timing's dur.
func AppendMillis(dst []byte, ms float64) []byte {
	if ms < 0 {
		ms = 0
	}
	return strconv.AppendFloat(dst, ms, 'f', 3, 64)
}
