package app

import (
	"context"
	"fmt"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/contract"
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
	// dataBackends hands out one data.Backend per upstream, shared by its
	// data, proxy and model routes.
	dataBackends router.Resolver[*data.Backend]
	// workflowClients hands out one workflow adapter per upstream, shared
	// by its routes with what it knows of the engine's version.
	workflowClients router.Resolver[*upworkflow.Client]
}

// newKindEnv is the environment of one build.
func newKindEnv(cfg *config.Config, table *routes.Table, ups map[string]Upstream, sh *Shared) kindEnv {
	return kindEnv{cfg: cfg, table: table, upstreams: ups, shared: sh,
		dataBackends: data.Backends(resolver(ups, func(up Upstream) (*data.Backend, error) {
			return data.NewBackend(up.BaseURL, up.Client.Settings().Options, up.Client, 0, sh.Logger)
		})),
		workflowClients: router.Shared(resolver(ups, func(up Upstream) (*upworkflow.Client, error) {
			opts, errs := upworkflow.ParseOptions(up.Client.Settings().Options)
			if len(errs) > 0 { // the route table refused them already
				return nil, fmt.Errorf("upstreams.%s.options.%s: %s", up.Client.Name(), errs[0].Path, errs[0].Problem)
			}
			opts.Name, opts.Logger = up.Client.Name(), sh.Logger
			return upworkflow.New(up.BaseURL, up.Client, opts), nil
		}))}
}

// dataUpstreams are the upstreams that data routes use, and the describe
// upstream: their answers are the data API's typed records.
func (e kindEnv) dataUpstreams() map[string]bool { return dataUpstreams(e.cfg) }

func dataUpstreams(cfg *config.Config) map[string]bool {
	out := map[string]bool{DescribeUpstream: true}
	for _, r := range cfg.Routes {
		if r.Kind == config.KindData {
			out[r.Upstream] = true
		}
	}
	return out
}

// checkVersions checks, in the background, the API version of every
// upstream that data routes use against what its backend offers, logging
// what an operator must hear (data.Backend.CheckVersion), and reads the
// version of every workflow engine (upworkflow.Client.Converters, which
// logs it).
func (e kindEnv) checkVersions(ctx context.Context) {
	seen := map[string]bool{}
	for _, r := range e.cfg.Routes {
		if seen[r.Upstream] {
			continue
		}
		switch r.Kind {
		case config.KindData:
			seen[r.Upstream] = true
			if b, err := e.dataBackends(r.Upstream); err == nil {
				go b.CheckVersion(ctx, r.Upstream)
			}
		case config.KindWorkflow:
			seen[r.Upstream] = true
			if c, err := e.workflowClients(r.Upstream); err == nil {
				go func(upstream string) {
					if _, err := c.Converters(ctx); err != nil && e.shared.Logger != nil {
						e.shared.Logger.Warn("could not read the workflow engine's version; the first call that needs it reads it again",
							"upstream", upstream, "err", err)
					}
				}(r.Upstream)
			}
		}
	}
}

// kinds maps every route kind to the factory of its handlers.
func (e kindEnv) kinds() map[string]router.Factory {
	maxDepth := e.cfg.Server.Limits.MaxJSONDepth
	accountOpts := accountOptions(e.cfg)
	accountClients := resolver(e.upstreams, func(up Upstream) (*upaccounts.Client, error) {
		opts, errs := upaccounts.ParseOptions(up.Client.Settings().Options)
		if len(errs) > 0 { // the route table refused them already
			return nil, fmt.Errorf("upstreams.%s.options.%s", up.Client.Name(), errs[0])
		}
		return upaccounts.New(up.BaseURL, up.Client, opts), nil
	})
	dataBackends := e.dataBackends
	var fields settings.KeyMapSource
	if b, err := dataBackends(DescribeUpstream); err == nil {
		fields = b
	}
	return map[string]router.Factory{
		config.KindEndpoints: settings.Endpoints(e.table),
		config.KindModel:     settings.Model(e.table, fields, maxDepth),
		config.KindOpenAPI:   openapi.New(e.table, e.contracts(), openapi.SettingsOf(e.cfg)),
		config.KindAccounts:  accounts.Collection(accountClients, accountOpts),
		config.KindAccount:   accounts.Item(accountClients, accountOpts),
		config.KindWorkflow:  workflow.New(e.workflowClients, e.table, maxDepth),
		config.KindData:      data.New(dataBackends, e.table, data.Options{MaxDepth: maxDepth}),
		config.KindFiles: files.New(resolver(e.upstreams, func(up Upstream) (*upfiles.Client, error) {
			opts := up.Client.Settings().Options
			return upfiles.New(up.BaseURL, opts["apiVersion"], opts["communityId"], up.Client)
		}), files.Options{Spool: e.shared.Spool}),
		config.KindMessages: messages.New(resolver(e.upstreams, func(up Upstream) (*feed.Client, error) {
			return feed.New(up.BaseURL, up.Client), nil
		}), messageOptions(e.cfg)),
		config.KindProxy: proxy.New(resolver(e.upstreams, func(up Upstream) (proxy.Backend, error) {
			b := proxy.Backend{Doer: up.Client, BaseURL: up.BaseURL, APIVersion: up.Client.Settings().Options["apiVersion"]}
			if e.dataUpstreams()[up.Client.Name()] {
				if records, err := dataBackends(up.Client.Name()); err == nil {
					b.Records, b.APIVersion = records, records.APIVersion()
				}
			}
			return b, nil
		}), proxy.Options{MaxDepth: maxDepth, Table: e.table}),
	}
}

// contracts maps every route kind to the declarations of its operations:
// the router checks requests against them and the OpenAPI document is
// rendered from them.
func (e kindEnv) contracts() contract.Registry {
	return Contracts(e.cfg)
}

// accountOptions and messageOptions are what the account and message
// handlers are built with, and their declarations declare.
func accountOptions(cfg *config.Config) accounts.Options {
	return accounts.Options{MaxDepth: cfg.Server.Limits.MaxJSONDepth}
}

func messageOptions(cfg *config.Config) messages.Options {
	return messages.Options{MaxDepth: cfg.Server.Limits.MaxJSONDepth}
}

// Contracts is the registry of cfg's route kinds, declared with the
// options the handlers are built with (kindEnv.kinds), without building
// anything: `gateway` tools and tests render the OpenAPI documents with it.
func Contracts(cfg *config.Config) contract.Registry {
	ups := dataUpstreams(cfg)
	accountOpts, messageOpts := accountOptions(cfg), messageOptions(cfg)
	return contract.Registry{
		config.KindEndpoints: settings.EndpointsContract,
		config.KindModel:     settings.ModelContract,
		config.KindOpenAPI:   openapi.Contract,
		config.KindAccounts:  accounts.CollectionContract(accountOpts),
		config.KindAccount:   accounts.ItemContract(accountOpts),
		config.KindWorkflow:  workflow.Contract,
		config.KindData:      data.Contract,
		config.KindFiles:     files.Contract,
		config.KindMessages:  messages.Contract(messageOpts),
		config.KindProxy:     proxy.Contract(func(up string) bool { return ups[up] }),
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
