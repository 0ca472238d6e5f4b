#!/usr/bin/env bash
# Builds the gateway exactly as deploy/Dockerfile does (a static, stripped
# binary), proves it is static, then runs it the way a container would: a
# non-loopback-style environment (JWT auth, plain HTTP, a throwaway data
# directory), waits for /healthz and /readyz, makes one authenticated API
# call, sends SIGTERM and requires a clean exit (code 0).
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
(cd "${root}" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "${out}" ./cmd/gateway)

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

echo "== run"
secret="$(openssl rand -hex 16)" # 32 bytes of text: the HS256 minimum the config enforces
log="${work}/gateway.log"
# Port 0: the kernel picks free ports; the gateway logs the bound addresses.
env -i PATH="${PATH}" HOME="${work}" \
  GATEWAY_LISTEN=127.0.0.1:0 GATEWAY_ADMIN_LISTEN=127.0.0.1:0 GATEWAY_TLS=off \
  GATEWAY_AUTH_MODE=jwt GATEWAY_JWT_SECRET="${secret}" GATEWAY_DATA_DIR="${work}/data" \
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
