// Package calllog formats, redacts and ships the per-call log entry.
//
// Every call produces one Entry. The request path only hands it to
// Shipper.Enqueue, which copies what it must and returns at once; redaction,
// formatting, truncation and the POST to the collector (through the shared
// upstream client named "collector") all happen on the shipper's own
// goroutine, so a slow, dead or refusing collector never slows or fails a
// request.
package calllog

import (
	"encoding/hex"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/trace"

	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/mapping"
	"github.com/restgate/gateway/upstreams"
)

// Entry is one call as the log sees it. The first group of fields makes up
// the seed's text line; the second group is only in the structured (jsonl)
// form, which is what analytics read.
type Entry struct {
	// Time is when the call arrived; it is written in UTC with milliseconds.
	Time time.Time
	// Text is the free text after "Rest Log :", usually a short summary.
	Text string
	// UserID and TraceID are written as "null" when empty. TraceID is the
	// W3C trace id, 32 hex digits.
	UserID  string
	TraceID string
	// SpanID and TraceFlags are the gateway's span of the request (its
	// traceparent's parent-id and flags); only the structured forms carry
	// them.
	SpanID     trace.SpanID
	TraceFlags trace.TraceFlags
	// TotalTime is the call's total time in milliseconds.
	TotalTime float64
	// Method is the seed's method token, such as "HTTPGET".
	Method string
	// Path is the request path as the client sent it.
	Path string
	// Body is the request body. Enqueue copies it, so the caller may reuse
	// the buffer as soon as Enqueue returns.
	Body []byte

	// Route is the route template (never the raw path), for bounded grouping.
	Route string
	// Version is the API version segment, such as "v1".
	Version string
	// ResponseCode is the error envelope id (such as "URL_INVALID"), empty on
	// success.
	ResponseCode string
	// Status is the HTTP status sent to the client.
	Status int
	// UpstreamTime is the time spent waiting on backends, in milliseconds.
	UpstreamTime float64
	// Duplicate marks a call the duplicate detector saw within its window.
	Duplicate bool
	// APIUsage is the org's API usage the call's last upstream answer
	// reported (Sforce-Limit-Info); Limit 0 when none did.
	APIUsage upstreams.Usage
}

// AppendLine appends the seed's text line for e, with body in place of
// e.Body (the shipper passes the redacted, truncated body), and no trailing
// newline:
//
//	<timestamp> Rest Log : <text> UserId: <id> | TraceId: <id or null> | TotalTime: <n> | Method: <token> | Path: <path> | Body: <body>
//
// Carriage returns and line feeds in any field are written as spaces, so one
// entry is always exactly one line; in a JSON body they can only be
// insignificant whitespace, so the body stays valid JSON. Invalid UTF-8 is
// replaced by U+FFFD, so the line is always valid UTF-8.
func AppendLine(dst []byte, e *Entry, body []byte) []byte {
	dst = envelope.AppendTimestamp(dst, e.Time)
	dst = append(dst, " Rest Log : "...)
	dst = appendOneLine(dst, e.Text)
	dst = append(dst, " UserId: "...)
	dst = appendOneLine(dst, orNull(e.UserID))
	dst = append(dst, " | TraceId: "...)
	dst = appendOneLine(dst, orNull(e.TraceID))
	dst = append(dst, " | TotalTime: "...)
	dst = appendMillis(dst, e.TotalTime)
	dst = append(dst, " | Method: "...)
	dst = appendOneLine(dst, e.Method)
	dst = append(dst, " | Path: "...)
	dst = appendOneLine(dst, e.Path)
	dst = append(dst, " | Body: "...)
	return appendOneLine(dst, body)
}

// AppendJSON appends e as one JSON object (no trailing newline) with every
// field, body in place of e.Body as a JSON string. Empty user, trace and span
// ids are JSON null, and so is apiUsage ({"used", "limit"}) when no answer
// reported it. Invalid UTF-8 is replaced by U+FFFD, so the object is
// always valid JSON.
func AppendJSON(dst []byte, e *Entry, body []byte) []byte {
	dst = append(dst, '{')
	dst = appendJSONFields(dst, e, body)
	return append(dst, '}')
}

