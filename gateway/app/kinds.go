package app

import (
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/handlers/settings"
	"github.com/restgate/gateway/gateway/router"
	"github.com/restgate/gateway/gateway/routes"
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
	return map[string]router.Factory{
		config.KindEndpoints: settings.Endpoints(e.table),
		config.KindModel:     settings.Model(e.table, nil, e.cfg.Server.Limits.MaxJSONDepth),
	}
}
