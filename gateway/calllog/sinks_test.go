package calllog

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"
)

// richEntry is a call with every field set: a traced request, a user, a
// body holding a secret, an error status for odd i.
func richEntry(i int) Entry {
	tid := strings.Repeat("0", 30) + strconv.FormatInt(int64(10+i%80), 10)
	e := Entry{
		Time: time.Date(2024, 5, 6, 7, 8, 9, i*1000000, time.UTC), Text: "200", UserID: "user-" + strconv.Itoa(i%3),
		TraceID: tid, SpanID: trace.SpanID{0xa, 0xb, 0xc, 0xd, 0, 0, 0, byte(i + 1)}, TraceFlags: trace.FlagsSampled,
		TotalTime: 12.5 + float64(i), Method: "HTTPPOST", Path: "/v2/accounts/" + strconv.Itoa(i),
		Body:  []byte(`{"name":"n` + strconv.Itoa(i) + `","password":"hunter2"}`),
		Route: "/{version}/accounts/{id}", Version: "v2", Status: 200, UpstreamTime: 10.25, Duplicate: i%2 == 0,
	}
	if i%2 == 1 {
		e.Text, e.Status, e.ResponseCode = "502 CALLOUT_FAILED", 502, "CALLOUT_FAILED"
	}
	return e
}

// wantJSON is the JSON object every structured sink must carry for e.
func wantJSON(t *testing.T, e Entry) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(AppendJSON(nil, &e, []byte(`{"name":"n`+strings.TrimPrefix(e.Path, "/v2/accounts/")+`","password":"[REDACTED]"}`)), &m))
	return m
}

// received is one request a fake store got, its body decompressed.
type receivedReq struct {
	header http.Header
	path   string
	body   []byte
}

// store is an httptest server that decompresses gzip bodies (as Fluent
// Bit, Loki, Elasticsearch and the OTel collector do) and answers with
// answer.
func store(t *testing.T, answer func(w http.ResponseWriter, r receivedReq)) (*httptest.Server, func() []receivedReq) {
	t.Helper()
	var mu sync.Mutex
	var got []receivedReq
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		switch r.Header.Get("Content-Encoding") {
		case "":
		case "gzip":
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		default:
			http.Error(w, "unsupported encoding", http.StatusUnsupportedMediaType)
			return
		}
		b, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rr := receivedReq{header: r.Header.Clone(), path: r.URL.Path, body: b}
		mu.Lock()
		got = append(got, rr)
		mu.Unlock()
		answer(w, rr)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []receivedReq {
		mu.Lock()
		defer mu.Unlock()
		return append([]receivedReq(nil), got...)
	}
}