// appendJSONObject is AppendJSON with the entry's id as its first member.
func appendJSONObject(dst []byte, it *item) []byte {
	dst = append(dst, `{"id":`...)
	dst = mapping.AppendString(dst, it.id)
	dst = append(dst, ',')
	dst = appendJSONFields(dst, &it.e, it.e.Body)
	return append(dst, '}')
}

// appendJSONFields appends AppendJSON's members without the braces.
func appendJSONFields(dst []byte, e *Entry, body []byte) []byte {
	dst = append(dst, `"time":"`...)
	dst = envelope.AppendTimestamp(dst, e.Time)
	dst = append(dst, `","text":`...)
	dst = mapping.AppendString(dst, e.Text)
	dst = append(dst, `,"userId":`...)
	dst = appendJSONStringOrNull(dst, e.UserID)
	dst = append(dst, `,"traceId":`...)
	dst = appendJSONStringOrNull(dst, e.TraceID)
	dst = append(dst, `,"spanId":`...)
	if e.SpanID.IsValid() {
		dst = append(dst, '"')
		dst = hex.AppendEncode(dst, e.SpanID[:])
		dst = append(dst, '"')
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"totalTime":`...)
	dst = appendMillis(dst, e.TotalTime)
	dst = append(dst, `,"method":`...)
	dst = mapping.AppendString(dst, e.Method)
	dst = append(dst, `,"path":`...)
	dst = mapping.AppendString(dst, e.Path)
	dst = append(dst, `,"body":`...)
	dst = mapping.AppendString(dst, body)
	dst = append(dst, `,"route":`...)
	dst = mapping.AppendString(dst, e.Route)
	dst = append(dst, `,"version":`...)
	dst = mapping.AppendString(dst, e.Version)
	dst = append(dst, `,"responseCode":`...)
	dst = mapping.AppendString(dst, e.ResponseCode)
	dst = append(dst, `,"status":`...)
	dst = strconv.AppendInt(dst, int64(e.Status), 10)
	dst = append(dst, `,"upstreamTime":`...)
	dst = appendMillis(dst, e.UpstreamTime)
	dst = append(dst, `,"duplicate":`...)
	dst = strconv.AppendBool(dst, e.Duplicate)
	dst = append(dst, `,"apiUsage":`...)
	if e.APIUsage.Limit <= 0 {
		return append(dst, "null"...)
	}
	dst = append(dst, `{"used":`...)
	dst = strconv.AppendInt(dst, e.APIUsage.Used, 10)
	dst = append(dst, `,"limit":`...)
	dst = strconv.AppendInt(dst, e.APIUsage.Limit, 10)
	return append(dst, '}')
}

func orNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

// appendMillis writes v rounded to at most three decimals, without trailing
// zeros. NaN and infinities (a broken clock) are written as 0 so that the
// JSON form stays valid.
func appendMillis(dst []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(dst, '0')
	}
	r := math.Round(v*1000) / 1000
	if r == 0 {
		r = 0 // drop the sign of -0
	}
	return strconv.AppendFloat(dst, r, 'f', -1, 64)
}

func appendOneLine[T string | []byte](dst []byte, s T) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n' || c == '\r':
			dst = append(dst, ' ')
			i++
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			i++
		default:
			r, size := decodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, s[i:i+size]...)
			}
			i += size
		}
	}
	return dst
}

func appendJSONStringOrNull(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, "null"...)
	}
	return mapping.AppendString(dst, s)
}

// decodeRune decodes the first rune of s; the conversion of at most four
// bytes to a string does not allocate.
func decodeRune[T string | []byte](s T) (rune, int) {
	return utf8.DecodeRuneInString(string(s[:min(len(s), utf8.UTFMax)]))
}
