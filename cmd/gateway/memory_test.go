package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const hugeConfig = `
server:
  listen: %s
  adminListen: %s
  tls: {mode: off}
  dataDir: %s
versions: [v2]
models:
  Account: {fields: [Id, Name]}
upstreams:
  accounts: {url: %s, timeout: 30s, retry: {attempts: 1}}
routes:
  - {path: "/{version}/accounts", kind: accounts, upstream: accounts, model: Account}
  - {path: "/{version}/things", kind: proxy, upstream: accounts, upstreamPath: "/chunked"}
`

// hugeAnswer is what the backend sends: 100 MB, with its length declared
// (the list path) or chunked, no length (any other path).
const hugeAnswer = 100 << 20

func serveHuge(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if strings.HasPrefix(r.URL.Path, "/api/v1/account") {
		w.Header().Set("Content-Length", strconv.Itoa(hugeAnswer))
	}
	chunk := bytes.Repeat([]byte(`{"Id":"001000000000001AAA","Name":"x"},`), 1600)
	for sent := 0; sent < hugeAnswer; sent += len(chunk) {
		if _, err := w.Write(chunk[:min(len(chunk), hugeAnswer-sent)]); err != nil {
			return // the gateway gave up on the answer, as it should
		}
	}
}

// A backend answering 100 MB to 16 concurrent calls costs the gateway
// little memory: an answer that declares its length is refused before its
// body is read, one that does not at the first byte past the route's cap
// (1 MiB by default), each a coded 502 at once. The gateway runs as a
// process of its own, built as the container image builds it (no race
// detector) with its real main (GC settings included), so its peak RSS is
// what users see; before the caps, each call read up to 32 MiB into a
// buffer that doubled past it, and 16 calls took more than a gigabyte.
func TestHugeAnswersCostLittleMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	backend := http.Server{Handler: http.HandlerFunc(serveHuge), ReadHeaderTimeout: 5 * time.Second}
	bln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = backend.Serve(bln) }()
	t.Cleanup(func() { _ = backend.Close() })

	dir := t.TempDir()
	g := startBinary(t, builtGateway(t), dir, func(api, admin string) string {
		return fmt.Sprintf(hugeConfig, api, admin, dir, "http://"+bln.Addr().String())
	})
	api, cmd := g.api, g.cmd

	client := &http.Client{Timeout: time.Minute}
	type outcome struct {
		path    string
		status  int
		code    string
		elapsed time.Duration
		err     error
	}
	const calls = 16
	for round := range 3 {
		results := make(chan outcome, calls)
		var wg sync.WaitGroup
		for i := range calls {
			path := []string{"/v2/accounts", "/v2/things"}[i%2]
			wg.Go(func() {
				start := time.Now()
				o := outcome{path: path}
				resp, err := client.Get("http://" + api + path)
				if err != nil {
					o.err = err
					results <- o
					return
				}
				defer resp.Body.Close()
				var env struct {
					ResponseCode struct{ ID string } `json:"responseCode"`
				}
				o.err = json.NewDecoder(resp.Body).Decode(&env)
				o.status, o.code, o.elapsed = resp.StatusCode, env.ResponseCode.ID, time.Since(start)
				results <- o
			})
		}
		wg.Wait()
		close(results)
		for o := range results {
			require.NoError(t, o.err, o.path)
			assert.Equal(t, http.StatusBadGateway, o.status, "round %d %s", round, o.path)
			assert.Equal(t, "CALLOUT_FAILED", o.code, "round %d %s", round, o.path)
			assert.Less(t, o.elapsed, time.Second, "round %d %s: refused at once, not after reading 100 MB", round, o.path)
		}
	}
	peak := peakRSS(t, cmd.Process.Pid)
	t.Logf("gateway peak RSS after %d rounds of %d calls: %d MB", 3, calls, peak>>20)
	assert.Less(t, peak, int64(150<<20), "peak RSS of the gateway")
}

// peakRSS reads VmHWM, the peak resident set, of pid from /proc.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			require.NoError(t, err, line)
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}
