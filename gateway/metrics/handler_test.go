package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHandlerServesTheRegistry(t *testing.T) {
	t.Parallel()
	m, reg := newTestMetrics(t)
	m.ObserveRequest("/{version}/accounts", "GET", "v2", 200, 4*time.Millisecond, time.Millisecond, "")
	srv := httptest.NewServer(Handler(reg))
	t.Cleanup(srv.Close)

	resp, err := srv.Client().Get(srv.URL + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)

	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, resp.Header.Get("Content-Type"), "text/plain")
	assert.Contains(t, string(body), `gateway_build_info{goversion="go1.26.0",revision="abc123",version="1.2.3"} 1`)
	assert.Contains(t, string(body), `gateway_request_duration_seconds_count{method="GET",phase="upstream",route="/{version}/accounts",status="200",version="v2"} 1`)
	assert.Contains(t, string(body), "go_goroutines")
}

// TestHandlerServesExemplarsInOpenMetrics scrapes as Prometheus does
// (Accept: application/openmetrics-text): the bucket a sampled request fell
// in carries its trace id; the classic text format carries none.
func TestHandlerServesExemplarsInOpenMetrics(t *testing.T) {
	t.Parallel()
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	m, reg := newTestMetrics(t)
	m.ObserveRequest("/{version}/accounts", "GET", "v2", 200, 700*time.Millisecond, 0, traceID)
	m.ObserveRequest("/{version}/accounts", "GET", "v2", 200, 3*time.Millisecond, 0, "")
	srv := httptest.NewServer(Handler(reg))
	t.Cleanup(srv.Close)

	scrape := func(accept string) (string, string) {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/metrics", nil)
		require.NoError(t, err)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		return resp.Header.Get("Content-Type"), string(body)
	}

	ctype, body := scrape("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5")
	assert.Contains(t, ctype, "application/openmetrics-text")
	assert.Regexp(t, `gateway_request_duration_seconds_bucket\{method="GET",phase="total",route="/\{version\}/accounts",status="200",version="v2",le="1(\.0)?"\} 2 # \{trace_id="`+traceID+`"\} 0\.7 [0-9.e+]+\n`, body,
		"the 1s bucket, where the sampled 0.7s request fell, links its trace")
	assert.Equal(t, 1, strings.Count(body, "# {trace_id="), "one exemplar: the unsampled request has none")
	assert.True(t, strings.HasSuffix(body, "# EOF\n"))

	ctype, body = scrape("")
	assert.Contains(t, ctype, "text/plain")
	assert.NotContains(t, body, "trace_id")
}
