#!/usr/bin/env bash
# The rewrite's member loop in Go (-tags purego: what builds for other
# architectures, or with the assembly off, runs): vet and staticcheck of
# the mapping package, its tests, the gateway's tests of the client bodies
# the loop reads (call.ReadInput, call.CheckJSON), and bounded fuzzing of
# the targets that reach the loop. FUZZTIME sets the time per target
# (default 15s; three targets).
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime="${FUZZTIME:-15s}"
go vet -tags purego ./mapping
staticcheck -tags purego ./mapping
go test -race -tags purego ./mapping
go test -race -tags purego -run '^Test(TruncatedBodyWithALongKeyIsRefused|InvalidUTF8IsRefusedOnEveryRoute|MembersMappedToOneFieldAreRefused)$' ./gateway/app
for target in FuzzRewrite FuzzRoundTrip FuzzRewritePredict; do
  echo "-- ./mapping ${target} -tags purego (${fuzztime})"
  bash .ci/fuzz-one.sh ./mapping "${target}" "${fuzztime}" -tags purego
done
