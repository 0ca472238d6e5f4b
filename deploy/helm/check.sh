#!/usr/bin/env bash
# The chart, checked as a platform team's pipeline checks it. Every values
# file of deploy/helm/gateway/ci (each a whole install: the defaults with
# the backend URLs, every optional resource on, TLS from a Secret, Redis,
# an Ingress, an HTTPRoute, fixed replicas) is rendered for each supported
# Kubernetes version and must pass:
#   - deploy/validate: strict decoding into the API types, no null anywhere,
#     the deployment rules (admin port never behind the Ingress/HTTPRoute);
#   - kubeconform -strict, against JSON schemas generated from the
#     Kubernetes OpenAPI documents of that version (k8s.io/kubernetes from
#     the Go module proxy) and the CRDs of the Gateway API and the
#     Prometheus Operator (deploy/validate/schemagen);
#   - kube-score (newest version), with only the exceptions listed below and
#     in docs/guides/deploy.md.
# The validator's tests run helm itself: lint, template and install refuse
# bad values by their path (values.schema.json), and the notes say how to
# reach the gateway. values.schema.json's Kubernetes definitions must be
# those schemagen writes for the newest version.
#
# helm (built from source like its release, about 2-4 minutes on two cores),
# kubeconform and kube-score (go install, about a minute) and the schemas
# (seconds, once the modules are in the module cache) are cached under
# ${XDG_CACHE_HOME:-~/.cache}/restgate.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "${root}"
chart=deploy/helm/gateway
cache="${XDG_CACHE_HOME:-${HOME}/.cache}/restgate"
helm_version=v3.22.0
# The Kubernetes minor of helm's own client-go, which its release build
# stamps in as what `helm install --dry-run` and `helm lint` assume.
helm_kube=1.37
# Chart.yaml's kubeVersion is >=1.29: the two oldest supported minors and the
# newest, each at the newest patch the module proxy serves.
kube_versions=(1.29.6 1.30.14 1.37.2)
kube_newest="${kube_versions[${#kube_versions[@]}-1]}"
kube_score_version=v1.20.0
prometheus_operator_version=v0.85.0
# kubeconform and the Gateway API: the versions deploy/validate builds with.
validate_version() { (cd deploy/validate && go list -m -f '{{.Version}}' "$1"); }
kubeconform_version="$(validate_version github.com/yannh/kubeconform)"
gateway_api_version="$(validate_version sigs.k8s.io/gateway-api)"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT

echo "== helm ${helm_version}"
helm_dir="${HELM_INSTALL_DIR:-${cache}/helm-${helm_version}-kube${helm_kube}}"
helm="${helm_dir}/helm"
if [ ! -x "${helm}" ]; then
  echo "building helm ${helm_version} into ${helm_dir}"
  mkdir -p "${helm_dir}"
  ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=${helm_version} -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
  for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
    ldflags+=" -X ${pkg}.k8sVersionMajor=${helm_kube%%.*} -X ${pkg}.k8sVersionMinor=${helm_kube#*.}"
  done
  GOBIN="${helm_dir}" go install -trimpath -ldflags "${ldflags}" "helm.sh/helm/v3/cmd/helm@${helm_version}"
fi
"${helm}" version --short

echo "== kubeconform ${kubeconform_version}, kube-score ${kube_score_version}"
tools="${cache}/tools"
kubeconform="${tools}/kubeconform-${kubeconform_version}/kubeconform"
kube_score="${tools}/kube-score-${kube_score_version}/kube-score"
if [ ! -x "${kubeconform}" ]; then
  GOBIN="$(dirname "${kubeconform}")" go install "github.com/yannh/kubeconform/cmd/kubeconform@${kubeconform_version}"
fi
if [ ! -x "${kube_score}" ]; then
  GOBIN="$(dirname "${kube_score}")" go install "github.com/zegl/kube-score/cmd/kube-score@${kube_score_version}"
fi

echo "== validator and schema generator: tests (helm lint, template and install of bad and good values included)"
(cd deploy/validate && gofmt -l . | (! grep .) && go vet ./... && HELM="${helm}" go test -race -count=1 ./...)
(cd deploy/validate && go build -o "${work}/validate" . && go build -o "${work}/schemagen" ./schemagen)

