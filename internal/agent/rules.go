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

package agent

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Rule is one entry of the root-cause catalogue.
type Rule struct {
	// ID is the stable kebab-case slug, e.g. "crash-loop".
	ID string
	// Category is the UpperCamelCase category written to the Troubleshoot status.
	Category string
	// Confidence is the rule's base confidence in percent.
	Confidence int
	// Title says in plain words what is wrong.
	Title string
	// Signals lists what the analyzers look at to fire the rule.
	Signals string
	// Actions are remediation templates; {placeholders} come from the finding's facts.
	Actions []ActionTemplate
	// Validation are the steps that show the fix worked (templates too).
	Validation []string
}

// ActionTemplate is a remediation step with a draft command (never executed by KubAge).
type ActionTemplate struct {
	Description string
	Command     string
	Risk        Risk
}

// Catalogue is every rule the engine knows, keyed by ID.
var Catalogue = map[string]Rule{}

func rule(r Rule) { Catalogue[r.ID] = r }

// Rules returns the catalogue sorted by ID.
func Rules() []Rule {
	out := make([]Rule, 0, len(Catalogue))
	for _, r := range Catalogue {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

var placeholder = regexp.MustCompile(`\{([a-zA-Z]+)\}`)

// fill replaces {key} with facts[key]; unknown keys become <key> so drafts stay readable.
func fill(tmpl string, facts map[string]string) string {
	return placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		k := m[1 : len(m)-1]
		if v, ok := facts[k]; ok && v != "" {
			return v
		}
		return "<" + k + ">"
	})
}

// kubectlResource renders kind/name the way kubectl accepts it.
func kubectlResource(r ObjectRef) string {
	return strings.ToLower(r.Kind) + "/" + r.Name
}

