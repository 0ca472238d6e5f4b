#!/usr/bin/env bash
# Deployment checks: the Dockerfile's build flags match the static build
# (-tags nosandbox included), the chart lints, renders (default values, and
# every optional resource) into manifests that decode strictly into the
# Kubernetes API types and keep the deployment rules, the chart ships the
# repository's config.yaml (past its first line, the editors' schema path,
# relative to each copy) and, in its PrometheusRule, the tested rules, and
# the static binary links no SQLite, refuses sandbox upstreams, starts
# against real ones, serves and stops cleanly on SIGTERM.
#
# helm is built from source at a pinned version (about 3-9 minutes on two
# cores the first time) and cached in HELM_INSTALL_DIR.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${root}"
chart=deploy/helm/gateway
helm_version=v3.22.0
# What `helm template` assumes the cluster runs (helm built with go install
# otherwise assumes v1.20). 1.29 renders without the native preStop sleep,
# 1.31 with it.
kube_old=1.29.0
kube_new=1.31.0
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

echo "== helm ${helm_version}"
helm_dir="${HELM_INSTALL_DIR:-${XDG_CACHE_HOME:-${HOME}/.cache}/restgate/helm-${helm_version}}"
helm="${helm_dir}/helm"
if [ ! -x "${helm}" ]; then
  echo "building helm ${helm_version} into ${helm_dir}"
  mkdir -p "${helm_dir}"
  GOBIN="${helm_dir}" go install "helm.sh/helm/v3/cmd/helm@${helm_version}"
fi
"${helm}" version --short

# The backend URLs have no default (the image has no sandbox): every
# rendering gives them, as an install must.
urls=(--set env.ACCOUNTS_URL=http://crm.internal --set env.WORKFLOW_URL=http://flowable.internal/flowable-rest/service
  --set env.DATA_URL=https://example.my.salesforce.com --set env.FILES_URL=https://example.my.salesforce.com
  --set env.FEED_URL=http://feed.internal)

echo "== helm lint"
"${helm}" lint --strict --kube-version "${kube_old}" "${chart}" "${urls[@]}"
"${helm}" lint --strict --kube-version "${kube_new}" "${chart}" "${urls[@]}" \
  --set serviceMonitor.enabled=true --set networkPolicy.enabled=true --set prometheusRule.enabled=true

echo "== validator tests"
(cd deploy/validate && gofmt -l . | (! grep .) && go vet ./... && go test -race -count=1 ./...)
(cd deploy/validate && go build -o "${work}/validate" .)

echo "== helm template | validate (default values)"
"${helm}" template gw "${chart}" --kube-version "${kube_old}" "${urls[@]}" >"${work}/default.yaml"
"${work}/validate" -config "${chart}/files/config.yaml" <"${work}/default.yaml"

echo "== helm template | validate (ServiceMonitor, PrometheusRule, NetworkPolicy, TLS files, preStop sleep)"
"${helm}" template gw "${chart}" --kube-version "${kube_new}" "${urls[@]}" \
  --set env.DATA_OAUTH_FLOW=jwt-bearer --set env.DATA_TOKEN_URL=https://login.salesforce.com/services/oauth2/token \
  --set env.DATA_CLIENT_ID=consumer-key --set env.DATA_USERNAME=integration@example.com \
  --set oauth.privateKeySecretKey=data-private-key \
  --set serviceMonitor.enabled=true --set networkPolicy.enabled=true \
  --set prometheusRule.enabled=true --set prometheusRule.labels.release=monitoring \
  --set tls.mode=files --set tls.secretName=gateway-tls --set config.rollOnChange=true \
  --set-json 'networkPolicy.adminFrom=[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"monitoring"}}}]' \
  >"${work}/full.yaml"
# The PrometheusRule holds exactly the rules promtool tested (deploy/prometheus/check.sh).
"${work}/validate" -config "${chart}/files/config.yaml" -rules deploy/prometheus/rules.yaml <"${work}/full.yaml"
for want in 'kind: ServiceMonitor' 'kind: PrometheusRule' 'kind: NetworkPolicy' 'sleep:' 'checksum/config:' 'DATA_PRIVATE_KEY_FILE' 'path: private-key.pem'; do
  grep -qF -- "${want}" "${work}/full.yaml" || { echo "FAIL: full rendering lacks ${want}" >&2; exit 1; }
done

echo "== helm template | validate (shared store: Redis in sentinel mode, URL and sentinel password from a Secret)"
"${helm}" template gw "${chart}" --kube-version "${kube_new}" "${urls[@]}" \
  --set cluster.store=redis --set cluster.redis.existingSecret=gateway-redis --set cluster.failClosed=true \
  --set cluster.redis.mode=sentinel --set cluster.redis.addrs='s1:26379\,s2:26379' --set cluster.redis.masterName=gw \
  --set cluster.redis.sentinelPasswordKey=sentinel-password \
  --set cluster.redis.tlsCASecret=redis-ca \
  >"${work}/redis.yaml"
"${work}/validate" -config "${chart}/files/config.yaml" <"${work}/redis.yaml"
for want in 'name: GATEWAY_REDIS_URL' 'name: gateway-redis' 'key: redis-url' 'value: "s1:26379,s2:26379"' \
  'name: GATEWAY_REDIS_SENTINEL_PASSWORD' 'key: sentinel-password' 'name: GATEWAY_CLUSTER_FAIL_CLOSED' \
  'value: /etc/gateway-redis-ca/ca.crt' 'secretName: redis-ca'; do
  grep -qF -- "${want}" "${work}/redis.yaml" || { echo "FAIL: redis rendering lacks ${want}" >&2; exit 1; }
done
if grep -qF 'name: GATEWAY_REDIS_URL' "${work}/default.yaml"; then
  echo "FAIL: the default rendering (memory store) names GATEWAY_REDIS_URL" >&2; exit 1
fi

echo "== the data volume and ephemeral storage are sized from the upload limits"
for want in 'value: "1073741824"' 'value: "2147483648"' 'sizeLimit: 2304Mi' 'ephemeral-storage: 2816Mi'; do
  grep -qF -- "${want}" "${work}/default.yaml" || { echo "FAIL: default rendering lacks ${want}" >&2; exit 1; }
done

echo "== helm template refuses what cannot start"
for bad in 'uploads.spoolMiB=512' 'uploads.maxConcurrent=0' 'auth.mode=none' 'tls.mode=files' 'tls.mode=plain' 'cluster.store=redis' 'cluster.store=etcd' \
  'env.DATA_URL=sandbox' 'env.FEED_URL=' 'env.DATA_OAUTH_FLOW=jwt-bearer'; do
  if "${helm}" template gw "${chart}" --kube-version "${kube_old}" "${urls[@]}" --set "${bad}" >/dev/null 2>&1; then
    echo "FAIL: helm template accepted --set ${bad}" >&2; exit 1
  fi
done
if out=$("${helm}" template gw "${chart}" --kube-version "${kube_old}" 2>&1); then
  echo "FAIL: helm template rendered without the backend URLs" >&2; exit 1
fi
grep -qF 'env.ACCOUNTS_URL is required' <<<"${out}" || { echo "FAIL: no clear message without the URLs: ${out}" >&2; exit 1; }

echo "== static binary"
bash deploy/build-static.sh "${work}/gateway"

echo "deploy checks passed"
