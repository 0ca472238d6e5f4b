#!/usr/bin/env bash
# Builds the gateway exactly as deploy/Dockerfile does (a static, stripped
# binary without the embedded sandbox: -tags nosandbox), proves it is static
# and links no SQLite, proves it refuses upstreams whose url is "sandbox",
# then runs it the way a container would: a non-loopback-style environment
# (JWT auth, plain HTTP, a throwaway data directory, every *_URL a real
# address), waits for /healthz and /readyz, makes authenticated API calls,
# sends SIGTERM and requires a clean exit (code 0).
#
#   deploy/build-static.sh [OUTPUT]     default OUTPUT: a temporary file
#
# The go build line must stay identical to the Dockerfile's; deploy/ci.sh
# compares them.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
work="$(mktemp -d)"
out="${1:-${work}/gateway}"
pid=""
cleanup() {
  if [ -n "${pid}" ] && kill -0 "${pid}" 2>/dev/null; then kill -KILL "${pid}" 2>/dev/null || true; fi
  rm -rf "${work}"
}
trap cleanup EXIT

echo "== build ${out}"
(cd "${root}" && CGO_ENABLED=0 go build -tags nosandbox,grpcnotrace -trimpath -ldflags="-s -w" -o "${out}" ./cmd/gateway)

echo "== static?"
if ! command -v file >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "'file' not found; install it or run as root" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq --no-install-recommends file >/dev/null
fi
description="$(file -b "${out}")"
echo "${description}"
echo "size: $(($(stat -c %s "${out}") / 1024)) KiB"
case "${description}" in
  *"dynamically linked"*) echo "FAIL: the binary is dynamically linked" >&2; exit 1 ;;
  *"statically linked"*) ;;
  *) echo "FAIL: 'file' does not say the binary is statically linked" >&2; exit 1 ;;
esac
if command -v ldd >/dev/null 2>&1 && ldd "${out}" >/dev/null 2>&1; then
  echo "FAIL: ldd lists shared libraries:" >&2; ldd "${out}" >&2; exit 1
fi

echo "== no sandbox, no SQLite"
info="$(go version -m "${out}")"
if ! grep -q -- '-tags=nosandbox' <<<"${info}"; then
  echo "FAIL: the binary was not built with -tags nosandbox:" >&2; echo "${info}" >&2; exit 1
fi
if grep -q 'modernc.org/sqlite' <<<"${info}"; then
  echo "FAIL: the binary links SQLite:" >&2; grep modernc <<<"${info}" >&2; exit 1
fi
echo "built with -tags nosandbox, no modernc.org/sqlite"

echo "== no text/template (grpcnotrace: gRPC's golang.org/x/net/trace would link html/template,"
echo "   which keeps every exported method of the binary and adds about 10 MB)"
if go list -deps -tags nosandbox,grpcnotrace "${root}/cmd/gateway" | grep -qx 'text/template'; then
  echo "FAIL: the production build links text/template:" >&2
  go list -deps -tags nosandbox,grpcnotrace "${root}/cmd/gateway" | grep -E 'template|x/net/trace' >&2; exit 1
fi

echo "== sandbox upstreams are refused"
# config.yaml's *_URL default to "sandbox": check names each one, and serve
# stops before listening (the timeout only bounds a binary that would not).
refusal='.url (line [0-9]*): "sandbox" needs a build with the sandbox (this binary was built with -tags nosandbox)'
status=0
env -i PATH="${PATH}" HOME="${work}" "${out}" check -config "${root}/config.yaml" >"${work}/check.out" 2>&1 || status=$?
if [ "${status}" -ne 1 ]; then
  echo "FAIL: check of the sandbox config exited ${status}, want 1:" >&2; cat "${work}/check.out" >&2; exit 1
fi
for name in accounts workflow data files feed; do
  grep -q -- "upstreams.${name}${refusal}" "${work}/check.out" ||
    { echo "FAIL: check does not name upstreams.${name}.url:" >&2; cat "${work}/check.out" >&2; exit 1; }
done
status=0
env -i PATH="${PATH}" HOME="${work}" GATEWAY_LISTEN=127.0.0.1:0 GATEWAY_ADMIN_LISTEN=127.0.0.1:0 GATEWAY_TLS=off \
  GATEWAY_DATA_DIR="${work}/refused" timeout 30 "${out}" serve -config "${root}/config.yaml" >"${work}/serve.out" 2>&1 || status=$?
if [ "${status}" -ne 1 ] || ! grep -q -- "upstreams.accounts${refusal}" "${work}/serve.out"; then
  echo "FAIL: serve with sandbox upstreams exited ${status}, want 1 with the refusal:" >&2; cat "${work}/serve.out" >&2; exit 1
