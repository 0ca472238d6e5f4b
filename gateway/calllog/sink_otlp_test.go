package calllog

import (
	"encoding/hex"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	collogspb "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP logs receiver as the specification has it:
// POST /v1/logs with Content-Type application/x-protobuf carrying an
// ExportLogsServiceRequest; 200 with an ExportLogsServiceResponse, whose
// partial_success counts the records it refused; 400 for a body it cannot
// decode. rejectOne refuses the first record with status 5xx.
func otlpReceiver(rejectOne bool) func(w http.ResponseWriter, r receivedReq) {
	return func(w http.ResponseWriter, r receivedReq) {
		var req collogspb.ExportLogsServiceRequest
		if r.path != "/v1/logs" || r.header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(r.body, &req) != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		resp := &collogspb.ExportLogsServiceResponse{}
		if rejectOne {
			resp.PartialSuccess = &collogspb.ExportLogsPartialSuccess{RejectedLogRecords: 1, ErrorMessage: "one record too old"}
		}
		b, _ := proto.Marshal(resp)
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(b)
	}
}

func attrs(kvs []*commonpb.KeyValue) map[string]any {
	out := map[string]any{}
	for _, kv := range kvs {
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			out[kv.Key] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			out[kv.Key] = v.IntValue
		case *commonpb.AnyValue_DoubleValue:
			out[kv.Key] = v.DoubleValue
		case *commonpb.AnyValue_BoolValue:
			out[kv.Key] = v.BoolValue
		default:
			out[kv.Key] = kv.Value.String()
		}
	}
	return out
}

func TestSinkOTLPLogs(t *testing.T) {
	t.Parallel()
	srv, got := store(t, otlpReceiver(false))
	m := ship(t, Config{URL: srv.URL + "/v1/logs", Sink: SinkOTLP, Format: "text", Compress: "gzip",
		Headers: map[string]string{"Authorization": "Bearer t0ken"}}, 4)
	assert.Equal(t, int64(4), m.sent.Load())
	reqs := got()
	require.Len(t, reqs, 1)
	assert.Equal(t, "Bearer t0ken", reqs[0].header.Get("Authorization"))
	var req collogspb.ExportLogsServiceRequest
	require.NoError(t, proto.Unmarshal(reqs[0].body, &req))
	require.Len(t, req.ResourceLogs, 1)
	assert.Equal(t, map[string]any{"service.name": "restgate"}, attrs(req.ResourceLogs[0].Resource.Attributes))
	require.Len(t, req.ResourceLogs[0].ScopeLogs, 1)
	scope := req.ResourceLogs[0].ScopeLogs[0]
	assert.Equal(t, otlpScope, scope.Scope.Name)
	require.Len(t, scope.LogRecords, 4)
	for i, rec := range scope.LogRecords {
		e := richEntry(i)
		body := `{"name":"n` + strconv.Itoa(i) + `","password":"[REDACTED]"}`
		assert.Equal(t, uint64(e.Time.UnixNano()), rec.TimeUnixNano)
		assert.Equal(t, uint64(e.Time.UnixNano())+uint64(e.TotalTime*1e6), rec.ObservedTimeUnixNano)
		assert.Equal(t, e.TraceID, hex.EncodeToString(rec.TraceId))
		assert.Equal(t, e.SpanID[:], rec.SpanId)
		assert.Equal(t, uint32(1), rec.Flags, "sampled")
		assert.Equal(t, string(AppendLine(nil, &e, []byte(body))), rec.Body.GetStringValue())
		wantSev, wantText := logspb.SeverityNumber_SEVERITY_NUMBER_INFO, "INFO"
		if e.Status >= 500 {
			wantSev, wantText = logspb.SeverityNumber_SEVERITY_NUMBER_ERROR, "ERROR"
		}
		assert.Equal(t, wantSev, rec.SeverityNumber)
		assert.Equal(t, wantText, rec.SeverityText)
		a := attrs(rec.Attributes)
		assert.True(t, strings.HasSuffix(a["log.record.uid"].(string), "-"+strconv.FormatInt(int64(i+1), 36)))
		delete(a, "log.record.uid")
		want := map[string]any{
			"http.request.method": "POST", "url.path": e.Path, "http.route": e.Route,
			"http.response.status_code": int64(e.Status), "user.id": e.UserID, "restgate.text": e.Text,
			"restgate.method": "HTTPPOST", "restgate.version": "v2", "restgate.body": body,
			"restgate.total_time_ms": e.TotalTime, "restgate.upstream_time_ms": 10.25, "restgate.duplicate": e.Duplicate,
		}
		if e.ResponseCode != "" {
			want["restgate.response_code"] = e.ResponseCode
		}
		assert.Equal(t, want, a)
	}
}

func TestSinkOTLPPartialSuccess(t *testing.T) {
	t.Parallel()
	srv, _ := store(t, otlpReceiver(true))
	m := ship(t, Config{URL: srv.URL + "/v1/logs", Sink: SinkOTLP}, 3)
	assert.Equal(t, int64(2), m.sent.Load())
	assert.Equal(t, int64(1), m.droppedFor(DropRejected), "a refused record is not sent again")
}

// TestPartialSuccessMergesRepeatedField: a partial_success sent twice is
// merged field by field, as protobuf decodes it.
func TestPartialSuccessMergesRepeatedField(t *testing.T) {
	t.Parallel()
	first, err := proto.Marshal(&collogspb.ExportLogsServiceResponse{
		PartialSuccess: &collogspb.ExportLogsPartialSuccess{RejectedLogRecords: 3, ErrorMessage: "first"}})
	require.NoError(t, err)
	second, err := proto.Marshal(&collogspb.ExportLogsServiceResponse{
		PartialSuccess: &collogspb.ExportLogsPartialSuccess{ErrorMessage: "second"}})
	require.NoError(t, err)
	b := append(first, second...)
	var want collogspb.ExportLogsServiceResponse
	require.NoError(t, proto.Unmarshal(b, &want))
	refused, msg, ok := partialSuccess(b)
	require.True(t, ok)
	assert.Equal(t, int64(3), refused, "the count of the first stays")
	assert.Equal(t, "second", msg)
	assert.Equal(t, want.GetPartialSuccess().GetRejectedLogRecords(), refused)
	assert.Equal(t, want.GetPartialSuccess().GetErrorMessage(), msg)
}

// FuzzPartialSuccess: any answer body parses or is refused, never a panic,
// and a real ExportLogsServiceResponse reads back.
func FuzzPartialSuccess(f *testing.F) {
	for _, r := range []*collogspb.ExportLogsServiceResponse{{}, {PartialSuccess: &collogspb.ExportLogsPartialSuccess{RejectedLogRecords: 7, ErrorMessage: "m"}}} {
		b, _ := proto.Marshal(r)
		f.Add(b)
	}
	f.Add([]byte{0x0a, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		refused, msg, ok := partialSuccess(b)
		var want collogspb.ExportLogsServiceResponse
		if proto.Unmarshal(b, &want) != nil || !ok {
			return
		}
		assert.Equal(t, max(want.GetPartialSuccess().GetRejectedLogRecords(), 0), refused)
		assert.Equal(t, want.GetPartialSuccess().GetErrorMessage(), msg)
	})
}
