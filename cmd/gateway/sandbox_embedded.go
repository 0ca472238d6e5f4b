//go:build !nosandbox

package main

import (
	"log/slog"

	"github.com/restgate/gateway/upstreams/sandbox"
)

// sandboxBuilt says this binary carries the embedded sandbox; build with
// -tags nosandbox to leave it (and SQLite) out.
const sandboxBuilt = true

// startSandbox starts the embedded sandbox over dataDir.
func startSandbox(dataDir string, logger *slog.Logger) (sandboxServer, error) {
	return sandbox.Start(dataDir, logger)
}