fi
echo "check and serve refuse every sandbox upstream by key path"

echo "== run"
secret="$(openssl rand -hex 16)" # 32 bytes of text: the HS256 minimum the config enforces
log="${work}/gateway.log"
# Port 0: the kernel picks free ports; the gateway logs the bound addresses.
# The upstreams point at the discard port, where nothing listens: the
# gateway starts without reaching them and answers CALLOUT_FAILED for them.
backend=http://127.0.0.1:9
env -i PATH="${PATH}" HOME="${work}" \
  GATEWAY_LISTEN=127.0.0.1:0 GATEWAY_ADMIN_LISTEN=127.0.0.1:0 GATEWAY_TLS=off \
  GATEWAY_AUTH_MODE=jwt GATEWAY_JWT_SECRET="${secret}" GATEWAY_DATA_DIR="${work}/data" \
  ACCOUNTS_URL="${backend}" WORKFLOW_URL="${backend}" DATA_URL="${backend}" FILES_URL="${backend}" FEED_URL="${backend}" \
  "${out}" serve -config "${root}/config.yaml" >"${log}" 2>&1 &
pid=$!

api="" admin=""
for _ in $(seq 1 100); do
  line="$(grep -m1 '"gateway serving"' "${log}" || true)"
  if [ -n "${line}" ]; then
    api="$(sed -n 's/.*"api":"\(http[^"]*\)".*/\1/p' <<<"${line}")"
    admin="$(sed -n 's/.*"admin":"\(http[^"]*\)".*/\1/p' <<<"${line}")"
    break
  fi
  if ! kill -0 "${pid}" 2>/dev/null; then break; fi
  sleep 0.1
done
if [ -z "${api}" ] || [ -z "${admin}" ]; then
  echo "FAIL: the gateway did not start; its output:" >&2; cat "${log}" >&2; exit 1
fi
echo "api ${api}, admin ${admin}"

wait_ok() { # url
  for _ in $(seq 1 50); do
    if curl -fsS -o /dev/null "$1"; then return 0; fi
    sleep 0.1
  done
  echo "FAIL: $1 never answered 200; gateway output:" >&2; cat "${log}" >&2; return 1
}
wait_ok "${admin}/healthz"
wait_ok "${admin}/readyz"
echo "healthz and readyz answer 200"

b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
header="$(printf '{"alg":"HS256","typ":"JWT"}' | b64url)"
payload="$(printf '{"sub":"build-static","exp":%d}' "$(($(date +%s) + 300))" | b64url)"
signature="$(printf '%s.%s' "${header}" "${payload}" | openssl dgst -sha256 -hmac "${secret}" -binary | b64url)"
token="${header}.${payload}.${signature}"
code="$(curl -sS -o /dev/null -w '%{http_code}' "${api}/v2/settings/endpoints")"
if [ "${code}" != "401" ]; then
  echo "FAIL: a call without a token answered ${code}, want 401" >&2; exit 1
fi
code="$(curl -sS -o "${work}/endpoints.json" -w '%{http_code}' -H "Authorization: Bearer ${token}" "${api}/v2/settings/endpoints")"
if [ "${code}" != "200" ]; then
  echo "FAIL: an authenticated call answered ${code}, want 200:" >&2; cat "${work}/endpoints.json" >&2; exit 1
fi
echo "unauthenticated call 401, authenticated call 200"
code="$(curl -sS -o "${work}/accounts.json" -w '%{http_code}' -H "Authorization: Bearer ${token}" "${api}/v2/accounts")"
if [ "${code}" != "502" ] || ! grep -q '"CALLOUT_FAILED"' "${work}/accounts.json"; then
  echo "FAIL: a call to the unreachable accounts upstream answered ${code}, want 502 CALLOUT_FAILED:" >&2
  cat "${work}/accounts.json" >&2; exit 1
fi
if grep -q 'sandbox backends started' "${log}"; then
  echo "FAIL: a sandbox was started:" >&2; cat "${log}" >&2; exit 1
fi
echo "the configured upstream url is called (502 CALLOUT_FAILED), no sandbox started"

echo "== SIGTERM"
kill -TERM "${pid}"
status=0
wait "${pid}" || status=$?
pid=""
if [ "${status}" -ne 0 ]; then
  echo "FAIL: exit code ${status} after SIGTERM; gateway output:" >&2; cat "${log}" >&2; exit 1
fi
grep -q '"gateway stopped"' "${log}" || { echo "FAIL: no 'gateway stopped' line" >&2; cat "${log}" >&2; exit 1; }
echo "clean exit after SIGTERM"
