package app

import (
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/handlers/accounts"
	"github.com/restgate/gateway/gateway/handlers/openapi"
	"github.com/restgate/gateway/gateway/handlers/proxy"
	"github.com/restgate/gateway/gateway/handlers/settings"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	upaccounts "github.com/restgate/gateway/upstreams/accounts"
)

// kindEnv is what the handler factories of one build draw on.
type kindEnv struct {
	cfg       *config.Config
	table     *routes.Table
	upstreams map[string]Upstream
	shared    *Shared
}

// kinds maps every route kind to the factory of its handlers.
func (e kindEnv) kinds() map[string]router.Factory {
	maxDepth := e.cfg.Server.Limits.MaxJSONDepth
	accountOpts := accounts.Options{MaxDepth: maxDepth}
	return map[string]router.Factory{
		config.KindEndpoints: settings.Endpoints(e.table),
		config.KindModel:     settings.Model(e.table, nil, maxDepth),
		config.KindAccounts:  accounts.Collection(e.accountsClient, accountOpts),
		config.KindAccount:   accounts.Item(e.accountsClient, accountOpts),
		config.KindProxy:     proxy.New(e.proxyBackend, proxy.Options{MaxDepth: maxDepth}),
		config.KindOpenAPI:   openapi.New(e.table),
	}
}

func (e kindEnv) proxyBackend(name string) (proxy.Backend, bool) {
	up, ok := e.upstreams[name]
	if !ok {
		return proxy.Backend{}, false
	}
	return proxy.Backend{Doer: up.Client, BaseURL: up.BaseURL}, true
}

func (e kindEnv) accountsClient(name string) *upaccounts.Client {
	up, ok := e.upstreams[name]
	if !ok {
		return nil
	}
	return upaccounts.New(up.BaseURL, up.Client)
}
