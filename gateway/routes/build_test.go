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

// TestShippedConfigLoads: config.yaml, with the accounts options the
// original controller needs, loads and tables without a problem.
func TestShippedConfigLoads(t *testing.T) {
	t.Parallel()
	cfg, table, err := Load(filepath.Join("..", "..", "config.yaml"), func(string) string { return "" })
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"paging": "adapter", "update": "merge"}, cfg.Upstreams["accounts"].Options)
	assert.NotEmpty(t, table.Routes)
}
