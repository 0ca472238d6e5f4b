package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/restgate/gateway/gateway/config"
	"github.com/restgate/gateway/gateway/routes"
)

// dataDirCheck is the routes.Check of server.dataDir: the directory the
// sandbox's SQLite file and the upload spool are made in must exist and be
// writable, or be creatable (its nearest existing parent writable). It
// creates nothing but a probe file it removes at once, so that check and
// serve find the problem before anything is opened, and report it once,
// with the path and the system's error.
func dataDirCheck() routes.Check {
	return func(cfg *config.Config) []error {
		if err := usableDir(cfg.Server.DataDir); err != nil {
			return []error{fmt.Errorf("server.dataDir: %w", err)}
		}
		return nil
	}
}

// usableDir says why dir cannot hold the gateway's files, nil if it can.
func usableDir(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("%q: %w", dir, err)
	}
	existing := abs
	for {
		info, err := os.Stat(existing)
		if err == nil {
			if !info.IsDir() {
				if existing == abs {
					return fmt.Errorf("%s is not a directory", abs)
				}
				return fmt.Errorf("cannot create %s: %s is not a directory", abs, existing)
			}
			break
		}
		// ENOTDIR: a file on the way, found as the walk goes up
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return fmt.Errorf("cannot use %s: %w", abs, err)
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return fmt.Errorf("cannot use %s: %w", abs, err)
		}
		existing = parent
	}
	probe, err := os.CreateTemp(existing, ".gateway-probe-*")
	if err != nil {
		if existing != abs {
			return fmt.Errorf("cannot create %s: %w", abs, err)
		}
		return fmt.Errorf("cannot write in %s: %w", abs, err)
	}
	name := probe.Name()
	_ = probe.Close()
	return os.Remove(name)
}