echo "== kubeconform schemas: Kubernetes ${kube_versions[*]}, Gateway API ${gateway_api_version}, Prometheus Operator ${prometheus_operator_version}"
crds=(
  "sigs.k8s.io/gateway-api@${gateway_api_version}/config/crd/standard/gateway.networking.k8s.io_httproutes.yaml"
  "github.com/prometheus-operator/prometheus-operator@${prometheus_operator_version}/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml"
  "github.com/prometheus-operator/prometheus-operator@${prometheus_operator_version}/example/prometheus-operator-crd/monitoring.coreos.com_prometheusrules.yaml"
)
# Regenerated when the versions or the generator change.
key="$( { echo "${kube_versions[*]} ${crds[*]}"; cat deploy/validate/schemagen/*.go; } | sha256sum | cut -c1-16)"
schemas="${cache}/kubeconform-schemas/${key}"
if [ ! -d "${schemas}" ]; then
  crd_args=()
  for c in "${crds[@]}"; do crd_args+=(-crd "${c}"); done
  (IFS=,; "${work}/schemagen" -out "${schemas}" -kubernetes "${kube_versions[*]}" "${crd_args[@]}")
fi
du -sh "${schemas}" | sed 's/^/size: /'

echo "== values.schema.json: its Kubernetes definitions are Kubernetes ${kube_newest}'s"
"${work}/schemagen" -values-schema "${chart}/values.schema.json" -kubernetes "${kube_newest}" -check

kubeconform_check() { # manifest kubernetes-version
  "${kubeconform}" -strict -summary -kubernetes-version "$2" \
    -schema-location "${schemas}/{{ .NormalizedKubernetesVersion }}-standalone{{ .StrictSuffix }}/{{ .ResourceKind }}{{ .KindSuffix }}.json" "$1"
}

# kube-score's deliberate exceptions (docs/guides/deploy.md says why):
#   --ignore-container-cpu-limit: no CPU limit by default, CFS throttling adds latency; the HPA scales on the request.
#   container-image-pull-policy: IfNotPresent, so scaling out does not depend on the registry; pin the tag.
#   pod-networkpolicy, only where networkPolicy.egress is empty (the default): egress must admit DNS, every
#     backend, the JWKS URL, the log collector and Redis, which only the installer knows; the ingress
#     policy is rendered and checked everywhere, and the full rendering (egress set) is scored with it.
# Optional checks turned on: the seccomp profile, the container ports, ephemeral storage request = limit.
kube_score_check() { # manifest
  local args=(score --kubernetes-version "v${kube_newest%.*}" --exit-one-on-warning --output-format ci
    --ignore-container-cpu-limit --ignore-test container-image-pull-policy
    --enable-optional-test container-seccomp-profile --enable-optional-test container-ports-check
    --enable-optional-test container-ephemeral-storage-request-equals-limit)
  if ! grep -qx -- '    - Egress' "$1"; then args+=(--ignore-test pod-networkpolicy); fi
  local out
  if ! out="$("${kube_score}" "${args[@]}" "$1")"; then
    grep -v '^\[OK\]\|^\[SKIPPED\]' <<<"${out}" >&2
    echo "FAIL: kube-score: $1" >&2
    return 1
  fi
  echo "kube-score: $(grep -c '^\[OK\]' <<<"${out}") checks passed"
}

rendered() { echo "${work}/$1-$2.yaml"; } # values-name kubernetes-version