// ship sends entries 0..n-1 through a shipper with cfg and closes it.
func ship(t *testing.T, cfg Config, n int) *countingMetrics {
	t.Helper()
	m := &countingMetrics{}
	cfg.BatchSize, cfg.RetryBackoff = n, time.Millisecond
	s, err := NewShipper(cfg, nil, m, nil)
	require.NoError(t, err)
	for i := range n {
		s.Enqueue(richEntry(i))
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	require.NoError(t, s.Close(ctx))
	return m
}

// fluentBitHTTPInput answers as Fluent Bit's in_http does
// (plugins/in_http/http_prot.c): Content-Type must be application/json
// (parameters allowed) or application/x-www-form-urlencoded, else 400
// "invalid 'Content-Type'"; the body must be a JSON object or an array of
// objects, else 400; success is 201 with no body.
func fluentBitHTTPInput(w http.ResponseWriter, r receivedReq) {
	mt, _, err := mime.ParseMediaType(r.header.Get("Content-Type"))
	if err != nil || mt != "application/json" {
		http.Error(w, "error: invalid 'Content-Type'", http.StatusBadRequest)
		return
	}
	var records []map[string]any
	if json.Unmarshal(r.body, &records) != nil {
		var one map[string]any
		if json.Unmarshal(r.body, &one) != nil {
			http.Error(w, "error: invalid payload", http.StatusBadRequest)
			return
		}
	}
	w.WriteHeader(http.StatusCreated)
}

func TestSinkFluentBitHTTPInput(t *testing.T) {
	t.Parallel()
	srv, got := store(t, fluentBitHTTPInput)
	m := ship(t, Config{URL: srv.URL + "/restgate.calls", Format: "json", Compress: "gzip"}, 4)
	assert.Equal(t, int64(4), m.sent.Load())
	reqs := got()
	require.Len(t, reqs, 1)
	assert.Equal(t, "/restgate.calls", reqs[0].path, "the tag is the path")
	var records []map[string]any
	require.NoError(t, json.Unmarshal(reqs[0].body, &records))
	require.Len(t, records, 4)
	for i, rec := range records {
		want := wantJSON(t, richEntry(i))
		id := rec["id"]
		delete(rec, "id")
		assert.NotEmpty(t, id)
		assert.Equal(t, want, rec)
	}

	// The line formats are what Fluent Bit refuses.
	for _, format := range []string{"text", "jsonl"} {
		srv, _ := store(t, fluentBitHTTPInput)
		m := ship(t, Config{URL: srv.URL, Format: format}, 2)
		assert.Equal(t, int64(2), m.droppedFor(DropRejected), "%s is refused by Fluent Bit's HTTP input", format)
	}
}

// lokiPush is Loki's push API (POST /loki/api/v1/push, JSON body, as
// pkg/loghttp decodes it): streams of a label set and values, each value
// [unix nanoseconds as a string, line] with an optional object of
// structured metadata; 204 on success; 400 on a body it cannot parse or a
// bad label name; 401 without the tenant header when auth is on.
type lokiStream struct {
	Stream map[string]string   `json:"stream"`
	Values [][]json.RawMessage `json:"values"`
}

func lokiPush(w http.ResponseWriter, r receivedReq) {
	if r.path != "/loki/api/v1/push" {
		http.NotFound(w, nil)
		return
	}
	if r.header.Get("X-Scope-OrgID") == "" {
		http.Error(w, "no org id", http.StatusUnauthorized)
		return
	}
	mt, _, _ := mime.ParseMediaType(r.header.Get("Content-Type"))
	var req struct {
		Streams []lokiStream `json:"streams"`
	}
	if mt != "application/json" || json.Unmarshal(r.body, &req) != nil {
		http.Error(w, "bad push", http.StatusBadRequest)
		return
	}
	for _, s := range req.Streams {
		for name := range s.Stream {
			if !ValidLokiLabel(name) && name != "route" && name != "status" {
				http.Error(w, "invalid label", http.StatusBadRequest)
				return
			}
		}
		for _, v := range s.Values {
			var ts, line string
			if len(v) < 2 || len(v) > 3 || json.Unmarshal(v[0], &ts) != nil || json.Unmarshal(v[1], &line) != nil {
				http.Error(w, "bad entry", http.StatusBadRequest)
				return
			}
			if _, err := strconv.ParseInt(ts, 10, 64); err != nil {
				http.Error(w, "bad timestamp", http.StatusBadRequest)
				return
			}
		}
	}
	w.WriteHeader(http.StatusNoContent)
}

func TestSinkLokiPushAPI(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"jsonl", "text"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			srv, got := store(t, lokiPush)
			m := ship(t, Config{URL: srv.URL + "/loki/api/v1/push", Sink: SinkLoki, Format: format, Compress: "gzip",
				Headers: map[string]string{"X-Scope-OrgID": "tenant-1"}, Loki: LokiConfig{Labels: map[string]string{"env": "test"}}}, 4)
			assert.Equal(t, int64(4), m.sent.Load())
			reqs := got()
			require.Len(t, reqs, 1)
			assert.Equal(t, "tenant-1", reqs[0].header.Get("X-Scope-OrgID"))
			var req struct {
				Streams []lokiStream `json:"streams"`
			}
			require.NoError(t, json.Unmarshal(reqs[0].body, &req))
			require.Len(t, req.Streams, 2, "one stream per route and status class")
			seen := 0
			for _, s := range req.Streams {
				assert.Equal(t, "test", s.Stream["env"])
				assert.Equal(t, "/{version}/accounts/{id}", s.Stream["route"])
				assert.Contains(t, []string{"2xx", "5xx"}, s.Stream["status"])
				assert.Len(t, s.Stream, 3)
				for _, v := range s.Values {
					var ts, line string
					require.NoError(t, json.Unmarshal(v[0], &ts))
					require.NoError(t, json.Unmarshal(v[1], &line))
					ns, err := strconv.ParseInt(ts, 10, 64)
					require.NoError(t, err)
					i := time.Unix(0, ns).UTC().Nanosecond() / 1000000
					e := richEntry(i)
					assert.Equal(t, e.Time.UnixNano(), ns)
					assert.Equal(t, s.Stream["status"][0], byte('0'+e.Status/100))
					if format == "text" {
						assert.Equal(t, string(AppendLine(nil, &e, []byte(`{"name":"n`+strconv.Itoa(i)+`","password":"[REDACTED]"}`))), line)
					} else {
						var rec map[string]any
						require.NoError(t, json.Unmarshal([]byte(line), &rec))
						delete(rec, "id")
						assert.Equal(t, wantJSON(t, e), rec)
					}
					seen++
				}
			}
			assert.Equal(t, 4, seen)
		})
	}
	// Without the tenant header an auth-enabled Loki answers 401: the batch
	// is held, not dropped.
	srv, got := store(t, lokiPush)
	s, err := NewShipper(Config{URL: srv.URL + "/loki/api/v1/push", Sink: SinkLoki, RetryBackoff: time.Millisecond}, nil, nil, nil)
	require.NoError(t, err)
	s.Enqueue(richEntry(0))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	var fe *FlushError
	require.ErrorAs(t, s.Close(ctx), &fe)
	assert.Equal(t, 1, fe.Lost)
	assert.GreaterOrEqual(t, len(got()), 2, "sent again while held")
}

