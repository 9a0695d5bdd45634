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

// Rules about workloads, Jobs and CronJobs.
func init() {
	// --- Workloads ---
	rule(Rule{ID: "deployment-paused", Category: "RolloutPaused", Confidence: 80,
		Title:      "the Deployment is paused, so its latest template change is not rolled out",
		Signals:    "spec.paused=true while the template differs from the newest ReplicaSet's (images) or status.updatedReplicas is below spec.replicas",
		Actions:    []ActionTemplate{{Description: "Resume the rollout ({change})", Command: "kubectl -n {ns} rollout resume deployment/{name}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} rollout status deployment/{name}"}})
	rule(Rule{ID: "cronjob-jobs-pile-up", Category: "CronJobJobsPileUp", Confidence: 86,
		Title:   "a CronJob starts runs faster than they finish, and its piled-up Jobs hold the namespace's quota",
		Signals: "a ResourceQuota refusing pods ('exceeded quota') whose pods are mostly a CronJob's, with concurrencyPolicy Allow and several active Jobs older than the schedule interval",
		Actions: []ActionTemplate{
			{Description: "Stop the pile-up: set concurrencyPolicy Forbid (or Replace) and an activeDeadlineSeconds on CronJob {name}", Command: "kubectl -n {ns} patch cronjob {name} --type=merge -p '{\"spec\":{\"concurrencyPolicy\":\"Forbid\"}}'", Risk: RiskMedium},
			{Description: "Delete the stuck Jobs to free the quota ({quota})", Command: "kubectl -n {ns} get jobs -o name | grep {name} | xargs kubectl -n {ns} delete", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get resourcequota {quota}"}})
	rule(Rule{ID: "daemonset-taint-excluded", Category: "DaemonSetTaintExcluded", Confidence: 70,
		Title:      "nodes the DaemonSet selects get no pod because of a taint its pods do not tolerate",
		Signals:    "nodes matching the DaemonSet's nodeSelector with a NoSchedule/NoExecute taint (not control-plane or node-condition taints) that its pod template does not tolerate; desiredNumberScheduled leaves them out; a DaemonSet without a nodeSelector only for the tainted nodes the problem names",
		Actions:    []ActionTemplate{{Description: "Add a toleration for {taint} to DaemonSet {name} if it must run on {nodes}", Command: "kubectl -n {ns} edit daemonset {name}  # spec.template.spec.tolerations", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get pods -o wide -l {podSelector}"}})
	rule(Rule{ID: "rollout-held", Category: "RolloutHeld", Confidence: 78,
		Title:      "the StatefulSet's or DaemonSet's update strategy keeps its template change from reaching the pods",
		Signals:    "status.updateRevision differs from currentRevision (or updatedNumberScheduled is below desired) with updateStrategy OnDelete or a rollingUpdate.partition above 0",
		Actions:    []ActionTemplate{{Description: "Let the change through ({change}): lower the partition, or delete the old pods one at a time under OnDelete", Command: "kubectl -n {ns} get pods -o custom-columns=NAME:.metadata.name,REVISION:.metadata.labels.controller-revision-hash", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} rollout status {resource}"}})
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
	rule(Rule{ID: "admission-webhook-failing", Category: "AdmissionWebhookFailing", Confidence: 88,
		Title:   "an admission webhook the pods must pass cannot be called, and its failurePolicy Fail refuses them",
		Signals: "FailedCreate 'failed calling webhook \"x\"' (service not found, connection refused, timeout); the Validating or MutatingWebhookConfiguration holding the webhook, its failurePolicy and backend Service",
		Actions: []ActionTemplate{
			{Description: "If the webhook's backend was uninstalled, delete the leftover configuration {name}", Command: "kubectl delete {plural} {name}", Risk: RiskHigh},
			{Description: "Otherwise restore the webhook's backend (webhook {webhook}) or set its failurePolicy to Ignore", Command: "kubectl get {plural} {name} -o yaml", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get events --field-selector reason=FailedCreate  # no new 'failed calling webhook'"}})
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
	rule(Rule{ID: "priorityclass-missing", Category: "PriorityClassMissing", Confidence: 92,
		Title:      "the pod template names a PriorityClass that does not exist",
		Signals:    "FailedCreate 'no PriorityClass with name X was found'",
		Actions:    []ActionTemplate{{Description: "Create PriorityClass {priorityClass}, or fix priorityClassName in {workload}", Command: "kubectl create priorityclass {priorityClass} --value=1000", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get pods -l <selector>"}})
	rule(Rule{ID: "statefulset-service-missing", Category: "GoverningServiceMissing", Confidence: 85,
		Title:      "the StatefulSet's governing Service (spec.serviceName) does not exist",
		Signals:    "spec.serviceName names no Service in the namespace; pods get no stable DNS names",
		Actions:    []ActionTemplate{{Description: "Create the headless Service {service} (clusterIP: None) selecting the StatefulSet's pods; serviceName is immutable", Command: "kubectl -n {ns} create service clusterip {service} --clusterip=None", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get service {service}"}})
	rule(Rule{ID: "pod-subdomain-service-missing", Category: "SubdomainServiceMissing", Confidence: 85,
		Title:      "the pods' subdomain names no Service, so their host names do not resolve",
		Signals:    "spec.template.spec.subdomain names no Service in the namespace (a headless Service selecting the pods may exist under another name); workers that find each other by <hostname>.<subdomain> fail to resolve",
		Actions:    []ActionTemplate{{Description: "Create the headless Service {subdomain} selecting the pods, or set the subdomain to Service {service} (a Job's pod template is immutable: recreate it)", Command: "kubectl -n {ns} get {sourceResource} -o yaml", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get service {subdomain}"}})
	rule(Rule{ID: "daemonset-no-nodes", Category: "DaemonSetNoNodes", Confidence: 82,
		Title:      "the DaemonSet's node selector or affinity matches no node, so it runs nowhere",
		Signals:    "status.desiredNumberScheduled 0 with a nodeSelector or node affinity; node labels",
		Actions:    []ActionTemplate{{Description: "Fix the nodeSelector ({nodeSelector}) or label the nodes that should run it", Command: "kubectl -n {ns} edit daemonset {name}", Risk: RiskMedium}},
		Validation: []string{"kubectl -n {ns} get daemonset {name}  # DESIRED > 0"}})
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
	rule(Rule{ID: "job-pod-failure-policy", Category: "JobPodFailurePolicy", Confidence: 88,
		Title:   "the Job's podFailurePolicy ended it at a pod failure, before its backoffLimit",
		Signals: "Job condition Failed reason PodFailurePolicy (or FailedIndexes) naming 'rule at index N'; spec.podFailurePolicy rules (FailJob, FailIndex, Ignore, Count on exit codes or pod conditions such as DisruptionTarget) matched against the failed pods' exit codes and conditions",
		Actions: []ActionTemplate{
			{Description: "Check podFailurePolicy rule {policyRule}: move exit codes that can be transient (exit {exitCode}) to a Count or Ignore rule", Command: "kubectl -n {ns} get job {name} -o jsonpath='{.spec.podFailurePolicy}'", Risk: RiskLow},
			{Description: "Re-run the Job with the fixed policy (a failed Job does not restart)", Command: "kubectl -n {ns} get job {name} -o yaml > job-{name}.yaml && kubectl -n {ns} delete job {name} && kubectl -n {ns} apply -f job-{name}.yaml", Risk: RiskMedium},
		},
		Validation: []string{"kubectl -n {ns} get job {name}  # COMPLETIONS n/n"}})
	rule(Rule{ID: "job-parallelism-zero", Category: "JobNotRunning", Confidence: 85,
		Title:      "the Job's parallelism is 0, so it runs no pods",
		Signals:    "Job spec.parallelism=0 and no completion time",
		Actions:    []ActionTemplate{{Description: "Give the Job a parallelism again", Command: "kubectl -n {ns} patch job {name} --type=merge -p '{\"spec\":{\"parallelism\":1}}'", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get job {name}  # ACTIVE 1, then COMPLETIONS"}})
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
	rule(Rule{ID: "cronjob-runs-replaced", Category: "CronJobRunsReplaced", Confidence: 80,
		Title:      "concurrencyPolicy Replace deletes each run before it finishes",
		Signals:    "concurrencyPolicy Replace, SuccessfulDelete 'Deleted job' events on the CronJob, no successful run since",
		Actions:    []ActionTemplate{{Description: "Let runs finish: set concurrencyPolicy Forbid (or a longer schedule than a run takes)", Command: "kubectl -n {ns} patch cronjob {name} --type=merge -p '{\"spec\":{\"concurrencyPolicy\":\"Forbid\"}}'", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get cronjob {name}  # LAST SUCCESSFUL recent"}})
	rule(Rule{ID: "cronjob-history-hidden", Category: "CronJobHistoryHidden", Confidence: 60,
		Title:      "a history limit of 0 deletes each finished Job, so the CronJob seems never to run",
		Signals:    "successfulJobsHistoryLimit (or failedJobsHistoryLimit) 0, no Job listed, lastScheduleTime / lastSuccessfulTime recent",
		Actions:    []ActionTemplate{{Description: "Keep finished Jobs to inspect: set {field} to 1 or more", Command: "kubectl -n {ns} patch cronjob {name} --type=merge -p '{\"spec\":{\"{field}\":3}}'", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get jobs  # the last runs are listed"}})
	rule(Rule{ID: "cronjob-job-failing", Category: "CronJobFailing", Confidence: 55,
		Title:      "the CronJob's latest Job failed",
		Signals:    "newest owned Job has condition Failed",
		Actions:    []ActionTemplate{{Description: "Inspect Job {job}", Command: "kubectl -n {ns} describe job {job}", Risk: RiskLow}},
		Validation: []string{"kubectl -n {ns} get jobs"}})
}
