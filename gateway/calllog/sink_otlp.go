package calllog

import (
	"encoding/hex"
	"strings"
	"time"
	"unicode/utf8"

	commonv1 "go.opentelemetry.io/proto/otlp/common/v1"
	logsv1 "go.opentelemetry.io/proto/otlp/logs/v1"
	resourcev1 "go.opentelemetry.io/proto/otlp/resource/v1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// otlpScope names the instrumentation scope of the log records.
const otlpScope = "github.com/restgate/gateway/gateway/calllog"

// otlpSink POSTs OTLP/HTTP logs (POST /v1/logs, Content-Type
// application/x-protobuf): one LogRecord per call, its line (text or JSON)
// as the body, every field as an attribute, and the request's trace and
// span ids, so a trace backend links the call to its trace. The batch is a
// LogsData, which the OTLP specification makes the same message on the
// wire as ExportLogsServiceRequest, so the gRPC service packages are not
// needed. A partial success in the answer counts its rejected records as
// refused (OTLP says not to send them again).
type otlpSink struct {
	format string
	line   []byte
}

func (o *otlpSink) contentType() string { return "application/x-protobuf" }

func (o *otlpSink) encode(dst []byte, items []item) []byte {
	records := make([]*logsv1.LogRecord, len(items))
	for i := range items {
		records[i] = o.record(&items[i])
	}
	data := &logsv1.LogsData{ResourceLogs: []*logsv1.ResourceLogs{{
		Resource: &resourcev1.Resource{Attributes: []*commonv1.KeyValue{strAttr("service.name", "restgate")}},
		ScopeLogs: []*logsv1.ScopeLogs{{
			Scope:      &commonv1.InstrumentationScope{Name: otlpScope},
			LogRecords: records,
		}},
	}}}
	out, err := proto.MarshalOptions{}.MarshalAppend(dst, data)
	if err != nil {
		// Every string is made valid UTF-8, so this does not happen; an
		// empty body would be refused and counted.
		return dst
	}
	return out
}

// record is one call as an OTLP log record.
func (o *otlpSink) record(it *item) *logsv1.LogRecord {
	e := &it.e
	o.line = appendLine(o.line[:0], o.format, it)
	sev, sevText := logsv1.SeverityNumber_SEVERITY_NUMBER_INFO, "INFO"
	switch {
	case e.Status >= 500:
		sev, sevText = logsv1.SeverityNumber_SEVERITY_NUMBER_ERROR, "ERROR"
	case e.Status >= 400:
		sev, sevText = logsv1.SeverityNumber_SEVERITY_NUMBER_WARN, "WARN"
	}
	attrs := []*commonv1.KeyValue{
		strAttr("log.record.uid", string(it.id)),
		strAttr("http.request.method", strings.TrimPrefix(e.Method, "HTTP")),
		strAttr("url.path", e.Path),
		strAttr("http.route", e.Route),
		intAttr("http.response.status_code", int64(e.Status)),
		strAttr("restgate.text", e.Text),
		strAttr("restgate.method", e.Method),
		strAttr("restgate.version", e.Version),
		strAttr("restgate.body", string(e.Body)),
		floatAttr("restgate.total_time_ms", e.TotalTime),
		floatAttr("restgate.upstream_time_ms", e.UpstreamTime),
		boolAttr("restgate.duplicate", e.Duplicate),
	}
	if e.UserID != "" {
		attrs = append(attrs, strAttr("user.id", e.UserID))
	}
	if e.ResponseCode != "" {
		attrs = append(attrs, strAttr("restgate.response_code", e.ResponseCode))
	}
	if e.APIUsage.Limit > 0 {
		attrs = append(attrs, intAttr("restgate.api_usage.used", e.APIUsage.Used), intAttr("restgate.api_usage.limit", e.APIUsage.Limit))
	}
	r := &logsv1.LogRecord{
		TimeUnixNano:         uint64(e.Time.UnixNano()),
		ObservedTimeUnixNano: uint64(e.Time.Add(time.Duration(e.TotalTime * float64(time.Millisecond))).UnixNano()),
		SeverityNumber:       sev,
		SeverityText:         sevText,
		Body:                 &commonv1.AnyValue{Value: &commonv1.AnyValue_StringValue{StringValue: string(o.line)}},
		Attributes:           attrs,
	}
	if id, err := hex.DecodeString(e.TraceID); err == nil && len(id) == 16 {
		r.TraceId = id
		r.Flags = uint32(e.TraceFlags)
		if e.SpanID.IsValid() {
			r.SpanId = append([]byte(nil), e.SpanID[:]...)
		}
	}
	return r
}

// strAttr is a string attribute; protobuf strings must be valid UTF-8, so
// invalid bytes become U+FFFD.
func strAttr(k, v string) *commonv1.KeyValue {
	if !utf8.ValidString(v) {
		v = strings.ToValidUTF8(v, "\uFFFD")
	}
	return &commonv1.KeyValue{Key: k, Value: &commonv1.AnyValue{Value: &commonv1.AnyValue_StringValue{StringValue: v}}}
}

func intAttr(k string, v int64) *commonv1.KeyValue {
	return &commonv1.KeyValue{Key: k, Value: &commonv1.AnyValue{Value: &commonv1.AnyValue_IntValue{IntValue: v}}}
}

func floatAttr(k string, v float64) *commonv1.KeyValue {
	return &commonv1.KeyValue{Key: k, Value: &commonv1.AnyValue{Value: &commonv1.AnyValue_DoubleValue{DoubleValue: v}}}
}

func boolAttr(k string, v bool) *commonv1.KeyValue {
	return &commonv1.KeyValue{Key: k, Value: &commonv1.AnyValue{Value: &commonv1.AnyValue_BoolValue{BoolValue: v}}}
}

func (o *otlpSink) answerLimit() int { return 64 << 10 }

// decide reads an ExportLogsServiceResponse: its partial_success, when
// present, counts the records the collector refused (which ones is not
// said: the last ones are counted).
func (o *otlpSink) decide(answer []byte, _ []item, out []verdict) string {
	allDelivered(out)
	refused, msg, ok := partialSuccess(answer)
	if !ok || (refused == 0 && msg == "") {
		return ""
	}
	for i := len(out) - 1; i >= 0 && refused > 0; i-- {
		out[i] = rejected
		refused--
	}
	return "partial success: " + cut(msg, 200)
}

// partialSuccess reads ExportLogsServiceResponse.partial_success (field 1:
// rejected_log_records, field 1, int64; error_message, field 2, string).
// ok is false when b is not such a message. A partial_success given more
// than once is merged, as protobuf decoders merge a repeated message field:
// each occurrence sets only the fields it holds.
func partialSuccess(b []byte) (refused int64, msg string, ok bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, "", false
		}
		b = b[n:]
		if num == 1 && typ == protowire.BytesType {
			inner, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return 0, "", false
			}
			b = b[n:]
			if refused, msg, ok = partialFields(inner, refused, msg); !ok {
				return 0, "", false
			}
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return 0, "", false
		}
		b = b[n:]
	}
	return max(refused, 0), msg, true
}

// partialFields reads the fields of one ExportLogsPartialSuccess over the
// values an earlier occurrence left.
func partialFields(b []byte, refused int64, msg string) (int64, string, bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0, "", false
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return 0, "", false
			}
			refused, b = int64(v), b[n:]
		case num == 2 && typ == protowire.BytesType:
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return 0, "", false
			}
			msg, b = string(v), b[n:]
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return 0, "", false
			}
			b = b[n:]
		}
	}
	return refused, msg, true
}
