package metrics

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestHandlerServesTheRegistry(t *testing.T) {
	t.Parallel()
	m, reg := newTestMetrics(t)
	m.ObserveRequest("/{version}/accounts", "GET", "v2", 200, 4*time.Millisecond, time.Millisecond)
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
