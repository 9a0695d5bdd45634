{{/* Names and labels shared by every template. */}}

{{- define "kubage.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* fullname: "<release>-kubage", or the release name when it already contains the chart name. */}}
{{- define "kubage.fullname" -}}
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

{{- define "kubage.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "kubage.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{- define "kubage.selectorLabels" -}}
app.kubernetes.io/name: {{ include "kubage.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Selector of the manager pods. */}}
{{- define "kubage.managerSelector" -}}
{{ include "kubage.selectorLabels" . }}
app.kubernetes.io/component: manager
{{- end }}

{{/* Selector of the MCP server pods. */}}
{{- define "kubage.mcpSelector" -}}
{{ include "kubage.selectorLabels" . }}
app.kubernetes.io/component: mcp
{{- end }}

{{- define "kubage.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (printf "%s-manager" (include "kubage.fullname" .)) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "kubage.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The model Secret the manager defaults to, or "" for the rule engine alone. */}}
{{- define "kubage.modelSecret" -}}
{{- if .Values.model.existingSecret }}
{{- .Values.model.existingSecret }}
{{- else if .Values.model.create }}
{{- printf "%s-model" (include "kubage.fullname" .) }}
{{- end }}
{{- end }}

{{- define "kubage.alertsTokenSecret" -}}
{{- if .Values.alerts.token.existingSecret }}
{{- .Values.alerts.token.existingSecret }}
{{- else }}
{{- printf "%s-alerts-token" (include "kubage.fullname" .) }}
{{- end }}
{{- end }}

{{- define "kubage.webhookCertSecret" -}}
{{- if .Values.approvals.tls.existingSecret }}
{{- .Values.approvals.tls.existingSecret }}
{{- else }}
{{- printf "%s-webhook-cert" (include "kubage.fullname" .) }}
{{- end }}
{{- end }}

{{- define "kubage.mcpTokensSecret" -}}
{{- if .Values.mcp.tokens.existingSecret }}
{{- .Values.mcp.tokens.existingSecret }}
{{- else }}
{{- printf "%s-mcp-tokens" (include "kubage.fullname" .) }}
{{- end }}
{{- end }}

{{- define "kubage.mcpTokenSecret" -}}
{{- if .Values.mcp.token.existingSecret }}
{{- .Values.mcp.token.existingSecret }}
{{- else }}
{{- printf "%s-mcp-token" (include "kubage.fullname" .) }}
{{- end }}
{{- end }}

{{/*
The rules of one RBAC file of files/rbac (a copy of config/ made by `make manifests`), so that
the chart grants exactly what the kustomize install grants.
*/}}
{{- define "kubage.rulesOf" -}}
{{- $doc := .root.Files.Get (printf "files/rbac/%s" .file) | fromYaml }}
{{- if not $doc.rules }}
{{- fail (printf "files/rbac/%s has no rules: run make manifests" .file) }}
{{- end }}
{{- toYaml $doc.rules }}
{{- end }}
