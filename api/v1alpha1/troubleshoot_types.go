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

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Mode says how far a Troubleshoot session may go.
// +kubebuilder:validation:Enum=Diagnose;Remediate
type Mode string

const (
	// ModeDiagnose investigates read-only and reports a root cause.
	ModeDiagnose Mode = "Diagnose"
	// ModeRemediate also proposes remediation actions; each runs only after approval.
	ModeRemediate Mode = "Remediate"
)

// TaskRunner says where the sub-tasks of a plan run.
// +kubebuilder:validation:Enum=Job;InProcess
type TaskRunner string

const (
	// TaskRunnerJob runs each task as a Kubernetes Job under a read-only ServiceAccount.
	TaskRunnerJob TaskRunner = "Job"
	// TaskRunnerInProcess runs each task inside the operator process.
	TaskRunnerInProcess TaskRunner = "InProcess"
)

// Severity is how bad the reported problem is, as judged by whoever reported it.
// +kubebuilder:validation:Enum=Critical;High;Medium;Low
type Severity string

const (
	SeverityCritical Severity = "Critical"
	SeverityHigh     Severity = "High"
	SeverityMedium   Severity = "Medium"
	SeverityLow      Severity = "Low"
)

// TroubleshootPhase is the step a session is at. The happy path is
// Pending → Planning → Investigating → Regulating → (Planning again | Summarizing) → Completed.
// +kubebuilder:validation:Enum=Pending;Planning;Investigating;Regulating;Summarizing;AwaitingApproval;Remediating;Completed;Failed
type TroubleshootPhase string

const (
	PhasePending          TroubleshootPhase = "Pending"
	PhasePlanning         TroubleshootPhase = "Planning"
	PhaseInvestigating    TroubleshootPhase = "Investigating"
	PhaseRegulating       TroubleshootPhase = "Regulating"
	PhaseSummarizing      TroubleshootPhase = "Summarizing"
	PhaseAwaitingApproval TroubleshootPhase = "AwaitingApproval"
	PhaseRemediating      TroubleshootPhase = "Remediating"
	PhaseCompleted        TroubleshootPhase = "Completed"
	PhaseFailed           TroubleshootPhase = "Failed"
)

// IsTerminal reports whether a session in this phase is finished.
func (p TroubleshootPhase) IsTerminal() bool {
	return p == PhaseCompleted || p == PhaseFailed
}

