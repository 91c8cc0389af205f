{{- define "claimbridge.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "claimbridge.selectorLabels" -}}
app.kubernetes.io/name: claimbridge
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: webhook
{{- end -}}

{{- define "claimbridge.labels" -}}
{{ include "claimbridge.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "claimbridge.serviceName" -}}{{ include "claimbridge.fullname" . }}-webhook{{- end -}}
{{- define "claimbridge.secretName" -}}{{ include "claimbridge.fullname" . }}-webhook-server-cert{{- end -}}
{{- define "claimbridge.webhookConfigName" -}}{{ include "claimbridge.fullname" . }}-validating-webhook-configuration{{- end -}}
{{- define "claimbridge.selfManaged" -}}{{ eq .Values.certificates.mode "self-managed" }}{{- end -}}

{{- /* The server calls the API when it manages its certificates or authenticates scrapes. */ -}}
{{- define "claimbridge.needsAPI" -}}
{{- or (eq .Values.certificates.mode "self-managed") (and .Values.metrics.enabled .Values.metrics.secure) -}}
{{- end -}}

{{- define "claimbridge.checkValues" -}}
{{- if not (has .Values.certificates.mode (list "self-managed" "cert-manager")) -}}
{{- fail (printf "certificates.mode %q: must be self-managed or cert-manager" .Values.certificates.mode) -}}
{{- end -}}
{{- if not (has .Values.webhook.failurePolicy (list "Fail" "Ignore")) -}}
{{- fail (printf "webhook.failurePolicy %q: must be Fail or Ignore" .Values.webhook.failurePolicy) -}}
{{- end -}}
{{- if or (lt (int .Values.webhook.timeoutSeconds) 1) (gt (int .Values.webhook.timeoutSeconds) 30) -}}
{{- fail "webhook.timeoutSeconds: must be between 1 and 30" -}}
{{- end -}}
{{- end -}}
