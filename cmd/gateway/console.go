package main

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/restgate/gateway/gateway/adminapi"
	"github.com/restgate/gateway/gateway/adminguard"
	"github.com/restgate/gateway/gateway/app"
	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/console"
	"github.com/restgate/gateway/gateway/identity"
	"github.com/restgate/gateway/gateway/reload"
)

// adminServer is where the console is mounted: the admin listener
// (*server.Server).
type adminServer interface {
	HandleAdmin(pattern string, h http.Handler)
	APIAddr() string
	AdminAddr() string
}

// consoleParts are what the console reads, built once by serve.
type consoleParts struct {
	build    adminapi.Build
	started  time.Time
	reloader *reload.Reloader
	shared   *app.Shared
	metrics  prometheus.Gatherer
	tls      bool
}

// mountConsole serves the operator's console (GET /, /ui/) and its API
// (/admin/api/v1/) on the admin listener, unless console.enabled is
// false. A console no credential can open (off loopback, no token, auth
// mode none) is mounted locked, and the start says so.
func mountConsole(srv adminServer, cfg *config.Config, p consoleParts, logger *slog.Logger) {
	c := cfg.Console
	if !c.On() {
		return
	}
	loopback := config.IsLoopback(cfg.Server.AdminListen)
	guard := adminguard.New(adminguard.Options{Loopback: loopback, Token: c.Token, Role: c.AdminRole,
		Identity: func() (string, identity.Authenticator) {
			gw := p.reloader.Serving()
			return gw.Config.Auth.Mode, gw.Authenticator
		}})
	scheme := "http"
	if p.tls {
		scheme = "https"
	}
	api := adminapi.Handler(adminapi.Sources{
		Build: p.build, Started: p.started,
		Listeners: adminapi.Listeners{API: scheme + "://" + srv.APIAddr(), Admin: "http://" + srv.AdminAddr(), TLS: p.tls},
		Access: func() adminapi.Access {
			return adminapi.Access{Loopback: loopback, Token: c.Token != "", Role: guard.Role(), Locked: guard.Locked()}
		},
		Serving: p.reloader.Serving, Reloads: p.reloader.Status, Upstreams: p.shared.Upstreams, Metrics: p.metrics,
		Activity: p.shared.Activity,
	})
	page := adminguard.Headers(console.Handler())
	srv.HandleAdmin("GET /{$}", page)
	srv.HandleAdmin("GET /ui/", page)
	srv.HandleAdmin(adminapi.Prefix, guard.Protect(api))
	if guard.Locked() {
		logger.Warn("the console is locked: the admin listener is not loopback and no credential opens it; set console.token (GATEWAY_ADMIN_TOKEN), or auth.mode jwt or apikey with console.adminRole",
			"admin", cfg.Server.AdminListen)
		return
	}
	logger.Info("console", "url", "http://"+srv.AdminAddr()+"/", "recording", p.shared.Activity != nil, "credentials", guard.Credentialed())
}