func init() {
	verifyPods := "kubectl -n {ns} get pods -l {podSelector} -w  # pods become Running and Ready"
	// --- Pods and containers ---
	rule(Rule{ID: "crash-loop", Category: "CrashLoopBackOff", Confidence: 80,
		Title:   "a container keeps crashing and is restarted with back-off",
		Signals: "container waiting reason CrashLoopBackOff, lastState.terminated exit code, BackOff events, previous-instance log tail",
		Actions: []ActionTemplate{
			{Description: "Read the crashed instance's logs to see why it exits (exit code {exitCode}: {exitMeaning})", Command: "kubectl -n {ns} logs {pod} -c {container} --previous --tail=100", Risk: RiskLow},
			{Description: "Fix the application error or its configuration, or roll back to the last working revision", Command: "kubectl -n {ns} rollout undo {resource}", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get pod -l {podSelector}  # RESTARTS stops increasing", "kubectl -n {ns} rollout status {resource}"}})
	rule(Rule{ID: "oom-killed", Category: "OOMKilled", Confidence: 92,
		Title:   "a container is killed for exceeding its memory limit",
		Signals: "container state or lastState.terminated reason OOMKilled (exit 137), memory limit, restart count",
		Actions: []ActionTemplate{
			{Description: "Raise the memory limit of container {container} (currently {memoryLimit}) or reduce the application's memory use", Command: "kubectl -n {ns} set resources {resource} -c {container} --limits=memory=<larger, e.g. 2x {memoryLimit}>", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get pods -l {podSelector}  # RESTARTS stops increasing", "kubectl -n {ns} describe pod {pod} | grep -A3 'Last State'  # no OOMKilled"}})
	rule(Rule{ID: "image-pull-not-found", Category: "ImagePullNotFound", Confidence: 90,
		Title:   "the container image or tag does not exist",
		Signals: "waiting reason ErrImagePull/ImagePullBackOff with 'not found' / 'manifest unknown' in the message or Failed events",
		Actions: []ActionTemplate{
			{Description: "Point container {container} at an image that exists (now {image})", Command: "kubectl -n {ns} set image {resource} {container}=<registry/repo:existing-tag>", Risk: RiskMedium},
			{Description: "Or roll back to the previous revision", Command: "kubectl -n {ns} rollout undo {resource}", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get pods -l {podSelector}  # STATUS Running", "kubectl -n {ns} rollout status {resource}"}})
	rule(Rule{ID: "image-pull-auth", Category: "ImagePullAuth", Confidence: 88,
		Title:   "the registry refuses to serve the image without valid credentials",
		Signals: "ErrImagePull/ImagePullBackOff messages with unauthorized / authentication required / denied / 403, missing imagePullSecrets",
		Actions: []ActionTemplate{
			{Description: "Create (or fix) the registry pull secret {pullSecret}", Command: "kubectl -n {ns} create secret docker-registry {pullSecret} --docker-server=<registry> --docker-username=<user> --docker-password=<token>", Risk: RiskLow},
			{Description: "Reference it from the pod template", Command: "kubectl -n {ns} patch {resource} --type=merge -p '{\"spec\":{\"template\":{\"spec\":{\"imagePullSecrets\":[{\"name\":\"{pullSecret}\"}]}}}}'", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get pods -l {podSelector}  # no ErrImagePull"}})
	rule(Rule{ID: "image-pull-error", Category: "ImagePull", Confidence: 70,
		Title:   "the kubelet cannot pull the container image",
		Signals: "waiting reason ErrImagePull/ImagePullBackOff without a more specific message",
		Actions: []ActionTemplate{
			{Description: "Check that image {image} exists and the node can reach its registry", Command: "kubectl -n {ns} describe pod {pod}", Risk: RiskLow},
			{Description: "Point the workload at a reachable image", Command: "kubectl -n {ns} set image {resource} {container}=<image>", Risk: RiskMedium},
		},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "invalid-image-name", Category: "InvalidImageName", Confidence: 92,
		Title:      "the image reference is not a valid image name",
		Signals:    "waiting reason InvalidImageName",
		Actions:    []ActionTemplate{{Description: "Fix the image reference {image} of container {container}", Command: "kubectl -n {ns} set image {resource} {container}=<registry/repo:tag>", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "configmap-missing", Category: "ConfigMapMissing", Confidence: 95,
		Title:   "a ConfigMap the pods need does not exist",
		Signals: "CreateContainerConfigError 'configmap \"x\" not found', FailedMount events, referenced ConfigMap absent",
		Actions: []ActionTemplate{
			{Description: "Create ConfigMap {name} with the keys the pods use ({keys})", Command: "kubectl -n {ns} create configmap {name} --from-literal=<key>=<value>", Risk: RiskLow},
			{Description: "Or fix the reference in the workload if the name is wrong ({usedBy})", Command: "kubectl -n {ns} edit {workload}", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get configmap {name}", verifyPods}})
	rule(Rule{ID: "configmap-key-missing", Category: "ConfigMapKeyMissing", Confidence: 93,
		Title:      "a ConfigMap exists but lacks a key the pods reference",
		Signals:    "CreateContainerConfigError 'couldn't find key K in ConfigMap', key absent from the ConfigMap",
		Actions:    []ActionTemplate{{Description: "Add key(s) {missingKeys} to ConfigMap {name}", Command: "kubectl -n {ns} patch configmap {name} --type=merge -p '{\"data\":{\"{firstMissingKey}\":\"<value>\"}}'", Risk: RiskLow}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "secret-missing", Category: "SecretMissing", Confidence: 95,
		Title:   "a Secret the pods need does not exist",
		Signals: "CreateContainerConfigError 'secret \"x\" not found', FailedMount events, referenced Secret absent",
		Actions: []ActionTemplate{
			{Description: "Create Secret {name} with the keys the pods use ({keys})", Command: "kubectl -n {ns} create secret generic {name} --from-literal=<key>=<value>", Risk: RiskLow},
			{Description: "Or fix the reference in the workload if the name is wrong ({usedBy})", Command: "kubectl -n {ns} edit {workload}", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get secret {name}", verifyPods}})
	rule(Rule{ID: "secret-key-missing", Category: "SecretKeyMissing", Confidence: 93,
		Title:      "a Secret exists but lacks a key the pods reference",
		Signals:    "CreateContainerConfigError 'couldn't find key K in Secret', key absent from the Secret (values never read)",
		Actions:    []ActionTemplate{{Description: "Add key(s) {missingKeys} to Secret {name}", Command: "kubectl -n {ns} patch secret {name} --type=merge -p '{\"stringData\":{\"{firstMissingKey}\":\"<value>\"}}'", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "create-container-error", Category: "ContainerCreateError", Confidence: 72,
		Title:      "the runtime cannot create or start the container",
		Signals:    "waiting reason CreateContainerError / RunContainerError, terminated reason ContainerCannotRun, message",
		Actions:    []ActionTemplate{{Description: "Fix the container's command, entrypoint or security settings ({message})", Command: "kubectl -n {ns} edit {workload}", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "container-failed", Category: "ContainerFailed", Confidence: 75,
		Title:      "a container exited with an error and is not restarted",
		Signals:    "pod phase Failed, terminated exit code != 0, log tail",
		Actions:    []ActionTemplate{{Description: "Read the logs to see why it exited with code {exitCode} ({exitMeaning})", Command: "kubectl -n {ns} logs {pod} -c {container}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get pods -l {podSelector}"}})
	rule(Rule{ID: "readiness-probe-failing", Category: "ReadinessProbeFailing", Confidence: 80,
		Title:   "the readiness probe fails, so the pod receives no traffic",
		Signals: "container running but not ready, Unhealthy events 'Readiness probe failed'",
		Actions: []ActionTemplate{
			{Description: "Check the probe ({probe}) against what the application serves; fix the path/port or the app", Command: "kubectl -n {ns} describe pod {pod}", Risk: RiskLow},
			{Description: "Adjust the probe in the workload", Command: "kubectl -n {ns} edit {workload}", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get pods -l {podSelector}  # READY n/n"}})
	rule(Rule{ID: "liveness-probe-failing", Category: "LivenessProbeFailing", Confidence: 85,
		Title:      "the liveness (or startup) probe fails and the kubelet keeps restarting the container",
		Signals:    "Unhealthy events 'Liveness probe failed' / 'Startup probe failed', Killing events, restarts",
		Actions:    []ActionTemplate{{Description: "Fix the probe ({probe}) or give the app more time (initialDelaySeconds/failureThreshold)", Command: "kubectl -n {ns} edit {workload}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get pods -l {podSelector}  # RESTARTS stops increasing"}})
	rule(Rule{ID: "container-not-ready", Category: "ContainerNotReady", Confidence: 55,
		Title:      "a container runs but never becomes ready",
		Signals:    "container running with ready=false and no probe failure events",
		Actions:    []ActionTemplate{{Description: "Inspect the pod and its readiness probe", Command: "kubectl -n {ns} describe pod {pod}", Risk: RiskLow}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "pod-evicted", Category: "PodEvicted", Confidence: 72,
		Title:   "the pod was evicted by the kubelet",
		Signals: "pod status.reason Evicted with the kubelet's message",
		Actions: []ActionTemplate{
			{Description: "Set requests/limits that match real use so the pod is not the first to go ({message})", Command: "kubectl -n {ns} set resources {workload} --requests=memory=<real use>", Risk: RiskMedium},
			{Description: "Delete the evicted pod objects", Command: "kubectl -n {ns} delete pod {pod}", Risk: RiskLow},
		},
		Validation: []string{"kubectl -n {ns} get pods --field-selector=status.phase=Failed"}})
	rule(Rule{ID: "pod-stuck-terminating", Category: "StuckTerminating", Confidence: 70,
		Title:   "an object has been deleting for a long time",
		Signals: "deletionTimestamp older than its grace period, finalizers, node state",
		Actions: []ActionTemplate{
			{Description: "Find what holds the deletion (finalizers: {finalizers})", Command: "kubectl -n {ns} get {resource} -o jsonpath='{.metadata.finalizers}'", Risk: RiskLow},
			{Description: "Only if the owner of the finalizer is gone: remove the finalizers", Command: "kubectl -n {ns} patch {resource} --type=merge -p '{\"metadata\":{\"finalizers\":null}}'", Risk: RiskHigh},
		},
		Validation: []string{"kubectl -n {ns} get {resource}  # NotFound"}})
	rule(Rule{ID: "pod-on-unhealthy-node", Category: "NodeProblem", Confidence: 60,
		Title:      "the pod runs on a node that is not healthy",
		Signals:    "pod's node has Ready!=True or a pressure condition",
		Actions:    []ActionTemplate{{Description: "Look at node {node}", Command: "kubectl describe node {node}", Risk: RiskLow}},
		Validation: []string{"kubectl get node {node}"}})
	// --- Scheduling ---
	rule(Rule{ID: "unschedulable-insufficient-resources", Category: "InsufficientResources", Confidence: 88,
		Title:   "no node has enough free resources for the pod's requests",
		Signals: "PodScheduled=False Unschedulable, FailedScheduling 'Insufficient cpu/memory' or 'Too many pods', pod requests",
		Actions: []ActionTemplate{
			{Description: "Lower the requests of {workload} (now {requests}) to what it needs", Command: "kubectl -n {ns} set resources {workload} --requests=cpu=<less>,memory=<less>", Risk: RiskMedium},
			{Description: "Or add capacity (more or bigger nodes)", Command: "kubectl get nodes -o custom-columns=NAME:.metadata.name,CPU:.status.allocatable.cpu,MEM:.status.allocatable.memory", Risk: RiskLow},
		},
		Validation: []string{"kubectl -n {ns} get pods -l {podSelector} -o wide  # a NODE is assigned"}})
	rule(Rule{ID: "unschedulable-taint", Category: "UntoleratedTaint", Confidence: 85,
		Title:   "every suitable node has a taint the pod does not tolerate",
		Signals: "FailedScheduling 'had untolerated taint {key: value}'",
		Actions: []ActionTemplate{
			{Description: "Add a toleration for {taint} to {workload} if it is meant to run there", Command: "kubectl -n {ns} edit {workload}  # spec.template.spec.tolerations", Risk: RiskMedium},
			{Description: "Or remove the taint from the nodes if it is stale", Command: "kubectl taint nodes <node> {taintKey}-", Risk: RiskHigh},
		},
		Validation: []string{"kubectl -n {ns} get pods -l {podSelector} -o wide"}})
	rule(Rule{ID: "unschedulable-node-affinity", Category: "NodeAffinityMismatch", Confidence: 85,
		Title:   "no node matches the pod's nodeSelector or node affinity",
		Signals: "FailedScheduling \"didn't match Pod's node affinity/selector\", the pod's nodeSelector",
		Actions: []ActionTemplate{
			{Description: "Fix the nodeSelector/affinity of {workload} ({nodeSelector})", Command: "kubectl -n {ns} edit {workload}  # spec.template.spec.nodeSelector / affinity", Risk: RiskMedium},
			{Description: "Or label the intended nodes", Command: "kubectl label node <node> <key>=<value>", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get pods -l {podSelector} -o wide"}})
	rule(Rule{ID: "unschedulable-nodes-cordoned", Category: "NodesCordoned", Confidence: 75,
		Title:      "the only candidate nodes are cordoned",
		Signals:    "FailedScheduling 'node(s) were unschedulable'",
		Actions:    []ActionTemplate{{Description: "Uncordon nodes whose maintenance is over", Command: "kubectl uncordon <node>", Risk: RiskMedium}},
		Validation: []string{"kubectl get nodes"}})
	rule(Rule{ID: "unschedulable", Category: "Unschedulable", Confidence: 65,
		Title:      "the scheduler cannot place the pod",
		Signals:    "PodScheduled=False with a reason not covered by a more specific rule (anti-affinity, ports, volume node affinity)",
		Actions:    []ActionTemplate{{Description: "Read the scheduler's reason: {message}", Command: "kubectl -n {ns} describe pod {pod}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get pods -l {podSelector} -o wide"}})
	rule(Rule{ID: "pod-pvc-pending", Category: "VolumeClaimPending", Confidence: 60,
		Title:      "the pod waits for a PersistentVolumeClaim that is not bound",
		Signals:    "FailedScheduling 'unbound immediate PersistentVolumeClaims', the claim's phase Pending",
		Actions:    []ActionTemplate{{Description: "Find out why claim {claim} is not bound", Command: "kubectl -n {ns} describe pvc {claim}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get pvc {claim}  # STATUS Bound"}})
	rule(Rule{ID: "pvc-missing", Category: "VolumeClaimMissing", Confidence: 94,
		Title:      "the pod mounts a PersistentVolumeClaim that does not exist",
		Signals:    "FailedScheduling 'persistentvolumeclaim \"x\" not found', claim absent",
		Actions:    []ActionTemplate{{Description: "Create claim {name} or fix the claimName in {workload}", Command: "kubectl -n {ns} apply -f pvc-{name}.yaml", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get pvc {name}"}})
	// --- Storage ---
	rule(Rule{ID: "pvc-storageclass-missing", Category: "StorageClassMissing", Confidence: 95,
		Title:   "the claim asks for a StorageClass that does not exist",
		Signals: "PVC Pending with spec.storageClassName naming an absent StorageClass, ProvisioningFailed 'storageclass.storage.k8s.io \"x\" not found'",
		Actions: []ActionTemplate{
			{Description: "Create StorageClass {name} for a provisioner that runs in this cluster", Command: "kubectl apply -f storageclass-{name}.yaml", Risk: RiskMedium},
			{Description: "Or recreate claim {claim} with an existing class (storageClassName is immutable)", Command: "kubectl get storageclass", Risk: RiskHigh},
		},
		Validation: []string{"kubectl -n {ns} get pvc {claim}  # STATUS Bound"}})
	rule(Rule{ID: "pvc-no-default-storageclass", Category: "NoDefaultStorageClass", Confidence: 85,
		Title:   "the claim names no StorageClass and the cluster has no default one",
		Signals: "PVC Pending, storageClassName unset, no StorageClass annotated is-default-class, no matching PV",
		Actions: []ActionTemplate{
			{Description: "Mark a StorageClass as the default", Command: "kubectl patch storageclass <class> -p '{\"metadata\":{\"annotations\":{\"storageclass.kubernetes.io/is-default-class\":\"true\"}}}'", Risk: RiskMedium},
			{Description: "Or recreate the claim with an explicit storageClassName", Command: "kubectl get storageclass", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get pvc {name}"}})
	rule(Rule{ID: "pvc-no-provisioner", Category: "NoProvisioner", Confidence: 88,
		Title:   "no provisioner serves the claim's StorageClass",
		Signals: "PVC Pending, ExternalProvisioning events 'waiting for a volume to be created by external provisioner', no CSIDriver of that name",
		Actions: []ActionTemplate{
			{Description: "Install or fix the provisioner {provisioner} (no CSIDriver registered)", Command: "kubectl get csidrivers; kubectl -n kube-system get pods | grep -i csi", Risk: RiskMedium},
			{Description: "Or use a StorageClass whose provisioner runs here", Command: "kubectl get storageclass", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get pvc {claim}"}})
	rule(Rule{ID: "pvc-no-matching-pv", Category: "NoMatchingVolume", Confidence: 80,
		Title:      "the claim needs a pre-created PersistentVolume and none matches",
		Signals:    "PVC Pending with a no-provisioner or empty class, no Available PV with that class, size and access mode",
		Actions:    []ActionTemplate{{Description: "Create a PersistentVolume of class {class} with size >= {size} and access mode {accessModes}", Command: "kubectl apply -f pv.yaml", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get pvc {name}"}})
	rule(Rule{ID: "pvc-access-mode-unsupported", Category: "AccessModeUnsupported", Confidence: 85,
		Title:      "the claim asks for an access mode its storage cannot provide",
		Signals:    "ProvisioningFailed events mentioning access modes, or no PV of the class supporting the requested modes",
		Actions:    []ActionTemplate{{Description: "Recreate claim {name} with a supported access mode (asked {accessModes})", Command: "kubectl -n {ns} get pvc {name} -o yaml > pvc.yaml  # edit accessModes, delete and re-apply", Risk: RiskHigh}},
		Validation: []string{"kubectl -n {ns} get pvc {name}"}})
	rule(Rule{ID: "pvc-provisioning-failed", Category: "ProvisioningFailed", Confidence: 80,
		Title:      "the provisioner failed to create the volume",
		Signals:    "ProvisioningFailed events on the PVC",
		Actions:    []ActionTemplate{{Description: "Fix what the provisioner reports: {message}", Command: "kubectl -n {ns} describe pvc {claim}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get pvc {claim}"}})
	rule(Rule{ID: "pvc-lost", Category: "VolumeLost", Confidence: 85,
		Title:      "the claim's PersistentVolume is gone",
		Signals:    "PVC phase Lost or bound PV missing",
		Actions:    []ActionTemplate{{Description: "Restore volume {volume} or recreate the claim from backup", Command: "kubectl get pv {volume}", Risk: RiskHigh}},
		Validation: []string{"kubectl -n {ns} get pvc {name}"}})
	rule(Rule{ID: "volume-mount-failed", Category: "VolumeMountFailed", Confidence: 72,
		Title:      "the kubelet cannot mount or attach a volume",
		Signals:    "FailedMount / FailedAttachVolume events",
		Actions:    []ActionTemplate{{Description: "Fix what the kubelet reports: {message}", Command: "kubectl -n {ns} describe pod {pod}", Risk: RiskLow}},
		Validation: []string{verifyPods}})
	// --- Workloads ---
	rule(Rule{ID: "rollout-stuck", Category: "RolloutStuck", Confidence: 70,
		Title:   "the Deployment's rollout exceeded its progress deadline",
		Signals: "Deployment condition Progressing=False reason ProgressDeadlineExceeded, new ReplicaSet not available",
		Actions: []ActionTemplate{
			{Description: "Roll back to the last working revision", Command: "kubectl -n {ns} rollout undo {resource}", Risk: RiskMedium},
			{Description: "See what changed", Command: "kubectl -n {ns} rollout history {resource}", Risk: RiskLow},
		},
		Validation: []string{"kubectl -n {ns} rollout status {resource}"}})
	rule(Rule{ID: "workload-pods-unhealthy", Category: "PodsUnhealthy", Confidence: 50,
		Title:      "the workload's pods are not healthy",
		Signals:    "pods of the workload not Running/Ready, grouped by state",
		Actions:    []ActionTemplate{{Description: "Inspect one of the failing pods", Command: "kubectl -n {ns} describe pod {pod}", Risk: RiskLow}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "quota-exceeded", Category: "QuotaExceeded", Confidence: 92,
		Title:   "a ResourceQuota refuses new pods",
		Signals: "FailedCreate events / ReplicaFailure condition 'exceeded quota: NAME', quota used >= hard",
		Actions: []ActionTemplate{
			{Description: "Raise quota {name} ({detail}) or free resources in the namespace", Command: "kubectl -n {ns} edit resourcequota {name}", Risk: RiskMedium},
			{Description: "Or lower the requests of {workload}", Command: "kubectl -n {ns} set resources {workload} --requests=cpu=<less>,memory=<less>", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} describe resourcequota {name}", "kubectl -n {ns} get {workload}"}})
	rule(Rule{ID: "quota-missing-requests", Category: "QuotaRequiresRequests", Confidence: 88,
		Title:      "a ResourceQuota requires requests/limits the pods do not set",
		Signals:    "FailedCreate 'failed quota: NAME: must specify limits.cpu...'",
		Actions:    []ActionTemplate{{Description: "Set the required requests/limits on {workload} ({detail})", Command: "kubectl -n {ns} set resources {workload} --requests=cpu=100m,memory=128Mi --limits=cpu=500m,memory=256Mi", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get {workload}"}})
	rule(Rule{ID: "quota-exhausted", Category: "QuotaExhausted", Confidence: 60,
		Title:      "a ResourceQuota is fully used",
		Signals:    "ResourceQuota status used >= hard for a resource",
		Actions:    []ActionTemplate{{Description: "Raise quota {name} or free resources ({detail})", Command: "kubectl -n {ns} describe resourcequota {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} describe resourcequota {name}"}})
	rule(Rule{ID: "limitrange-violation", Category: "LimitRangeViolation", Confidence: 90,
		Title:   "the pods' resources violate the namespace's LimitRange",
		Signals: "FailedCreate 'forbidden: maximum/minimum ... usage per Container/Pod' or limit-to-request ratio",
		Actions: []ActionTemplate{
			{Description: "Bring {workload}'s requests/limits inside LimitRange {limitRange} ({detail})", Command: "kubectl -n {ns} set resources {workload} --limits=cpu=<within max>,memory=<within max>", Risk: RiskMedium},
			{Description: "Or change the LimitRange if its bounds are wrong", Command: "kubectl -n {ns} edit limitrange {limitRange}", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get {workload}"}})
	rule(Rule{ID: "serviceaccount-missing", Category: "ServiceAccountMissing", Confidence: 92,
		Title:      "the pods use a ServiceAccount that does not exist",
		Signals:    "FailedCreate 'serviceaccount \"x\" not found'",
		Actions:    []ActionTemplate{{Description: "Create ServiceAccount {name} or fix serviceAccountName in {workload}", Command: "kubectl -n {ns} create serviceaccount {name}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get {workload}"}})
	rule(Rule{ID: "admission-denied", Category: "AdmissionDenied", Confidence: 82,
		Title:      "an admission webhook or Pod Security rejects the pods",
		Signals:    "FailedCreate 'admission webhook \"x\" denied the request' or 'violates PodSecurity'",
		Actions:    []ActionTemplate{{Description: "Change the pod template to satisfy the policy: {detail}", Command: "kubectl -n {ns} edit {workload}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get {workload}"}})
	rule(Rule{ID: "workload-create-failed", Category: "PodCreateFailed", Confidence: 65,
		Title:      "the controller cannot create pods",
		Signals:    "FailedCreate events or ReplicaFailure condition not matched by a more specific rule",
		Actions:    []ActionTemplate{{Description: "Fix what the API server reports: {detail}", Command: "kubectl -n {ns} describe {resource}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get {resource}"}})
	rule(Rule{ID: "statefulset-pvc-pending", Category: "VolumeClaimPending", Confidence: 55,
		Title:      "a StatefulSet's volume claim is not bound",
		Signals:    "PVC from volumeClaimTemplates in phase Pending",
		Actions:    []ActionTemplate{{Description: "Find out why claim {claim} is not bound", Command: "kubectl -n {ns} describe pvc {claim}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get pvc {claim}"}})
	// --- Jobs ---
	rule(Rule{ID: "job-backoff-limit", Category: "JobBackoffLimitExceeded", Confidence: 85,
		Title:   "the Job failed: its pods kept failing until the backoff limit",
		Signals: "Job condition Failed reason BackoffLimitExceeded, failed pods' exit codes and log tail",
		Actions: []ActionTemplate{
			{Description: "Read a failed pod's logs (exit code {exitCode}: {exitMeaning})", Command: "kubectl -n {ns} logs {pod}", Risk: RiskLow},
			{Description: "Fix the job and run it again (a failed Job does not restart)", Command: "kubectl -n {ns} delete job {name} && kubectl -n {ns} apply -f job-{name}.yaml", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get job {name}  # COMPLETIONS n/n"}})
	rule(Rule{ID: "job-deadline-exceeded", Category: "JobDeadlineExceeded", Confidence: 85,
		Title:      "the Job ran longer than its activeDeadlineSeconds",
		Signals:    "Job condition Failed reason DeadlineExceeded",
		Actions:    []ActionTemplate{{Description: "Raise activeDeadlineSeconds ({deadline}) or make the job faster", Command: "kubectl -n {ns} get job {name} -o yaml", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get job {name}"}})
	rule(Rule{ID: "job-failed", Category: "JobFailed", Confidence: 75,
		Title:      "the Job failed",
		Signals:    "Job condition Failed with another reason (PodFailurePolicy, ...)",
		Actions:    []ActionTemplate{{Description: "Read the Job's failure: {message}", Command: "kubectl -n {ns} describe job {name}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get job {name}"}})
	rule(Rule{ID: "job-suspended", Category: "JobSuspended", Confidence: 60,
		Title:      "the Job is suspended",
		Signals:    "Job spec.suspend=true",
		Actions:    []ActionTemplate{{Description: "Resume the Job", Command: "kubectl -n {ns} patch job {name} --type=merge -p '{\"spec\":{\"suspend\":false}}'", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get job {name}"}})
	rule(Rule{ID: "cronjob-suspended", Category: "CronJobSuspended", Confidence: 90,
		Title:      "the CronJob is suspended, so no Jobs are created",
		Signals:    "CronJob spec.suspend=true",
		Actions:    []ActionTemplate{{Description: "Resume the CronJob", Command: "kubectl -n {ns} patch cronjob {name} --type=merge -p '{\"spec\":{\"suspend\":false}}'", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get cronjob {name}  # SUSPEND False, LAST SCHEDULE recent"}})
	rule(Rule{ID: "cronjob-invalid-schedule", Category: "CronJobInvalidSchedule", Confidence: 92,
		Title:      "the CronJob's schedule or time zone cannot be parsed",
		Signals:    "spec.schedule / spec.timeZone fail to parse, InvalidSchedule events",
		Actions:    []ActionTemplate{{Description: "Fix the schedule {schedule}: {detail}", Command: "kubectl -n {ns} patch cronjob {name} --type=merge -p '{\"spec\":{\"schedule\":\"*/5 * * * *\"}}'", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get cronjob {name}"}})
	rule(Rule{ID: "cronjob-missed-schedules", Category: "CronJobMissedSchedules", Confidence: 78,
		Title:      "the CronJob is not starting Jobs on schedule",
		Signals:    "lastScheduleTime older than the previous scheduled time, FailedNeedsStart / too many missed start times events",
		Actions:    []ActionTemplate{{Description: "Set startingDeadlineSeconds so missed runs are skipped, and check the controller-manager ({detail})", Command: "kubectl -n {ns} patch cronjob {name} --type=merge -p '{\"spec\":{\"startingDeadlineSeconds\":200}}'", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get cronjob {name}  # LAST SCHEDULE recent"}})
	rule(Rule{ID: "cronjob-concurrency-blocked", Category: "CronJobConcurrencyBlocked", Confidence: 80,
		Title:      "concurrencyPolicy Forbid skips runs because an earlier Job is still running",
		Signals:    "concurrencyPolicy Forbid, active Job older than the schedule interval",
		Actions:    []ActionTemplate{{Description: "Find why Job {activeJob} does not finish; set activeDeadlineSeconds on the job template", Command: "kubectl -n {ns} describe job {activeJob}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get jobs"}})
	rule(Rule{ID: "cronjob-job-failing", Category: "CronJobFailing", Confidence: 55,
		Title:      "the CronJob's latest Job failed",
		Signals:    "newest owned Job has condition Failed",
		Actions:    []ActionTemplate{{Description: "Inspect Job {job}", Command: "kubectl -n {ns} describe job {job}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get jobs"}})
	// --- Services and networking ---
	rule(Rule{ID: "service-selector-mismatch", Category: "ServiceSelectorMismatch", Confidence: 90,
		Title:      "the Service's selector matches no pods",
		Signals:    "no pods match spec.selector, EndpointSlices empty, workloads whose pod labels differ",
		Actions:    []ActionTemplate{{Description: "Make the selector ({selector}) match the pod labels ({podLabels})", Command: "kubectl -n {ns} patch service {name} --type=merge -p '{\"spec\":{\"selector\":{podLabelsJSON}}}'", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get endpointslices -l kubernetes.io/service-name={name}  # endpoints listed"}})
	rule(Rule{ID: "service-no-ready-endpoints", Category: "ServiceNoReadyEndpoints", Confidence: 55,
		Title:      "the Service's pods exist but none is ready",
		Signals:    "pods match the selector, none Ready, EndpointSlices without ready endpoints",
		Actions:    []ActionTemplate{{Description: "Fix the pods behind the Service", Command: "kubectl -n {ns} get pods -l {selector}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get endpointslices -l kubernetes.io/service-name={name}"}})
	rule(Rule{ID: "service-no-endpoints", Category: "ServiceNoEndpoints", Confidence: 60,
		Title:      "the Service has no selector and no endpoints",
		Signals:    "spec.selector empty, no EndpointSlices with endpoints",
		Actions:    []ActionTemplate{{Description: "Add a selector or create the EndpointSlice by hand", Command: "kubectl -n {ns} edit service {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get endpointslices -l kubernetes.io/service-name={name}"}})
	rule(Rule{ID: "service-target-port-mismatch", Category: "ServiceTargetPortMismatch", Confidence: 82,
		Title:      "the Service's targetPort is not a port the pods expose",
		Signals:    "spec.ports[].targetPort not among the containers' ports (by number or name)",
		Actions:    []ActionTemplate{{Description: "Set targetPort to the container port ({containerPorts})", Command: "kubectl -n {ns} patch service {name} --type=json -p '[{\"op\":\"replace\",\"path\":\"/spec/ports/{portIndex}/targetPort\",\"value\":<container port>}]'", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get endpointslices -l kubernetes.io/service-name={name} -o wide"}})
	rule(Rule{ID: "deployment-scaled-to-zero", Category: "ScaledToZero", Confidence: 85,
		Title:      "the workload behind the Service is scaled to zero",
		Signals:    "the workload whose pod labels match the Service selector has spec.replicas 0",
		Actions:    []ActionTemplate{{Description: "Scale it up", Command: "kubectl -n {ns} scale {resource} --replicas=<n>", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get {resource}"}})
	rule(Rule{ID: "ingress-backend-missing", Category: "IngressBackendMissing", Confidence: 90,
		Title:   "the Ingress routes to a Service that does not exist",
		Signals: "spec.rules[].http.paths[].backend.service.name absent from the namespace",
		Actions: []ActionTemplate{
			{Description: "Point the Ingress at an existing Service, or create Service {service}", Command: "kubectl -n {ns} edit ingress {name}", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} describe ingress {name}  # backends resolve"}})
	rule(Rule{ID: "ingress-backend-port-mismatch", Category: "IngressBackendPortMismatch", Confidence: 80,
		Title:      "the Ingress routes to a port the Service does not have",
		Signals:    "backend.service.port not among the Service's ports",
		Actions:    []ActionTemplate{{Description: "Use one of the Service's ports ({servicePorts})", Command: "kubectl -n {ns} edit ingress {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} describe ingress {name}"}})
	rule(Rule{ID: "networkpolicy-deny-ingress", Category: "NetworkPolicyDenyIngress", Confidence: 75,
		Title:      "a NetworkPolicy selects the pods and allows no ingress traffic",
		Signals:    "NetworkPolicy with policyTypes Ingress, no ingress rules, podSelector matching the pods",
		Actions:    []ActionTemplate{{Description: "Add an ingress rule allowing the clients of {pods}", Command: "kubectl -n {ns} edit networkpolicy {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} describe networkpolicy {name}"}})
	// --- Autoscaling and disruption ---
	rule(Rule{ID: "hpa-target-missing", Category: "HPATargetMissing", Confidence: 90,
		Title:      "the HorizontalPodAutoscaler's scale target does not exist",
		Signals:    "AbleToScale=False FailedGetScale, scaleTargetRef absent",
		Actions:    []ActionTemplate{{Description: "Fix scaleTargetRef ({target}) of the HPA", Command: "kubectl -n {ns} edit hpa {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} describe hpa {name}  # AbleToScale True"}})
	rule(Rule{ID: "hpa-missing-requests", Category: "HPAMissingRequests", Confidence: 88,
		Title:      "the HPA cannot compute utilization because the pods set no resource requests",
		Signals:    "a Utilization metric while a target container has no request for that resource, or ScalingActive=False 'missing request for cpu'",
		Actions:    []ActionTemplate{{Description: "Set {metric} requests on {workload}", Command: "kubectl -n {ns} set resources {workload} --requests={metric}=<value>", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} describe hpa {hpa}  # ScalingActive True"}})
	rule(Rule{ID: "hpa-metrics-unavailable", Category: "HPAMetricsUnavailable", Confidence: 85,
		Title:      "the HPA cannot read its metrics",
		Signals:    "ScalingActive=False reason FailedGetResourceMetric/FailedGetPodsMetric/FailedGetExternalMetric, events",
		Actions:    []ActionTemplate{{Description: "Make the metrics API serve the metric (metrics-server / adapter): {detail}", Command: "kubectl get apiservices | grep metrics", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} describe hpa {name}"}})
	rule(Rule{ID: "hpa-maxed-out", Category: "HPAMaxedOut", Confidence: 75,
		Title:      "the HPA wants more replicas than its maximum",
		Signals:    "ScalingLimited=True TooManyReplicas, currentReplicas == maxReplicas",
		Actions:    []ActionTemplate{{Description: "Raise maxReplicas (now {maxReplicas}) or make pods handle more load", Command: "kubectl -n {ns} patch hpa {name} --type=merge -p '{\"spec\":{\"maxReplicas\":<higher>}}'", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get hpa {name}"}})
	rule(Rule{ID: "pdb-blocking", Category: "PDBBlocking", Confidence: 80,
		Title:      "a PodDisruptionBudget allows no disruptions, blocking drains and evictions",
		Signals:    "status.disruptionsAllowed 0 with expectedPods > 0, minAvailable/maxUnavailable",
		Actions:    []ActionTemplate{{Description: "Relax the budget ({budget}) or add replicas so one pod may go", Command: "kubectl -n {ns} patch pdb {name} --type=merge -p '{\"spec\":{\"maxUnavailable\":1,\"minAvailable\":null}}'", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get pdb {name}  # ALLOWED DISRUPTIONS >= 1"}})
	rule(Rule{ID: "pdb-selects-no-pods", Category: "PDBSelectsNoPods", Confidence: 45,
		Title:      "a PodDisruptionBudget selects no pods",
		Signals:    "status.expectedPods 0",
		Actions:    []ActionTemplate{{Description: "Fix the PDB selector", Command: "kubectl -n {ns} edit pdb {name}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get pdb {name}"}})
	// --- Nodes ---
	rule(Rule{ID: "node-not-ready", Category: "NodeNotReady", Confidence: 90,
		Title:   "the node is not Ready",
		Signals: "Node condition Ready=False/Unknown with reason and message, unreachable taints",
		Actions: []ActionTemplate{
			{Description: "Check the kubelet and container runtime on {name} ({detail})", Command: "kubectl describe node {name}", Risk: RiskLow},
			{Description: "Drain the node so its pods move elsewhere", Command: "kubectl drain {name} --ignore-daemonsets --delete-emptydir-data", Risk: RiskHigh},
		},
		Validation: []string{"kubectl get node {name}  # STATUS Ready"}})
	rule(Rule{ID: "node-memory-pressure", Category: "NodeMemoryPressure", Confidence: 85,
		Title:      "the node is under memory pressure and evicts pods",
		Signals:    "Node condition MemoryPressure=True, Evicted pods",
		Actions:    []ActionTemplate{{Description: "Find the biggest memory users on {name} and set limits", Command: "kubectl describe node {name}", Risk: RiskLow}},
		Validation: []string{"kubectl describe node {name}  # MemoryPressure False"}})
	rule(Rule{ID: "node-disk-pressure", Category: "NodeDiskPressure", Confidence: 85,
		Title:      "the node is running out of disk",
		Signals:    "Node condition DiskPressure=True",
		Actions:    []ActionTemplate{{Description: "Free disk on {name} (images, logs, emptyDirs)", Command: "kubectl describe node {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl describe node {name}  # DiskPressure False"}})
	rule(Rule{ID: "node-pid-pressure", Category: "NodePIDPressure", Confidence: 85,
		Title:      "the node is running out of process IDs",
		Signals:    "Node condition PIDPressure=True",
		Actions:    []ActionTemplate{{Description: "Find the pod forking processes on {name}; set pod PID limits", Command: "kubectl describe node {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl describe node {name}  # PIDPressure False"}})
	rule(Rule{ID: "node-network-unavailable", Category: "NodeNetworkUnavailable", Confidence: 80,
		Title:      "the node's network is not configured",
		Signals:    "Node condition NetworkUnavailable=True",
		Actions:    []ActionTemplate{{Description: "Check the CNI plugin on {name}", Command: "kubectl -n kube-system get pods -o wide | grep {name}", Risk: RiskLow}},
		Validation: []string{"kubectl describe node {name}"}})
	rule(Rule{ID: "node-cordoned", Category: "NodeCordoned", Confidence: 55,
		Title:      "the node is cordoned",
		Signals:    "Node spec.unschedulable=true",
		Actions:    []ActionTemplate{{Description: "Uncordon {name} when its maintenance is over", Command: "kubectl uncordon {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl get node {name}"}})
	// --- Session-level outcomes ---
	rule(Rule{ID: "target-not-found", Category: "TargetNotFound", Confidence: 100,
		Title:      "the object to investigate does not exist",
		Signals:    "GET of the session target returns NotFound",
		Actions:    []ActionTemplate{{Description: "Check the name and namespace of the target", Command: "kubectl -n {ns} get {plural}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get {resource}"}})
	rule(Rule{ID: "unsupported-target", Category: "UnsupportedTarget", Confidence: 100,
		Title:   "the rule engine does not know the target's kind",
		Signals: "target kind not in the tools' kind table",
		Actions: []ActionTemplate{{Description: "Target a Pod, workload, Service, PVC, Node, Job, CronJob, HPA, PDB or Ingress, or the whole namespace", Command: "", Risk: RiskLow}}})
	rule(Rule{ID: "no-problem-found", Category: "NoProblemFound", Confidence: 20,
		Title:   "no known failure signal was found",
		Signals: "every analyzer ran and no rule matched",
		Actions: []ActionTemplate{{Description: "Look at recent events and application metrics; the cause may be outside Kubernetes objects", Command: "kubectl -n {ns} get events --sort-by=.lastTimestamp", Risk: RiskLow}}})
	rule(Rule{ID: "inconclusive", Category: "Inconclusive", Confidence: 10,
		Title:   "the investigation could not complete",
		Signals: "analyzer tasks failed (API errors, permissions, budget)",
		Actions: []ActionTemplate{{Description: "Check the operator's permissions and the API server, then retry", Command: "kubectl auth can-i --list -n {ns}", Risk: RiskLow}}})
}

// CatalogueMarkdown renders the rule catalogue as a Markdown table (for docs and reports).
func CatalogueMarkdown() string {
	var b strings.Builder
	b.WriteString("| Rule | Category | Confidence | What it means | Signals |\n|---|---|---|---|---|\n")
	for _, r := range Rules() {
		b.WriteString("| `" + r.ID + "` | " + r.Category + " | " + strconv.Itoa(r.Confidence) + "% | " + r.Title + " | " + strings.ReplaceAll(r.Signals, "|", "\\|") + " |\n")
	}
	return b.String()
}
