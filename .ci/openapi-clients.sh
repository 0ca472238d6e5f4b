#!/usr/bin/env bash
# The OpenAPI documents tried as client teams use them. Every version's
# document of the shipped config, as shipped and with JWT, always200 errors
# and a rate limit (TestShippedOpenAPIDocuments), is
#   - linted by Spectral (spectral:oas: no error, no warning) and @redocly/cli
#     (recommended rules: no error; the admin API's document too);
#   - turned into Go clients by ogen and oapi-codegen, which must build and vet;
#   - turned into TypeScript types by openapi-typescript, which tsc --strict
#     must accept, with a small openapi-fetch client (examples/tsclient) that
#     reads result without a cast;
# then the contract test's traffic (every operation of every version, HEAD and
# OPTIONS included, failures included) and the example Go client's tour go
# through Stoplight Prism, a validating proxy, in front of a running gateway:
# no violation is allowed. Last, the example client (examples/goclient) is
# vetted and tested (its generated code and document current, its tour on the
# sandbox).
#
# Every tool is pinned: the Go ones in .ci/openapi-clients/go.mod (tool lines,
# with the runtime packages the generated code imports), the npm ones below,
# installed into a cache directory, so a second run needs no network.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(go env GOPATH)/bin:${PATH}"

NPM_PACKAGES=(
  @redocly/cli@2.77.0
  @stoplight/spectral-cli@6.16.3
  @stoplight/prism-cli@5.14.2 # 5.15 and later need node 24
  openapi-typescript@7.13.0
  openapi-fetch@0.17.0
  typescript@5.9.3
)
tools_key=$(printf '%s\n' "${NPM_PACKAGES[@]}" | sha256sum | cut -c1-12)
TOOLS="${XDG_CACHE_HOME:-$HOME/.cache}/restgate/openapi-tools-${tools_key}"
bin="$TOOLS/node_modules/.bin"

echo "== OpenAPI documents as client teams use them (Spectral, redocly, ogen, oapi-codegen, openapi-typescript and tsc --strict, Prism as a validating proxy, examples/goclient)"
started=$SECONDS
step() { echo "-- $1 (${SECONDS}s so far)"; }

work=$(mktemp -d)
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

step "npm tools (${TOOLS})"
if [ ! -f "$TOOLS/.installed" ]; then
  mkdir -p "$TOOLS"
  npm install --no-audit --no-fund --prefix "$TOOLS" "${NPM_PACKAGES[@]}"
  touch "$TOOLS/.installed"
fi
node --version

step "the documents (TestShippedOpenAPIDocuments)"
docs="$work/docs"
mkdir -p "$docs"
OPENAPI_DUMP_DIR="$docs" go test -count=1 -run '^TestShippedOpenAPIDocuments$' ./gateway/app
ls "$docs"

step "Spectral, spectral:oas: no error and no warning"
printf 'extends: ["spectral:oas"]\n' > "$work/spectral.yaml"
"$bin/spectral" lint --quiet --fail-severity=warn --ruleset "$work/spectral.yaml" "$docs"/openapi_*.json

step "@redocly/cli, recommended rules: no error (and the admin API's document, the console's)"
# the always200 documents warn (operation-4xx-response): their operations answer no 4XX, truthfully
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
  "$bin/redocly" lint --format=summary "$docs"/openapi_*.json gateway/adminapi/openapi.json

step "Go clients: ogen and oapi-codegen, built and vetted"
(cd .ci/openapi-clients && go vet ./...)
gen="$work/goclients"
cp -R .ci/openapi-clients "$gen"
for doc in "$docs"/openapi_*.json; do
  name=$(basename "$doc" .json | tr -- '-.' '__')
  (cd "$gen" && go tool ogen -config ogen.yml -clean -package "$name" -target "ogen/$name" "$doc" 2>&1 | grep -v '^INFO' || true)
  test -f "$gen/ogen/$name/oas_client_gen.go" || { echo "ogen generated no client from $doc"; exit 1; }
  mkdir -p "$gen/oapicodegen/$name"
  (cd "$gen" && go tool oapi-codegen -generate types,client -package "$name" -o "oapicodegen/$name/client.gen.go" "$doc")
done
(cd "$gen" && GOFLAGS=-mod=readonly go build ./... && GOFLAGS=-mod=readonly go vet ./ogen/... ./oapicodegen/...)
if grep -rn 'float32' "$gen/oapicodegen"; then
  echo "a number without format double: oapi-codegen made it a float32"; exit 1
fi

