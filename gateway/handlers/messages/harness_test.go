package messages_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/handlers/messages"
	"github.com/restgate/gateway/gateway/middleware"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/upstreams"
	"github.com/restgate/gateway/upstreams/feed"
)

// newGateway serves POST /{version}/messages against the feed at baseURL
// through the real router, writer and trace middleware; system messages
// reach the client so tests can check the upstream's text.
func newGateway(tb testing.TB, baseURL string, doer upstreams.Doer) http.Handler {
	tb.Helper()
	cfg := &config.Config{
		Versions:  []string{"v1", "v2"},
		Upstreams: map[string]upstreams.Settings{"feed": {URL: baseURL}},
		Routes: []config.Route{{Path: "/{version}/messages", Kind: config.KindMessages, Upstream: "feed",
			Methods: []string{http.MethodPost}}},
	}
	config.Defaults(cfg)
	table, err := routes.Build(cfg)
	require.NoError(tb, err)
	resolve := func(name string) *feed.Client {
		if name != "feed" {
			return nil
		}
		return feed.New(baseURL, doer)
	}
	w := call.NewWriter(call.WriterConfig{Catalog: envelope.NewCatalog(), ExposeSystemMessages: true,
		MaxOutput: cfg.Mapping.MaxOutputChars, MaxDepth: cfg.Mapping.MaxDepth})
	h, err := router.New(table, router.Options{Writer: w, MaxBodyBytes: cfg.Server.Limits.MaxBodyBytes,
		Kinds: map[string]router.Factory{config.KindMessages: messages.New(resolve, messages.Options{})}})
	require.NoError(tb, err)
	return middleware.Trace(h, time.Now)
}

// answer is the part of an envelope the tests read.
type answer struct {
	Status       int
	Result       json.RawMessage `json:"result"`
	ResponseCode struct {
		ID                     string `json:"id"`
		FormattedClientMessage string `json:"formattedClientMessage"`
		FormattedSystemMessage string `json:"formattedSystemMessage"`
	} `json:"responseCode"`
}

func post(tb testing.TB, h http.Handler, path, contentType, body string) answer {
	tb.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	raw, err := io.ReadAll(rec.Body)
	require.NoError(tb, err)
	var a answer
	require.NoError(tb, json.Unmarshal(raw, &a), "envelope %s", raw)
	a.Status = rec.Code
	return a
}

func httpClient() *http.Client { return &http.Client{Timeout: 10 * time.Second} }
