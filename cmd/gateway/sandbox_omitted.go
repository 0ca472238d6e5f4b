//go:build nosandbox

package main

import "log/slog"

// sandboxBuilt says this binary was built with -tags nosandbox: it has no
// embedded sandbox, and an upstream whose url is "sandbox" is refused.
const sandboxBuilt = false

// startSandbox fails: there is no sandbox to start.
func startSandbox(string, *slog.Logger, int) (sandboxServer, error) {
	return nil, errNoSandbox
}
