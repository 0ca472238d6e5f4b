// Package server runs the gateway's two listeners: the API listener (TLS per
// config, every timeout set, its handler swappable for hot reload; plain
// HTTP served by h1server or, with server.http1 std, by net/http) and the
// admin listener (/metrics, /healthz, /readyz, Go's profiles when
// server.pprof is on, and what HandleAdmin adds: the operator's console),
// each with its own cap of open connections
// (server.limits.maxConnections and maxAdminConnections). Shutdown drains:
// readiness goes false first, then in-flight requests finish.
package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"sync/atomic"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/server/h1server"
)

// Swappable is an http.Handler whose target can be replaced atomically; a
// request keeps the handler it started on, so a swap drops nothing.
type Swappable struct {
	h atomic.Pointer[http.Handler]
}

// NewSwappable returns a Swappable serving h.
func NewSwappable(h http.Handler) *Swappable {
	s := &Swappable{}
	s.Swap(h)
	return s
}

// Swap makes h serve every request that starts from now on.
func (s *Swappable) Swap(h http.Handler) { s.h.Store(&h) }

// ServeHTTP serves r with the current handler.
func (s *Swappable) ServeHTTP(w http.ResponseWriter, r *http.Request) { (*s.h.Load()).ServeHTTP(w, r) }

// httpServer is what Serve needs of a listener's server: net/http's, or
// h1server's for the plain-HTTP API listener.
type httpServer interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
}

// Server holds the bound listeners. Create it with Listen, run it with Serve.
type Server struct {
	api   httpServer
	admin *http.Server
	// adminRoutes is the admin listener's mux (HandleAdmin).
	adminRoutes      *http.ServeMux
	apiLn, adminLn   net.Listener
	ready, draining  atomic.Bool
	logger           *slog.Logger
	apiAddr, admAddr string
}

// Listen binds both listeners now, so a port in use stops the start with a
// clear error before anything is served. api serves the API; metrics serves
// /metrics on the admin listener, beside /healthz and /readyz (HandleAdmin
// adds more).
func Listen(cfg config.Server, tlsCfg *tls.Config, api, metrics http.Handler, logger *slog.Logger) (*Server, error) {
	s := &Server{logger: logger}
	apiLn, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("server.listen %s: %w", cfg.Listen, err)
	}
	adminLn, err := net.Listen("tcp", cfg.AdminListen)
	if err != nil {
		apiLn.Close()
		return nil, fmt.Errorf("server.adminListen %s: %w", cfg.AdminListen, err)
	}
	apiCap := connectionCap(cfg.Limits.MaxConnections, cfg.Limits.MaxAdminConnections, fileLimit())
	if apiCap < cfg.Limits.MaxConnections {
		logger.Warn("server.limits.maxConnections lowered to what the open-files limit leaves room for",
			"configured", cfg.Limits.MaxConnections, "effective", apiCap, "open_files_limit", fileLimit())
	}
	// Each listener has its own cap, so a flood of API connections never
	// takes the admin listener's (probes, metrics); at a cap connections
	// wait in the kernel's backlog.
	adminLn = newLimitListener(adminLn, cfg.Limits.MaxAdminConnections)
	fast := cfg.HTTP1 != config.HTTP1Std
	if !fast || tlsCfg != nil {
		// h1server caps plain connections itself (Options.MaxConns), so
		// that answers keep going out in one writev; over TLS the cap
		// counts the HTTP/2 connections it hands to net/http too
		apiLn = newLimitListener(apiLn, apiCap)
	}
	if tlsCfg != nil {
		api = hsts(api)
	}
	t := cfg.Timeouts
	// the API handler answers headers over the configured limit with an
	// envelope (gateway/middleware.LimitHeaders); the server only cuts off the absurd
	headerRead := headerReadLimit(cfg.Limits.MaxHeaderBytes)
	errLog := slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
	std := &http.Server{Handler: api, ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read, WriteTimeout: t.Write,
		IdleTimeout: t.Idle, MaxHeaderBytes: headerRead, ErrorLog: errLog}
	if tlsCfg != nil {
		// net/http's Serve writes to its server's TLSConfig (the HTTP/2
		// defaults): on a copy, so that it never races with the handshakes
		// h1server does with tlsCfg, nor with another user of tlsCfg
		std.TLSConfig = tlsCfg.Clone()
	}
	h1 := h1server.Options{ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read, WriteTimeout: t.Write,
		IdleTimeout: t.Idle, MaxHeaderBytes: headerRead}
	switch {
	case !fast:
		// net/http's: TLS (with HTTP/2), or plain HTTP/1.1, when chosen
		if tlsCfg != nil {
			apiLn = tls.NewListener(apiLn, tlsCfg)
		}
		s.api = std
	case tlsCfg != nil:
		// HTTP/1.1 over TLS by h1server, HTTP/2 by net/http (tlsServers)
		s.api = newTLSServers(api, h1, tlsCfg, std, apiLn.Addr(), logger)
	default:
		// plain HTTP/1.1 (behind an ingress, or on loopback): the server
		// that costs less per request
		h1.MaxConns = apiCap
		s.api = h1server.New(api, h1, logger)
	}
	s.admin = &http.Server{Handler: s.adminMux(metrics, cfg.Pprof), ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read,
		WriteTimeout: t.Write, IdleTimeout: t.Idle, MaxHeaderBytes: cfg.Limits.MaxHeaderBytes, ErrorLog: errLog}
	s.apiLn, s.adminLn = apiLn, adminLn
	s.apiAddr, s.admAddr = apiLn.Addr().String(), adminLn.Addr().String()
	return s, nil
}

