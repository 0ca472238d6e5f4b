#!/usr/bin/env bash
# Deployment checks: the Dockerfile's build flags match the static build
# (-tags nosandbox included); the chart ships the repository's config.yaml
# (past its first line, the editors' schema path, relative to each copy);
# the chart lints, refuses bad values, renders for every supported
# Kubernetes version into manifests that pass deploy/validate, kubeconform
# -strict and kube-score (deploy/helm/check.sh); the static binary links no
# SQLite, refuses sandbox upstreams, starts against real ones, serves and
# stops cleanly on SIGTERM.
#
# helm, kubeconform and kube-score are built from source at pinned versions
# (a few minutes on two cores the first time) and cached with the generated
# schemas under ${XDG_CACHE_HOME:-~/.cache}/restgate.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${root}"
chart=deploy/helm/gateway
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

echo "== chart config copy equals config.yaml"
# The same file but its first line, the editors' schema path, which is
# relative to each copy (gateway/config/reference checks where it leads).
if ! cmp -s <(tail -n +2 config.yaml) <(tail -n +2 "${chart}/files/config.yaml"); then
  echo "FAIL: ${chart}/files/config.yaml differs from config.yaml past its first line; copy it:" >&2
  echo "  { head -n 1 ${chart}/files/config.yaml; tail -n +2 config.yaml; } >config.yaml.chart && mv config.yaml.chart ${chart}/files/config.yaml" >&2
  diff -u <(tail -n +2 config.yaml) <(tail -n +2 "${chart}/files/config.yaml") >&2 || true
  exit 1
fi

echo "== Dockerfile"
# The production build leaves the embedded sandbox (and SQLite) out.
build_line='CGO_ENABLED=0 go build -tags nosandbox,grpcnotrace -trimpath -ldflags="-s -w" -o'
for f in deploy/Dockerfile deploy/build-static.sh; do
  if ! grep -qF -- "${build_line}" "${f}"; then
    echo "FAIL: ${f} does not build with: ${build_line}" >&2; exit 1
  fi
done
for want in 'FROM golang:1.26 AS build' 'FROM gcr.io/distroless/static-debian12:nonroot' 'USER nonroot' \
  'EXPOSE 8443 9090' 'COPY config.yaml /etc/gateway/config.yaml' \
  'ENTRYPOINT ["/gateway", "serve", "-config", "/etc/gateway/config.yaml"]'; do
  if ! grep -qxF -- "${want}" deploy/Dockerfile; then
    echo "FAIL: deploy/Dockerfile lacks the line: ${want}" >&2; exit 1
  fi
done

echo "== helm chart (deploy/helm/check.sh)"
bash deploy/helm/check.sh

echo "== static binary"
bash deploy/build-static.sh "${work}/gateway"

echo "deploy checks passed"