// TaskType says what kind of work a plan task does. Known values are the TaskType
// constants; the pattern leaves room for new kinds of work without an API change.
// +kubebuilder:validation:MinLength=1
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^[A-Z][A-Za-z0-9]*$`
type TaskType string

const (
	// TaskTypeAnalyze runs a rule-engine analyzer over the Kubernetes API.
	TaskTypeAnalyze TaskType = "Analyze"
	// TaskTypeToolCall calls one tool (built-in or from a ToolServer).
	TaskTypeToolCall TaskType = "ToolCall"
	// TaskTypeKnowledge retrieves from the KnowledgeSources.
	TaskTypeKnowledge TaskType = "Knowledge"
	// TaskTypeInvestigate hands an open question to a sub-task agent.
	TaskTypeInvestigate TaskType = "Investigate"
)

// TaskState is the life-cycle state of a plan task.
// +kubebuilder:validation:Enum=Pending;Running;Succeeded;Failed;Skipped
type TaskState string

const (
	TaskPending   TaskState = "Pending"
	TaskRunning   TaskState = "Running"
	TaskSucceeded TaskState = "Succeeded"
	TaskFailed    TaskState = "Failed"
	TaskSkipped   TaskState = "Skipped"
)

// IsDone reports whether a task in this state will not run again.
func (s TaskState) IsDone() bool {
	return s == TaskSucceeded || s == TaskFailed || s == TaskSkipped
}

// EvidenceSourceKind says where a piece of evidence came from.
// +kubebuilder:validation:Enum=Object;Query;ToolServer;Knowledge;Log;Event
type EvidenceSourceKind string

const (
	EvidenceFromObject     EvidenceSourceKind = "Object"
	EvidenceFromQuery      EvidenceSourceKind = "Query"
	EvidenceFromToolServer EvidenceSourceKind = "ToolServer"
	EvidenceFromKnowledge  EvidenceSourceKind = "Knowledge"
	EvidenceFromLog        EvidenceSourceKind = "Log"
	EvidenceFromEvent      EvidenceSourceKind = "Event"
)

// Risk is the estimated blast radius of a remediation action.
// +kubebuilder:validation:Enum=Low;Medium;High
type Risk string

const (
	RiskLow    Risk = "Low"
	RiskMedium Risk = "Medium"
	RiskHigh   Risk = "High"
)

// ApprovalState is where a remediation action stands.
// +kubebuilder:validation:Enum=Pending;Approved;Rejected;Executed;Failed
type ApprovalState string

const (
	ApprovalPending  ApprovalState = "Pending"
	ApprovalApproved ApprovalState = "Approved"
	ApprovalRejected ApprovalState = "Rejected"
	ApprovalExecuted ApprovalState = "Executed"
	ApprovalFailed   ApprovalState = "Failed"
)

// ApprovalDecision is a human's decision on a proposed remediation action.
// +kubebuilder:validation:Enum=Approved;Rejected
type ApprovalDecision string

const (
	DecisionApproved ApprovalDecision = "Approved"
	DecisionRejected ApprovalDecision = "Rejected"
)

// PatchType is how a remediation patch is applied.
// +kubebuilder:validation:Enum=StrategicMerge;Merge;JSON
type PatchType string

const (
	PatchStrategicMerge PatchType = "StrategicMerge"
	PatchMerge          PatchType = "Merge"
	PatchJSON           PatchType = "JSON"
)

// Root-cause categories the rule engine uses. RootCause.Category accepts any
// UpperCamelCase word so that new rules do not need an API change.
const (
	CategoryCrashLoop     = "CrashLoop"
	CategoryOOMKilled     = "OOMKilled"
	CategoryImagePull     = "ImagePull"
	CategoryScheduling    = "Scheduling"
	CategoryConfiguration = "Configuration"
	CategoryProbe         = "Probe"
	CategoryNetwork       = "Network"
	CategoryStorage       = "Storage"
	CategoryQuota         = "Quota"
	CategoryRollout       = "Rollout"
	CategoryNode          = "Node"
	CategoryJob           = "Job"
	CategoryApplication   = "Application"
	CategoryUnknown       = "Unknown"
)

// TroubleshootSpec describes the problem to investigate and how far the session may go.
// +kubebuilder:validation:XValidation:rule="self.mode == 'Remediate' || !has(self.approvals) || size(self.approvals) == 0",message="approvals are only allowed in Remediate mode",fieldPath=".approvals"
// +kubebuilder:validation:XValidation:rule="!has(self.knowledge) || !has(self.knowledgeSources)",message="set knowledge (scopes per source selector) or knowledgeSources, not both",fieldPath=".knowledge"
type TroubleshootSpec struct {
	// problem is the symptom in plain words, e.g. "checkout pods keep restarting".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=4096
	Problem string `json:"problem"`

	// target narrows the investigation to one object or a labelled set of objects in the
	// Troubleshoot's namespace. Unset means the whole namespace.
	// +optional
	Target *TroubleshootTarget `json:"target,omitempty"`

	// severity of the problem as reported.
	// +optional
	Severity Severity `json:"severity,omitempty"`

	// timeRange limits events, logs and metrics to a window. Unset means the recent past
	// as chosen by each tool.
	// +optional
	TimeRange *TimeRange `json:"timeRange,omitempty"`

	// mode is Diagnose (read-only, the default) or Remediate (propose actions that run
	// only after approval).
	// +optional
	// +kubebuilder:default=Diagnose
	Mode Mode `json:"mode,omitempty"`

	// model names a Secret in this namespace with the keys baseURL, model and apiKey of an
	// OpenAI-compatible endpoint. Unset means the operator default; with no model at all
	// the rule engine investigates alone.
	// +optional
	Model *LocalSecretReference `json:"model,omitempty"`

	// serviceAccountName, when set, names a ServiceAccount of this namespace whose rights
	// the operator uses (by impersonation) to read the model Secret: the author can only
	// hand the session a model that account may read. The operator flag
	// --secrets-need-service-account makes it required with spec.model; without it the
	// model is not used and the Degraded condition says so (reason Forbidden).
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	ServiceAccountName string `json:"serviceAccountName,omitempty"`

	// toolServers selects, by label, the ToolServers this session may use among those that
	// admit this namespace. Unset means all of them; an empty selector also matches all.
	// +optional
	ToolServers *metav1.LabelSelector `json:"toolServers,omitempty"`

	// knowledgeSources selects, by label, the KnowledgeSources this session may consult.
	// Unset means all KnowledgeSources in this namespace.
	// +optional
	KnowledgeSources *metav1.LabelSelector `json:"knowledgeSources,omitempty"`

	// knowledge scopes the session's knowledge searches per source selector: which
	// KnowledgeSources, which domain, how many passages and how trusted. Unset means one
	// scope over knowledgeSources with the operator's defaults.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	Knowledge []KnowledgeScope `json:"knowledge,omitempty"`

	// budget bounds the work a session may do.
	// +optional
	// +kubebuilder:default={}
	Budget Budget `json:"budget,omitempty"`

	// taskRunner is where plan tasks run: Job or InProcess. Unset means the operator default.
	// +optional
	TaskRunner TaskRunner `json:"taskRunner,omitempty"`

	// approvals records human decisions on proposed remediation actions (Remediate mode
	// only). An action runs only after an entry approves its id.
	// +optional
	// +listType=map
	// +listMapKey=actionID
	// +kubebuilder:validation:MaxItems=20
	Approvals []ActionApproval `json:"approvals,omitempty"`

	// hints are free-text pointers such as runbook URLs and alert annotations. They are
	// given to the brains as data to consider, never as instructions to follow.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=2048
	Hints []string `json:"hints,omitempty"`

	// cluster, when set, is another cluster to investigate, reached with the kubeconfig of a
	// Secret in this namespace: the tools, the rule engine and the task agents read that
	// cluster (the namespace of the same name there), while the session itself (status,
	// report, task Jobs and results) stays in this cluster. Unset: this cluster.
	// +optional
	Cluster *ClusterReference `json:"cluster,omitempty"`

	// notify names NotificationSinks of this namespace told once about the session's outcome:
	// Completed (with its root cause) or Failed. A rerun is a new outcome and is told again.
	// A schedule's runs leave it unset: the schedule notifies, once per new problem.
	// +optional
	Notify *SessionNotify `json:"notify,omitempty"`

	// alert identifies the Alertmanager alert this session was opened for, when the alert
	// receiver created it. It never changes; the alert's resolution is recorded in the
	// annotation kubage.io/alert-resolved-at and the label kubage.io/alert-status.
	// +optional
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="alert is immutable"
	Alert *AlertSource `json:"alert,omitempty"`
}

// SessionNotify says which sinks hear about a session's outcome.
type SessionNotify struct {
	// sinks are NotificationSinks in this namespace; each gets the message.
	// +required
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=8
	Sinks []LocalSinkReference `json:"sinks"`
}

// ClusterReference says how to reach a cluster other than the operator's own.
type ClusterReference struct {
	// kubeConfig locates the cluster's kubeconfig.
	// +required
	KubeConfig KubeConfigReference `json:"kubeConfig"`
}

// KubeConfigReference locates a kubeconfig in a Secret, as Flux and Cluster API do. Only
// what the kubeconfig carries inline is used: a kubeconfig with an exec plugin, an
// auth-provider or a file reference (CA, certificate, key, token file) is refused.
type KubeConfigReference struct {
	// secretRef names the Secret of this namespace and its key holding the kubeconfig.
	// +required
	SecretRef KubeConfigSecretReference `json:"secretRef"`

	// context of the kubeconfig to use; its current-context when unset.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Context string `json:"context,omitempty"`
}

// KubeConfigSecretReference names the Secret key of a kubeconfig.
type KubeConfigSecretReference struct {
	// name of the Secret, in the namespace of the referring object.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`

	// key within the Secret's data; "value" (Cluster API's and Flux's convention) when unset.
	// +optional
	// +kubebuilder:default=value
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[-._a-zA-Z0-9]+$`
	Key string `json:"key,omitempty"`
}

// AlertSource identifies one occurrence of an Alertmanager alert.
type AlertSource struct {
	// fingerprint is Alertmanager's hash of the alert's label set (lowercase hex).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^[0-9a-f]+$`
	Fingerprint string `json:"fingerprint"`

	// alertName is the value of the alert's alertname label.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	AlertName string `json:"alertName"`

	// startsAt is when the alert started firing; with the fingerprint it names the occurrence.
	// +required
	StartsAt metav1.Time `json:"startsAt"`

	// receiver is the Alertmanager receiver that delivered the alert.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Receiver string `json:"receiver,omitempty"`
}

