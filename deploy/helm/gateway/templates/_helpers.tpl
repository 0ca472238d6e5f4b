{{/*
Names and labels shared by every template.
*/}}

{{/* The chart name, or nameOverride. */}}
{{- define "gateway.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The resource name: fullnameOverride, or release-chart (just the release when it already holds the chart name). 63 characters at most, the DNS label limit. */}}
{{- define "gateway.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* chart-version, for the helm.sh/chart label. */}}
{{- define "gateway.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every resource. */}}
{{- define "gateway.labels" -}}
helm.sh/chart: {{ include "gateway.chart" . }}
{{ include "gateway.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Labels that select the pods; they must never change after the first install (Deployment selectors are immutable). */}}
{{- define "gateway.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gateway.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* The ServiceAccount the pods run as. */}}
{{- define "gateway.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "gateway.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The pod template's annotations as a YAML map ("{}" when there are none): the config's
checksum with config.rollOnChange, and podAnnotations. */}}
{{- define "gateway.podAnnotations" -}}
{{- $annotations := deepCopy .Values.podAnnotations }}
{{- if .Values.config.rollOnChange }}
{{- $_ := set $annotations "checksum/config" (include "gateway.config" . | sha256sum) }}
{{- end }}
{{- toYaml $annotations }}
{{- end }}

{{/* The pods' affinity as a YAML map: the affinity value, plus a host anti-affinity
(podAntiAffinity.mode soft or hard) unless affinity sets its own podAntiAffinity. */}}
{{- define "gateway.affinity" -}}
{{- $affinity := deepCopy .Values.affinity }}
{{- with .Values.podAntiAffinity }}
{{- if and (ne .mode "none") (not (hasKey $affinity "podAntiAffinity")) }}
{{- $term := dict "topologyKey" .topologyKey "labelSelector" (dict "matchLabels" (include "gateway.selectorLabels" $ | fromYaml)) }}
{{- if eq .mode "hard" }}
{{- $_ := set $affinity "podAntiAffinity" (dict "requiredDuringSchedulingIgnoredDuringExecution" (list $term)) }}
{{- else }}
{{- $_ := set $affinity "podAntiAffinity" (dict "preferredDuringSchedulingIgnoredDuringExecution" (list (dict "weight" .weight "podAffinityTerm" $term))) }}
{{- end }}
{{- end }}
{{- end }}
{{- toYaml $affinity }}
{{- end }}

{{/* config.yaml as deployed: config.content, or the shipped copy in files/. */}}
{{- define "gateway.config" -}}
{{- if .Values.config.content }}
{{- .Values.config.content }}
{{- else }}
{{- .Files.Get "files/config.yaml" }}
{{- end }}
{{- end }}

{{/* Refuses values that would render a pod the gateway cannot start in. */}}
{{- define "gateway.validateValues" -}}
{{- if not (has .Values.auth.mode (list "jwt" "apikey")) }}
{{- fail (printf "auth.mode must be jwt or apikey, not %q: the gateway refuses none on a non-loopback listener" .Values.auth.mode) }}
{{- end }}
{{- if not (has .Values.tls.mode (list "auto" "off" "files")) }}
{{- fail (printf "tls.mode must be auto, off or files, not %q" .Values.tls.mode) }}
{{- end }}
{{- if and (eq .Values.tls.mode "files") (not .Values.tls.secretName) }}
{{- fail "tls.mode files needs tls.secretName (a kubernetes.io/tls Secret)" }}
{{- end }}
{{- range $name := list "ACCOUNTS_URL" "WORKFLOW_URL" "DATA_URL" "FILES_URL" "FEED_URL" }}
{{- $url := required (printf "env.%s is required: the base URL of that backend (the image has no embedded sandbox)" $name) (index $.Values.env $name) | toString }}
{{- if eq $url "sandbox" }}
{{- fail (printf "env.%s is \"sandbox\", but the image is built without the sandbox: give the backend's URL" $name) }}
{{- end }}
{{- end }}
{{- if lt (int .Values.uploads.spoolMiB) (int .Values.uploads.maxMiB) }}
{{- fail (printf "uploads.spoolMiB (%v) must be at least uploads.maxMiB (%v): an upload that large could never be spooled" .Values.uploads.spoolMiB .Values.uploads.maxMiB) }}
{{- end }}
{{- if lt (int .Values.uploads.maxConcurrent) 1 }}
{{- fail "uploads.maxConcurrent must be at least 1" }}
{{- end }}
{{- if and (eq (toString .Values.env.DATA_OAUTH_FLOW) "jwt-bearer") (not .Values.oauth.privateKeySecretKey) }}
{{- fail "env.DATA_OAUTH_FLOW jwt-bearer needs oauth.privateKeySecretKey: the key of secrets.existingSecret holding the PEM private key" }}
{{- end }}
{{- with .Values.cluster }}
{{- if not (has .store (list "memory" "redis")) }}
{{- fail (printf "cluster.store must be memory or redis, not %q" .store) }}
{{- end }}
{{- if eq .store "redis" }}
{{- if not .redis.existingSecret }}
{{- fail "cluster.store redis needs cluster.redis.existingSecret (a Secret holding the Redis URL)" }}
{{- end }}
{{- if not (has .redis.mode (list "single" "sentinel" "cluster")) }}
{{- fail (printf "cluster.redis.mode must be single, sentinel or cluster, not %q" .redis.mode) }}
{{- end }}
{{- if and (ne .redis.mode "single") (not .redis.addrs) }}
{{- fail (printf "cluster.redis.mode %s needs cluster.redis.addrs" .redis.mode) }}
{{- end }}
{{- if and (eq .redis.mode "sentinel") (not .redis.masterName) }}
{{- fail "cluster.redis.mode sentinel needs cluster.redis.masterName" }}
{{- end }}
{{- end }}
{{- end }}
{{- if and .Values.secrets.env (not .Values.secrets.existingSecret) }}
{{- fail "secrets.env names credentials but secrets.existingSecret is empty" }}
{{- end }}
{{- if and .Values.autoscaling.enabled (hasKey .Values "replicaCount") }}
{{- fail "replicaCount is ignored while autoscaling.enabled is true (the HorizontalPodAutoscaler sets the replicas): set autoscaling.minReplicas and maxReplicas, or autoscaling.enabled=false" }}
{{- end }}
{{- if not (has .Values.podAntiAffinity.mode (list "soft" "hard" "none")) }}
{{- fail (printf "podAntiAffinity.mode must be soft, hard or none, not %q" .Values.podAntiAffinity.mode) }}
{{- end }}
{{- if and .Values.ingress.enabled (not .Values.ingress.hosts) }}
{{- fail "ingress.enabled needs ingress.hosts: at least one {host, paths}" }}
{{- end }}
{{- if and .Values.httpRoute.enabled (not .Values.httpRoute.parentRefs) }}
{{- fail "httpRoute.enabled needs httpRoute.parentRefs: the Gateway the route attaches to" }}
{{- end }}
{{- end }}
