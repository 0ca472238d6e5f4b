package files_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/handlers/files"
	"github.com/restgate/gateway/gateway/handlers/handlertest"
	"github.com/restgate/gateway/gateway/middleware"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/gateway/spool"
	"github.com/restgate/gateway/upstreams"
	upfiles "github.com/restgate/gateway/upstreams/files"
)

const (
	community = "0DB000000000001"
	batchPath = "/services/data/v35.0/connect/communities/" + community + "/chatter/feed-elements/batch"
	subject   = "001xx000003DGb2AAG"
)

// gateway is POST /{version}/files served through the real router, writer
// and trace middleware, with what the tests inspect afterwards.
type gateway struct {
	http.Handler
	spool string

	mu      sync.Mutex
	logBody []byte
	codeID  string
}

// loggedBody is the Call.Body the call log would have recorded.
func (g *gateway) loggedBody() []byte {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.logBody
}

// spooled lists what is left in the spool directory.
func (g *gateway) spooled(tb testing.TB) []string {
	tb.Helper()
	entries, err := os.ReadDir(g.spool)
	require.NoError(tb, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func newGateway(tb testing.TB, baseURL string, doer upstreams.Doer, maxBody int64) *gateway {
	tb.Helper()
	return newBoundedGateway(tb, baseURL, doer, maxBody, 0, 0)
}

// newBoundedGateway is newGateway with a spool budget (0: none) and the
// route's uploads in flight capped (0: the default).
func newBoundedGateway(tb testing.TB, baseURL string, doer upstreams.Doer, maxBody, spoolBytes int64, maxConcurrent int) *gateway {
	tb.Helper()
	cfg := &config.Config{
		Versions:  []string{"v1", "v2"},
		Upstreams: map[string]upstreams.Settings{"files": {URL: baseURL}},
		Routes: []config.Route{{Path: "/{version}/files", Kind: config.KindFiles, Upstream: "files",
			Methods: []string{http.MethodPost}, MaxBodyBytes: maxBody, MaxConcurrent: maxConcurrent}},
	}
	config.Defaults(cfg)
	client, err := upfiles.New(baseURL, "v35.0", community, doer)
	require.NoError(tb, err)
	resolve := handlertest.Only("files", client)
	sp, _, err := spool.Open(tb.TempDir(), spoolBytes)
	require.NoError(tb, err)
	tb.Cleanup(func() { _ = sp.Close() })
	g := &gateway{spool: sp.Dir()}
	h, _ := handlertest.Router(tb, cfg, true, func(*routes.Table) map[string]router.Factory {
		return map[string]router.Factory{config.KindFiles: files.New(resolve, files.Options{Spool: sp})}
	})
	record := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(rw, r)
		c := call.From(r.Context())
		g.mu.Lock()
		g.logBody, g.codeID = c.Body, c.CodeID
		g.mu.Unlock()
	})
	g.Handler = middleware.Trace(record, time.Now)
	return g
}

// part is one part of a client's form.
type part struct {
	name, filename, content string
}

func form(tb testing.TB, parts ...part) (contentType string, body []byte) {
	tb.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		var w io.Writer
		var err error
		if p.filename != "" {
			w, err = mw.CreateFormFile(p.name, p.filename)
		} else {
			w, err = mw.CreateFormField(p.name)
		}
		require.NoError(tb, err)
		_, err = io.WriteString(w, p.content)
		require.NoError(tb, err)
	}
	require.NoError(tb, mw.Close())
	return mw.FormDataContentType(), buf.Bytes()
}

func send(tb testing.TB, h http.Handler, contentType string, body io.Reader) handlertest.Answer {
	tb.Helper()
	req := httptest.NewRequest(http.MethodPost, "/v1/files", body)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return handlertest.Do(tb, h, req)
}