// TroubleshootTarget is either one object (kind and name) or a label selector.
// +kubebuilder:validation:XValidation:rule="has(self.name) != has(self.selector)",message="set exactly one of name or selector"
// +kubebuilder:validation:XValidation:rule="!has(self.name) || has(self.kind)",message="kind is required when name is set",fieldPath=".kind"
type TroubleshootTarget struct {
	// apiGroup of the target kind, e.g. "apps"; empty means the group is inferred from the kind.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	APIGroup string `json:"apiGroup,omitempty"`

	// kind of the target, e.g. Deployment, Pod, Node. With selector it restricts the
	// selected objects to that kind (Pods when unset).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Z][A-Za-z0-9]*$`
	Kind string `json:"kind,omitempty"`

	// name of the target object in the Troubleshoot's namespace (or a cluster-scoped Node).
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name,omitempty"`

	// selector picks the target objects by label in the Troubleshoot's namespace.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
}

// TimeRange is either a duration back from now (since) or an absolute window (from, to).
// +kubebuilder:validation:XValidation:rule="has(self.since) != has(self.from)",message="set either since or from (with optional to), not both"
// +kubebuilder:validation:XValidation:rule="!has(self.to) || has(self.from)",message="to requires from",fieldPath=".to"
// +kubebuilder:validation:XValidation:rule="!has(self.from) || !has(self.to) || self.from < self.to",message="from must be before to",fieldPath=".from"
type TimeRange struct {
	// since is a positive duration back from the session's start, e.g. "30m" (at most 30 days).
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$') || (duration(self) > duration('0s') && duration(self) <= duration('720h'))",message="since must be a positive duration of at most 720h"
	Since *metav1.Duration `json:"since,omitempty"`

	// from is the start of the window (RFC 3339).
	// +optional
	From *metav1.Time `json:"from,omitempty"`

	// to is the end of the window (RFC 3339); unset means now. Must be after from.
	// +optional
	To *metav1.Time `json:"to,omitempty"`
}

