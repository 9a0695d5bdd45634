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

// Condition types and reasons of one kind each; those shared by all kinds are in
// conditions.go. Every reason the operator writes into a condition is declared in this
// package, so a user (or a script) finds them all in one place.

// Troubleshoot conditions and reasons.
const (
	// OutdatedCondition is True on a finished session whose spec changed after the run
	// started: the result answers an older question until the rerun annotation is set.
	OutdatedCondition = "Outdated"

	// SpecChangedReason explains OutdatedCondition.
	SpecChangedReason = "SpecChanged"

	// ApprovalNotRecordedReason (RemediationApproved False): the approval webhook is enabled
	// but a decision in spec.approvals carries no decidedBy, so it never passed the API
	// server's authorizer; the action waits until the decision is written again.
	ApprovalNotRecordedReason = "ApprovalNotRecorded"

	// TargetNotFoundReason: spec.target names an object that does not exist; the session
	// fails at once instead of investigating nothing.
	TargetNotFoundReason = "TargetNotFound"

	// RunnerUnavailableReason: the task runner asked for is not configured in the operator.
	RunnerUnavailableReason = "RunnerUnavailable"

	// NameConflictReason: a ConfigMap KubAge needs (checkpoint, report, result) exists and
	// belongs to someone else; the session waits until it is renamed or deleted.
	NameConflictReason = "NameConflict"

	// AgentAccessConflictReason: a binding the Job runner manages for the agent's
	// ServiceAccount exists and grants something else (another role or subject); tasks
	// wait until an administrator removes or corrects it.
	AgentAccessConflictReason = "AgentAccessConflict"

	// SummarizeFailedReason: the brain could not write a conclusion before the deadline.
	SummarizeFailedReason = "SummarizeFailed"

	// ModelSecretInvalidReason is the Degraded reason of a session whose model Secret is
	// missing or unusable: it runs on the rule engine instead.
	ModelSecretInvalidReason = "ModelSecretInvalid"
)

// KnowledgeSource reasons.
const (
	// IndexedReason: every document of the revision is indexed and searchable.
	IndexedReason = "Indexed"

	// PartiallyIndexedReason: the source is searchable but some documents could not be indexed.
	PartiallyIndexedReason = "PartiallyIndexed"

	// NoDocumentsReason: the source holds no document of its format (check paths and format).
	NoDocumentsReason = "NoDocuments"

	// AuthFailedReason: the git server refused the credentials.
	AuthFailedReason = "AuthFailed"

	// RefNotFoundReason: the branch, tag or commit does not exist on the remote.
	RefNotFoundReason = "RefNotFound"

	// StoreErrorReason: the index store (Milvus) could not be reached or refused a write.
	StoreErrorReason = "StoreError"

	// EmbeddingFailedReason: the embedding endpoint could not be used before indexing started.
	EmbeddingFailedReason = "EmbeddingFailed"

	// ForbiddenReason: the ServiceAccount an object names (or none, when the operator
	// requires one) may not read a Secret the object refers to; nothing is read or sent.
	ForbiddenReason = "Forbidden"

	// EgressDeniedReason: the egress guard refused an address the object points at (a
	// URL, a redirect target or what a name resolves to); also a ToolServer reason.
	EgressDeniedReason = "EgressDenied"

	// ServingLastIndexReason: the latest run failed and the previous index keeps serving.
	ServingLastIndexReason = "ServingLastIndex"

	// CleanupFailedReason (an Event reason): a deleted source's chunks could not be removed
	// from its store within the grace period and stay behind.
	CleanupFailedReason = "CleanupFailed"
)

// Reasons of ToolServers, and of KnowledgeSources for the objects they refer to.
const (
	// ConnectedReason: the server answered and listed its tools.
	ConnectedReason = "Connected"

	// SecretNotFoundReason: a referenced Secret (or its key) does not exist.
	SecretNotFoundReason = "SecretNotFound"

	// ConfigMapNotFoundReason: a referenced ConfigMap (or its key) does not exist.
	ConfigMapNotFoundReason = "ConfigMapNotFound"
)

// TroubleshootSchedule reasons.
const (
	// ScheduledReason: the schedule is valid and creates runs when they are due.
	ScheduledReason = "Scheduled"
	// SuspendedReason: spec.suspend holds new runs back.
	SuspendedReason = "Suspended"
	// InvalidScheduleReason: spec.schedule or spec.timeZone cannot be read; nothing runs
	// until the spec changes.
	InvalidScheduleReason = "InvalidSchedule"
	// RunCreatedReason (an Event reason): a scheduled run was created.
	RunCreatedReason = "RunCreated"
	// RunSkippedReason (an Event reason): a due run was skipped (Forbid, or past its starting deadline).
	RunSkippedReason = "RunSkipped"
	// NewProblemReason (an Event reason): a run found a problem unlike the one before.
	NewProblemReason = "NewProblem"
	// ProblemResolvedReason (an Event reason): a run found nothing after one that found a problem.
	ProblemResolvedReason = "ProblemResolved"
)

// Notification reasons.
const (
	// DeliveredReason: every notification was accepted by its sink.
	DeliveredReason = "Delivered"
	// DeliveryRetryingReason: a notification failed and is retried with backoff.
	DeliveryRetryingReason = "DeliveryRetrying"
	// DeliveryFailedReason: a notification failed on every attempt and was given up.
	DeliveryFailedReason = "DeliveryFailed"
	// SinkNotFoundReason: a named NotificationSink does not exist.
	SinkNotFoundReason = "SinkNotFound"
	// SinkValidReason: a NotificationSink's Secrets are readable and its URL is allowed.
	SinkValidReason = "Valid"
	// SessionCompletedEvent and SessionFailedEvent are the notification events of a
	// Troubleshoot's spec.notify: the session concluded, or failed.
	SessionCompletedEvent = "SessionCompleted"
	SessionFailedEvent    = "SessionFailed"
)

// Remote cluster reasons: a session may investigate another cluster through a kubeconfig Secret.
const (
	// KubeConfigRefusedReason: the kubeconfig asks for something the operator will not do for
	// a namespace's author: run an exec plugin, use an auth-provider, or read a local file.
	KubeConfigRefusedReason = "KubeConfigRefused"
	// ClusterUnreachableReason: the remote cluster's API server did not answer.
	ClusterUnreachableReason = "ClusterUnreachable"
	// ClusterUnauthorizedReason: the remote cluster refused the kubeconfig's credentials.
	ClusterUnauthorizedReason = "ClusterUnauthorized"
	// ClusterForbiddenReason: the remote cluster accepted the credentials but they may not
	// read the session's namespace there (list Pods).
	ClusterForbiddenReason = "ClusterForbidden"
)