step "TypeScript: openapi-typescript, and tsc --strict over the types and examples/tsclient"
ts="$work/ts"
mkdir -p "$ts"
ln -s "$TOOLS/node_modules" "$ts/node_modules"
for doc in "$docs"/openapi_*.json; do
  "$bin/openapi-typescript" "$doc" -o "$ts/$(basename "$doc" .json).d.ts" >/dev/null
done
cp examples/tsclient/tour.ts "$ts/"
cp "$ts/openapi_shipped_v2.d.ts" "$ts/gateway-v2.d.ts"
(cd "$ts" && "$bin/tsc" --strict --noEmit --noUncheckedIndexedAccess --target es2022 --module esnext \
  --moduleResolution bundler --lib es2022,dom ./*.d.ts tour.ts)

step "Prism as a validating proxy: the contract test's traffic and the example's tour, no violation"
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
go build -o "$work/gateway" ./cmd/gateway
GATEWAY_TLS=off GATEWAY_LISTEN=127.0.0.1:0 GATEWAY_ADMIN_LISTEN=127.0.0.1:0 GATEWAY_DATA_DIR="$work/data" \
  GATEWAY_LOG_FORMAT=json GATEWAY_LOG_LOCAL=off "$work/gateway" serve -config config.yaml >"$work/gateway.log" 2>&1 &
pids+=($!)
api=""
for _ in $(seq 600); do
  api=$(grep -o '"msg":"gateway serving".*' "$work/gateway.log" | grep -o '"api":"[^"]*"' | cut -d'"' -f4 || true)
  [ -n "$api" ] && break
  sleep 0.1
done
[ -n "$api" ] || { cat "$work/gateway.log"; echo "the gateway did not start"; exit 1; }
# Prism reads a HEAD answer's empty body as JSON when its Content-Type says
# so, and fails: headshim removes that one header from HEAD answers (see
# .ci/openapi-clients/headshim).
(cd .ci/openapi-clients && go build -o "$work/headshim" ./headshim)
"$work/headshim" -target "$api" >"$work/headshim.log" 2>&1 &
pids+=($!)
shim=""
for _ in $(seq 100); do
  shim=$(grep -o 'http://[0-9.:]*' "$work/headshim.log" || true)
  [ -n "$shim" ] && break
  sleep 0.1
done
[ -n "$shim" ] || { cat "$work/headshim.log"; echo "headshim did not start"; exit 1; }
proxies=""
for v in v1 v2 v3; do
  curl -sf "$api/$v/settings/openapi" -o "$work/served_$v.json"
  port=$(free_port)
  "$bin/prism" proxy "$work/served_$v.json" "$shim" --errors --host 127.0.0.1 --port "$port" >"$work/prism_$v.log" 2>&1 &
  pids+=($!)
  proxies="${proxies:+$proxies,}$v=http://127.0.0.1:$port"
done
for v in v1 v2 v3; do
  for _ in $(seq 600); do
    grep -q 'Prism is listening' "$work/prism_$v.log" && break
    sleep 0.1
  done
  grep -q 'Prism is listening' "$work/prism_$v.log" || { cat "$work/prism_$v.log"; echo "Prism ($v) did not start"; exit 1; }
done
if ! OPENAPI_PROXIES="$proxies" go test -count=1 -run '^TestEveryOperationKeepsTheDocument$' ./gateway/app; then
  for v in v1 v2 v3; do grep -B2 -A8 'VIOLATIONS\|✖' "$work/prism_$v.log" | tail -40 || true; done
  exit 1
fi
v2proxy=$(echo "$proxies" | tr ',' '\n' | grep '^v2=' | cut -d= -f2)
(cd examples/goclient && go run . -url "$v2proxy")
if grep -l 'VIOLATIONS' "$work"/prism_*.log; then
  echo "Prism found answers against the document"; exit 1
fi

step "the example Go client (examples/goclient): gofmt, vet, staticcheck, tests"
(
  cd examples/goclient
  unformatted=$(gofmt -l .)
  [ -z "$unformatted" ] || { echo "gofmt would change: $unformatted"; exit 1; }
  go vet ./...
  if command -v staticcheck >/dev/null 2>&1; then staticcheck ./...; fi
  go test -race -count=1 ./...
)
if [ "$(cd examples/goclient && go list -m -f '{{.Version}}' github.com/oapi-codegen/oapi-codegen/v2)" != \
  "$(cd .ci/openapi-clients && go list -m -f '{{.Version}}' github.com/oapi-codegen/oapi-codegen/v2)" ]; then
  echo "examples/goclient and .ci/openapi-clients pin different oapi-codegen versions"; exit 1
fi

echo "-- OpenAPI clients: all passed in $((SECONDS - started))s"
