package upstreams

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLogAttemptsOnlyAtDebug: below debug the observer is returned as it
// is, so a client has no attempt observer and logs nothing.
func TestLogAttemptsOnlyAtDebug(t *testing.T) {
	t.Parallel()
	obs := nopObserver{}
	info := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	assert.Equal(t, Observer(obs), LogAttempts(obs, info))
	assert.Equal(t, Observer(obs), LogAttempts(obs, nil))
	c, err := NewClient("a", Settings{URL: "http://127.0.0.1:9"}, LogAttempts(obs, info))
	require.NoError(t, err)
	assert.Nil(t, c.attempts)
}

// gauges is an observer that also takes the limit and the breaker state.
type gauges struct {
	nopObserver
	limit int
	state string
}

func (g *gauges) ConcurrencyLimit(_ string, limit int)   { g.limit = limit }
func (g *gauges) SetBreakerState(_ string, state string) { g.state = state }

// TestLogAttemptsKeepsTheGauges: at debug the wrapped observer still gets
// the concurrency limit and the breaker state.
func TestLogAttemptsKeepsTheGauges(t *testing.T) {
	t.Parallel()
	g := &gauges{}
	debug := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelDebug}))
	obs := LogAttempts(g, debug)
	_, err := NewClient("a", Settings{URL: "http://127.0.0.1:9"}, obs)
	require.NoError(t, err)
	assert.Positive(t, g.limit, "the client's limit reached the wrapped observer")
	obs.(interface{ SetBreakerState(upstream, state string) }).SetBreakerState("a", "closed")
	assert.Equal(t, "closed", g.state)
}

func TestLogAttemptsNamesEachDecision(t *testing.T) {
	t.Parallel()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 || r.Method == http.MethodPost {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		_, _ = io.WriteString(w, "{}")
	}))
	t.Cleanup(srv.Close)
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, err := NewClient("svc", Settings{URL: srv.URL, Retry: RetrySettings{Attempts: 3, Backoff: 1}}, LogAttempts(nil, logger))
	require.NoError(t, err)

	for _, method := range []string{http.MethodGet, http.MethodPost} {
		req, err := http.NewRequestWithContext(context.Background(), method, srv.URL+"/x?secret=1", strings.NewReader("{}"))
		require.NoError(t, err)
		resp, err := c.Do(req)
		if err == nil {
			resp.Body.Close()
		}
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 3, buf.String())
	assert.Contains(t, lines[0], "method=GET")
	assert.Contains(t, lines[0], "attempt=1")
	assert.Contains(t, lines[0], "status=502")
	assert.Contains(t, lines[0], "decision=retrying")
	assert.Contains(t, lines[1], "attempt=2")
	assert.Contains(t, lines[1], "status=200 decision=answered")
	assert.Contains(t, lines[2], "method=POST")
	assert.Contains(t, lines[2], `decision="not retried: the request is not idempotent`)
	assert.NotContains(t, buf.String(), "secret", "no query string")
}
