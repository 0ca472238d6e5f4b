package routes

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/upstreams"
)

// TestAccountsUpstreamOptions: the options of an upstream that accounts
// routes use are the account adapter's, checked strictly, every problem
// under its key path, once however many routes use the upstream.
func TestAccountsUpstreamOptions(t *testing.T) {
	t.Parallel()
	cfg := &config.Config{
		Versions: []string{"v1"},
		Upstreams: map[string]upstreams.Settings{
			"crm":  {URL: "http://crm", Options: map[string]string{"paging": "sometimes", "update": "patch", "pagesize": "10"}},
			"good": {URL: "http://good", Options: map[string]string{"paging": "backend", "update": "replace"}},
			"data": {URL: "http://data", Options: map[string]string{"apiVersion": "v35.0"}},
		},
		Routes: []config.Route{
			{Path: "/{version}/accounts", Kind: config.KindAccounts, Upstream: "crm", Methods: []string{"GET"}},
			{Path: "/{version}/accounts/{id}", Kind: config.KindAccount, Upstream: "crm", Methods: []string{"GET"}},
			{Path: "/{version}/good", Kind: config.KindAccounts, Upstream: "good", Methods: []string{"GET"}},
			{Path: "/{version}/data", Kind: config.KindData, Action: config.ActionVersions, Upstream: "data", Methods: []string{"GET"}},
		},
	}
	config.Defaults(cfg)
	_, err := Build(cfg)
	require.Error(t, err)
	assert.Equal(t, []string{
		"upstreams.crm.options.pagesize: unknown option of an accounts upstream; known: paging, update",
		`upstreams.crm.options.paging: must be backend or adapter, not "sometimes"`,
		`upstreams.crm.options.update: must be merge or replace, not "patch"`,
	}, strings.Split(err.Error(), "\n"))
}

// TestWorkflowUpstreamOptions: the options of an upstream that workflow
// routes use are the workflow adapter's: engineVersion, a Flowable
// version, and nothing else.
func TestWorkflowUpstreamOptions(t *testing.T) {
	t.Parallel()
	route := func(upstream string) config.Route {
		return config.Route{Path: "/{version}/" + upstream, Kind: config.KindWorkflow, Action: config.ActionTasks,
			Upstream: upstream, Methods: []string{"GET"}}
	}
	cfg := &config.Config{
		Versions: []string{"v1"},
		Upstreams: map[string]upstreams.Settings{
			"flow":   {URL: "http://flow", Options: map[string]string{"engineVersion": "6.x", "apiVersion": "v1"}},
			"pinned": {URL: "http://pinned", Options: map[string]string{"engineVersion": "6.5.0"}},
			"read":   {URL: "http://read", Options: map[string]string{"engineVersion": ""}},
		},
		Routes: []config.Route{route("flow"), route("pinned"), route("read")},
	}
	config.Defaults(cfg)
	_, err := Build(cfg)
	require.Error(t, err)
	assert.Equal(t, []string{
		"upstreams.flow.options.apiVersion: unknown option of a workflow upstream; known: engineVersion",
		`upstreams.flow.options.engineVersion: not a Flowable engine version: "6.x" does not start with major.minor numbers (like 6.5.0, 6.5.0.6 or 8.0.0)`,
	}, strings.Split(err.Error(), "\n"))
}

// TestShippedConfigLoads: config.yaml, with the accounts options the
// original controller needs, loads and tables without a problem.
func TestShippedConfigLoads(t *testing.T) {
	t.Parallel()
	cfg, table, err := Load(filepath.Join("..", "..", "config.yaml"), func(string) string { return "" })
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"paging": "adapter", "update": "merge"}, cfg.Upstreams["accounts"].Options)
	assert.NotEmpty(t, table.Routes)
}
