package app

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTraceReachesTheUpstream(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("traceparent"))
		mu.Unlock()
		_, _ = w.Write([]byte(`[{"Id":"001000000000001AAA","Name":"Acme"}]`))
	}))
	t.Cleanup(backend.Close)
	h := newHarness(t, fmt.Sprintf(`
versions: [v2]
models:
  Account: {fields: [Id, Name]}
upstreams:
  accounts: {url: %s}
routes:
  - {path: "/{version}/accounts", kind: accounts, upstream: accounts, model: Account}
`, backend.URL), nil)

	const incoming = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	rec, _ := h.do(t, "GET", "/v2/accounts", "", map[string]string{"traceparent": incoming})
	require.Equal(t, 200, rec.Code)
	rec2, _ := h.do(t, "GET", "/v2/accounts", "", nil)
	require.Equal(t, 200, rec2.Code)

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, 2)
	parts := strings.Split(seen[0], "-")
	require.Len(t, parts, 4, seen[0])
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", parts[1], "the client's trace id reaches the backend")
	assert.NotEqual(t, "00f067aa0ba902b7", parts[2], "the gateway's hop has its own span id")
	assert.Equal(t, seen[0], rec.Header().Get("traceparent"), "the answer names the same trace and hop")
	generated := strings.Split(seen[1], "-")
	require.Len(t, generated, 4)
	assert.Len(t, generated[1], 32, "a trace is started when the client sent none")
	assert.Equal(t, generated[1], h.log.all()[1].TraceID, "the call log carries it")
}
