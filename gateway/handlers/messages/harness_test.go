package messages_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/handlers/handlertest"
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
	resolve := handlertest.Only("feed", feed.New(baseURL, doer))
	h, _ := handlertest.Router(tb, cfg, true, func(*routes.Table) map[string]router.Factory {
		return map[string]router.Factory{config.KindMessages: messages.New(resolve, messages.Options{})}
	})
	return middleware.Trace(h, time.Now)
}

func post(tb testing.TB, h http.Handler, path, contentType, body string) handlertest.Answer {
	tb.Helper()
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return handlertest.Do(tb, h, req)
}