// Budget bounds the work of one session. The session stops, and summarizes what it has,
// at whichever limit it reaches first.
type Budget struct {
	// maxIterations is the number of plan → investigate → regulate rounds.
	// +optional
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=20
	MaxIterations int32 `json:"maxIterations,omitempty"`

	// maxToolCalls is the total number of tool calls across all tasks.
	// +optional
	// +kubebuilder:default=100
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=1000
	MaxToolCalls int32 `json:"maxToolCalls,omitempty"`

	// maxTokens is the total number of LLM prompt plus completion tokens.
	// +optional
	// +kubebuilder:default=200000
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10000000
	MaxTokens int64 `json:"maxTokens,omitempty"`

	// timeout is the wall-clock limit of the session, a positive duration of at most 2h.
	// +optional
	// +kubebuilder:default="10m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="!self.matches('^([0-9]+([.][0-9]+)?(ns|us|ms|s|m|h))+$') || (duration(self) > duration('0s') && duration(self) <= duration('2h'))",message="timeout must be a positive duration of at most 2h"
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// parallelism is how many plan tasks may run at once.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=16
	Parallelism int32 `json:"parallelism,omitempty"`
}

// ActionApproval is a human decision on one proposed remediation action.
type ActionApproval struct {
	// actionID is the id of an action in status.remediation.actions.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	ActionID string `json:"actionID"`

	// decision is Approved or Rejected.
	// +required
	Decision ApprovalDecision `json:"decision"`

	// decidedBy is the user who wrote the decision, as the API server authenticated them.
	// The approval webhook sets it and refuses any other value; with the webhook enabled
	// the operator runs no action whose approval lacks it.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	DecidedBy string `json:"decidedBy,omitempty"`
}

