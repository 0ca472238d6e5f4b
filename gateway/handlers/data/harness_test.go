package data_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/handlers/data"
	"github.com/restgate/gateway/gateway/handlers/handlertest"
	"github.com/restgate/gateway/gateway/handlers/settings"
	"github.com/restgate/gateway/gateway/middleware"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	"github.com/restgate/gateway/upstreams"
)

// accountFields is the declared Account model of the tests; Contact is left
// undeclared so its map comes from the describe.
func accountFields() []string {
	return []string{"Id", "Name", "Total_Assets__c", "BillingCity", "Type"}
}

// testConfig declares every data route, v1 with a legacy name for
// Account.Name, v3 keeping nulls, search without key maps in v1, and
// /settings/model.
func testConfig() *config.Config {
	keep, off := false, false
	cfg := &config.Config{
		Versions: []string{"v1", "v2", "v3"},
		Models: map[string]config.Model{"Account": {Fields: accountFields(),
			Versions: map[string]config.ModelVersion{"v1": {MapKeys: map[string]string{"Name": "accountname"}}}}},
		Upstreams: map[string]upstreams.Settings{"data": {URL: "http://unused", Options: map[string]string{"apiVersion": "v35.0"}}},
		Routes: []config.Route{
			{Path: "/{version}/settings/model/{objectName}", Kind: config.KindModel},
			{Path: "/{version}/data", Kind: config.KindData, Action: config.ActionVersions, Upstream: "data"},
			{Path: "/{version}/data/{apiVersion}", Kind: config.KindData, Action: config.ActionResources, Upstream: "data"},
			{Path: "/{version}/sobjects", Kind: config.KindData, Action: config.ActionSObjects, Upstream: "data"},
			{Path: "/{version}/sobjects/{type}", Kind: config.KindData, Action: config.ActionSObject, Upstream: "data"},
			{Path: "/{version}/sobjects/{type}/describe", Kind: config.KindData, Action: config.ActionDescribe, Upstream: "data"},
			{Path: "/{version}/query", Kind: config.KindData, Action: config.ActionQuery, Upstream: "data",
				Versions: map[string]config.RouteVersion{"v1": {}, "v2": {}, "v3": {DropNulls: &keep}}},
			{Path: "/{version}/query/{locator}", Kind: config.KindData, Action: config.ActionQueryMore, Upstream: "data",
				Versions: map[string]config.RouteVersion{"v1": {}, "v2": {}, "v3": {DropNulls: &keep}}},
			{Path: "/{version}/search", Kind: config.KindData, Action: config.ActionSearch, Upstream: "data",
				Versions: map[string]config.RouteVersion{"v1": {MapKeys: &off}, "v2": {}, "v3": {}}},
		},
	}
	config.Defaults(cfg)
	return cfg
}

// newGateway serves testConfig against the data API at baseURL through the
// real router, writer (system messages exposed, output up to 1 MiB) and
// trace middleware.
func newGateway(tb testing.TB, baseURL string, doer upstreams.Doer) http.Handler {
	tb.Helper()
	cfg := testConfig()
	cfg.Mapping.MaxOutputChars = 1 << 20
	backends := data.Backends(func(name string) (*data.Backend, error) {
		return data.NewBackend(baseURL, cfg.Upstreams[name].Options, doer, time.Minute, nil)
	})
	fields, err := backends("data")
	require.NoError(tb, err)
	h, _ := handlertest.Router(tb, cfg, true, func(table *routes.Table) map[string]router.Factory {
		return map[string]router.Factory{
			config.KindData:  data.New(backends, table, data.Options{}),
			config.KindModel: settings.Model(table, fields, cfg.Mapping.MaxDepth),
		}
	})
	return middleware.Trace(h, time.Now)
}

func get(tb testing.TB, h http.Handler, path string) handlertest.Answer {
	tb.Helper()
	return handlertest.Do(tb, h, httptest.NewRequest(http.MethodGet, path, nil))
}

func queryPath(version, soql string) string {
	return "/" + version + "/query?" + url.Values{"q": {soql}}.Encode()
}
