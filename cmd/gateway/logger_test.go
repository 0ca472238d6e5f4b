package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
)

func TestNewLoggerFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc, format string
		terminal     bool
		want         string // a regexp of the line of logger.Info("hello", "k", "v")
	}{
		{desc: "auto on a terminal is text with the time of day", format: "auto", terminal: true,
			want: `^time=\d\d:\d\d:\d\d\.\d\d\d level=INFO msg=hello k=v\n$`},
		{desc: "auto elsewhere is JSON", format: "auto", want: `^\{"time":"[^"]+","level":"INFO","msg":"hello","k":"v"\}\n$`},
		{desc: "text asked for", format: "text", want: `^time=\S+ level=INFO msg=hello k=v\n$`},
		{desc: "json on a terminal", format: "json", terminal: true, want: `^\{"time"`},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			logger := newLogger(&buf, config.Log{Level: "info", LocalFormat: tt.format}, tt.terminal)
			logger.Info("hello", "k", "v")
			logger.Debug("not at info")
			assert.Regexp(t, regexp.MustCompile(tt.want), buf.String())
		})
	}
}

func TestLocalCalls(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		local    string
		terminal bool
		want     bool
	}{{"auto", true, true}, {"auto", false, false}, {"stdout", false, true}, {"off", true, false}} {
		assert.Equal(t, tt.want, localCalls(config.Log{Local: tt.local}, tt.terminal), "%s on a terminal: %v", tt.local, tt.terminal)
	}
}

// syncBuffer is a bytes.Buffer written by the gateway and read by the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// records decodes the JSON lines written so far.
func (b *syncBuffer) records() []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	for sc.Scan() {
		var rec map[string]any
		if json.Unmarshal(sc.Bytes(), &rec) == nil {
			out = append(out, rec)
		}
	}
	return out
}

func (b *syncBuffer) find(msg string) []map[string]any {
	var out []map[string]any
	for _, r := range b.records() {
		if r["msg"] == msg {
			out = append(out, r)
		}
	}
	return out
}

// TestDebugLogAndLocalCalls serves a config at level debug with the calls
// in the local log, and follows one request that the backend first answers
// 503: the route it took, both attempts with their status and the retry
// decision, and the call's own line.
func TestDebugLogAndLocalCalls(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `[{"Id":"001000000000001AAA","Name":"Acme"}]`)
	}))
	t.Cleanup(backend.Close)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "config.yaml")
	require.NoError(t, os.WriteFile(cfgPath, fmt.Appendf(nil, `server: {listen: "127.0.0.1:0", adminListen: "127.0.0.1:0", tls: {mode: "off"}, dataDir: %q}
versions: [v2]
log:
  level: ${GATEWAY_LOG_LEVEL:-info}
  local: stdout
  localFormat: json
models: {Account: {fields: [Id, Name]}}
upstreams:
  accounts: {url: %q, retry: {attempts: 2, backoff: 1ms}}
routes:
  - {path: "/{version}/accounts", kind: accounts, upstream: accounts, model: Account}
`, dir, backend.URL), 0o600))

	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	getenv := func(k string) string {
		if k == "GATEWAY_LOG_LEVEL" {
			return "debug"
		}
		return ""
	}
	var errOut syncBuffer
	go func() { done <- run(ctx, []string{"serve", "-config", cfgPath}, &out, &errOut, getenv) }()
	t.Cleanup(func() { cancel(); <-done })
	var api string
	require.Eventually(t, func() bool {
		if recs := out.find("gateway serving"); len(recs) > 0 {
			api = recs[0]["api"].(string)
			return true
		}
		return false
	}, 20*time.Second, 10*time.Millisecond, "stderr: %s", &errOut.buf)

	resp, err := http.Get(api + "/v2/accounts")
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode)

	var call []map[string]any
	require.Eventually(t, func() bool { call = out.find("GET /v2/accounts 200"); return len(call) == 1 }, 10*time.Second, 10*time.Millisecond)
	assert.Equal(t, "INFO", call[0]["level"])
	assert.Equal(t, "/{version}/accounts", call[0]["route"])
	assert.Equal(t, "anonymous", call[0]["user_id"])
	traceID := call[0]["trace_id"]
	assert.NotEmpty(t, traceID)

	route := out.find("route")
	require.Len(t, route, 1)
	assert.Equal(t, "DEBUG", route[0]["level"])
	assert.Equal(t, "accounts", route[0]["kind"])
	assert.Equal(t, "v2", route[0]["version"])
	assert.Equal(t, traceID, route[0]["trace_id"])

	attempts := out.find("upstream attempt")
	require.Len(t, attempts, 2)
	assert.EqualValues(t, 1, attempts[0]["attempt"])
	assert.EqualValues(t, 503, attempts[0]["status"])
	assert.Equal(t, "retrying", attempts[0]["decision"])
	assert.EqualValues(t, 2, attempts[1]["attempt"])
	assert.EqualValues(t, 200, attempts[1]["status"])
	assert.Equal(t, "answered", attempts[1]["decision"])
	assert.Equal(t, traceID, attempts[1]["trace_id"])
	assert.True(t, strings.HasPrefix(attempts[1]["url"].(string), backend.URL), "the backend's URL")
}
