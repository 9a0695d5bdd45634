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

// Condition types shared by the kinds of this API. Ready is always present once an object
// has been reconciled; the others appear when they carry information.
const (
	// ReadyCondition says whether the object has reached its goal: a Troubleshoot has
	// concluded, a KnowledgeSource is indexed, a ToolServer answers and lists its tools.
	ReadyCondition = "Ready"

	// ReconcilingCondition is True while the controller is working towards Ready.
	ReconcilingCondition = "Reconciling"

	// StalledCondition is True when progress needs a change of the spec (or of an
	// object the spec refers to) and retrying alone will not help.
	StalledCondition = "Stalled"

	// DegradedCondition is True when the object works with reduced capability, e.g. the
	// model is unreachable and the rule engine stands in, or a ToolServer serves stale tools.
	DegradedCondition = "Degraded"

	// RootCauseFoundCondition is True on a Troubleshoot once a root cause has been named.
	RootCauseFoundCondition = "RootCauseFound"

	// RemediationApprovedCondition is True on a Troubleshoot in Remediate mode when every
	// proposed action has been approved or rejected.
	RemediationApprovedCondition = "RemediationApproved"
)

// Condition reasons. They are UpperCamelCase as metav1.Condition requires.
const (
	// NotImplementedReason marks a controller that records the object but does not act on it yet.
	NotImplementedReason = "NotImplemented"

	// ProgressingReason: the controller is working on the object.
	ProgressingReason = "Progressing"

	// SucceededReason: the goal was reached.
	SucceededReason = "Succeeded"

	// FailedReason: the goal could not be reached; the message says why.
	FailedReason = "Failed"

	// InvalidSpecReason: the spec cannot be acted on; the object stalls until it changes.
	InvalidSpecReason = "InvalidSpec"

	// ReferenceNotFoundReason: a referenced Secret or ConfigMap does not exist (yet).
	ReferenceNotFoundReason = "ReferenceNotFound"

	// BudgetExhaustedReason: an investigation stopped at its iteration, tool-call or token budget.
	BudgetExhaustedReason = "BudgetExhausted"

	// TimedOutReason: an investigation ran past spec.budget.timeout.
	TimedOutReason = "TimedOut"

	// ModelUnavailableReason: the language model could not be reached and the rule engine stood in.
	ModelUnavailableReason = "ModelUnavailable"

	// AwaitingApprovalReason: remediation actions wait for a human decision.
	AwaitingApprovalReason = "AwaitingApproval"

	// NoRootCauseReason: the investigation ended without naming a root cause.
	NoRootCauseReason = "NoRootCause"

	// FetchFailedReason: a KnowledgeSource could not be fetched.
	FetchFailedReason = "FetchFailed"
	// TooLargeReason: a KnowledgeSource holds more than the operator's per-source cap
	// (--knowledge-max-source-bytes); nothing of it is indexed and other sources are unaffected.
	TooLargeReason = "TooLarge"

	// IndexFailedReason: a KnowledgeSource was fetched but could not be indexed.
	IndexFailedReason = "IndexFailed"

	// UpToDateReason: a KnowledgeSource's revision is unchanged since the last index.
	UpToDateReason = "UpToDate"

	// ConnectionFailedReason: a ToolServer did not answer.
	ConnectionFailedReason = "ConnectionFailed"

	// StaleToolsReason: a ToolServer is unreachable and its last-known tools are kept.
	StaleToolsReason = "StaleTools"
)

// Keys of the report ConfigMap named by TroubleshootStatus.ReportRef.
const (
	// ReportMarkdownKey holds the human-readable report.
	ReportMarkdownKey = "report.md"

	// ReportJSONKey holds the machine-readable report.
	ReportJSONKey = "report.json"
)

// Keys expected in a model Secret (TroubleshootSpec.Model, EmbeddingSpec.SecretRef).
const (
	// ModelSecretBaseURLKey is the base URL of an OpenAI-compatible endpoint.
	ModelSecretBaseURLKey = "baseURL"

	// ModelSecretModelKey is the model name.
	ModelSecretModelKey = "model"

	// ModelSecretAPIKeyKey is the API key; optional for endpoints without auth.
	ModelSecretAPIKeyKey = "apiKey"
)

// ProblemFoundCondition is True on a TroubleshootSchedule whose newest judged run found a
// problem; its message is the root cause.
const ProblemFoundCondition = "ProblemFound"

// NotifiedCondition is True on an object whose notifications were all delivered, False
// while one is retried or after one failed for good.
const NotifiedCondition = "Notified"
