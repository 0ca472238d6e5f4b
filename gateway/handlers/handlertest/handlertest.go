// Package handlertest builds what the handler packages' tests share: the
// real router and writer around a package's factories, a stand-in for the
// authentication layer, a reference server on its own database, and the
// decoded envelope of an answer.
package handlertest

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/envelope"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/upstreams/sandbox/sandboxdb"
)

// Router builds the route table of cfg (already defaulted) and serves it
// through the real router and writer, with the factories kinds returns for
// that table. exposeSystemMessages lets the tests read the upstream's text
// in formattedSystemMessage. The writer is returned for middleware that
// answers on its own (authentication, limits).
func Router(tb testing.TB, cfg *config.Config, exposeSystemMessages bool,
	kinds func(*routes.Table) map[string]router.Factory) (http.Handler, *call.Writer) {
	tb.Helper()
	table, err := routes.Build(cfg)
	require.NoError(tb, err)
	w := call.NewWriter(call.WriterConfig{Catalog: envelope.NewCatalog(), ExposeSystemMessages: exposeSystemMessages,
		MaxOutput: cfg.Mapping.MaxOutputChars, MaxDepth: cfg.Mapping.MaxDepth})
	h, err := router.New(table, router.Options{Writer: w, MaxBodyBytes: cfg.Server.Limits.MaxBodyBytes, Kinds: kinds(table)})
	require.NoError(tb, err)
	return h, w
}

// Only resolves the upstream named name to v and refuses every other name.
func Only[T any](name string, v T) router.Resolver[T] {
	return func(upstream string) (T, error) {
		if upstream != name {
			var zero T
			return zero, fmt.Errorf("no upstream named %q", upstream)
		}
		return v, nil
	}
}

// Client is an http.Client on a transport of its own, whose idle
// connections close when tb ends. Not http.DefaultTransport: every
// httptest server's Close drops that transport's idle connections, under
// the feet of the tests running beside it.
func Client(tb testing.TB) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tb.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// Headers of the test caller, read only by WithIdentity: the gateway itself
// never takes identity from a header.
const (
	UserHeader  = "X-Test-User"
	RolesHeader = "X-Test-Roles"
)

// WithIdentity stands in for the authentication layer: the caller is the
// user of UserHeader (defaultUser when absent) with the comma-separated
// roles of RolesHeader.
func WithIdentity(next http.Handler, defaultUser string) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		id := call.Identity{UserID: r.Header.Get(UserHeader)}
		if id.UserID == "" {
			id.UserID = defaultUser
		}
		if roles := r.Header.Get(RolesHeader); roles != "" {
			id.Roles = strings.Split(roles, ",")
		}
		call.From(r.Context()).Identity = id
		next.ServeHTTP(rw, r)
	})
}

// Sandbox serves the reference server that build makes on the database in
// dir. stop closes the server and the database; it runs at the test's end
// too, and may be called more than once (a test that restarts the backend
// on the same dir stops the first one itself).
func Sandbox(tb testing.TB, dir string, build func(*sql.DB) (http.Handler, error)) (url string, stop func()) {
	tb.Helper()
	db, err := sandboxdb.Open(dir)
	require.NoError(tb, err)
	h, err := build(db)
	if err != nil {
		_ = db.Close()
	}
	require.NoError(tb, err)
	srv := httptest.NewServer(h)
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			srv.Close()
			_ = db.Close()
		}
	}
	tb.Cleanup(stop)
	return srv.URL, stop
}

// Answer is an answer of the gateway with its envelope decoded: a success
// has Result, an error has ResponseCode.
type Answer struct {
	Status int         `json:"-"`
	Header http.Header `json:"-"`
	// Raw is the body as sent.
	Raw []byte `json:"-"`

	Result json.RawMessage `json:"result"`
	// Page is the page member of a list answer; nil when there is none.
	Page        json.RawMessage `json:"page"`
	UserID      string          `json:"userId"`
	MapKeysFlag *bool           `json:"mapKeysFlag"`
	DropNulls   *bool           `json:"serializeNulls"`
	// ResponseCode is zero in a success.
	ResponseCode ResponseCode `json:"responseCode"`
}

// ResponseCode is the part of an error envelope's responseCode the tests
// read.
type ResponseCode struct {
	ID                     string `json:"id"`
	FormattedClientMessage string `json:"formattedClientMessage"`
	FormattedSystemMessage string `json:"formattedSystemMessage"`
}

// Do serves req with h and decodes the answer, which must be an envelope.
func Do(tb testing.TB, h http.Handler, req *http.Request) Answer {
	tb.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	a := Answer{Status: rec.Code, Header: rec.Header(), Raw: bytes.Clone(rec.Body.Bytes())}
	require.NoError(tb, json.Unmarshal(a.Raw, &a), "answer: %s", a.Raw)
	return a
}
