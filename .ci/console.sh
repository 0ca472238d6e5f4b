#!/usr/bin/env bash
# What the operator console's tests need, before the test run: Debian's
# chromium (the browser tests of cmd/gateway drive it headless; they fail
# under CI=true without it) and axe-core from npm, pinned, in a cache
# directory, for their accessibility scan. (The admin API's OpenAPI document
# is linted with the client API's, by .ci/openapi-clients.sh.)
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== chromium for the console's browser tests"
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "chromium not found; install the 'chromium' package or run as root" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends chromium
fi
chromium --version

echo "== axe-core for the console's accessibility scan"
# Keep equal to axeVersion in cmd/gateway/browser_test.go (a test checks).
AXE_VERSION=4.14.1
AXE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/restgate/axe-core-${AXE_VERSION}"
if [ ! -f "$AXE_DIR/node_modules/axe-core/axe.min.js" ]; then
  mkdir -p "$AXE_DIR"
  npm install --no-audit --no-fund --prefix "$AXE_DIR" "axe-core@${AXE_VERSION}"
fi