for values in "${chart}"/ci/*-values.yaml; do
  name="$(basename "${values}" -values.yaml)"
  for v in "${kube_versions[@]}"; do
    echo "== ${name}, Kubernetes ${v}: helm template | validate, kubeconform -strict"
    out="$(rendered "${name}" "${v}")"
    "${helm}" template gw "${chart}" --kube-version "${v}" -f "${values}" >"${out}"
    rules=()
    if grep -q '^kind: PrometheusRule' "${out}"; then rules=(-rules deploy/prometheus/rules.yaml); fi
    "${work}/validate" -config "${chart}/files/config.yaml" "${rules[@]}" <"${out}" >/dev/null
    kubeconform_check "${out}" "${v}"
  done
  echo "== ${name}: kube-score"
  kube_score_check "$(rendered "${name}" "${kube_newest}")"
done

expect() { # rendering, then lines it must hold
  local file="$1"; shift
  for want in "$@"; do
    grep -qF -- "${want}" "${file}" || { echo "FAIL: ${file##*/} lacks ${want}" >&2; exit 1; }
  done
}
refuse() { # rendering, then lines it must not hold
  local file="$1"; shift
  for bad in "$@"; do
    if grep -qF -- "${bad}" "${file}"; then echo "FAIL: ${file##*/} holds ${bad}" >&2; exit 1; fi
  done
}
echo "== what each rendering holds"
old="${kube_versions[0]}" new="${kube_newest}"
expect "$(rendered default "${new}")" 'preferredDuringSchedulingIgnoredDuringExecution:' 'topologyKey: kubernetes.io/hostname' \
  'kind: NetworkPolicy' 'kind: HorizontalPodAutoscaler' 'sleep:' \
  'value: "1073741824"' 'value: "2147483648"' 'sizeLimit: 2304Mi' 'ephemeral-storage: 2816Mi'
refuse "$(rendered default "${new}")" 'kind: Ingress' 'kind: HTTPRoute' 'kind: ServiceMonitor' 'kind: PrometheusRule' \
  'name: GATEWAY_REDIS_URL' 'annotations:' 'replicas:'
# The native preStop sleep from Kubernetes 1.30 on.
refuse "$(rendered default "${old}")" 'sleep:'
expect "$(rendered full "${new}")" 'kind: ServiceMonitor' 'kind: PrometheusRule' 'kind: NetworkPolicy' 'kind: Ingress' \
  'kind: HTTPRoute' '    - Egress' 'checksum/config:' 'example.com/team: api' 'DATA_PRIVATE_KEY_FILE' 'path: private-key.pem'
expect "$(rendered tls "${new}")" 'name: GATEWAY_TLS_CERT' 'secretName: gateway-tls'
expect "$(rendered redis "${new}")" 'name: GATEWAY_REDIS_URL' 'name: gateway-redis' 'key: redis-url' 'value: "s1:26379,s2:26379"' \
  'name: GATEWAY_REDIS_SENTINEL_PASSWORD' 'key: sentinel-password' 'name: GATEWAY_CLUSTER_FAIL_CLOSED' \
  'value: /etc/gateway-redis-ca/ca.crt' 'secretName: redis-ca'
expect "$(rendered ingress "${new}")" 'ingressClassName: nginx' 'nginx.ingress.kubernetes.io/backend-protocol: HTTPS' \
  'host: "api.example.com"' 'path: "/v1"' 'secretName: api-example-com-tls' 'name: api'
expect "$(rendered httproute "${new}")" 'kind: HTTPRoute' 'sectionName: https' '- api.example.com' 'port: 8443' 'value: /v2'
expect "$(rendered fixed-replicas "${new}")" 'replicas: 3' 'requiredDuringSchedulingIgnoredDuringExecution:'
refuse "$(rendered fixed-replicas "${new}")" 'kind: HorizontalPodAutoscaler'

echo "== a null in the pod template is refused by both checks"
# What the chart rendered before: "annotations:" with nothing under it.
awk '{ print } prev == "  template:" && $0 == "    metadata:" { print "      annotations:" } { prev = $0 }' \
  "$(rendered default "${new}")" >"${work}/null.yaml"
expect "${work}/null.yaml" '      annotations:'
if "${work}/validate" <"${work}/null.yaml" >/dev/null 2>"${work}/null.err"; then
  echo "FAIL: validate accepted a null annotations" >&2; exit 1
fi
expect "${work}/null.err" 'null value at /spec/template/metadata/annotations'
if kubeconform_check "${work}/null.yaml" "${new}" >"${work}/null.out"; then
  echo "FAIL: kubeconform accepted a null annotations" >&2; exit 1
fi
expect "${work}/null.out" "at '/spec/template/metadata/annotations': got null, want object"

echo "chart checks passed"
