#!/usr/bin/env bash
# What the operator console's tests need, before the test run: Debian's
# chromium (the browser tests of cmd/gateway drive it headless; they fail
# under CI=true without it) and axe-core from npm, pinned, in a cache
# directory, for their accessibility scan. Then the admin API's OpenAPI
# document is linted with the same pinned @redocly/cli as the client API's.
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

echo "== the admin API's OpenAPI document, linted with @redocly/cli (recommended rules, zero errors)"
REDOCLY_VERSION=2.77.0
REDOCLY_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/restgate/redocly-${REDOCLY_VERSION}"
if [ ! -x "$REDOCLY_DIR/node_modules/.bin/redocly" ]; then
  mkdir -p "$REDOCLY_DIR"
  npm install --no-audit --no-fund --prefix "$REDOCLY_DIR" "@redocly/cli@${REDOCLY_VERSION}"
fi
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
  "$REDOCLY_DIR/node_modules/.bin/redocly" lint --format=summary gateway/adminapi/openapi.json
