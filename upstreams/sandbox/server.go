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
}

// Start opens dataDir's SQLite file and serves every contract on a free
// loopback port. Close stops it.
func Start(dataDir string, logger *slog.Logger) (*Server, error) {
	db, err := OpenDB(dataDir)
	if err != nil {
		return nil, err
	}
	h, err := handler(db, dataDir)
	if err != nil {
		db.Close()
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("sandbox listener: %w", err)
	}
	s := &Server{db: db, base: "http://" + ln.Addr().String()}
	s.srv = &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	go func() {
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("sandbox stopped", "err", err)
		}
	}()
	logger.Info("sandbox backends started", "url", s.base, "db", filepath.Join(dataDir, DBFile))
	return s, nil
}

// URL is the base URL of the named contract (see contracts).
func (s *Server) URL(name string) (string, error) {
	if !slices.Contains(contracts(), name) {
		return "", fmt.Errorf("no sandbox for upstream %q (sandbox serves %s)", name, strings.Join(contracts(), ", "))
	}
	return s.base + "/" + name, nil
}

// Close stops the listener and closes the database.
func (s *Server) Close(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	return errors.Join(err, s.db.Close())
}

// handler mounts each contract under its prefix. The data contract also
// carries the batch upload, as the real data API host does.
func handler(db *sql.DB, dataDir string) (http.Handler, error) {
	if err := EnsureSchema(db); err != nil {
		return nil, err
	}
	accounts, err := NewAccounts(db)
	if err != nil {
		return nil, err
	}
	workflow, err := NewWorkflow(db)
	if err != nil {
		return nil, err
	}
	data, err := NewDataAPI(db)
	if err != nil {
		return nil, err
	}
	files, err := NewFiles(db, filepath.Join(dataDir, "files"))
	if err != nil {
		return nil, err
	}
	feed, err := NewFeed(db)
	if err != nil {
		return nil, err
	}
	dataHost := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isConnectPath(r.URL.Path) {
			files.ServeHTTP(w, r)
			return
		}
		data.ServeHTTP(w, r)
	})
	mux := http.NewServeMux()
	mux.Handle("/accounts/", http.StripPrefix("/accounts", accounts))
	mux.Handle("/workflow/", http.StripPrefix("/workflow", workflow))
	mux.Handle("/data/", http.StripPrefix("/data", dataHost))
	mux.Handle("/files/", http.StripPrefix("/files", files))
	mux.Handle("/feed/", http.StripPrefix("/feed", feed))
	return mux, nil
}

// isConnectPath reports whether path is under /services/data/{version}/connect/,
// where the batch upload lives on the data host.
func isConnectPath(path string) bool {
	segs := strings.SplitN(path, "/", 6) // "", services, data, version, connect, rest
	return len(segs) == 6 && segs[1] == "services" && segs[2] == "data" && segs[4] == "connect"
}
