package calllog

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/restgate/gateway/upstreams"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// guard bounds waits on the shipper's goroutine so a broken shipper fails
// the test instead of hanging it; it is not a speed assertion.
const guard = 10 * time.Second

type countingMetrics struct {
	depth, sent, failed, dropped atomic.Int64
	diskEntries, diskBytes       atomic.Int64
	mu                           sync.Mutex
	reasons                      map[string]int64
}

func (m *countingMetrics) QueueDepth(n int) { m.depth.Store(int64(n)) }
func (m *countingMetrics) Sent(n int)       { m.sent.Add(int64(n)) }
func (m *countingMetrics) BatchFailed()     { m.failed.Add(1) }
func (m *countingMetrics) Dropped(reason string, n int) {
	m.dropped.Add(int64(n))
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.reasons == nil {
		m.reasons = map[string]int64{}
	}
	m.reasons[reason] += int64(n)
}
func (m *countingMetrics) DiskQueue(n int, b int64) {
	m.diskEntries.Store(int64(n))
	m.diskBytes.Store(b)
}

// droppedFor is how many entries were dropped for reason.
func (m *countingMetrics) droppedFor(reason string) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.reasons[reason]
}

type received struct {
	contentType string
	body        string
}

// collector is a fake log collector. answer decides each request's status
// from its 1-based number; it may block (a hanging collector) until the
// request's context ends.
type collector struct {
	srv   *httptest.Server
	got   chan received
	calls atomic.Int64
}

func newCollector(t *testing.T, answer func(n int64, r *http.Request) int) *collector {
	t.Helper()
	c := &collector{got: make(chan received, 100)}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := c.calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		status := http.StatusOK
		if answer != nil {
			status = answer(n, r)
		}
		if status == http.StatusOK {
			c.got <- received{contentType: r.Header.Get("Content-Type"), body: string(body)}
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *collector) next(t *testing.T) received {
	t.Helper()
	select {
	case r := <-c.got:
		return r
	case <-time.After(guard):
		t.Fatal("collector got nothing")
		return received{}
	}
}

func newTestShipper(t *testing.T, cfg Config, m Metrics) *Shipper {
	t.Helper()
	s, err := NewShipper(cfg, nil, m, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close(canceledContext()) })
	return s
}

// start runs s with ctx and returns a channel closed when Run returns; at
// the end of the test s is closed and Run awaited.
func start(t *testing.T, ctx context.Context, s *Shipper) <-chan struct{} {
	t.Helper()
	done := make(chan struct{})
	go func() {
		s.Run(ctx)
		close(done)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), guard)
		defer cancel()
		_ = s.Close(ctx)
		<-done
	})
	return done
}

func entry(i int) Entry {
	return Entry{
		Time: time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), Text: "call " + strconv.Itoa(i), UserID: "u1",
		TotalTime: 1.5, Method: "HTTPGET", Path: "/v1/accounts", Body: []byte(`{"password":"p` + strconv.Itoa(i) + `","n":1}`),
		Route: "/{version}/accounts", Version: "v1", Status: 200,
	}
}

func lines(body string) []string {
	return strings.Split(strings.TrimSuffix(body, "\n"), "\n")
}

func TestShipperBatchesBySize(t *testing.T) {
	t.Parallel()
	c := newCollector(t, nil)
	m := &countingMetrics{}
	s := newTestShipper(t, Config{URL: c.srv.URL, BatchSize: 2, MaxBatchSize: 2, Senders: 1, FlushInterval: time.Hour}, m)
	start(t, context.Background(), s)
	for i := range 4 {
		s.Enqueue(entry(i))
	}
	first, second := c.next(t), c.next(t)
	assert.Equal(t, "text/plain; charset=utf-8", first.contentType)
	assert.Len(t, lines(first.body), 2)
	assert.Len(t, lines(second.body), 2)
	assert.Equal(t,
		`2024-01-02T03:04:05.000Z Rest Log : call 0 UserId: u1 | TraceId: null | TotalTime: 1.5 | Method: HTTPGET | Path: /v1/accounts | Body: {"password":"[REDACTED]","n":1}`,
		lines(first.body)[0])
	assert.Contains(t, second.body, "call 3")
}

