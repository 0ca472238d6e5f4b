package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const diskQueueConfig = `
server:
  listen: %s
  adminListen: %s
  tls: {mode: off}
  dataDir: %s
versions: [v1, v2]
log:
  collectorURL: %s
  format: jsonl
  queue: disk
  batchSize: 10
  flushInterval: 50ms
  maxRetries: 0
  disk: {fsync: never}
  collector: {breaker: {openTimeout: 200ms}}
models:
  Account: {fields: [Id, Name]}
upstreams:
  accounts: {url: %s, timeout: 5s, retry: {attempts: 1}}
routes:
  - {path: "/{version}/accounts", kind: accounts, upstream: accounts, model: Account}
`

// logCollector keeps the JSON lines POSTed to it, by their id; while down
// it answers 503 and keeps nothing.
type logCollector struct {
	srv  *httptest.Server
	down bool
	mu   sync.Mutex
	got  map[string]int // id -> deliveries
	seen map[string]string
}

func newLogCollector(t *testing.T, down bool) *logCollector {
	t.Helper()
	c := &logCollector{down: down, got: map[string]int{}, seen: map[string]string{}}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, line := range strings.Split(strings.TrimSpace(string(body)), "\n") {
			var e struct {
				ID      string `json:"id"`
				TraceID string `json:"traceId"`
			}
			if json.Unmarshal([]byte(line), &e) != nil {
				continue
			}
			c.seen[e.ID] = e.TraceID
			if !c.down {
				c.got[e.ID]++
			}
		}
		if c.down {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *logCollector) deliveries() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.got))
	for k, v := range c.got {
		out[k] = v
	}
	return out
}

// startLoggingGateway runs a gateway whose call log is on the disk queue in dir.
func startLoggingGateway(t *testing.T, dir, collector, backend string) *gatewayProcess {
	t.Helper()
	return startProcess(t, dir, func(api, admin string) string {
		return fmt.Sprintf(diskQueueConfig, api, admin, dir, collector, backend)
	})
}

// TestKill9LosesNoCallLogEntry: with the disk queue, a gateway killed with
// SIGKILL while its collector is down loses none of the calls it answered;
// started again, it delivers every one of them exactly once.
func TestKill9LosesNoCallLogEntry(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	backend := accountsBackend(t)
	dir := t.TempDir()
	down := newLogCollector(t, true)
	g := startLoggingGateway(t, dir, down.srv.URL, backend.URL)

	const n = 40
	for i := range n {
		resp, err := http.Get("http://" + g.api + "/v2/accounts?limit=" + strconv.Itoa(i+1))
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	require.Eventually(t, func() bool { v, ok := g.metric(t, "gateway_log_disk_queue_entries"); return ok && v == n },
		10*time.Second, 10*time.Millisecond, "every call's entry is in the disk queue; output:\n%s", g.out)
	require.NoError(t, g.cmd.Process.Signal(syscall.SIGKILL))
	_ = g.cmd.Wait()
	assert.Empty(t, down.deliveries(), "nothing was delivered before the kill")

	up := newLogCollector(t, false)
	g2 := startLoggingGateway(t, dir, up.srv.URL, backend.URL)
	require.Eventually(t, func() bool { return len(up.deliveries()) == n }, 20*time.Second, 10*time.Millisecond,
		"every entry delivered after the restart; output:\n%s", g2.out)
	require.Eventually(t, func() bool { v, ok := g2.metric(t, "gateway_log_disk_queue_entries"); return ok && v == 0 },
		10*time.Second, 10*time.Millisecond)
	for id, times := range up.deliveries() {
		assert.Equal(t, 1, times, "entry %s delivered once", id)
	}
	down.mu.Lock()
	for id := range down.seen {
		assert.Contains(t, up.deliveries(), id, "an entry offered before the kill keeps its id")
	}
	down.mu.Unlock()
	traces := map[string]bool{}
	up.mu.Lock()
	for _, tr := range up.seen {
		traces[tr] = true
	}
	up.mu.Unlock()
	assert.Len(t, traces, n, "one entry per call")

	require.NoError(t, g2.cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, g2.cmd.Wait(), "output:\n%s", g2.out)
	assert.NotContains(t, g2.out.String(), "call log not fully flushed")
}
