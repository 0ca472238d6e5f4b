//go:build unix

package main

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A gateway whose process may open only 256 files, flooded with more idle
// connections than that on its API listener, keeps answering /readyz
// promptly: the API's connection cap is lowered to fit the limit, so the
// flood waits in the kernel's backlog instead of taking the descriptors
// the admin listener needs.
func TestAPIFloodLeavesTheAdminListenerAnswering(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	backend := http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`[{"Id":"001000000000001AAA","Name":"Acme"}]`))
	}), ReadHeaderTimeout: 5 * time.Second}
	bln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = backend.Serve(bln) }()
	t.Cleanup(func() { _ = backend.Close() })

	dir := t.TempDir()
	g := startProcess(t, dir, func(api, admin string) string {
		return fmt.Sprintf(childConfig, api, admin, dir, "http://"+bln.Addr().String())
	}, "GATEWAY_TEST_NOFILE=256")
	api, admin, out := g.api, g.admin, g.out

	const flood = 400 // more than the process has descriptors
	conns := make([]net.Conn, 0, flood)
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	for range flood {
		c, err := net.DialTimeout("tcp", api, 10*time.Second)
		require.NoError(t, err, "connections past the cap wait in the backlog")
		conns = append(conns, c)
	}

	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	best := time.Hour
	for range 5 {
		start := time.Now()
		resp, err := client.Get("http://" + admin + "/readyz")
		took := time.Since(start)
		require.NoError(t, err, "the admin listener answers during the flood; output:\n%s", out.String())
		resp.Body.Close()
		require.Equal(t, 200, resp.StatusCode)
		best = min(best, took)
	}
	// Generous for a loaded machine: an admin answer that waited for a
	// descriptor would take seconds, or never come.
	assert.Less(t, best, 100*time.Millisecond, "/readyz while the API is flooded")
	t.Logf("fastest /readyz during a flood of %d connections: %v", flood, best)

	for _, c := range conns {
		c.Close()
	}
	conns = conns[:0]
	require.Eventually(t, func() bool {
		resp, err := client.Get("http://" + api + "/v2/accounts")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}, 20*time.Second, 50*time.Millisecond, "the API serves again once the flood is gone")
	log := out.String()
	assert.Contains(t, log, `"msg":"open-files limit","soft":256,"hard":256`)
	assert.True(t, strings.Contains(log, "server.limits.maxConnections lowered") && strings.Contains(log, `"effective":32`), log)
}

// String is what the child process wrote so far.
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
