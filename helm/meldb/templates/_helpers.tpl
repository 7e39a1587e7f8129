{{/* Names, labels and the pieces every MeldDB pod shares. */}}

{{- define "meldb.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Release-wide prefix, short enough that "<prefix>-gateway-<hash>" stays a valid name. */}}
{{- define "meldb.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "meldb.log.name" -}}{{ include "meldb.fullname" . }}-log{{- end }}

{{/* Every log pod's stable DNS name and log port, host:port,... (a txn-server's --log) */}}
{{- define "meldb.log.addresses" -}}
{{- $log := include "meldb.log.name" . }}
{{- $list := list }}
{{- range $i := until (int .Values.logServer.replicas) }}
{{- $list = append $list (printf "%s-%d.%s.%s.svc.%s:%d" $log $i $log $.Release.Namespace $.Values.clusterDomain (int $.Values.logServer.ports.log)) }}
{{- end }}
{{- join "," $list }}
{{- end }}

{{/* The Raft peers of a replicated log: pod name = stable DNS name : Raft port : log port, ... (--peers) */}}
{{- define "meldb.log.peers" -}}
{{- $log := include "meldb.log.name" . }}
{{- $list := list }}
{{- range $i := until (int .Values.logServer.replicas) }}
{{- $list = append $list (printf "%s-%d=%s-%d.%s.%s.svc.%s:%d:%d" $log $i $log $i $log $.Release.Namespace $.Values.clusterDomain (int $.Values.logServer.ports.raft) (int $.Values.logServer.ports.log)) }}
{{- end }}
{{- join "," $list }}
{{- end }}
{{- define "meldb.txn.name" -}}{{ include "meldb.fullname" . }}-txn{{- end }}
{{- define "meldb.gateway.name" -}}{{ include "meldb.fullname" . }}-gateway{{- end }}
{{- define "meldb.cluster.name" -}}{{ include "meldb.fullname" . }}-cluster{{- end }}

{{- define "meldb.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "meldb.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: meldb
{{- end }}

{{/* Selector labels of one role: (dict "ctx" $ "component" "log|txn|gateway") */}}
{{- define "meldb.selectorLabels" -}}
app.kubernetes.io/name: {{ include "meldb.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "meldb.image" -}}
{{- $tag := default .ctx.Chart.AppVersion .ctx.Values.image.tag -}}
{{ printf "%s/%s:%s" .ctx.Values.image.repository .role $tag }}
{{- end }}

{{- define "meldb.authSecretName" -}}
{{- if .Values.auth.existingSecret }}{{ .Values.auth.existingSecret }}{{ else }}{{ include "meldb.fullname" . }}-auth{{ end }}
{{- end }}

{{- define "meldb.pgUsersSecretName" -}}
{{- if .Values.gateway.postgresql.existingSecret }}{{ .Values.gateway.postgresql.existingSecret }}{{ else }}{{ include "meldb.fullname" . }}-pg-users{{ end }}
{{- end }}

{{/* The txn-servers' stable addresses, one per StatefulSet ordinal, for the gateway's --txn-servers. */}}
{{- define "meldb.txnServers" -}}
{{- $name := include "meldb.txn.name" . -}}
{{- $list := list -}}
{{- range $i := until (int .Values.txnServer.replicas) -}}
{{- $list = append $list (printf "%s-%d.%s.%s.svc.%s:%d" $name $i $name $.Release.Namespace $.Values.clusterDomain (int $.Values.txnServer.ports.rpc)) -}}
{{- end -}}
{{ join "," $list }}
{{- end }}

{{/* Where the cluster secret is mounted, and the flag every server gets. */}}
{{- define "meldb.authArgs" -}}
{{- if .Values.auth.enabled }}
- --cluster-secret-file
- /etc/meldb/auth/{{ .Values.auth.secretKey }}
{{- end }}
{{- end }}

{{- define "meldb.authVolumeMount" -}}
{{- if .Values.auth.enabled }}
- name: cluster-secret
  mountPath: /etc/meldb/auth
  readOnly: true
{{- end }}
{{- end }}

{{- define "meldb.authVolume" -}}
{{- if .Values.auth.enabled }}
- name: cluster-secret
  secret:
    secretName: {{ include "meldb.authSecretName" . }}
    defaultMode: 0440
    items:
      - key: {{ .Values.auth.secretKey }}
        path: {{ .Values.auth.secretKey }}
{{- end }}
{{- end }}

{{/* Anti-affinity of one role: (dict "ctx" $ "component" "txn" "mode" "soft|hard") */}}
{{- define "meldb.podAntiAffinity" -}}
{{- if eq .mode "hard" }}
podAntiAffinity:
  requiredDuringSchedulingIgnoredDuringExecution:
    - topologyKey: kubernetes.io/hostname
      labelSelector:
        matchLabels:
          {{- include "meldb.selectorLabels" (dict "ctx" .ctx "component" .component) | nindent 10 }}
{{- else if eq .mode "soft" }}
podAntiAffinity:
  preferredDuringSchedulingIgnoredDuringExecution:
    - weight: 100
      podAffinityTerm:
        topologyKey: kubernetes.io/hostname
        labelSelector:
          matchLabels:
            {{- include "meldb.selectorLabels" (dict "ctx" .ctx "component" .component) | nindent 12 }}
{{- else if ne .mode "none" }}
{{- fail (printf "podAntiAffinity must be soft, hard or none, got %q" .mode) }}
{{- end }}
{{- end }}
