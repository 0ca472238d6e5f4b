package app

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A token endpoint slower than a route's timeout: the call ends at the
// route's timeout with CALLOUT_FAILED 504 whose system message names the
// token endpoint, the backend is not called and its breaker counts
// nothing; once the token endpoint answers, calls go through.
func TestSlowTokenEndpointThroughTheGateway(t *testing.T) {
	t.Parallel()
	gate := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	var tokenHits atomic.Int32
	token := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tokenHits.Add(1)
		<-gate
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"access_token":"t1","token_type":"Bearer"}`))
	}))
	t.Cleanup(token.Close)
	t.Cleanup(release) // before the token server closes
	backend := newFaultyBackend(t)

	h := newHarness(t, fmt.Sprintf(`
versions: [v1, v2]
errors: {exposeSystemMessages: true}
models:
  Account: {fields: [Id, Name]}
upstreams:
  a:
    url: %s
    timeout: 10s
    breaker: {consecutiveFailures: 2, openTimeout: 1h}
    retry: {attempts: 1}
    auth:
      oauth: {flow: client-credentials, tokenURL: %s, clientID: id, clientSecret: secret}
routes:
  - {path: "/{version}/accounts", kind: accounts, upstream: a, model: Account, methods: [GET], timeout: 200ms}
`, backend.srv.URL, token.URL), nil)

	for range 3 {
		start := time.Now()
		rec, env := h.do(t, "GET", "/v2/accounts", "", nil)
		took := time.Since(start)
		assert.Equal(t, http.StatusGatewayTimeout, rec.Code)
		assert.Equal(t, "CALLOUT_FAILED", responseID(env))
		rc, _ := env["responseCode"].(map[string]any)
		assert.Contains(t, rc["formattedSystemMessage"], "the token endpoint has not answered after")
		assert.Less(t, took, 10*time.Second, "the route's timeout, not the upstream's")
	}
	assert.EqualValues(t, 1, tokenHits.Load(), "one token request for every waiting call")
	assert.Zero(t, backend.calls.Load(), "the backend was not called")
	assert.Equal(t, 0.0, gaugeValue(t, h.reg, "gateway_breaker_state", "upstream", "a"), "three in a row, the breaker stays closed")

	release()
	require.Eventually(t, func() bool {
		rec, _ := h.do(t, "GET", "/v2/accounts", "", nil)
		return rec.Code == http.StatusOK
	}, 10*time.Second, 10*time.Millisecond)
	assert.EqualValues(t, 1, tokenHits.Load())
}
