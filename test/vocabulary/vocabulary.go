/*
Copyright 2026 The KubAge Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package vocabulary is the words a root-cause summary must carry for a reader who did not
// write the rules: the culprit's kind and name, the reason Kubernetes reports, the words of the
// mechanism and, for a reference, the object that holds it. The rule engine's tests check every
// summary they produce against it.
package vocabulary

import (
	"strings"

	"github.com/kubage/kubage/internal/agent"
)

// Vocabulary is, for every rule of the catalogue, the words a competent SRE expects in its
// summary: the reason Kubernetes itself reports (verbatim) and the standard words of the
// mechanism. "a|b" accepts either spelling. Rules that conclude nothing (no-problem-found,
// inconclusive, ...) are listed with no words.
var Vocabulary = map[string][]string{
	// Pods and containers.
	"crash-loop":                      {"CrashLoopBackOff", "exit code|exiting with code"},
	"oom-killed":                      {"OOMKilled", "memory limit"},
	"image-pull-not-found":            {"ErrImagePull|ImagePullBackOff", "image"},
	"image-pull-auth":                 {"ErrImagePull|ImagePullBackOff", "imagePullSecrets|credentials"},
	"image-pull-error":                {"ErrImagePull|ImagePullBackOff", "image"},
	"invalid-image-name":              {"InvalidImageName", "image"},
	"configmap-missing":               {"ConfigMap", "does not exist|not found"},
	"configmap-key-missing":           {"ConfigMap", "key"},
	"secret-missing":                  {"Secret", "does not exist|not found"},
	"secret-key-missing":              {"Secret", "key"},
	"create-container-error":          {"CreateContainerError|RunContainerError|ContainerCannotRun|CreateContainerConfigError|FailedCreatePodSandBox"},
	"container-failed":                {"exit code|exited with code"},
	"key-file-mode-too-open":          {"defaultMode", "Secret|ConfigMap"},
	"container-command-invalid":       {"exit code", "command|args"},
	"readiness-probe-failing":         {"readiness probe", "ready"},
	"liveness-probe-failing":          {"liveness probe|startup probe", "restart"},
	"container-not-ready":             {"ready"},
	"pod-evicted":                     {"Evicted"},
	"storageclass-topology-unmatched": {"StorageClass", "allowedTopologies", "Pending"},
	"pvc-nodename-bypasses-scheduler": {"nodeName", "WaitForFirstConsumer", "scheduler"},
	"toleration-seconds-evicts":       {"tolerationSeconds", "NoExecute", "evict|deletes"},
	"init-container-blocked":          {"init container", "Init:"},
	"deletion-blocked":                {"finalizer", "deleted|deleting|deletion|Terminating"},
	"pod-stuck-terminating":           {"Terminating|deleting|deletion", "finalizer|grace period|node"},
	"pod-on-unhealthy-node":           {"Node", "Ready|Pressure|NetworkUnavailable"},
	"config-value-missing":            {"env|environment"},
	"config-file-missing":             {"mount|volume", "key|file"},
	"config-file-invalid":             {"ConfigMap", "key"},
	"config-value-rejected":           {"the error quotes|the error names", "key|arguments|env"},
	"migration-rejected":              {"migration", "applied|dirty"},
	"volume-full":                     {"no space left on device"},
	"mount-not-writable":              {"volumeMount|readOnly|read-only|fsGroup|runAsUser"},
	"dependency-connection-limit":     {"connections|clients", "replicas"},
	"connection-pool-exhausted":       {"connection pool", "threads|concurrency|pool size"},
	"resource-env-unit-mismatch":      {"divisor", "downward API"},
	// Scheduling.
	"unschedulable-insufficient-resources": {"FailedScheduling|Insufficient", "requests|request"},
	"unschedulable-taint":                  {"taint", "toleration"},
	"unschedulable-node-affinity":          {"nodeSelector|node affinity", "node"},
	"unschedulable-nodes-cordoned":         {"cordoned|unschedulable"},
	"unschedulable":                        {"FailedScheduling|schedul"},
	"unschedulable-preemption-never":       {"preemptionPolicy", "priority"},
	"unschedulable-volume-node-affinity":   {"node affinity", "PersistentVolume", "volumeBindingMode"},
	"unschedulable-device-plugin":          {"device plugin", "allocatable"},
	"unschedulable-topology-spread":        {"topology spread", "maxSkew"},
	"unschedulable-host-port":              {"hostPort", "node"},
	"pod-pvc-pending":                      {"PersistentVolumeClaim", "Pending|unbound"},
	"pvc-missing":                          {"PersistentVolumeClaim", "does not exist|not found"},
	// Storage.
	"pvc-storageclass-missing":    {"StorageClass", "PersistentVolumeClaim|claim", "does not exist|not found"},
	"pvc-no-default-storageclass": {"StorageClass", "default", "PersistentVolumeClaim|claim"},
	"pvc-no-provisioner":          {"StorageClass", "provisioner"},
	"pvc-no-matching-pv":          {"PersistentVolume", "PersistentVolumeClaim|claim"},
	"pvc-access-mode-unsupported": {"access mode|accessModes", "ReadWriteOnce|ReadWriteMany|ReadOnlyMany|ReadWriteOncePod"},
	"pvc-provisioning-failed":     {"ProvisioningFailed|provision"},
	"pvc-lost":                    {"Lost|PersistentVolume"},
	"volume-mount-failed":         {"FailedMount|FailedAttachVolume|mount"},
	"statefulset-pvc-pending":     {"PersistentVolumeClaim|claim", "Pending"},
	// Services, networking, ingress.
	"service-selector-mismatch":     {"selector", "endpoints|matches no pods|no pods"},
	"service-target-port-mismatch":  {"targetPort", "port"},
	"service-no-endpoints":          {"selector", "endpoints"},
	"service-no-ready-endpoints":    {"endpoints|ready"},
	"service-workload-no-pods":      {"selector|pods", "replicas"},
	"deployment-scaled-to-zero":     {"replicas", "0|zero"},
	"networkpolicy-deny-ingress":    {"NetworkPolicy", "ingress"},
	"networkpolicy-deny-egress":     {"NetworkPolicy", "egress"},
	"ingress-backend-missing":       {"Ingress", "Service", "does not exist|not found"},
	"ingress-path-type-mismatch":    {"Ingress", "pathType|Exact"},
	"ingress-backend-port-mismatch": {"Ingress", "port"},
	"ingress-class-missing":         {"IngressClass", "ingressClassName|default"},
	"ingress-tls-secret-missing":    {"Ingress", "TLS", "Secret"},
	"dependency-host-unknown":       {"Service|host"},
	"dependency-port-mismatch":      {"port", "Service"},
	"dependency-protocol-mismatch":  {"TLS|HTTPS|https", "scheme"},
	"service-link-collision":        {"enableServiceLinks", "Service"},
	"server-advertises-loopback":    {"localhost|127.0.0.1|0.0.0.0", "Service"},
	"dependency-default-address":    {"loopback", "default"},
	"config-setting-named":          {"setting", "the error names"},
	"setting-switched-off":          {"switches it off"},
	"service-session-affinity":      {"sessionAffinity", "ClientIP"},
	"provider-listens-loopback":     {"loopback", "0.0.0.0"},
	// The catalogue of well-known errors (internal/agent/knownerrors.go).
	"single-writer-store-shared":    {"SQLite", "replicas|ReadWriteMany"},
	"pooler-transaction-mode":       {"pool_mode|POOL_MODE", "prepared statement"},
	"write-to-read-replica":         {"replica|standby", "read-only|read_only|--read-only|READONLY"},
	"disk-watermark-read-only":      {"watermark", "claim"},
	"worker-pool-by-cpus":           {"OOMKilled", "CPU", "memory limit"},
	"topic-not-created":             {"topic", "auto.create.topics.enable|AUTO_CREATE_TOPICS_ENABLE"},
	"server-limit-reached":          {"limit"},
	"client-connection-setting":     {"connection"},
	"server-access-rule":            {"refuses|refused"},
	"runtime-memory-setting":        {"heap|Metaspace|memory_limit", "memory limit"},
	"request-timeout-setting":       {"timeout"},
	"server-volume-unwritable":      {"claim", "write|persist"},
	"data-directory-setting":        {"data directory", "mount"},
	"process-os-limit":              {"node|container", "limit|/dev/shm"},
	"provider-setting-limit":        {"Service", "setting"},
	"pod-dns-misconfigured":         {"dnsPolicy|dnsConfig", "resolve|DNS"},
	"dependency-unreachable":        {"Service"},
	"dependency-auth-failed":        {"Secret|credentials|password"},
	"certificate-expired":           {"certificate", "expired|not valid"},
	"tls-material-invalid":          {"certificate", "key|PEM"},
	"certificate-name-mismatch":     {"certificate", "valid for|DNS names"},
	"pod-subdomain-service-missing": {"subdomain", "Service"},
	"agent-address-pod-ip":          {"status.podIP", "status.hostIP"},
	"ingress-annotation-ignored":    {"annotation", "controller"},
	"schema-not-migrated":           {"Job", "migration|schema"},
	// Workloads and controllers.
	"quota-exceeded":              {"ResourceQuota", "exceeded quota|quota", "FailedCreate|used"},
	"quota-missing-requests":      {"ResourceQuota", "requests|limits"},
	"quota-exhausted":             {"ResourceQuota", "used|hard"},
	"limitrange-violation":        {"LimitRange", "limit|request"},
	"admission-webhook-failing":   {"webhook", "failurePolicy", "FailedCreate"},
	"admission-denied":            {"admission|PodSecurity", "FailedCreate|denied|forbidden"},
	"serviceaccount-missing":      {"ServiceAccount", "FailedCreate|not found|does not exist"},
	"priorityclass-missing":       {"PriorityClass", "not found|does not exist"},
	"runtimeclass-missing":        {"RuntimeClass", "not found|does not exist"},
	"workload-create-failed":      {"FailedCreate|cannot create"},
	"workload-pods-unhealthy":     {"replicas", "ready"},
	"rollout-stuck":               {"ProgressDeadlineExceeded|progress deadline", "rollout"},
	"rollout-held":                {"OnDelete|partition", "updateStrategy|rollingUpdate", "revision"},
	"deployment-paused":           {"paused", "rollout|template"},
	"statefulset-service-missing": {"serviceName", "Service"},
	"daemonset-taint-excluded":    {"taint", "toleration", "desiredNumberScheduled"},
	"daemonset-no-nodes":          {"DaemonSet", "nodeSelector|node affinity"},
	"pull-secret-missing":         {"imagePullSecrets", "Secret"},
	"hpa-maxed-out":               {"HorizontalPodAutoscaler|HPA", "maxReplicas|maximum"},
	"hpa-metrics-unavailable":     {"HorizontalPodAutoscaler|HPA", "metrics"},
	"hpa-ambiguous-selector":      {"HorizontalPodAutoscaler", "AmbiguousSelector"},
	"hpa-missing-requests":        {"HorizontalPodAutoscaler|HPA", "request"},
	"hpa-scale-blocked":           {"HorizontalPodAutoscaler|HPA", "replicas"},
	"hpa-target-missing":          {"HorizontalPodAutoscaler|HPA", "scaleTargetRef|target", "does not exist|not found"},
	"pdb-blocking":                {"PodDisruptionBudget", "disruptions", "minAvailable|maxUnavailable"},
	"pdb-selects-no-pods":         {"PodDisruptionBudget", "selector|selects no pods"},
	"pdb-overlap":                 {"PodDisruptionBudget", "multiple|more than one", "evict"},
	// Jobs and CronJobs.
	"job-backoff-limit":           {"BackoffLimitExceeded", "backoffLimit"},
	"job-deadline-exceeded":       {"DeadlineExceeded", "activeDeadlineSeconds"},
	"job-failed":                  {"Job", "failed"},
	"job-pod-failure-policy":      {"podFailurePolicy", "PodFailurePolicy|FailedIndexes", "FailJob|FailIndex"},
	"job-parallelism-zero":        {"parallelism"},
	"job-suspended":               {"suspend"},
	"cronjob-suspended":           {"suspend"},
	"cronjob-invalid-schedule":    {"schedule"},
	"cronjob-missed-schedules":    {"schedule"},
	"cronjob-jobs-pile-up":        {"concurrencyPolicy", "ResourceQuota", "Jobs"},
	"cronjob-concurrency-blocked": {"concurrencyPolicy", "Forbid"},
	"cronjob-runs-replaced":       {"concurrencyPolicy", "Replace"},
	"cronjob-history-hidden":      {"HistoryLimit", "deletes"},
	"cronjob-job-failing":         {"Job", "failed"},
	// Nodes.
	"node-not-ready":           {"NotReady"},
	"node-memory-pressure":     {"MemoryPressure"},
	"node-disk-pressure":       {"DiskPressure"},
	"node-pid-pressure":        {"PIDPressure"},
	"node-network-unavailable": {"NetworkUnavailable"},
	"node-cordoned":            {"cordoned|unschedulable"},
	// RBAC.
	"rbac-forbidden":                {"RBAC", "Role|RoleBinding|ClusterRole"},
	"serviceaccount-not-set":        {"serviceAccountName", "RoleBinding"},
	"service-backends-wrong":        {"selector|publishNotReadyAddresses", "Service"},
	"proxy-intercepts-cluster-call": {"NO_PROXY", "proxy"},
	"rolebinding-role-missing":      {"RoleBinding", "Role|ClusterRole", "does not exist|not found"},
	"rbac-allowed":                  {"allowed"},
	"app-error-logged":              {"log"},
	"controller-skips-object":       {"skips", "log"},
	// Conclusions without a failure: nothing to name.
	"no-problem-found": nil, "inconclusive": nil, "target-not-found": nil, "unsupported-target": nil,
}

// Referencing are the rules whose culprit is an object something else names; holders are
// the kinds that hold such a name.
var (
	Referencing = map[string]bool{
		"configmap-missing": true, "secret-missing": true, "configmap-key-missing": true, "secret-key-missing": true,
		"pvc-missing": true, "pvc-storageclass-missing": true, "serviceaccount-missing": true, "pull-secret-missing": true,
		"statefulset-service-missing": true, "priorityclass-missing": true, "runtimeclass-missing": true,
		"ingress-tls-secret-missing": true, "ingress-backend-missing": true, "ingress-class-missing": true, "rolebinding-role-missing": true, "hpa-target-missing": true,
	}
	holders = map[string]bool{
		"Deployment": true, "StatefulSet": true, "DaemonSet": true, "CronJob": true, "Job": true, "Pod": true, "ReplicaSet": true,
		"Ingress": true, "PersistentVolumeClaim": true, "RoleBinding": true, "HorizontalPodAutoscaler": true, "Service": true,
	}
)

// NamesObject reports whether text names r as "Kind name" or "Kind/name" (the kind in any case).
func NamesObject(text string, r agent.ObjectRef) bool {
	low := strings.ToLower(text)
	for _, sep := range []string{" ", "/", " \"", " '"} {
		needle := strings.ToLower(r.Kind + sep + r.Name)
		for i := 0; ; {
			j := strings.Index(low[i:], needle)
			if j < 0 {
				break
			}
			end := i + j + len(needle)
			if end == len(low) || !strings.ContainsRune("abcdefghijklmnopqrstuvwxyz0123456789-", rune(low[end])) {
				return true
			}
			i += j + 1
		}
	}
	return false
}

// HasTerm reports whether summary carries one of the term's spellings (case-insensitively).
func HasTerm(summary, term string) bool {
	s := strings.ToLower(summary)
	for _, alt := range strings.Split(term, "|") {
		if strings.Contains(s, strings.ToLower(alt)) {
			return true
		}
	}
	return false
}

// Gaps lists what rc's summary lacks of its rule's vocabulary (nil: nothing).
func Gaps(rc agent.RootCause) []string {
	words, ok := Vocabulary[rc.Rule]
	if !ok || words == nil {
		return nil
	}
	var out []string
	if !NamesObject(rc.Summary, rc.Culprit) {
		out = append(out, "the culprit "+rc.Culprit.Kind+" "+rc.Culprit.Name)
	}
	if Referencing[rc.Rule] {
		named, holder := false, false
		for _, r := range rc.AffectedObjects {
			if r.Key() != rc.Culprit.Key() && holders[r.Kind] {
				holder = true
				named = named || NamesObject(rc.Summary, r)
			}
		}
		if holder && !named {
			out = append(out, "the object that refers to the culprit (one of the affected objects)")
		}
	}
	for _, w := range words {
		if !HasTerm(rc.Summary, w) {
			out = append(out, "the term "+w)
		}
	}
	return out
}
