#!/usr/bin/env bash
# Validates the gateway's Prometheus alerting and recording rules with promtool
# and runs their unit tests (rules_test.yaml: each alert judged on the series of
# the situations it must tell apart), and checks that the Helm chart ships the
# same file (its PrometheusRule is rendered from the copy).
# promtool ships in the Debian package "prometheus"; it is installed only when
# it is not already on PATH, so CI images that carry it skip the network.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rules="${root}/deploy/prometheus/rules.yaml"
tests="${root}/deploy/prometheus/rules_test.yaml"
chart_copy="${root}/deploy/helm/gateway/files/prometheus-rules.yaml"

if ! cmp -s "${rules}" "${chart_copy}"; then
  echo "FAIL: ${chart_copy} differs from ${rules}; copy it:" >&2
  echo "  cp deploy/prometheus/rules.yaml deploy/helm/gateway/files/prometheus-rules.yaml" >&2
  diff -u "${rules}" "${chart_copy}" >&2 || true
  exit 1
fi

if ! command -v promtool >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "promtool not found; install the 'prometheus' package or run as root" >&2
    exit 1
  fi
  echo "promtool not found; installing the prometheus package" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  # The package's postinst tries to start the service; nothing here needs it running.
  apt-get install -y --no-install-recommends prometheus
fi

promtool check rules "${rules}"
promtool test rules "${tests}"
