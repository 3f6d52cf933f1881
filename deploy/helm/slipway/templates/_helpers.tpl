{{/* The release's name prefix, at most 40 characters so component suffixes fit in 63. */}}
{{- define "slipway.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "slipway.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* slipway.selector: the labels a component's pods are selected by; call with (list $ "worker"). */}}
{{- define "slipway.selector" -}}
{{- $ := index . 0 -}}
app.kubernetes.io/name: {{ $.Chart.Name }}
app.kubernetes.io/instance: {{ $.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end -}}

{{- define "slipway.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "slipway.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "slipway.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{/* slipway.scrape: Prometheus annotations for a pod serving /metrics on port; (list $ port). */}}
{{- define "slipway.scrape" -}}
{{- $ := index . 0 -}}
{{- if $.Values.metrics.podAnnotations }}
prometheus.io/scrape: "true"
prometheus.io/port: {{ index . 1 | quote }}
prometheus.io/path: /metrics
{{- if index . 2 }}
prometheus.io/scheme: https
{{- end }}
{{- end }}
{{- end -}}

{{/* Non-root, read-only root filesystem, no privilege escalation, no capabilities. */}}
{{- define "slipway.podSecurityContext" -}}
{{ include "slipway.podUser" . }}
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* The image's unprivileged user, numeric so that runAsNonRoot can be checked. */}}
{{- define "slipway.podUser" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
{{- end -}}

{{- define "slipway.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
{{- end -}}

{{/* slipway.temporalEnv: the connection every component shares (envconfig's TEMPORAL_* names).
It refuses a connection without a credential: Temporal's authorization is on unless the operator
says in so many words that it is off (temporal.insecureNoAuthorization). */}}
{{- define "slipway.temporalEnv" -}}
{{- $a := .Values.temporal.auth }}
{{- $t := .Values.temporal.tls }}
{{- if and $a.enabled $a.tokenSecret }}
{{- fail "temporal.auth.tokenSecret: set either it or temporal.auth.enabled (client credentials), not both" }}
{{- end }}
{{- if not (or $a.enabled $a.tokenSecret (and $t.enabled $t.existingSecret $t.certKey $t.keyKey) .Values.temporal.insecureNoAuthorization) }}
{{- fail "temporal.auth: the Temporal connection has no credential. Set temporal.auth.enabled=true and temporal.auth.tokenURL (client credentials from the Secret temporal.auth.existingSecret), temporal.auth.tokenSecret (a mounted token) or temporal.tls.certKey and keyKey (a client certificate); or, only for a Temporal server with authorization off, temporal.insecureNoAuthorization=true: anyone reaching its frontend may then start, signal, update, reset and terminate any workflow and read every history (docs/production.md)" }}
{{- end -}}
- name: TEMPORAL_ADDRESS
  value: {{ .Values.temporal.address | quote }}
- name: TEMPORAL_NAMESPACE
  value: {{ .Values.temporal.namespace | quote }}
- name: SLIPWAY_TASK_QUEUE
  value: {{ .Values.temporal.taskQueue | quote }}
{{- with .Values.temporal.tls }}
{{- if .enabled }}
- name: TEMPORAL_TLS
  value: "true"
{{- if .serverName }}
- name: TEMPORAL_TLS_SERVER_NAME
  value: {{ .serverName | quote }}
{{- end }}
{{- if and .existingSecret .caKey }}
- name: TEMPORAL_TLS_SERVER_CA_CERT_PATH
  value: /etc/slipway/temporal-tls/{{ .caKey }}
{{- end }}
{{- if and .existingSecret .certKey .keyKey }}
- name: TEMPORAL_TLS_CLIENT_CERT_PATH
  value: /etc/slipway/temporal-tls/{{ .certKey }}
- name: TEMPORAL_TLS_CLIENT_KEY_PATH
  value: /etc/slipway/temporal-tls/{{ .keyKey }}
{{- end }}
{{- end }}
{{- end }}
{{- with .Values.temporal.auth }}
{{- if .enabled }}
- name: SLIPWAY_TEMPORAL_TOKEN_URL
  value: {{ required "temporal.auth.tokenURL: the identity provider's token endpoint, for the client credentials temporal.auth.enabled turns on" .tokenURL | quote }}
- name: SLIPWAY_TEMPORAL_CLIENT_ID
  value: {{ required "temporal.auth.clientID: the client the credentials are for" .clientID | quote }}
- name: SLIPWAY_TEMPORAL_CLIENT_SECRET
  valueFrom:
    secretKeyRef: {name: {{ required "temporal.auth.existingSecret: the Secret holding the client's secret" .existingSecret | quote }}, key: {{ .clientSecretKey | quote }}}
{{- end }}
{{- if .tokenSecret }}
- name: SLIPWAY_TEMPORAL_TOKEN_FILE
  value: /etc/slipway/temporal-token/{{ .tokenKey }}
{{- end }}
{{- end }}
- name: SLIPWAY_LOG_FORMAT
  value: json
{{- end -}}

{{- define "slipway.temporalVolumeMounts" -}}
{{- if and .Values.temporal.tls.enabled .Values.temporal.tls.existingSecret }}
- name: temporal-tls
  mountPath: /etc/slipway/temporal-tls
  readOnly: true
{{- end }}
{{- if .Values.temporal.auth.tokenSecret }}
- name: temporal-token
  mountPath: /etc/slipway/temporal-token
  readOnly: true
{{- end }}
{{- end -}}

{{- define "slipway.temporalVolumes" -}}
{{- if and .Values.temporal.tls.enabled .Values.temporal.tls.existingSecret }}
- name: temporal-tls
  secret:
    secretName: {{ .Values.temporal.tls.existingSecret | quote }}
    defaultMode: 0440
{{- end }}
{{- with .Values.temporal.auth }}{{ if .tokenSecret }}
- name: temporal-token
  secret:
    secretName: {{ .tokenSecret | quote }}
    items:
      - {key: {{ .tokenKey | quote }}, path: {{ .tokenKey | quote }}}
    defaultMode: 0440
{{- end }}{{ end }}
{{- end -}}

{{/* slipway.keysEnv: the payload key, and the attestation key when the component signs. */}}
{{- define "slipway.codecKeyEnv" -}}
- name: SLIPWAY_CODEC_KEY
  valueFrom:
    secretKeyRef: {name: {{ .Values.keys.existingSecret | quote }}, key: {{ .Values.keys.codecKey | quote }}}
{{- end -}}

{{- define "slipway.attestKeyEnv" -}}
- name: SLIPWAY_ATTEST_KEY
  valueFrom:
    secretKeyRef: {name: {{ .Values.keys.existingSecret | quote }}, key: {{ .Values.keys.attestKey | quote }}}
{{- end -}}

{{- define "slipway.storeEnv" -}}
- name: SLIPWAY_TF_PG_CONN
  valueFrom:
    secretKeyRef: {name: {{ .Values.store.existingSecret | quote }}, key: {{ .Values.store.tfConnKey | quote }}}
- name: SLIPWAY_STORE_PG_CONN
  valueFrom:
    secretKeyRef: {name: {{ .Values.store.existingSecret | quote }}, key: {{ .Values.store.storeConnKey | default .Values.store.tfConnKey | quote }}}
{{- end -}}

{{- define "slipway.forgeEnv" -}}
- name: SLIPWAY_FORGE
  value: {{ .Values.forge.kind | quote }}
{{- if .Values.forge.url }}
- name: SLIPWAY_FORGE_URL
  value: {{ .Values.forge.url | quote }}
{{- end }}
- name: SLIPWAY_FORGE_REPO
  value: {{ .Values.forge.repo | quote }}
{{- with .Values.forge.githubApp }}{{ if .appId }}
{{- if ne $.Values.forge.kind "github" }}{{ fail "forge.githubApp: a GitHub App authenticates forge.kind github only" }}{{ end }}
- name: SLIPWAY_GITHUB_APP_ID
  value: {{ .appId | int64 | quote }}
- name: SLIPWAY_GITHUB_APP_INSTALLATION_ID
  value: {{ required "forge.githubApp.installationId: set it with forge.githubApp.appId" .installationId | int64 | quote }}
- name: SLIPWAY_GITHUB_APP_KEY_FILE
  value: /etc/slipway/github-app/{{ required "forge.githubApp.privateKeyKey: set it with forge.githubApp.appId" .privateKeyKey }}
{{- end }}{{ end }}
{{- if not .Values.forge.githubApp.appId }}
- name: SLIPWAY_FORGE_TOKEN
  valueFrom:
    secretKeyRef: {name: {{ .Values.forge.existingSecret | quote }}, key: {{ .Values.forge.tokenKey | quote }}}
{{- end }}
{{- end -}}

{{- define "slipway.githubAppMount" -}}
{{- if .Values.forge.githubApp.appId }}
- name: github-app
  mountPath: /etc/slipway/github-app
  readOnly: true
{{- end }}
{{- end -}}

{{- define "slipway.githubAppVolume" -}}
{{- if .Values.forge.githubApp.appId }}
- name: github-app
  secret:
    secretName: {{ .Values.forge.existingSecret | quote }}
    items:
      - key: {{ .Values.forge.githubApp.privateKeyKey | quote }}
        path: {{ .Values.forge.githubApp.privateKeyKey | quote }}
    defaultMode: 0440
{{- end }}
{{- end -}}

{{- define "slipway.policyEnv" -}}
{{- if .Values.policy.enabled }}
- name: SLIPWAY_POLICY_DIR
  value: /etc/slipway/policy
{{- end }}
{{- end -}}

{{- define "slipway.policyMount" -}}
{{- if .Values.policy.enabled }}
- name: policy
  mountPath: /etc/slipway/policy
  readOnly: true
{{- end }}
{{- end -}}

{{- define "slipway.policyVolume" -}}
{{- if .Values.policy.enabled }}
- name: policy
  configMap:
    name: {{ .Values.policy.existingConfigMap | default (printf "%s-policy" (include "slipway.fullname" .)) | quote }}
{{- end }}
{{- end -}}

{{/* slipway.probes: /healthz (alive) and /readyz (ready) on port; (list port scheme). */}}
{{- define "slipway.probes" -}}
livenessProbe:
  httpGet: {path: /healthz, port: {{ index . 0 }}, scheme: {{ index . 1 }}}
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
readinessProbe:
  httpGet: {path: /readyz, port: {{ index . 0 }}, scheme: {{ index . 1 }}}
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 2
{{- end -}}