// elasticBulk is Elasticsearch's bulk API (POST /_bulk, NDJSON: an action
// line, then the document, every line ending in a newline): it answers
// 200 with {"took","errors","items"}, one item per action in order, each
// {"create": {"_index","_id","status", "error"?}}. A create of an _id
// already stored is 409 version_conflict_engine_exception. reject says
// which documents fail mapping (400), throttle which are refused once
// with 429.
type elasticBulk struct {
	mu       sync.Mutex
	stored   map[string]map[string]any
	reject   func(doc map[string]any) bool
	throttle map[string]bool
}

func (es *elasticBulk) serve(w http.ResponseWriter, r receivedReq) {
	mt, _, _ := mime.ParseMediaType(r.header.Get("Content-Type"))
	if r.path != "/_bulk" || (mt != "application/x-ndjson" && mt != "application/json") {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	if !bytes.HasSuffix(r.body, []byte("\n")) {
		http.Error(w, `{"error":{"type":"illegal_argument_exception","reason":"The bulk request must be terminated by a newline [\n]"}}`, http.StatusBadRequest)
		return
	}
	lines := strings.Split(strings.TrimSuffix(string(r.body), "\n"), "\n")
	type item struct {
		Index  string `json:"_index"`
		ID     string `json:"_id"`
		Status int    `json:"status"`
		Error  any    `json:"error,omitempty"`
	}
	var items []map[string]item
	errors := false
	es.mu.Lock()
	defer es.mu.Unlock()
	for i := 0; i+1 < len(lines); i += 2 {
		var action map[string]struct {
			Index string `json:"_index"`
			ID    string `json:"_id"`
		}
		var doc map[string]any
		if json.Unmarshal([]byte(lines[i]), &action) != nil || json.Unmarshal([]byte(lines[i+1]), &doc) != nil {
			http.Error(w, `{"error":"malformed"}`, http.StatusBadRequest)
			return
		}
		meta, ok := action["create"]
		if !ok || len(action) != 1 {
			http.Error(w, `{"error":"want create"}`, http.StatusBadRequest)
			return
		}
		it := item{Index: meta.Index, ID: meta.ID, Status: 201}
		switch {
		case es.throttle[meta.ID]:
			delete(es.throttle, meta.ID)
			it.Status, it.Error = 429, map[string]string{"type": "es_rejected_execution_exception", "reason": "queue full"}
		case es.stored[meta.ID] != nil:
			it.Status, it.Error = 409, map[string]string{"type": "version_conflict_engine_exception", "reason": "document already exists"}
		case es.reject != nil && es.reject(doc):
			it.Status, it.Error = 400, map[string]string{"type": "document_parsing_exception", "reason": "failed to parse field [status]"}
		default:
			es.stored[meta.ID] = doc
		}
		errors = errors || it.Error != nil
		items = append(items, map[string]item{"create": it})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"took": 3, "errors": errors, "items": items})
}

