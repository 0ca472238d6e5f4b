package app

import (
	"cmp"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A backend that answers 200 with what its contract does not allow must be
// counted as failing (outcome "invalid") and taken out of use by its
// breaker, as one answering 500 is.
func TestGarbageAnswersOpenTheBreaker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		desc        string
		route       string
		path        string
		contentType string
		body        string
		options     string // the upstream's options
	}{
		{desc: "account list that is an HTML page", path: "/v2/accounts", contentType: "text/html",
			route: `{path: "/{version}/accounts", kind: accounts, upstream: a, model: Account, methods: [GET]}`,
			body:  "<html><body>Service temporarily moved</body></html>"},
		{desc: "account that is no object", path: "/v2/accounts/001000000000001AAA", contentType: "application/json",
			route: `{path: "/{version}/accounts/{accountId}", kind: account, upstream: a, model: Account, methods: [GET]}`,
			body:  `"maintenance"`},
		{desc: "account list that is an array of invalid JSON", path: "/v2/accounts", contentType: "application/json",
			route: `{path: "/{version}/accounts", kind: accounts, upstream: a, model: Account, methods: [GET]}`,
			body:  `[{"Id":"001000000000001AAA","Name":}]`},
		{desc: "backend page of invalid JSON", path: "/v2/accounts?limit=1&offset=0", contentType: "application/json",
			route: `{path: "/{version}/accounts", kind: accounts, upstream: a, model: Account, methods: [GET]}`,
			body:  `[{"Id":"001000000000001AAA",,"Name":"Acme"}]`, options: "{paging: backend}"},
		{desc: "backend page over the limit", path: "/v2/accounts?limit=1&offset=0", contentType: "application/json",
			route: `{path: "/{version}/accounts", kind: accounts, upstream: a, model: Account, methods: [GET]}`,
			body:  `[{"Id":"001000000000001AAA","Name":"Acme"},{"Id":"001000000000002AAA","Name":"Beta"}]`, options: "{paging: backend}"},
		{desc: "proxied answer that is not JSON", path: "/v2/contacts", contentType: "text/plain",
			route: `{path: "/{version}/contacts", kind: proxy, upstream: a, upstreamPath: "/contacts", model: Account}`,
			body:  "OK"},
	}
	for _, tt := range tests {
		t.Run(tt.desc, func(t *testing.T) {
			t.Parallel()
			var garbage atomic.Bool
			var calls atomic.Int32
			backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				calls.Add(1)
				if garbage.Load() {
					w.Header().Set("Content-Type", tt.contentType)
					_, _ = w.Write([]byte(tt.body))
					return
				}
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`[{"Id":"001000000000001AAA","Name":"Acme"}]`))
			}))
			t.Cleanup(backend.Close)
			h := newHarness(t, fmt.Sprintf(`
versions: [v1, v2]
models:
  Account: {fields: [Id, Name]}
upstreams:
  a:
    url: %s
    breaker: {consecutiveFailures: 3, openTimeout: 1h}
    retry: {attempts: 1}
    options: %s
routes:
  - %s
`, backend.URL, cmp.Or(tt.options, "{}"), tt.route), nil)

			rec, _ := h.do(t, "GET", tt.path, "", nil)
			require.Equal(t, 200, rec.Code, rec.Body.String())

			garbage.Store(true)
			for i := range 3 {
				rec, env := h.do(t, "GET", tt.path, "", nil)
				assert.Equal(t, 502, rec.Code, "request %d", i)
				assert.Equal(t, "CALLOUT_FAILED", responseID(env))
			}
			before := calls.Load()
			rec, env := h.do(t, "GET", tt.path, "", nil)
			assert.Equal(t, 503, rec.Code, "three invalid answers in a row opened the breaker")
			assert.Equal(t, "CALLOUT_FAILED", responseID(env))
			assert.NotEmpty(t, rec.Header().Get("Retry-After"))
			assert.Equal(t, before, calls.Load(), "nothing sent while open")
			assert.Equal(t, "open", h.upstreams.Client("a").BreakerState())

			want := `
# HELP gateway_upstream_calls_total Finished upstream calls (retries included in one call) by upstream and outcome.
# TYPE gateway_upstream_calls_total counter
gateway_upstream_calls_total{outcome="invalid",upstream="a"} 3
gateway_upstream_calls_total{outcome="open",upstream="a"} 1
gateway_upstream_calls_total{outcome="success",upstream="a"} 1
`
			assert.NoError(t, testutil.GatherAndCompare(h.reg, strings.NewReader(want), "gateway_upstream_calls_total"))
		})
	}
}
