{{/* Name of every object: the release name unless fullnameOverride is set. */}}
{{- define "spinagent-agent.fullname" -}}
{{- default .Release.Name .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "spinagent-agent.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "spinagent-agent.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "spinagent-agent.tokenSecretName" -}}
{{- default (printf "%s-clouddriver-token" (include "spinagent-agent.fullname" .)) .Values.clouddriver.tokenSecret.name -}}
{{- end -}}

{{/* The admin port: config.server.port, or the agent's default. */}}
{{- define "spinagent-agent.adminPort" -}}
{{- $server := .Values.config.server | default dict -}}
{{- $server.port | default 8082 | int -}}
{{- end -}}

{{/* Labels selecting the agent's pods. */}}
{{- define "spinagent-agent.selectorLabels" -}}
app.kubernetes.io/name: spinagent-agent
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "spinagent-agent.labels" -}}
{{ include "spinagent-agent.selectorLabels" . }}
app.kubernetes.io/part-of: spinagent
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/*
Fails on what values.schema.json cannot say clearly: a value required by another one's setting.
(Unknown keys, types and enums are refused by the schema.)
*/}}
{{- define "spinagent-agent.checkValues" -}}
{{- if and (eq .Values.mode "infrastructure") (not .Values.kubeconfigs.secretName) -}}
{{- fail "kubeconfigs.secretName is required in infrastructure mode: the Secret holding one kubeconfig per key" -}}
{{- end -}}
{{- end -}}

{{/* Read access to what the agent watches in a namespace (its default kinds). */}}
{{- define "spinagent-agent.namespacedWatchRules" -}}
- apiGroups: [""]
  resources: [pods, services]
  verbs: [get, list, watch]
- apiGroups: [apps]
  resources: [deployments, replicasets, daemonsets, statefulsets]
  verbs: [get, list, watch]
- apiGroups: [batch]
  resources: [jobs, cronjobs]
  verbs: [get, list, watch]
- apiGroups: [networking.k8s.io]
  resources: [ingresses, networkpolicies]
  verbs: [get, list, watch]
{{- end -}}

{{/*
Pod metrics, read-only accounts included: Clouddriver runs kubectl top pod through the tunnel when
the account's definition has metrics: true. The cluster-wide rules for kubectl top node are in the
ClusterRole.
*/}}
{{- define "spinagent-agent.podMetricsRules" -}}
- apiGroups: [metrics.k8s.io]
  resources: [pods]
  verbs: [get, list]
{{- end -}}

{{/* What Clouddriver's kubectl does through the agent's tunnel when it deploys. */}}
{{- define "spinagent-agent.deployRules" -}}
- apiGroups: [""]
  resources: [pods, services, configmaps, secrets, serviceaccounts, persistentvolumeclaims]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [apps]
  resources: [deployments, replicasets, daemonsets, statefulsets]
  verbs: [create, update, patch, delete]
- apiGroups: [batch]
  resources: [jobs, cronjobs]
  verbs: [create, update, patch, delete]
- apiGroups: [networking.k8s.io]
  resources: [ingresses, networkpolicies]
  verbs: [create, update, patch, delete]
- apiGroups: [autoscaling]
  resources: [horizontalpodautoscalers]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [policy]
  resources: [poddisruptionbudgets]
  verbs: [get, list, watch, create, update, patch, delete]
- apiGroups: [apps]
  resources: [deployments/scale, replicasets/scale, statefulsets/scale]
  verbs: [get, update, patch]
- apiGroups: [apps]
  resources: [controllerrevisions]
  verbs: [get, list, watch]
- apiGroups: [""]
  resources: [pods/log]
  verbs: [get]
- apiGroups: ["", events.k8s.io]
  resources: [events]
  verbs: [get, list, watch]
{{- end -}}