func TestShipperBatchesByInterval(t *testing.T) {
	t.Parallel()
	c := newCollector(t, nil)
	m := &countingMetrics{}
	s := newTestShipper(t, Config{URL: c.srv.URL, Format: "jsonl", FlushInterval: 20 * time.Millisecond}, m)
	for i := range 3 {
		s.Enqueue(entry(i))
	}
	start(t, context.Background(), s)
	got := c.next(t)
	assert.Equal(t, "application/x-ndjson", got.contentType)
	require.Len(t, lines(got.body), 3)
	for i, l := range lines(got.body) {
		var v struct {
			Text      string `json:"text"`
			Body      string `json:"body"`
			Route     string `json:"route"`
			Duplicate bool   `json:"duplicate"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &v), l)
		assert.Equal(t, "call "+strconv.Itoa(i), v.Text)
		assert.Equal(t, `{"password":"[REDACTED]","n":1}`, v.Body)
		assert.Equal(t, "/{version}/accounts", v.Route)
	}
	require.Eventually(t, func() bool { return m.sent.Load() == 3 }, guard, time.Millisecond)
}

// fast are client and hold settings that make retries quick.
var fast = upstreams.Settings{Retry: upstreams.RetrySettings{Attempts: 3, Backoff: time.Millisecond}}

func TestShipperCollectorAnswers(t *testing.T) {
	t.Parallel()
	status := func(first, then int, n int64) func(int64, *http.Request) int {
		return func(call int64, _ *http.Request) int {
			if call <= n {
				return first
			}
			return then
		}
	}
	tests := []struct {
		desc        string
		answer      func(n int64, r *http.Request) int
		wantCalls   int64
		wantSent    int64
		wantFailed  int64
		wantDropped int64
	}{
		{desc: "accepted", answer: status(200, 200, 0), wantCalls: 1, wantSent: 2},
		{desc: "201 and 204 are accepted", answer: status(204, 201, 1), wantCalls: 1, wantSent: 2},
		{desc: "client retries then accepted", answer: status(503, 200, 2), wantCalls: 3, wantSent: 2},
		{desc: "overloaded collector: held, sent again, accepted", answer: status(503, 200, 4), wantCalls: 5, wantSent: 2, wantFailed: 1},
		{desc: "500 is held and sent again", answer: status(500, 200, 2), wantCalls: 3, wantSent: 2, wantFailed: 2},
		{desc: "429 is held and sent again", answer: status(429, 200, 1), wantCalls: 2, wantSent: 2, wantFailed: 1},
		{desc: "401 is held and sent again", answer: status(401, 200, 1), wantCalls: 2, wantSent: 2, wantFailed: 1},
		{desc: "400 is refused for good", answer: status(400, 200, 1), wantCalls: 1, wantFailed: 0, wantDropped: 2},
		{desc: "410 is refused for good", answer: status(410, 200, 1), wantCalls: 1, wantFailed: 0, wantDropped: 2},
		{desc: "413 halves the batch", answer: func(_ int64, r *http.Request) int {
			if r.ContentLength > 200 {
				return http.StatusRequestEntityTooLarge
			}
			return 200
		}, wantCalls: 3, wantSent: 2},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			c := newCollector(t, tt.answer)
			m := &countingMetrics{}
			// A 429 or 503 asks to wait (its Retry-After, else the breaker's
			// open timeout): MaxRetryBackoff bounds that here.
			s := newTestShipper(t, Config{URL: c.srv.URL, BatchSize: 2, Client: fast, RetryBackoff: time.Millisecond,
				MaxRetryBackoff: 20 * time.Millisecond}, m)
			s.Enqueue(entry(1))
			s.Enqueue(entry(2))
			ctx, cancel := context.WithTimeout(context.Background(), guard)
			defer cancel()
			require.NoError(t, s.Close(ctx))
			assert.Equal(t, tt.wantCalls, c.calls.Load(), "calls")
			assert.Equal(t, tt.wantSent, m.sent.Load(), "sent")
			assert.Equal(t, tt.wantFailed, m.failed.Load(), "failed POSTs")
			assert.Equal(t, tt.wantDropped, m.droppedFor(DropRejected), "dropped")
			assert.Equal(t, int64(2), m.sent.Load()+m.dropped.Load(), "every entry accounted for")
		})
	}
}

func TestShipperDropsOldestWhenFull(t *testing.T) {
	t.Parallel()
	c := newCollector(t, nil)
	m := &countingMetrics{}
	s := newTestShipper(t, Config{URL: c.srv.URL, QueueSize: 3}, m)
	for i := range 5 {
		s.Enqueue(entry(i))
	}
	assert.Equal(t, int64(2), m.droppedFor(DropQueueFull))
	assert.Equal(t, int64(3), m.depth.Load())

	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	require.NoError(t, s.Close(ctx))
	got := lines(c.next(t).body)
	require.Len(t, got, 3)
	for i, l := range got {
		assert.Contains(t, l, "call "+strconv.Itoa(i+2))
	}
	s.Enqueue(entry(9))
	assert.Equal(t, int64(1), m.droppedFor(DropClosed), "an entry after Close is dropped and counted")
}

func TestShipperBoundsQueuedBytes(t *testing.T) {
	t.Parallel()
	m := &countingMetrics{}
	s := newTestShipper(t, Config{URL: "http://127.0.0.1:1", MaxQueueBytes: 100}, m)
	e := entry(0)
	e.Body = make([]byte, 60)
	s.Enqueue(e)
	s.Enqueue(e)
	assert.Equal(t, int64(1), m.droppedFor(DropQueueFull))
	assert.Equal(t, int64(1), m.depth.Load())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := s.Close(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	var fe *FlushError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, 1, fe.Lost, "the entry still queued at exit")
	assert.Equal(t, int64(1), m.droppedFor(DropShutdown))
}

func TestShipperTruncatesBody(t *testing.T) {
	t.Parallel()
	c := newCollector(t, nil)
	s := newTestShipper(t, Config{URL: c.srv.URL, MaxBodyBytes: 10}, nil)
	e := entry(0)
	e.Body = []byte(strings.Repeat("a", 70<<10))
	s.Enqueue(e)
	e.Body[0] = 'X' // the caller reuses its buffer
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	require.NoError(t, s.Close(ctx))
	assert.True(t, strings.HasSuffix(c.next(t).body, "| Body: aaaaaaaaaa...[truncated 71670 bytes]\n"))
}

func TestNewShipper(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc    string
		cfg     Config
		wantErr bool
	}{
		{desc: "empty URL is a no-op shipper", cfg: Config{}},
		{desc: "defaults", cfg: Config{URL: "http://collector:8080/logs"}},
		{desc: "jsonl", cfg: Config{URL: "https://c/logs", Format: "jsonl"}},
		{desc: "json array", cfg: Config{URL: "https://c/logs", Format: "json"}},
		{desc: "loki", cfg: Config{URL: "https://c/loki/api/v1/push", Sink: SinkLoki, Loki: LokiConfig{Labels: map[string]string{"env": "prod"}}}},
		{desc: "elasticsearch", cfg: Config{URL: "https://c/_bulk", Sink: SinkElasticsearch, Compress: "gzip"}},
		{desc: "otlp", cfg: Config{URL: "https://c/v1/logs", Sink: SinkOTLP, Format: "jsonl"}},
		{desc: "headers", cfg: Config{URL: "https://c/logs", Headers: map[string]string{"X-Scope-OrgID": "t1"}}},
		{desc: "bad format", cfg: Config{URL: "http://c/logs", Format: "xml"}, wantErr: true},
		{desc: "json array is the http sink's", cfg: Config{URL: "http://c/logs", Sink: SinkLoki, Format: "json"}, wantErr: true},
		{desc: "bad sink", cfg: Config{URL: "http://c/logs", Sink: "kafka"}, wantErr: true},
		{desc: "bad compress", cfg: Config{URL: "http://c/logs", Compress: "zstd"}, wantErr: true},
		{desc: "bad queue", cfg: Config{URL: "http://c/logs", Queue: "redis"}, wantErr: true},
		{desc: "disk queue without a dir", cfg: Config{URL: "http://c/logs", Queue: QueueDisk}, wantErr: true},
		{desc: "bad fsync", cfg: Config{URL: "http://c/logs", Queue: QueueDisk, Disk: DiskConfig{Dir: "x", Fsync: "sometimes"}}, wantErr: true},
		{desc: "bad loki label", cfg: Config{URL: "http://c/logs", Sink: SinkLoki, Loki: LokiConfig{Labels: map[string]string{"a-b": "x"}}}, wantErr: true},
		{desc: "header set twice", cfg: Config{URL: "http://c/logs", Headers: map[string]string{"x-token": "a"},
			Client: upstreams.Settings{Auth: upstreams.AuthSettings{Headers: map[string]string{"X-Token": "b"}}}}, wantErr: true},
		{desc: "header the call log sets", cfg: Config{URL: "http://c/logs", Headers: map[string]string{"Content-Type": "a"}}, wantErr: true},
		{desc: "fewer slots than senders", cfg: Config{URL: "http://c/logs", Senders: 8, Client: upstreams.Settings{MaxConcurrent: 2}}, wantErr: true},
		{desc: "not http", cfg: Config{URL: "ftp://c/logs"}, wantErr: true},
		{desc: "no host", cfg: Config{URL: "http:///logs"}, wantErr: true},
		{desc: "bad client settings", cfg: Config{URL: "http://c/logs", Client: upstreams.Settings{MaxConcurrent: -1}}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			s, err := NewShipper(tt.cfg, nil, nil, nil)
			if tt.wantErr {
				assert.ErrorIs(t, err, ErrInvalidConfig)
				return
			}
			require.NoError(t, err)
			s.Enqueue(entry(1))
			s.Run(canceledContext())
			// Nothing listens there: the entry is held until Close's
			// deadline, then counted lost.
			ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			if err := s.Close(ctx); err != nil {
				var fe *FlushError
				require.ErrorAs(t, err, &fe)
				assert.Equal(t, 1, fe.Lost+fe.Kept)
			}
		})
	}
}

func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	cfg, err := Config{URL: "http://c/logs?source=gw", MaxBodyBytes: -1, Client: upstreams.Settings{Timeout: -time.Second}}.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, Config{
		URL: "http://c/logs?source=gw", Sink: SinkHTTP, Format: "text", QueueSize: 10000, MaxQueueBytes: 32 << 20, BatchSize: 100,
		MaxBatchSize: 1000, MaxBatchBytes: 1 << 20, Senders: 4, FlushInterval: time.Second, MaxBodyBytes: 0,
		Queue: QueueMemory, RetryBackoff: time.Second, MaxRetryBackoff: 30 * time.Second,
		Elasticsearch: ElasticsearchConfig{Index: "restgate-calls"},
		Client: upstreams.Settings{URL: "http://c", Timeout: 60 * time.Second, ResponseHeaderTimeout: 60 * time.Second,
			Retry: upstreams.RetrySettings{Attempts: 4, Backoff: 200 * time.Millisecond}},
	}, cfg)
	disk, err := Config{URL: "http://c/logs", Queue: QueueDisk, Disk: DiskConfig{Dir: "/q"}}.withDefaults()
	require.NoError(t, err)
	assert.Equal(t, DiskConfig{Dir: "/q", MaxBytes: 256 << 20, Fsync: "interval", FsyncInterval: time.Second}, disk.Disk)
}

func canceledContext() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}

// observed records what the collector's client reports.
type observed struct {
	mu    sync.Mutex
	calls []string
}

func (o *observed) CallDone(upstream, outcome string, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.calls = append(o.calls, upstream+" "+outcome)
}

func (o *observed) BreakerChanged(string, string, string) {}

// TestShipperSendsThroughTheCollectorUpstream: a batch goes through the
// shared upstream client named collector, which reports the call, and its
// retry is the same batch under the same Idempotency-Key.
func TestShipperSendsThroughTheCollectorUpstream(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var keys []string
	c := newCollector(t, func(n int64, r *http.Request) int {
		mu.Lock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		mu.Unlock()
		if n == 1 {
			return http.StatusBadGateway
		}
		return http.StatusOK
	})
	obs := &observed{}
	s, err := NewShipper(Config{URL: c.srv.URL, Client: upstreams.Settings{Retry: upstreams.RetrySettings{Backoff: time.Millisecond}}},
		obs, nil, nil)
	require.NoError(t, err)
	s.Enqueue(entry(1))
	s.Enqueue(entry(2))
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	require.NoError(t, s.Close(ctx))
	assert.Len(t, lines(c.next(t).body), 2)
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, keys, 2, "the 502 is retried")
	assert.NotEmpty(t, keys[0])
	assert.Equal(t, keys[0], keys[1], "a retry is the same batch")
	obs.mu.Lock()
	defer obs.mu.Unlock()
	assert.Equal(t, []string{"collector success"}, obs.calls, "one call, its retry included")
}
