#!/usr/bin/env bash
# Validates the gateway's Prometheus alerting and recording rules with promtool.
# promtool ships in the Debian package "prometheus"; it is installed only when
# it is not already on PATH, so CI images that carry it skip the network.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
rules="${root}/deploy/prometheus/rules.yaml"

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
