#!/usr/bin/env bash
# Runs the response cache's native fuzz targets (the Cache-Control parser)
# for a bounded time each, beyond the seed corpus `go test ./...` runs.
# FUZZTIME sets the time per target (default 20s); a failing input is
# written under gateway/cache/testdata/fuzz and fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime="${FUZZTIME:-20s}"
for target in $(go test -list '^Fuzz' ./gateway/cache | grep '^Fuzz'); do
  echo "-- ./gateway/cache ${target} (${fuzztime})"
  go test -run '^$' -fuzz "^${target}\$" -fuzztime "${fuzztime}" ./gateway/cache
done