// TroubleshootStatus is the session's durable checkpoint: every step is persisted here so a
// restarted operator resumes where it stopped. Raw data stays outside; lists are bounded.
type TroubleshootStatus struct {
	// observedGeneration is the spec generation the status was last computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready first, then RootCauseFound, Degraded and others.
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	// +kubebuilder:validation:MaxItems=16
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`

	// phase is the step the session is at.
	// +optional
	Phase TroubleshootPhase `json:"phase,omitempty"`

	// iteration is the current plan → investigate → regulate round, starting at 1.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=20
	Iteration int32 `json:"iteration,omitempty"`

	// plan is the current iteration's plan.
	// +optional
	Plan *Plan `json:"plan,omitempty"`

	// evidence are short summaries of what the session found, each with its source.
	// +optional
	// +listType=map
	// +listMapKey=id
	// +kubebuilder:validation:MaxItems=64
	Evidence []Evidence `json:"evidence,omitempty"`

	// rootCause is the conclusion, once there is one.
	// +optional
	RootCause *RootCause `json:"rootCause,omitempty"`

	// seenBefore cites the earlier session of this namespace's incident memory whose
	// fingerprint (the kinds of its findings, conclusion and culprit) matches this one's,
	// with the fix it proposed; unset when nothing similar is remembered.
	// +optional
	SeenBefore *SeenBefore `json:"seenBefore,omitempty"`

	// remediation is the proposal of Remediate mode.
	// +optional
	Remediation *Remediation `json:"remediation,omitempty"`

	// reportRef names the ConfigMap in this namespace holding the full report under the keys
	// report.md and report.json.
	// +optional
	ReportRef *LocalConfigMapReference `json:"reportRef,omitempty"`

	// usage counts the resources the session consumed.
	// +optional
	Usage Usage `json:"usage,omitempty"`

	// startTime is when the session left Pending.
	// +optional
	StartTime *metav1.Time `json:"startTime,omitempty"`

	// completionTime is when the session reached Completed or Failed.
	// +optional
	CompletionTime *metav1.Time `json:"completionTime,omitempty"`

	// notifications is the outbox of spec.notify: one message per sink and outcome, recorded
	// before it is sent and updated after each attempt.
	// +optional
	// +listType=map
	// +listMapKey=id
	// +kubebuilder:validation:MaxItems=16
	Notifications []NotificationDelivery `json:"notifications,omitempty"`
}

// Plan is the list of tasks of one iteration.
type Plan struct {
	// tasks of the plan; dependsOn orders them.
	// +optional
	// +listType=map
	// +listMapKey=id
	// +kubebuilder:validation:MaxItems=32
	Tasks []PlanTask `json:"tasks,omitempty"`

	// feedback is the regulator's note that led to this plan, when it is a re-plan.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Feedback string `json:"feedback,omitempty"`
}

// PlanTask is one unit of investigation work.
type PlanTask struct {
	// id is unique within the session, e.g. "pods-1".
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	ID string `json:"id"`

	// type is the kind of work, e.g. Analyze, ToolCall, Knowledge, Investigate.
	// +required
	Type TaskType `json:"type"`

	// description says what the task should find out.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Description string `json:"description"`

	// tool is the analyzer or tool the task uses, e.g. "pod-status" or "prometheus/query".
	// +optional
	// +kubebuilder:validation:MaxLength=253
	Tool string `json:"tool,omitempty"`

	// dependsOn lists ids of tasks that must finish first.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=16
	// +kubebuilder:validation:items:MaxLength=63
	DependsOn []string `json:"dependsOn,omitempty"`

	// state of the task.
	// +optional
	// +kubebuilder:default=Pending
	State TaskState `json:"state,omitempty"`

	// jobName is the Job running the task when taskRunner is Job.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	JobName string `json:"jobName,omitempty"`

	// attempts is how many times the task was started.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=10
	Attempts int32 `json:"attempts,omitempty"`

	// summary is the task's result in a few sentences.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Summary string `json:"summary,omitempty"`

	// startedAt is when the latest attempt started.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`

	// finishedAt is when the task reached a final state.
	// +optional
	FinishedAt *metav1.Time `json:"finishedAt,omitempty"`
}

// Evidence is a short finding with a reference to where it came from.
type Evidence struct {
	// id is unique within the session, e.g. "ev-3"; rootCause.evidenceIDs refer to it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	ID string `json:"id"`

	// summary of the finding; raw data stays outside the object.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=512
	Summary string `json:"summary"`

	// source says where the finding came from.
	// +required
	Source EvidenceSource `json:"source"`

	// taskID is the plan task that produced the finding.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	TaskID string `json:"taskID,omitempty"`

	// timestamp is when the finding was recorded.
	// +optional
	Timestamp *metav1.Time `json:"timestamp,omitempty"`
}

