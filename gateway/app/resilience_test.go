package app

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faultyBackend is an account controller whose behaviour a test switches.
type faultyBackend struct {
	srv   *httptest.Server
	mode  atomic.Value // "ok", "500", "slow"
	calls atomic.Int32
}

func newFaultyBackend(t *testing.T) *faultyBackend {
	t.Helper()
	b := &faultyBackend{}
	b.mode.Store("ok")
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.calls.Add(1)
		switch b.mode.Load() {
		case "500":
			http.Error(w, "database down", http.StatusInternalServerError)
			return
		case "slow":
			select {
			case <-time.After(2 * time.Second):
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`[{"Id":"001000000000001AAA","Name":"Acme"}]`))
	}))
	t.Cleanup(b.srv.Close)
	return b
}

func resilienceConfig(aURL, bURL string) string {
	return fmt.Sprintf(`
versions: [v1, v2, v3]
models:
  Account: {fields: [Id, Name]}
upstreams:
  a:
    url: %s
    timeout: 300ms
    breaker: {consecutiveFailures: 3, openTimeout: 400ms, halfOpenRequests: 1}
    retry: {attempts: 1}
  b:
    url: %s
    timeout: 300ms
    retry: {attempts: 1}
routes:
  - {path: "/{version}/accounts", kind: accounts, upstream: a, model: Account, methods: [GET]}
  - {path: "/{version}/accounts/{accountId}", kind: account, upstream: b, model: Account, methods: [GET]}
`, aURL, bURL)
}

func TestBreakerThroughTheGateway(t *testing.T) {
	t.Parallel()
	a, b := newFaultyBackend(t), newFaultyBackend(t)
	h := newHarness(t, resilienceConfig(a.srv.URL, b.srv.URL), nil)

	rec, _ := h.do(t, "GET", "/v2/accounts", "", nil)
	require.Equal(t, 200, rec.Code)

	a.mode.Store("500")
	for range 3 {
		rec, env := h.do(t, "GET", "/v2/accounts", "", nil)
		assert.Equal(t, 502, rec.Code)
		assert.Equal(t, "CALLOUT_FAILED", responseID(env))
	}
	before := a.calls.Load()
	rec, env := h.do(t, "GET", "/v2/accounts", "", nil)
	assert.Equal(t, 503, rec.Code, "the breaker is open")
	assert.Equal(t, "CALLOUT_FAILED", responseID(env))
	assert.Equal(t, "1", rec.Header().Get("Retry-After"))
	assert.Equal(t, before, a.calls.Load(), "an open breaker answers without touching the network")
	assert.Equal(t, 2.0, gaugeValue(t, h.reg, "gateway_breaker_state", "upstream", "a"), "open")

	rec, _ = h.do(t, "GET", "/v2/accounts/001000000000001AAA", "", nil)
	assert.Equal(t, 200, rec.Code, "another upstream is unaffected")

	a.mode.Store("ok")
	require.Eventually(t, func() bool { return h.upstreams.Client("a").BreakerState() == "half-open" },
		5*time.Second, 10*time.Millisecond, "the breaker half-opens once its openTimeout passed")
	rec, _ = h.do(t, "GET", "/v2/accounts", "", nil)
	assert.Equal(t, 200, rec.Code, "the half-open probe succeeds and closes the breaker")
	rec, _ = h.do(t, "GET", "/v2/accounts", "", nil)
	assert.Equal(t, 200, rec.Code)
	assert.Equal(t, 0.0, gaugeValue(t, h.reg, "gateway_breaker_state", "upstream", "a"), "closed")
}

func TestTimeoutAndRefusedThroughTheGateway(t *testing.T) {
	t.Parallel()
	slow := newFaultyBackend(t)
	slow.mode.Store("slow")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	h := newHarness(t, resilienceConfig(slow.srv.URL, dead), nil)

	start := time.Now()
	rec, env := h.do(t, "GET", "/v2/accounts", "", nil)
	assert.Equal(t, 504, rec.Code)
	assert.Equal(t, "CALLOUT_FAILED", responseID(env))
	assert.Less(t, time.Since(start), 2*time.Second, "the route's timeout cut the call")

	rec, env = h.do(t, "GET", "/v2/accounts/001000000000001AAA", "", nil)
	assert.Equal(t, 502, rec.Code, "connection refused")
	assert.Equal(t, "CALLOUT_FAILED", responseID(env))
}

// gaugeValue reads one labelled gauge from reg (a harness's h.reg).
func gaugeValue(t *testing.T, reg prometheus.Gatherer, name, label, value string) float64 {
	t.Helper()
	families, err := reg.Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	t.Fatalf("no %s{%s=%q}", name, label, value)
	return 0
}
