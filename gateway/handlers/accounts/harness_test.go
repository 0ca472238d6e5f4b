package accounts_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/restgate/gateway/gateway/call"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/handlers/accounts"
	"github.com/restgate/gateway/gateway/handlers/handlertest"
	"github.com/restgate/gateway/gateway/middleware"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/upstreams"
	upaccounts "github.com/restgate/gateway/upstreams/accounts"
	sandboxaccounts "github.com/restgate/gateway/upstreams/sandbox/accounts"
	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

const testUser = "005000000000001"

// testConfig is the accounts part of the shipped configuration: the Account
// model with v1's legacy names, the collection with v1 listing Id and Name
// only and DELETE for admins, v3 keeping nulls.
func testConfig() *config.Config {
	var fields []string
	for _, f := range sfdc.AccountFields() {
		fields = append(fields, f.Name)
	}
	legacy := map[string]string{}
	for _, f := range fields {
		legacy[f] = strings.ToLower(strings.ReplaceAll(strings.TrimSuffix(f, "__c"), "_", ""))
	}
	legacy["External_Id__c"] = "externalid"
	keepNulls := false
	versions := map[string]config.RouteVersion{"v1": {Fields: []string{"Id", "Name"}}, "v2": {}, "v3": {DropNulls: &keepNulls}}
	itemVersions := map[string]config.RouteVersion{"v1": {}, "v2": {}, "v3": {DropNulls: &keepNulls}}
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

// reference is how the reference account controller behaves: it pages
// and keeps the fields an update does not send.
var reference = upaccounts.Options{Paging: upaccounts.PagingBackend, Update: upaccounts.UpdateReplace}

// originalController is what the original account controller needs: it
// ignores paging and replaces an account with the body of an update (the
// shipped config's options).
var originalController = upaccounts.Options{Paging: upaccounts.PagingAdapter, Update: upaccounts.UpdateMerge}

// newGateway serves the account routes against the account controller at
// baseURL, with the reference controller's options, through the real
// router, writer and trace middleware.
func newGateway(tb testing.TB, baseURL string, opts accounts.Options) http.Handler {
	tb.Helper()
	return newGatewayFor(tb, baseURL, opts, reference)
}

// newGatewayFor is newGateway with the adapter options of another backend.
func newGatewayFor(tb testing.TB, baseURL string, opts accounts.Options, backend upaccounts.Options) http.Handler {
	tb.Helper()
	h, _ := newRouter(tb, baseURL, opts, backend, handlertest.Client(tb))
	return middleware.Trace(handlertest.WithIdentity(h, testUser), time.Now)
}

// newRouter builds the router of testConfig with the account factories and
// returns it with its writer.
func newRouter(tb testing.TB, baseURL string, opts accounts.Options, backend upaccounts.Options, doer upstreams.Doer) (http.Handler, *call.Writer) {
	tb.Helper()
	resolve := handlertest.Only("accounts", upaccounts.New(baseURL, doer, backend))
	return handlertest.Router(tb, testConfig(), false, func(*routes.Table) map[string]router.Factory {
		return map[string]router.Factory{
			config.KindAccounts: accounts.Collection(resolve, opts),
			config.KindAccount:  accounts.Item(resolve, opts),
		}
	})
}

// newSandbox serves the reference account controller on dir's database.
func newSandbox(tb testing.TB, dir string) (url string, stop func()) {
	tb.Helper()
	return handlertest.Sandbox(tb, dir, sandboxaccounts.New)
}

// do sends one request to the gateway as testUser; roles may be empty.
func do(tb testing.TB, h http.Handler, method, path, body, roles string) handlertest.Answer {
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
		req.Header.Set(handlertest.RolesHeader, roles)
	}
	return handlertest.Do(tb, h, req)
}
