#!/usr/bin/env bash
# Runs every native fuzz target of the HTTP/1 packages (the server, the
# client transport and the syntax they share), of the envelope (templates,
# timestamps, the backend reasons' sanitiser), of the query checks of
# gateway/contract, of the call log (its disk queue's recovery from
# damaged files, its record and answer decoders, redaction) and of the
# JSON rewrite (whose member loop is in assembly on amd64; .ci/purego.sh
# fuzzes its Go loop), of the response cache (Cache-Control) and of the
# org's usage header (Sforce-Limit-Info) and of the load harness's
# reading of h2load's summary for a bounded time each,
# beyond the seed corpora that `go test ./...` already runs. FUZZTIME sets
# the time per target (default 20s); a failing input is written under the
# package's testdata/fuzz and fails the run (.ci/fuzz-one.sh runs each).
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime="${FUZZTIME:-20s}"
# Every target of these packages; a package:target entry names one target.
packages=(./upstreams/h1wire ./upstreams/h1client ./gateway/server/h1server ./gateway/envelope ./gateway/contract
  ./gateway/calllog/diskqueue ./gateway/calllog ./mapping ./gateway/cache ./upstreams:FuzzParseLimitInfo
  ./cmd/loadtest:FuzzParseH2load)

for entry in "${packages[@]}"; do
  pkg="${entry%%:*}"
  if [ "$pkg" != "$entry" ]; then
    targets="${entry#*:}"
  else
    targets=$(go test -list '^Fuzz' "$pkg" | grep '^Fuzz')
  fi
  for target in $targets; do
    echo "-- ${pkg} ${target} (${fuzztime})"
    bash .ci/fuzz-one.sh "${pkg}" "${target}" "${fuzztime}"
  done
done