// EvidenceSource references the origin of a finding.
// +kubebuilder:validation:XValidation:rule="!(self.kind in ['Object', 'Event', 'Log']) || has(self.object)",message="object is required for Object, Event and Log evidence",fieldPath=".object"
// +kubebuilder:validation:XValidation:rule="self.kind != 'Knowledge' || has(self.knowledge)",message="knowledge is required for Knowledge evidence",fieldPath=".knowledge"
// +kubebuilder:validation:XValidation:rule="self.kind != 'ToolServer' || has(self.toolServer)",message="toolServer is required for ToolServer evidence",fieldPath=".toolServer"
type EvidenceSource struct {
	// kind of source: Object, Query, ToolServer, Knowledge, Log or Event.
	// +required
	Kind EvidenceSourceKind `json:"kind"`

	// object the finding is about (the Pod of a Log, the involved object of an Event).
	// +optional
	Object *ObjectReference `json:"object,omitempty"`

	// toolServer is the name of the ToolServer that answered.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	ToolServer string `json:"toolServer,omitempty"`

	// tool is the tool that produced the finding.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	Tool string `json:"tool,omitempty"`

	// query is the query or arguments sent to the tool, e.g. a PromQL expression.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Query string `json:"query,omitempty"`

	// knowledge cites the knowledge chunk the finding rests on.
	// +optional
	Knowledge *KnowledgeCitation `json:"knowledge,omitempty"`
}

// KnowledgeCitation points at one indexed chunk of a KnowledgeSource.
type KnowledgeCitation struct {
	// source is the name of the KnowledgeSource.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Source string `json:"source"`

	// chunkID identifies the chunk within the source's index.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	ChunkID string `json:"chunkID,omitempty"`

	// document is the path or URL of the document within the source.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Document string `json:"document,omitempty"`

	// headingPath is the chain of headings leading to the chunk, e.g. "Alerts > KubePodCrashLooping".
	// +optional
	// +kubebuilder:validation:MaxLength=512
	HeadingPath string `json:"headingPath,omitempty"`

	// url links to the cited text for humans, when the source has one.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	URL string `json:"url,omitempty"`
}

// RootCause is the conclusion of a session.
type RootCause struct {
	// summary of the root cause in one or two sentences.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Summary string `json:"summary"`

	// category is an UpperCamelCase word such as CrashLoop, ImagePull, Scheduling, Configuration.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[A-Z][A-Za-z0-9]*$`
	Category string `json:"category,omitempty"`

	// confidence in percent, 0 to 100.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Confidence int32 `json:"confidence,omitempty"`

	// affectedObjects are the objects the root cause explains.
	// +optional
	// +kubebuilder:validation:MaxItems=20
	AffectedObjects []ObjectReference `json:"affectedObjects,omitempty"`

	// evidenceIDs are the ids of the evidence the conclusion rests on.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=20
	// +kubebuilder:validation:items:MaxLength=63
	EvidenceIDs []string `json:"evidenceIDs,omitempty"`
}

// SeenBefore is an earlier incident of the namespace that looks like this one.
type SeenBefore struct {
	// session is the name of the earlier Troubleshoot (it may have been deleted since).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Session string `json:"session"`

	// concludedAt is when the earlier session concluded.
	// +optional
	ConcludedAt *metav1.Time `json:"concludedAt,omitempty"`

	// similarity of the two fingerprints in percent.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:Maximum=100
	Similarity int32 `json:"similarity,omitempty"`

	// occurrences is how many remembered sessions match, the cited one included.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Occurrences int32 `json:"occurrences,omitempty"`

	// rootCause is the earlier session's root cause summary.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	RootCause string `json:"rootCause,omitempty"`

	// culprit is the object the earlier session blamed, as Kind/name.
	// +optional
	// +kubebuilder:validation:MaxLength=320
	Culprit string `json:"culprit,omitempty"`

	// fix is the remediation the earlier session proposed.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Fix string `json:"fix,omitempty"`
}

