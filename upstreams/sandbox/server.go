// Package sandbox composes the reference servers of the backend contracts
// of UPSTREAMS.md into the embedded sandbox: the account controller (B1),
// the Flowable-compatible workflow engine (B2), the batch file upload (B3),
// the data API (B4) and the public feed (B5), one package each under this
// one, over one SQLite file (sandboxdb). The gateway starts it on loopback
// when an upstream's URL is "sandbox" and talks to it over HTTP like to any
// real backend; the tests use it too.
//
// Start is the one entry point. A gateway built with -tags nosandbox does
// not import this package, so neither the contracts nor SQLite are linked.
package sandbox

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/restgate/gateway/upstreams/sandbox/accounts"
	"github.com/restgate/gateway/upstreams/sandbox/dataapi"
	"github.com/restgate/gateway/upstreams/sandbox/feed"
	"github.com/restgate/gateway/upstreams/sandbox/files"
	"github.com/restgate/gateway/upstreams/sandbox/sandboxdb"
	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
	"github.com/restgate/gateway/upstreams/sandbox/workflow"
)

// contracts are the upstream names the sandbox can stand in for; each is
// served under /<name> on the sandbox's loopback listener.
func contracts() []string { return []string{"accounts", "workflow", "data", "files", "feed"} }

// Server is the running sandbox: one loopback HTTP listener serving every
// contract, over one SQLite file. The gateway reaches it over HTTP like any
// real backend.
type Server struct {
	db   *sql.DB
	srv  *http.Server
	base string
	org  *sfdc.Org
}

// Options tune the sandbox; the zero value is the shipped sandbox.
type Options struct {
	// Org configures the Salesforce org behind the data API and the batch
	// upload: session timeout (tests set it short), the static token, the
	// API version floor.
	Org sfdc.OrgOptions
	// QueryBatch is how many records a query answer holds before its
	// nextRecordsUrl (a subquery at most 200). Default 2000, the real API's.
	QueryBatch int
}

// Start opens dataDir's SQLite file (creating and seeding it the first
// time) and serves every contract on a free loopback port. Close stops it.
func Start(dataDir string, logger *slog.Logger) (*Server, error) {
	return StartWith(dataDir, logger, Options{})
}

// StartWith is Start with opts.
func StartWith(dataDir string, logger *slog.Logger, opts Options) (*Server, error) {
	db, err := sandboxdb.Open(dataDir)
	if err != nil {
		return nil, err
	}
	org := sfdc.NewOrg(opts.Org)
	h, err := handler(db, dataDir, org, opts.QueryBatch)
	if err != nil {
		db.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sandbox listener: %w", err)
	}
	s := &Server{db: db, base: "http://" + ln.Addr().String(), org: org}
	s.srv = &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("sandbox stopped", "err", err)
		}
	}()
	logger.Info("sandbox backends started", "url", s.base, "db", filepath.Join(dataDir, sandboxdb.File))
	return s, nil
}

// flavours are the contracts' flavours besides the reference one ("").
func flavours() map[string][]string {
	return map[string][]string{"accounts": {"original"}}
}

// URL is the base URL of the named contract: accounts, workflow, data,
// files or feed (the upstream names of the shipped config), in flavour ""
// (the reference server) or another of the contract's flavours: accounts
// has "original", the account controller as the original service behaves
// (accounts.NewOriginal). Another name or flavour is an error naming what
// exists.
func (s *Server) URL(name, flavour string) (string, error) {
	if !slices.Contains(contracts(), name) {
		return "", fmt.Errorf("no sandbox for upstream %q (sandbox serves %s)", name, strings.Join(contracts(), ", "))
	}
	if flavour == "" {
		return s.base + "/" + name, nil
	}
	if !slices.Contains(flavours()[name], flavour) {
		have := "none"
		if f := flavours()[name]; len(f) > 0 {
			have = strings.Join(f, ", ")
		}
		return "", fmt.Errorf("no sandbox flavour %q for upstream %q (its flavours: %s)", flavour, name, have)
	}
	return s.base + "/" + name + "-" + flavour, nil
}

// Org is the org behind the data API and the batch upload: tests expire
// its sessions and set its request limit through it.
func (s *Server) Org() *sfdc.Org { return s.org }

// Close stops the listener and closes the database.
func (s *Server) Close(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	return errors.Join(err, s.db.Close())
}

// handler mounts each contract under its prefix. The data and files hosts
// are one org's: each serves the data API, the Connect resources and the
// token endpoint, with org's sessions.
func handler(db *sql.DB, dataDir string, org *sfdc.Org, batch int) (http.Handler, error) {
	if err := sfdc.EnsureTables(db); err != nil {
		return nil, err
	}
	// Accounts first: the data API attaches its seeded contacts to the
	// accounts it finds.
	accountsH, err := accounts.New(db)
	if err != nil {
		return nil, err
	}
	originalH, err := accounts.NewOriginal(db)
	if err != nil {
		return nil, err
	}
	workflowH, err := workflow.New(db)
	if err != nil {
		return nil, err
	}
	dataH, err := dataapi.New(db, dataapi.WithOrg(org), dataapi.WithBatchSize(batch))
	if err != nil {
		return nil, err
	}
	filesH, err := files.New(db, filepath.Join(dataDir, "files"), files.WithOrg(org))
	if err != nil {
		return nil, err
	}
	feedH, err := feed.New(db)
	if err != nil {
		return nil, err
	}
	dataHost := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isConnectPath(r.URL.Path) {
			filesH.ServeHTTP(w, r)
			return
		}
		dataH.ServeHTTP(w, r)
	})
	mux := http.NewServeMux()
	mux.Handle("/accounts/", http.StripPrefix("/accounts", accountsH))
	mux.Handle("/accounts-original/", http.StripPrefix("/accounts-original", originalH))
	mux.Handle("/workflow/", http.StripPrefix("/workflow", workflowH))
	mux.Handle("/data/", http.StripPrefix("/data", dataHost))
	mux.Handle("/files/", http.StripPrefix("/files", dataHost))
	mux.Handle("/feed/", http.StripPrefix("/feed", feedH))
	return mux, nil
}

// isConnectPath reports whether path is under /services/data/{version}/connect/,
// where the batch upload lives on the data host.
func isConnectPath(path string) bool {
	segs := strings.SplitN(path, "/", 6) // "", services, data, version, connect, rest
	return len(segs) == 6 && segs[1] == "services" && segs[2] == "data" && segs[4] == "connect"
}
