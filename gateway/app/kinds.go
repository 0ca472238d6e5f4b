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
	dataBackends := data.Backends(e.dataBackend)
	var fields settings.FieldSource
	if b, err := dataBackends(DescribeUpstream); err == nil && b != nil {
		fields = b // only a real backend: a nil *data.Backend must not become a non-nil interface
	}
	return map[string]router.Factory{
		config.KindEndpoints: settings.Endpoints(e.table),
		config.KindModel:     settings.Model(e.table, fields, maxDepth),
		config.KindOpenAPI:   openapi.New(e.table),
		config.KindAccounts:  accounts.Collection(e.accountsClient, accountOpts),
		config.KindAccount:   accounts.Item(e.accountsClient, accountOpts),
		config.KindWorkflow:  workflow.New(e.workflowClient, maxDepth),
		config.KindData:      data.New(dataBackends, e.table, data.Options{MaxDepth: maxDepth}),
		config.KindFiles:     files.New(e.filesClient, files.Options{SpoolDir: filepath.Join(e.cfg.Server.DataDir, "spool")}),
		config.KindMessages:  messages.New(e.feedClient, messages.Options{}),
		config.KindProxy:     proxy.New(e.proxyBackend, proxy.Options{MaxDepth: maxDepth}),
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

func (e kindEnv) workflowClient(name string) *upworkflow.Client {
	up, ok := e.upstreams[name]
	if !ok {
		return nil
	}
	return upworkflow.New(up.BaseURL, up.Client)
}

func (e kindEnv) dataBackend(name string) (*data.Backend, error) {
	up, ok := e.upstreams[name]
	if !ok {
		return nil, fmt.Errorf("no upstream named %q", name)
	}
	return data.NewBackend(up.BaseURL, up.Client.Settings().Options, up.Client, 0)
}

func (e kindEnv) filesClient(name string) (*upfiles.Client, error) {
	up, ok := e.upstreams[name]
	if !ok {
		return nil, fmt.Errorf("no upstream named %q", name)
	}
	opts := up.Client.Settings().Options
	return upfiles.New(up.BaseURL, opts["apiVersion"], opts["communityId"], up.Client)
}

func (e kindEnv) feedClient(name string) *feed.Client {
	up, ok := e.upstreams[name]
	if !ok {
		return nil
	}
	return feed.New(up.BaseURL, up.Client)
}