// Remediation is the proposal of a Remediate-mode session.
type Remediation struct {
	// actions proposed, each with its risk and approval state.
	// +optional
	// +listType=map
	// +listMapKey=id
	// +kubebuilder:validation:MaxItems=10
	Actions []RemediationAction `json:"actions,omitempty"`

	// validationSteps say how to check that the problem is gone afterwards.
	// +optional
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:items:MaxLength=512
	ValidationSteps []string `json:"validationSteps,omitempty"`
}

// RemediationAction is one proposed change: a command for a human, or a patch the
// operator applies after approval; neither for advice only.
// +kubebuilder:validation:XValidation:rule="!(has(self.command) && has(self.patch))",message="set at most one of command or patch"
type RemediationAction struct {
	// id is unique within the session; spec.approvals refer to it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	ID string `json:"id"`

	// description of the action and why it helps.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=1024
	Description string `json:"description"`

	// command is a shell command for a human to run, e.g. a kubectl invocation.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	Command string `json:"command,omitempty"`

	// patch is a change the operator applies after approval.
	// +optional
	Patch *RemediationPatch `json:"patch,omitempty"`

	// risk of the action, from its structure: the operation or the fields a patch touches,
	// raised (never lowered) by the rule that proposed it. A model's own estimate is ignored.
	// +required
	Risk Risk `json:"risk"`

	// approval state of the action.
	// +optional
	// +kubebuilder:default=Pending
	Approval ApprovalState `json:"approval,omitempty"`

	// decidedBy is the user whose decision (spec.approvals[].decidedBy) the session applied.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	DecidedBy string `json:"decidedBy,omitempty"`

	// result of executing the action.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Result string `json:"result,omitempty"`
}

// RemediationPatch is a patch to one object in the session's namespace.
type RemediationPatch struct {
	// target is the object to patch.
	// +required
	Target ObjectReference `json:"target"`

	// type of the patch.
	// +optional
	// +kubebuilder:default=StrategicMerge
	Type PatchType `json:"type,omitempty"`

	// patch is the patch document (JSON or YAML).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=8192
	Patch string `json:"patch"`
}

// Usage counts what a session consumed, to compare against its budget.
type Usage struct {
	// llmCalls is the number of chat-completion requests.
	// +optional
	// +kubebuilder:validation:Minimum=0
	LLMCalls int64 `json:"llmCalls,omitempty"`

	// promptTokens is the total of prompt tokens reported by the model.
	// +optional
	// +kubebuilder:validation:Minimum=0
	PromptTokens int64 `json:"promptTokens,omitempty"`

	// completionTokens is the total of completion tokens reported by the model.
	// +optional
	// +kubebuilder:validation:Minimum=0
	CompletionTokens int64 `json:"completionTokens,omitempty"`

	// toolCalls is the number of tool calls, built-in and MCP.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ToolCalls int64 `json:"toolCalls,omitempty"`
}

// Troubleshoot is one investigation of a problem in its namespace: the operator plans,
// gathers evidence with tools, judges, and writes the root cause into status.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=ts,categories=kubage
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Category",type=string,JSONPath=`.status.rootCause.category`
// +kubebuilder:printcolumn:name="Root Cause",type=string,JSONPath=`.status.rootCause.summary`
// +kubebuilder:printcolumn:name="Confidence",type=integer,JSONPath=`.status.rootCause.confidence`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Troubleshoot struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is the standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec describes the problem and the limits of the session.
	// +required
	Spec TroubleshootSpec `json:"spec"`

	// status is the session's progress and result.
	// +optional
	Status TroubleshootStatus `json:"status,omitempty"`
}

// TroubleshootList is a list of Troubleshoot.
// +kubebuilder:object:root=true
type TroubleshootList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Troubleshoot `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Troubleshoot{}, &TroubleshootList{})
}

// KnowledgeScope is one part of a session's knowledge: the passages of the
// KnowledgeSources its selector picks, filtered by domain and trust, at most topK per search.
type KnowledgeScope struct {
	// selector picks KnowledgeSources by label; an empty selector picks all of this namespace.
	// +required
	Selector metav1.LabelSelector `json:"selector"`

	// domain keeps only sources of this domain (their spec.domain).
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Domain string `json:"domain,omitempty"`

	// topK bounds the passages this scope contributes to one search, 1–10.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	TopK int32 `json:"topK,omitempty"`

	// minTrust keeps only sources whose trustLevel is at least this, 1–5.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=5
	MinTrust int32 `json:"minTrust,omitempty"`
}
