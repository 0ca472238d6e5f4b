package accounts_test

import (
	"bytes"
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
	"github.com/restgate/gateway/gateway/handlers/accounts"
	"github.com/restgate/gateway/gateway/middleware"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/upstreams"
	upaccounts "github.com/restgate/gateway/upstreams/accounts"
	"github.com/restgate/gateway/upstreams/sandbox"
)

// roleHeader carries the test caller's roles into the tiny identity layer
// below; the gateway itself never reads identity from headers.
const roleHeader = "X-Test-Roles"

const testUser = "005000000000001"

// testConfig is the accounts part of the shipped configuration: the Account
// model with v1's legacy names, the collection with v1 listing Id and Name
// only and DELETE for admins, v3 keeping nulls.
func testConfig() *config.Config {
	var fields []string
	for _, f := range sandbox.AccountFields() {
		fields = append(fields, f.Name)
	}
	legacy := map[string]string{}
	for _, f := range fields {
		legacy[f] = strings.ToLower(strings.ReplaceAll(strings.TrimSuffix(f, "__c"), "_", ""))
	}
	legacy["External_Id__c"] = "externalid"
	keepNulls := false
	versions := map[string]config.RouteVersion{"v1": {Fields: []string{"Id", "Name"}}, "v2": {}, "v3": {SerializeNulls: &keepNulls}}
	itemVersions := map[string]config.RouteVersion{"v1": {}, "v2": {}, "v3": {SerializeNulls: &keepNulls}}
	cfg := &config.Config{
		Versions: []string{"v1", "v2", "v3"},
		Models: map[string]config.Model{"Account": {Fields: fields,
			Versions: map[string]config.ModelVersion{"v1": {MapKeys: legacy}}}},
		Upstreams: map[string]upstreams.Settings{"accounts": {URL: "http://unused"}},
		Routes: []config.Route{
			{Path: "/{version}/accounts", Kind: config.KindAccounts, Upstream: "accounts", Model: "Account",
				Methods: []string{"GET", "POST", "PUT", "DELETE"}, Roles: map[string][]string{"DELETE": {"admin"}},
				Versions: versions},
			{Path: "/{version}/accounts/{accountId}", Kind: config.KindAccount, Upstream: "accounts", Model: "Account",
				Methods: []string{"GET", "PUT", "DELETE"}, Versions: itemVersions},
		},
	}
	config.Defaults(cfg)
	return cfg
}

// newGateway serves the account routes against the account controller at
// baseURL, through the real router, writer and trace middleware.
func newGateway(tb testing.TB, baseURL string, opts accounts.Options) http.Handler {
	tb.Helper()
	h, _ := newRouter(tb, baseURL, opts, &http.Client{Timeout: 10 * time.Second})
	return middleware.Trace(withIdentity(h), time.Now)
}

// newRouter builds the router of testConfig with the account factories and
// returns it with its writer.
func newRouter(tb testing.TB, baseURL string, opts accounts.Options, doer upstreams.Doer) (http.Handler, *call.Writer) {
	tb.Helper()
	cfg := testConfig()
	table, err := routes.Build(cfg)
	require.NoError(tb, err)
	resolve := func(name string) *upaccounts.Client {
		if name != "accounts" {
			return nil
		}
		return upaccounts.New(baseURL, doer)
	}
	w := call.NewWriter(call.WriterConfig{Catalog: envelope.NewCatalog(), MaxOutput: cfg.Mapping.MaxOutputChars,
		MaxDepth: cfg.Mapping.MaxDepth})
	h, err := router.New(table, router.Options{Writer: w, MaxBodyBytes: cfg.Server.Limits.MaxBodyBytes,
		Kinds: map[string]router.Factory{
			config.KindAccounts: accounts.Collection(resolve, opts),
			config.KindAccount:  accounts.Item(resolve, opts),
		}})
	require.NoError(tb, err)
	return h, w
}

// withIdentity stands in for the authentication layer: the caller is
// testUser with the roles of roleHeader.
func withIdentity(next http.Handler) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		c := call.From(r.Context())
		c.Identity = call.Identity{UserID: testUser}
		if roles := r.Header.Get(roleHeader); roles != "" {
			c.Identity.Roles = strings.Split(roles, ",")
		}
		next.ServeHTTP(rw, r)
	})
}

// newSandbox serves the reference account controller on dir's database.
func newSandbox(tb testing.TB, dir string) (url string, stop func()) {
	tb.Helper()
	db, err := sandbox.OpenDB(dir)
	require.NoError(tb, err)
	h, err := sandbox.NewAccounts(db)
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

// answer is a decoded envelope.
type answer struct {
	Status int
	Header http.Header
	Raw    []byte
	Env    struct {
		Result       json.RawMessage `json:"result"`
		UserID       string          `json:"userId"`
		MapKeysFlag  *bool           `json:"mapKeysFlag"`
		Nulls        *bool           `json:"serializeNulls"`
		ResponseCode *struct {
			ID      string `json:"id"`
			Message string `json:"formattedClientMessage"`
		} `json:"responseCode"`
	}
}

// code is the response-code id of an error answer, "" for a success.
func (a answer) code() string {
	if a.Env.ResponseCode == nil {
		return ""
	}
	return a.Env.ResponseCode.ID
}

func (a answer) message() string {
	if a.Env.ResponseCode == nil {
		return ""
	}
	return a.Env.ResponseCode.Message
}

// do sends one request to the gateway; roles may be empty.
func do(tb testing.TB, h http.Handler, method, path, body, roles string) answer {
	tb.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if roles != "" {
		req.Header.Set(roleHeader, roles)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	a := answer{Status: rec.Code, Header: rec.Header(), Raw: bytes.Clone(rec.Body.Bytes())}
	require.NoError(tb, json.Unmarshal(a.Raw, &a.Env), "answer: %s", a.Raw)
	return a
}