func TestSinkElasticsearchBulkAPI(t *testing.T) {
	t.Parallel()
	es := &elasticBulk{stored: map[string]map[string]any{}, throttle: map[string]bool{},
		reject: func(doc map[string]any) bool { return doc["path"] == "/v2/accounts/3" }}
	srv, got := store(t, es.serve)
	cfg := Config{URL: srv.URL + "/_bulk", Sink: SinkElasticsearch, Elasticsearch: ElasticsearchConfig{Index: "calls"},
		Headers: map[string]string{"Authorization": "ApiKey c2VjcmV0"}}
	// The second document is throttled once: it is sent again, alone.
	first := ""
	m := &countingMetrics{}
	s, err := NewShipper(withBatch(cfg, 5), nil, m, nil)
	require.NoError(t, err)
	es.throttle[s.idPrefix+"2"] = true
	for i := range 5 {
		s.Enqueue(richEntry(i))
	}
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	require.NoError(t, s.Close(ctx))
	assert.Equal(t, int64(4), m.sent.Load(), "four stored, the throttled one on its second POST")
	assert.Equal(t, int64(1), m.droppedFor(DropRejected), "the document the mapping refused")
	reqs := got()
	require.Len(t, reqs, 2)
	assert.Equal(t, "ApiKey c2VjcmV0", reqs[0].header.Get("Authorization"))
	assert.Equal(t, reqs[0].header.Get("Idempotency-Key") != "", true)
	assert.Equal(t, 2, strings.Count(string(reqs[1].body), "\n"), "the retry carries only the throttled document")

	es.mu.Lock()
	defer es.mu.Unlock()
	require.Len(t, es.stored, 4)
	for id, doc := range es.stored {
		assert.Equal(t, id, doc["id"], "_id is the entry id")
		i, err := strconv.Atoi(strings.TrimPrefix(doc["path"].(string), "/v2/accounts/"))
		require.NoError(t, err)
		want := wantJSON(t, richEntry(i))
		assert.Equal(t, want["time"], doc["@timestamp"])
		delete(doc, "@timestamp")
		delete(doc, "id")
		assert.Equal(t, want, doc)
		first = id
	}
	assert.NotEmpty(t, first)

	// A batch sent again after its answer was lost is harmless: 409s count
	// as stored.
	answers := &elasticSink{}
	out := make([]verdict, 2)
	problem := answers.decide([]byte(`{"took":1,"errors":true,"items":[{"create":{"_index":"calls","_id":"a","status":409,"error":{"type":"version_conflict_engine_exception","reason":"x"}}},{"create":{"_index":"calls","_id":"b","status":201}}]}`),
		make([]item, 2), out)
	assert.Equal(t, []verdict{delivered, delivered}, out)
	assert.Empty(t, problem)
}

func withBatch(cfg Config, n int) Config {
	cfg.BatchSize, cfg.RetryBackoff = n, time.Millisecond
	return cfg
}

func TestSinkOTLPSpanAndTraceIDs(t *testing.T) {
	t.Parallel()
	e := richEntry(3)
	o := &otlpSink{format: "text"}
	r := o.record(&item{id: []byte("x-1"), e: e})
	assert.Equal(t, hex.EncodeToString(r.TraceId), e.TraceID)
	assert.Equal(t, e.SpanID[:], r.SpanId)
	assert.Equal(t, uint32(1), r.Flags)
	noTrace := e
	noTrace.TraceID, noTrace.SpanID = "", trace.SpanID{}
	r = o.record(&item{id: []byte("x-2"), e: noTrace})
	assert.Empty(t, r.TraceId)
	assert.Empty(t, r.SpanId)
}