// APIAddr and AdminAddr are the bound addresses (useful with port 0).
func (s *Server) APIAddr() string   { return s.apiAddr }
func (s *Server) AdminAddr() string { return s.admAddr }

// Serve serves both listeners until ctx is done, then drains: /readyz turns
// 503, the listeners stop accepting, in-flight requests finish within
// drainCtx's deadline. It returns nil after a clean drain.
func (s *Server) Serve(ctx context.Context, drainCtx func() (context.Context, context.CancelFunc)) error {
	errs := make(chan error, 2)
	go func() { errs <- ignoreClosed(s.api.Serve(s.apiLn)) }()
	go func() { errs <- ignoreClosed(s.admin.Serve(s.adminLn)) }()
	s.ready.Store(true)
	select {
	case <-ctx.Done():
	case err := <-errs:
		if err != nil {
			return err
		}
	}
	s.draining.Store(true)
	s.logger.Info("draining", "api", s.apiAddr)
	dctx, cancel := drainCtx()
	defer cancel()
	err := s.api.Shutdown(dctx)
	err = errors.Join(err, s.admin.Shutdown(dctx))
	if err != nil {
		return fmt.Errorf("draining: %w", err)
	}
	return nil
}

// HandleAdmin serves pattern (http.ServeMux's) on the admin listener with
// h, beside /metrics and the probes; safe to call while it serves.
func (s *Server) HandleAdmin(pattern string, h http.Handler) { s.adminRoutes.Handle(pattern, h) }

func (s *Server) adminMux(metrics http.Handler, profiles bool) http.Handler {
	mux := http.NewServeMux()
	s.adminRoutes = mux
	mux.Handle("GET /metrics", metrics)
	if profiles {
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if !s.ready.Load() || s.draining.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte("not ready\n"))
			return
		}
		_, _ = w.Write([]byte("ready\n"))
	})
	return mux
}

// hsts tells browsers to keep to HTTPS; only TLS answers carry it.
func hsts(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Strict-Transport-Security", "max-age=63072000; includeSubDomains")
		next.ServeHTTP(w, r)
	})
}

func ignoreClosed(err error) error {
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// headerReadLimit is the server's own header limit that goes with the API
// handler's limit max: twice as much, so a request between the two is read
// and answered with an envelope rather than cut off by the server.
func headerReadLimit(max int) int { return 2 * max }
