#!/usr/bin/env bash
# Fuzzes one target for a bounded time and fails on any finding:
#   .ci/fuzz-one.sh PACKAGE TARGET FUZZTIME [go test flags, e.g. -tags purego]
# Go 1.26's fuzzing coordinator can end a run that found nothing with a
# bare "context deadline exceeded" when -fuzztime runs out while a worker
# is mid-call (go.dev/issue/75804, fixed in Go 1.27). That outcome alone,
# with no failing input written and no panic printed, is said and not
# counted; every other failure fails the run.
set -uo pipefail
pkg="$1" target="$2" fuzztime="$3"
shift 3
dir="$(go list -f '{{.Dir}}' "$@" "$pkg")/testdata/fuzz/${target}"
before=$(ls "$dir" 2>/dev/null)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test "$@" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg" 2>&1 | tee "$out"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ] && [ "$(ls "$dir" 2>/dev/null)" = "$before" ] \
  && grep -qx '    context deadline exceeded' "$out" \
  && ! grep -q -e 'Failing input written' -e 'panic:' -e 'fuzzing process hung' "$out"; then
  echo "-- ${pkg} ${target}: the fuzzing coordinator stopped on its own deadline with nothing found (go.dev/issue/75804); not a finding"
  exit 0
fi
exit "$status"
