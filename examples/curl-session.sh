#!/usr/bin/env bash
# A curl session against a running gateway: one call to each family of
# routes of the shipped config.yaml, each printed with its status and what it
# answered, stopping at the first unexpected status. Run it against the
# sandbox (go run ./cmd/gateway in another terminal):
#
#   bash examples/curl-session.sh
#
# or against another gateway: GATEWAY=https://gw.example.com AUTH="Bearer $TOKEN".
# It needs curl and jq. docs/getting-started/tour.md explains each answer.
set -euo pipefail

# The sandbox's API listener, where the shipped config.yaml puts it.
GATEWAY=${GATEWAY:-https://${GATEWAY_LISTEN:-127.0.0.1:8443}}
AUTH=${AUTH:-}

# call METHOD PATH EXPECTED-STATUS JQ-FILTER [curl arguments...]: prints the
# method, path and status, then the filter applied to the answer.
call() {
  local method=$1 path=$2 want=$3 filter=$4
  shift 4
  local headers=(-H 'Accept: application/json')
  if [ -n "$AUTH" ]; then headers+=(-H "Authorization: $AUTH"); fi
  local out status
  if ! out=$(curl -sk -X "$method" "${headers[@]}" -w '\n%{http_code}' "$@" "$GATEWAY$path"); then
    echo "curl could not call $GATEWAY$path: is the gateway running?" >&2
    exit 1
  fi
  status=${out##*$'\n'}
  out=${out%$'\n'*}
  printf '%-6s %-42s %s  %s\n' "$method" "$path" "$status" "$(jq -c "$filter" <<<"$out")"
  if [ "$status" != "$want" ]; then
    echo "expected $want" >&2
    exit 1
  fi
}

call GET  '/v2/settings/endpoints' 200 '.result | length'
call GET  '/v1/accounts?limit=2&offset=0' 200 '[.result[].name]'
id=$(curl -sk -X POST ${AUTH:+-H "Authorization: $AUTH"} "$GATEWAY/v2/accounts" -d '{"name": "Session Ltd"}' | jq -r .result.id)
call GET  "/v3/accounts/$id" 200 '.result | {name, rating}'
call PUT  "/v2/accounts/$id" 200 '.result' -d '{"rating": "Warm"}'
call GET  '/v2/process-definitions' 200 '[.result[].key]'
call GET  '/v2/users/kermit' 200 '.result.displayName'
call GET  '/v2/tasks?candidate=kermit' 200 '.page.total'
call GET  '/v2/sobjects' 200 '[.result.sobjects[].name]'
call GET  '/v2/contacts' 200 '.page.size'
call POST '/v2/messages' 200 '.result' -d '{"name": "curl-session", "message": "hello"}'
call DELETE "/v2/accounts/$id" 200 '.result'
call GET  "/v2/accounts/$id" 404 '.responseCode.id'
call GET  '/v9/accounts' 404 '.responseCode.id'
