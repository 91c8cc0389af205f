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
{{- /*
The Secret with the serving certificate. Each mode has its own name: the one
cert-manager writes is not the release's (cert-manager creates it and keeps it
when its Certificate is deleted), so a self-managed Secret of the same name
could not be created when switching from cert-manager to self-managed.
*/ -}}
{{- define "claimbridge.secretName" -}}
{{- if eq .Values.certificates.mode "cert-manager" -}}
{{ include "claimbridge.fullname" . }}-serving-cert
{{- else -}}
{{ include "claimbridge.fullname" . }}-webhook-server-cert
{{- end -}}
{{- end -}}
{{- define "claimbridge.webhookConfigName" -}}{{ include "claimbridge.fullname" . }}-validating-webhook-configuration{{- end -}}
{{- define "claimbridge.mutatingWebhookConfigName" -}}{{ include "claimbridge.fullname" . }}-mutating-webhook-configuration{{- end -}}
{{- define "claimbridge.selfManaged" -}}{{ eq .Values.certificates.mode "self-managed" }}{{- end -}}

{{- /* The server calls the API when it manages its certificates or authenticates scrapes. */ -}}
{{- define "claimbridge.needsAPI" -}}
{{- or (eq .Values.certificates.mode "self-managed") (and .Values.metrics.enabled .Values.metrics.secure) -}}
{{- end -}}

{{- /*
"true" when the chart renders the token policy (templates/tokenpolicy.yaml):
self-managed, and restrictToken true, or auto on a cluster that serves
ValidatingAdmissionPolicy; the server then checks it (--token-policy-check-interval).
*/ -}}
{{- define "claimbridge.tokenPolicy" -}}
{{- $restrict := toString .Values.certificates.selfManaged.restrictToken -}}
{{- $vapServed := .Capabilities.APIVersions.Has "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy" -}}
{{- if and (eq .Values.certificates.mode "self-managed") (or (eq $restrict "true") (and (eq $restrict "auto") $vapServed)) -}}
true
{{- end -}}
{{- end -}}

{{- define "claimbridge.checkValues" -}}
{{- if not (has .Values.certificates.mode (list "self-managed" "cert-manager")) -}}
{{- fail (printf "certificates.mode %q: must be self-managed or cert-manager" .Values.certificates.mode) -}}
{{- end -}}
{{- if and (eq .Values.certificates.mode "self-managed") (has .Release.Namespace (list "default" "kube-system" "kube-public")) -}}
{{- fail (printf "namespace %q: with certificates.mode=self-managed the server's ServiceAccount may update the cluster's claimbridge CRDs and webhook configurations, and whoever may create pods in its namespace may run them as it; install into a namespace of its own, e.g. --namespace claimbridge-system --create-namespace" .Release.Namespace) -}}
{{- end -}}
{{- if not (has .Values.webhook.failurePolicy (list "Fail" "Ignore")) -}}
{{- fail (printf "webhook.failurePolicy %q: must be Fail or Ignore" .Values.webhook.failurePolicy) -}}
{{- end -}}
{{- if or (lt (int .Values.webhook.timeoutSeconds) 1) (gt (int .Values.webhook.timeoutSeconds) 30) -}}
{{- fail "webhook.timeoutSeconds: must be between 1 and 30" -}}
{{- end -}}
{{- if .Values.autoscaling.enabled -}}
{{- if lt (int .Values.autoscaling.minReplicas) 1 -}}
{{- fail "autoscaling.minReplicas: must be at least 1" -}}
{{- end -}}
{{- if lt (int .Values.autoscaling.maxReplicas) (int .Values.autoscaling.minReplicas) -}}
{{- fail "autoscaling.maxReplicas: must be at least autoscaling.minReplicas" -}}
{{- end -}}
{{- end -}}
{{- if .Values.podDisruptionBudget.enabled -}}
{{- $replicas := int .Values.replicaCount -}}
{{- $from := "replicaCount" -}}
{{- if .Values.autoscaling.enabled -}}
{{- $replicas = int .Values.autoscaling.minReplicas -}}
{{- $from = "autoscaling.minReplicas" -}}
{{- end -}}
{{- $min := .Values.podDisruptionBudget.minAvailable -}}
{{- $need := 0 -}}
{{- if and (kindIs "string" $min) (hasSuffix "%" $min) -}}
{{- $need = div (add (mul (atoi (trimSuffix "%" $min)) $replicas) 99) 100 -}}
{{- else -}}
{{- $need = int (toString $min | atoi) -}}
{{- end -}}
{{- if ge (int $need) $replicas -}}
{{- fail (printf "podDisruptionBudget.minAvailable %v with %s %d: no pod could ever be evicted and every node drain would hang; run more replicas, lower minAvailable, or set podDisruptionBudget.enabled=false" $min $from $replicas) -}}
{{- end -}}
{{- end -}}
{{- if has (int .Values.metrics.port) (list 9443 8081) -}}
{{- fail (printf "metrics.port %v: the webhook listens on 9443 and the probes on 8081" .Values.metrics.port) -}}
{{- end -}}
{{- range .Values.extraArgs -}}
{{- $name := regexReplaceAll "=.*$" (toString .) "" -}}
{{- if not (hasPrefix "--" $name) -}}
{{- fail (printf "extraArgs %q: each entry is one flag, --name=value" .) -}}
{{- end -}}
{{- if has $name (list "--cert-dir" "--dns-name" "--cert-mode" "--cert-secret" "--cert-inject-crd" "--cert-inject-validating-webhook-configuration" "--cert-inject-mutating-webhook-configuration" "--cert-duration" "--cert-renew-before" "--tls-cert-file" "--tls-private-key-file" "--port" "--health-probe-bind-address" "--metrics-bind-address" "--metrics-secure") -}}
{{- fail (printf "extraArgs %q: the chart sets %s itself or relies on its default (ports, probes, certificates, metrics; see values.yaml)" . $name) -}}
{{- end -}}
{{- if and (eq $name "--token-policy-check-interval") (eq (include "claimbridge.tokenPolicy" $) "true") -}}
{{- fail (printf "extraArgs %q: the chart sets --token-policy-check-interval itself when it renders the token policy (certificates.selfManaged.restrictToken)" .) -}}
{{- end -}}
{{- end -}}
{{- end -}}
