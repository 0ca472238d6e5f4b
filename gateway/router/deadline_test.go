package router

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/routes"
)

// listenerReadTimeout is the read deadline of the test's listener.
const listenerReadTimeout = 150 * time.Millisecond

// slowUpload is the slow client under test: it sends a body in four pieces,
// each after a pause, so the body ends well after listenerReadTimeout.
func slowUpload(t *testing.T, url string) (*http.Response, error) {
	t.Helper()
	pr, pw := io.Pipe()
	go func() {
		for range 4 {
			time.Sleep(listenerReadTimeout * 2 / 3)
			if _, err := pw.Write([]byte("chunk")); err != nil {
				return
			}
		}
		pw.Close()
	}()
	return http.Post(url, "application/octet-stream", pr)
}

func TestBodyTimeoutOutlastsTheListenerDeadline(t *testing.T) {
	t.Parallel()
	var cfg config.Config
	cfg.Versions = []string{"v1"}
	cfg.Upstreams = nil
	cfg.Routes = []config.Route{
		{Path: "/{version}/slow", Kind: "echo", Methods: []string{"POST"}, BodyTimeout: 5 * time.Second},
		{Path: "/{version}/fast", Kind: "echo", Methods: []string{"POST"}},
	}
	config.Defaults(&cfg)
	table, err := buildEcho(&cfg)
	require.NoError(t, err)
	w := call.NewWriter(call.WriterConfig{Catalog: envelope.NewCatalog()})
	h, err := New(table, Options{Writer: w, MaxBodyBytes: 1 << 20, Kinds: map[string]Factory{"echo": echoFactory}})
	require.NoError(t, err)
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ReadTimeout = listenerReadTimeout
	srv.Start()
	t.Cleanup(srv.Close)

	resp, err := slowUpload(t, srv.URL+"/v1/slow")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 200, resp.StatusCode, string(body))

	resp, err = slowUpload(t, srv.URL+"/v1/fast")
	if err == nil {
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.NotEqual(t, 200, resp.StatusCode, "the listener's read deadline cuts a slow body elsewhere: %s", body)
	}
}

func buildEcho(cfg *config.Config) (*routes.Table, error) {
	t := &routes.Table{Versions: cfg.Versions}
	for i, rc := range cfg.Routes {
		t.Routes = append(t.Routes, &routes.Route{Template: rc.Path, Index: i, Spec: rc,
			Versions: map[string]*routes.VersionOptions{"v1": {}}})
	}
	return t, nil
}

func echoFactory(*routes.Route) (map[string]call.Handler, error) {
	return map[string]call.Handler{"POST": func(r *http.Request, c *call.Call) (call.Result, error) {
		if _, err := call.ReadBody(r, c); err != nil {
			return call.Result{}, err
		}
		return call.Result{}, nil
	}}, nil
}
