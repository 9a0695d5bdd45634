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

// verifyPods is the validation step shared by every rule whose fix brings pods back.
const verifyPods = "kubectl -n {ns} get pods -l {podSelector} -w  # pods become Running and Ready"

// Rules about pods, containers, configuration, scheduling and storage.
func init() {
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
		Signals: "ErrImagePull/ImagePullBackOff messages with unauthorized / authentication required / denied / 403, missing imagePullSecrets, the ServiceAccount's imagePullSecrets left out because the pod lists its own",
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
	rule(Rule{ID: "container-command-invalid", Category: "ContainerCommandInvalid", Confidence: 88,
		Title:      "the runtime cannot start the container's command: it names no executable of the image, often a command written as one string",
		Signals:    "exec: \"…\": executable file not found in $PATH (or no such file or directory) in the termination message; exit code 128 (StartError, ContainerCannotRun); the first element of command or args",
		Actions:    []ActionTemplate{{Description: "Fix the {field} of container {container} in {workload}: one list element per word, or sh -c", Command: "kubectl -n {ns} edit {workload}", Risk: RiskLow}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "key-file-mode-too-open", Category: "FilePermissions", Confidence: 86,
		Title:      "a key file mounted from a Secret or ConfigMap is readable by group and others, so the program (ssh, PostgreSQL) ignores it",
		Signals:    "'Permissions 0644 for … are too open', 'Load key …: bad permissions', 'private key file … has group or world access' in the log or termination message; the defaultMode (or item mode) of the volume that mounts the file",
		Actions:    []ActionTemplate{{Description: "Set defaultMode: 0400 on volume {volume} in {sourceResource} (the file {path} is now {mode})", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskLow}},
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
	rule(Rule{ID: "init-container-blocked", Category: "InitContainerBlocked", Confidence: 70,
		Title:      "an init container never finishes, so the pod's containers never start",
		Signals:    "a non-sidecar init container Running while the pod is Pending (Init:N/M); the hosts its command waits for (nslookup, nc, curl, pg_isready -h ...) matched against the namespace's Services; its log",
		Actions:    []ActionTemplate{{Description: "Make what init container {container} waits for available, or fix its command", Command: "kubectl -n {ns} logs {pod} -c {container}", Risk: RiskLow}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "toleration-seconds-evicts", Category: "TaintEviction", Confidence: 78,
		Title:      "the pods tolerate a NoExecute taint of their node only for tolerationSeconds, so they are evicted and replaced over and over",
		Signals:    "a toleration with tolerationSeconds matching a NoExecute taint of the pod's node; TaintManagerEviction 'Marking for deletion' events; short-lived pods",
		Actions:    []ActionTemplate{{Description: "Drop tolerationSeconds from the toleration of {taint} in {workload}, or keep the pods off node {node}", Command: "kubectl -n {ns} edit {workload}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get pods -o wide  # AGE grows past {tolerationSeconds}s"}})
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
	rule(Rule{ID: "deletion-blocked", Category: "DeletionBlocked", Confidence: 86,
		Title:   "an object's deletion waits on another object that cannot go",
		Signals: "deletionTimestamp with finalizer foregroundDeletion and a dependent (pod, ReplicaSet, Job, claim) Terminating under a controller's finalizer or on a node that is not Ready; a claim under kubernetes.io/pvc-protection still mounted by a pod; a volume under kubernetes.io/pv-protection still bound to a claim",
		Actions: []ActionTemplate{
			{Description: "Restore the controller that owns finalizer {finalizer}, or, if it is gone for good, remove that finalizer from {resource} (the deletion of {deleting} then completes)", Command: "kubectl -n {ns} patch {resource} --type=merge -p '{\"metadata\":{\"finalizers\":null}}'", Risk: RiskHigh},
			{Description: "Or see what still uses or holds it", Command: "kubectl -n {ns} get {resource} -o yaml", Risk: RiskLow},
		},
		Validation: []string{"kubectl -n {ns} get {deleting}  # NotFound"}})
	rule(Rule{ID: "pod-on-unhealthy-node", Category: "NodeProblem", Confidence: 60,
		Title:      "the pod runs on a node that is not healthy",
		Signals:    "pod's node has Ready!=True or a pressure condition",
		Actions:    []ActionTemplate{{Description: "Look at node {node}", Command: "kubectl describe node {node}", Risk: RiskLow}},
		Validation: []string{"kubectl get node {node}"}})
	rule(Rule{ID: "config-value-missing", Category: "ConfigValueMissing", Confidence: 86,
		Title:      "the application needs a setting its environment does not provide",
		Signals:    "'X is not set' / missing key in the container's error line (a setting named in words, 'no hostname setting provided', is the variable the prefix its other settings share makes of it: KC_HOSTNAME; an 'insecure SECRET_KEY' too); the container's env, the ConfigMaps and Secrets it loads with envFrom, and the mounted ConfigMap or Secret file its log says it loads; without error text, an optional env or envFrom reference whose object or key does not exist, or an env value using $(NAME) defined only later in the env list",
		Actions:    []ActionTemplate{{Description: "Add {key} to {sourceResource}, then restart the workload (env is read at start)", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "config-file-missing", Category: "ConfigFileMissing", Confidence: 86,
		Title:      "the application reads a file that the volume mounted there does not provide",
		Signals:    "'open PATH: no such file' in the container's error line, or a quiet failure (exit 127, 126, 2, 1) whose command or arguments name a file in a mounted volume; the container's volumeMounts, the ConfigMap or Secret keys behind them; for a shared volume another container fills without an error, the writer's setting that lists what it produces",
		Actions:    []ActionTemplate{{Description: "Add the key for {path} to {sourceResource} (or fix the path / items)", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "config-file-invalid", Category: "ConfigFileInvalid", Confidence: 85,
		Title:      "a configuration file the application reads from a ConfigMap does not parse",
		Signals:    "a parse or syntax error (or a quiet failure) of a container that mounts a ConfigMap; its JSON and YAML keys parsed with the error's line and byte",
		Actions:    []ActionTemplate{{Description: "Fix the content of key {key} in {sourceResource} ({parseError})", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "config-value-rejected", Category: "ConfigValueRejected", Confidence: 80,
		Title:      "the application rejects a value (or a file) its configuration gives it",
		Signals:    "a token the container's error line quotes (a quoted string, a file or key name) found in a key of a ConfigMap it mounts or loads as env, in its env or its arguments",
		Actions:    []ActionTemplate{{Description: "Fix {token} in key {key} of {sourceResource}", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "migration-rejected", Category: "MigrationRejected", Confidence: 84,
		Title:      "the schema migration tool refuses to run: an applied migration was edited or removed, or the database is left dirty",
		Signals:    "'checksum mismatch for migration version N', 'Dirty database version N', 'applied migration not resolved locally', 'Can't locate revision' in the container's error lines; the key of the ConfigMap mounted with the migrations that holds that version, else the image",
		Actions:    []ActionTemplate{{Description: "Restore migration {migrationKey} in {sourceResource} as it was applied (or run the tool's repair/force for version {version})", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskHigh}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "volume-full", Category: "VolumeFull", Confidence: 82,
		Title:      "the volume the application writes to is full",
		Signals:    "'no space left on device' in the container's error line; the PersistentVolumeClaim or emptyDir mounted at that path (a relative path read against the directories its env and workingDir name), else the container's only writable persistent volume",
		Actions:    []ActionTemplate{{Description: "Free space or grow the volume ({size}); PVC size can only grow when its StorageClass allows expansion", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "dependency-connection-limit", Category: "ConnectionLimitReached", Confidence: 72,
		Title:      "the server the application connects to refuses new connections: its connection limit is reached",
		Signals:    "'too many connections' / 'too many clients' in the container's error line; the workload's replicas and the connection-pool size in its env",
		Actions:    []ActionTemplate{{Description: "Lower the connection pool or the replicas of {sourceResource}, or raise the server's max_connections", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "connection-pool-exhausted", Category: "ConnectionPoolExhausted", Confidence: 78,
		Title:      "the application's own connection pool has no free connection: it is smaller than the work the process runs at once",
		Signals:    "pool exhaustion in the container's error line ('could not obtain a connection from the pool', 'Connection is not available', 'QueuePool limit of size N'); the pool size set in its env, the ConfigMaps it loads, its mounted configuration files or arguments, against its thread or concurrency setting and the sizes the error names",
		Actions:    []ActionTemplate{{Description: "Raise {poolSetting} (now {poolSize}) in {sourceResource} to at least the threads that share the pool", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "resource-env-unit-mismatch", Category: "DownwardAPIUnitMismatch", Confidence: 84,
		Title:      "an env var the downward API fills with the container's own limit or request is read in another unit (no divisor: memory in bytes, CPU in cores)",
		Signals:    "an env resourceFieldRef without the divisor its name (HEAP_MB, CPU_MILLIS) or its use in the command line ($(VAR)m) expects; the container's limit and the value it yields",
		Actions:    []ActionTemplate{{Description: "Set resourceFieldRef.divisor on env {env} ({resource}, now {divisor}) in {sourceResource}", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	rule(Rule{ID: "mount-not-writable", Category: "VolumeNotWritable", Confidence: 80,
		Title:      "the application cannot write to a path because of how it is mounted",
		Signals:    "'permission denied' or 'read-only file system' on a path in the container's error line; the volumeMount at that path (readOnly, ConfigMap or Secret volume), readOnlyRootFilesystem, runAsUser without fsGroup; with no text (logs unreadable, a quiet crash), an emptyDir mounted readOnly that no container of the pod mounts writable",
		Actions:    []ActionTemplate{{Description: "Make {path} writable: {where}", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{verifyPods}})
	// --- Scheduling ---
	rule(Rule{ID: "unschedulable-insufficient-resources", Category: "InsufficientResources", Confidence: 88,
		Title:   "no node has enough free resources for the pod's requests",
		Signals: "PodScheduled=False Unschedulable, FailedScheduling 'Insufficient cpu/memory' or 'Too many pods', pod requests; a higher-priority pod or a workload requesting half the pool's allocatable on the usable nodes",
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
		Signals: "FailedScheduling \"didn't match Pod's node affinity/selector\", the pod's nodeSelector against its template's (entries added at admission by the RuntimeClass or the namespace's node-selector annotation)",
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
	rule(Rule{ID: "unschedulable-preemption-never", Category: "PreemptionDisabled", Confidence: 84,
		Title:   "lower-priority pods hold the room the pod needs, and its PriorityClass forbids preempting them (preemptionPolicy: Never)",
		Signals: "FailedScheduling 'Insufficient ...' with 'preemption: not eligible due to preemptionPolicy=Never' or the pod's preemptionPolicy Never; a node the pod may use where free room plus the requests of lower-priority pods covers its requests",
		Actions: []ActionTemplate{
			{Description: "Let PriorityClass {priorityClass} preempt (preemptionPolicy: PreemptLowerPriority), or give the workload a class that may", Command: "kubectl get priorityclass {priorityClass} -o yaml", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get pods -l {podSelector} -o wide  # a NODE is assigned"}})
	rule(Rule{ID: "unschedulable-volume-node-affinity", Category: "VolumeNodeAffinityConflict", Confidence: 84,
		Title:   "the pod's volume is pinned to a node it cannot use: a class binding at claim time (volumeBindingMode Immediate) chose a local volume before the pod was scheduled, or the volume's node affinity names the wrong nodes",
		Signals: "FailedScheduling 'volume node affinity conflict' (or nodes turned away for resources while the pod's bound PersistentVolume allows only a full node); the PV's nodeAffinity, the StorageClass's volumeBindingMode",
		Actions: []ActionTemplate{
			{Description: "Use volumeBindingMode WaitForFirstConsumer for StorageClass {class} (recreate the class, then the claim {claim})", Command: "kubectl get storageclass {class} -o yaml", Risk: RiskHigh},
			{Description: "Or point PersistentVolume {volume} at a node the pod may use ({nodes} now)", Command: "kubectl get pv {volume} -o jsonpath='{.spec.nodeAffinity}'", Risk: RiskHigh},
		},
		Validation: []string{"kubectl -n {ns} get pods -l {podSelector} -o wide"}})
	rule(Rule{ID: "unschedulable-device-plugin", Category: "ExtendedResourceUnadvertised", Confidence: 84,
		Title:   "the pod requests an extended resource (vendor/name) that no node advertises, because its device plugin does not run or does not register it",
		Signals: "FailedScheduling 'Insufficient vendor/name' with no node's allocatable listing it; a DaemonSet whose name, image or arguments name the resource, its pods' state, termination message and log",
		Actions: []ActionTemplate{
			{Description: "Fix device plugin {daemonSet} so it registers {resource} with the kubelets", Command: "kubectl -n {ns} logs ds/{daemonSet} --previous", Risk: RiskMedium},
			{Description: "Or drop the {resource} request from {workload}", Command: "kubectl -n {ns} edit {workload}", Risk: RiskMedium},
		},
		Validation: []string{"kubectl get nodes -o jsonpath='{.items[*].status.allocatable}'  # lists {resource}"}})
	rule(Rule{ID: "unschedulable-topology-spread", Category: "TopologySpreadUnsatisfiable", Confidence: 80,
		Title:   "a DoNotSchedule topology spread constraint cannot be met, often because a domain the pod can never use (tainted or unselected nodes) still counts as an empty domain",
		Signals: "FailedScheduling 'didn't match pod topology spread constraints'; per-domain counts of matching pods; nodeTaintsPolicy (default Ignore) and nodeAffinityPolicy (default Honor) against the nodes' taints and labels",
		Actions: []ActionTemplate{
			{Description: "Set nodeTaintsPolicy: Honor (or fix maxSkew) on the {topologyKey} constraint of {workload}", Command: "kubectl -n {ns} edit {workload}  # spec.template.spec.topologySpreadConstraints", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get pods -l {podSelector} -o wide"}})
	rule(Rule{ID: "unschedulable-host-port", Category: "HostPortConflict", Confidence: 82,
		Title:   "the host port the pod asks is already held on the nodes it may use",
		Signals: "FailedScheduling 'didn't have free ports for the requested pod ports'; the pods bound to those nodes with the same hostPort and protocol",
		Actions: []ActionTemplate{
			{Description: "Free hostPort {hostPort}: change or drop it in {workload}, or move the pods holding it", Command: "kubectl -n {ns} get pods -o wide", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get pods -l {podSelector} -o wide"}})
	rule(Rule{ID: "unschedulable", Category: "Unschedulable", Confidence: 65,
		Title:      "the scheduler cannot place the pod",
		Signals:    "PodScheduled=False with a reason not covered by a more specific rule (anti-affinity, ports, volume node affinity)",
		Actions:    []ActionTemplate{{Description: "Read the scheduler's reason: {message}", Command: "kubectl -n {ns} describe pod {pod}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get pods -l {podSelector} -o wide"}})
	rule(Rule{ID: "pvc-nodename-bypasses-scheduler", Category: "VolumeBindingBypassed", Confidence: 86,
		Title:      "a pod sets spec.nodeName itself, so its WaitForFirstConsumer claim is never bound",
		Signals:    "a Pending claim of a WaitForFirstConsumer StorageClass without the scheduler's selected-node annotation, mounted by a Pending pod that already has spec.nodeName",
		Actions:    []ActionTemplate{{Description: "Replace spec.nodeName with a nodeSelector kubernetes.io/hostname: {node} in {sourceResource}", Command: "kubectl -n {ns} edit {sourceResource}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get pvc {claim}  # Bound"}})
	rule(Rule{ID: "storageclass-topology-unmatched", Category: "VolumeTopologyUnmatched", Confidence: 82,
		Title:      "the StorageClass's allowedTopologies name node labels no node carries, so its claims never bind",
		Signals:    "a Pending claim; allowedTopologies matchLabelExpressions that no node's labels meet (a removed label such as failure-domain.beta.kubernetes.io/zone, a zone the cluster lacks)",
		Actions:    []ActionTemplate{{Description: "Recreate StorageClass {class} with allowedTopologies the nodes meet ({allowedTopologies})", Command: "kubectl get storageclass {class} -o yaml > sc.yaml && kubectl delete storageclass {class} && kubectl apply -f sc.yaml  # after editing allowedTopologies", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get pvc {claim}  # Bound"}})
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
}
