{{- /*
The chart's name (nameOverride): the app.kubernetes.io/name label and, unless
the release name already contains it, the second half of fullname.
*/ -}}
{{- define "claimbridge.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 50 | trimSuffix "-" -}}
{{- end -}}

{{- /*
What every object's name derives from (fullnameOverride). 50 characters at
most: "-webhook" makes the Service name, a DNS label of 63 at most, and the
longest suffix ("-validating-webhook-configuration") still fits the 253 of a
cluster-scoped name.
*/ -}}
{{- define "claimbridge.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "claimbridge.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "claimbridge.selectorLabels" -}}
app.kubernetes.io/name: {{ include "claimbridge.name" . }}
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

{{- /*
The container ports. Read with defaults: `helm upgrade --reuse-values` from a
release of a chart without these values passes none (webhook.port 0 would be
--port=0, a random port).
*/ -}}
{{- define "claimbridge.webhookPort" -}}{{ .Values.webhook.port | default 9443 }}{{- end -}}
{{- define "claimbridge.healthPort" -}}{{ dig "port" 8081 (.Values.health | default dict) }}{{- end -}}

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
{{- /* Two listeners on one port crash-loop the pod. */ -}}
{{- $ports := dict "webhook.port" (int (include "claimbridge.webhookPort" .)) "health.port" (int (include "claimbridge.healthPort" .)) -}}
{{- if .Values.metrics.enabled -}}
{{- $_ := set $ports "metrics.port" (int .Values.metrics.port) -}}
{{- end -}}
{{- range $a, $pa := $ports -}}
{{- range $b, $pb := $ports -}}
{{- if and (lt $a $b) (eq $pa $pb) -}}
{{- fail (printf "%s and %s are both %d: the webhook, the health probes and the metrics each need a port of their own" $a $b $pa) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- /*
A host-network pod binds its ports on the node, beside the node's own
daemons: the kubelet's (10250 API, 10248 healthz, 10255 read-only) and
kube-proxy's (10249 metrics, 10256 healthz). The pod would crash-loop on
every node (the kubelet, or kube-proxy, got there first).
*/ -}}
{{- if .Values.hostNetwork -}}
{{- $taken := dict "10248" "the kubelet's healthz" "10249" "kube-proxy's metrics" "10250" "the kubelet's API" "10255" "the kubelet's read-only port" "10256" "kube-proxy's healthz" -}}
{{- range $name, $port := $ports -}}
{{- with get $taken (toString $port) -}}
{{- fail (printf "%s %d with hostNetwork: the pod shares the node's ports, and %d is %s; pick another" $name $port $port .) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- /* The pod template's labels must keep the Deployment's selector. */ -}}
{{- range $key, $_ := include "claimbridge.selectorLabels" . | fromYaml -}}
{{- if hasKey ($.Values.podLabels | default dict) $key -}}
{{- fail (printf "podLabels %q: the chart sets this label itself (the Deployment's, Service's and PodDisruptionBudget's selector)" $key) -}}
{{- end -}}
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
