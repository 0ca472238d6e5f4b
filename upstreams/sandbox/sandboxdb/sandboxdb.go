// Package sandboxdb opens the one SQLite file every sandbox contract keeps
// its tables in. It is the only package that links the SQLite engine, so a
// build that leaves the sandbox out (-tags nosandbox) links none.
package sandboxdb

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // registers the "sqlite" driver (pure Go, no cgo)
)

// File is the name of the sandbox's SQLite file inside the data directory.
// Deleting it while the gateway is stopped resets every contract to its
// seed.
const File = "sandbox.db"

// Open opens (creating if needed) dataDir/sandbox.db with WAL journaling
// and a busy timeout, so that concurrent writers wait instead of failing.
// Each contract creates its own tables on it.
func Open(dataDir string) (*sql.DB, error) {
	if err := os.MkdirAll(dataDir, 0o750); err != nil {
		return nil, fmt.Errorf("creating data dir %q: %w", dataDir, err)
	}
	dsn := "file:" + filepath.Join(dataDir, File) +
		"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("opening sandbox db: %w", err)
	}
	// One writer at a time is what SQLite allows; a single connection also
	// makes transactions serialise instead of failing with SQLITE_BUSY.
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening sandbox db: %w", err)
	}
	return db, nil
}
