//go:build !nosandbox

package main

import (
	"log/slog"

	"github.com/restgate/gateway/upstreams/sandbox"
	"github.com/restgate/gateway/upstreams/sandbox/sfdc"
)

// sandboxBuilt says this binary carries the embedded sandbox; build with
// -tags nosandbox to leave it (and SQLite) out.
const sandboxBuilt = true

// startSandbox starts the embedded sandbox over dataDir, its org allowing
// apiLimit API requests per 24 hours (0: the default).
func startSandbox(dataDir string, logger *slog.Logger, apiLimit int) (sandboxServer, error) {
	return sandbox.StartWith(dataDir, logger, sandbox.Options{Org: sfdc.OrgOptions{DailyAPIRequests: apiLimit}})
}
