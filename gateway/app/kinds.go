package app

import (
	"fmt"
	"path/filepath"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/handlers/accounts"
	"github.com/restgate/gateway/gateway/handlers/data"
	"github.com/restgate/gateway/gateway/handlers/files"
	"github.com/restgate/gateway/gateway/handlers/messages"
	"github.com/restgate/gateway/gateway/handlers/openapi"
	"github.com/restgate/gateway/gateway/handlers/proxy"
	"github.com/restgate/gateway/gateway/handlers/settings"
	"github.com/restgate/gateway/gateway/handlers/workflow"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
	upaccounts "github.com/restgate/gateway/upstreams/accounts"
	"github.com/restgate/gateway/upstreams/feed"
	upfiles "github.com/restgate/gateway/upstreams/files"
	upworkflow "github.com/restgate/gateway/upstreams/workflow"
)

// DescribeUpstream is the upstream whose describe names the fields of record
// types that config.yaml does not declare (/settings/model/{type}).
const DescribeUpstream = "data"

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
	accountClients := resolver(e.upstreams, func(up Upstream) (*upaccounts.Client, error) {
		opts, errs := upaccounts.ParseOptions(up.Client.Settings().Options)
		if len(errs) > 0 { // the route table refused them already
			return nil, fmt.Errorf("upstreams.%s.options.%s", up.Client.Name(), errs[0])
		}
		return upaccounts.New(up.BaseURL, up.Client, opts), nil
	})
	dataBackends := data.Backends(resolver(e.upstreams, func(up Upstream) (*data.Backend, error) {
		return data.NewBackend(up.BaseURL, up.Client.Settings().Options, up.Client, 0)
	}))
	var fields settings.FieldSource
	if b, err := dataBackends(DescribeUpstream); err == nil {
		fields = b
	}
	return map[string]router.Factory{
		config.KindEndpoints: settings.Endpoints(e.table),
		config.KindModel:     settings.Model(e.table, fields, maxDepth),
		config.KindOpenAPI:   openapi.New(e.table),
		config.KindAccounts:  accounts.Collection(accountClients, accountOpts),
		config.KindAccount:   accounts.Item(accountClients, accountOpts),
		config.KindWorkflow: workflow.New(resolver(e.upstreams, func(up Upstream) (*upworkflow.Client, error) {
			return upworkflow.New(up.BaseURL, up.Client), nil
		}), e.table, maxDepth),
		config.KindData: data.New(dataBackends, e.table, data.Options{MaxDepth: maxDepth}),
		config.KindFiles: files.New(resolver(e.upstreams, func(up Upstream) (*upfiles.Client, error) {
			opts := up.Client.Settings().Options
			return upfiles.New(up.BaseURL, opts["apiVersion"], opts["communityId"], up.Client)
		}), files.Options{SpoolDir: filepath.Join(e.cfg.Server.DataDir, "spool")}),
		config.KindMessages: messages.New(resolver(e.upstreams, func(up Upstream) (*feed.Client, error) {
			return feed.New(up.BaseURL, up.Client), nil
		}), messages.Options{}),
		config.KindProxy: proxy.New(resolver(e.upstreams, func(up Upstream) (proxy.Backend, error) {
			return proxy.Backend{Doer: up.Client, BaseURL: up.BaseURL}, nil
		}), proxy.Options{MaxDepth: maxDepth}),
	}
}

// resolver resolves a configured upstream's name to what adapt makes of it.
func resolver[T any](ups map[string]Upstream, adapt func(Upstream) (T, error)) router.Resolver[T] {
	return func(name string) (T, error) {
		up, ok := ups[name]
		if !ok {
			var zero T
			return zero, fmt.Errorf("no upstream named %q", name)
		}
		return adapt(up)
	}
}
