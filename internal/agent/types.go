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

// Package agent holds KubAge's brains: the brain interfaces (plan, investigate, judge,
// summarize), the deterministic RuleEngine brain with its analyzers and root-cause rules,
// and RunTask, the one way a task runs wherever its runner is. The loop that drives a brain
// within a budget is the session engine (internal/session).
package agent

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// ObjectRef names a Kubernetes object; Namespace is empty for cluster-scoped kinds.
type ObjectRef struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// String renders Kind/Name (with the namespace when set).
func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

// Key is a stable identity for sets and maps.
func (r ObjectRef) Key() string { return strings.ToLower(r.Kind) + "/" + r.Namespace + "/" + r.Name }

// IsZero reports an empty reference.
func (r ObjectRef) IsZero() bool { return r.Kind == "" && r.Name == "" }

// Target is what a session investigates: an object, a label selector, or (both empty) the namespace.
type Target struct {
	Kind     string `json:"kind,omitempty"`
	Name     string `json:"name,omitempty"`
	Selector string `json:"selector,omitempty"`
}

// TimeRange bounds the signals considered (events older than From are ignored).
type TimeRange struct {
	From *time.Time `json:"from,omitempty"`
	To   *time.Time `json:"to,omitempty"`
}

// Session is one troubleshooting request, independent of the Troubleshoot API type.
type Session struct {
	// ID identifies the session in traces and reports (e.g. the Troubleshoot's namespace/name).
	ID        string     `json:"id,omitempty"`
	Problem   string     `json:"problem"`
	Namespace string     `json:"namespace"`
	Target    *Target    `json:"target,omitempty"`
	TimeRange *TimeRange `json:"timeRange,omitempty"`
	// Hints are free-text pointers (runbook URLs, alert annotations).
	Hints []string `json:"hints,omitempty"`
	// Brain is how the session thinks, set on the requests of tasks so that a task builds
	// the session's brain wherever it runs; nil means the rule engine alone.
	Brain *BrainConfig `json:"brain,omitempty"`
	// TraceParent is the W3C traceparent of the phase that started a task, so the task's
	// spans join the session's trace wherever it runs.
	TraceParent string `json:"traceParent,omitempty"`
	// Cluster is the cluster under investigation when it is not the one the task runs
	// against; nil: that one.
	Cluster *ClusterRef `json:"cluster,omitempty"`
}

// ClusterRef names the kubeconfig of another cluster: a key of a Secret, and the context to
// use (its current-context when empty). Where a task runs decides how the Secret is read.
type ClusterRef struct {
	Secret  SecretRef `json:"secret"`
	Key     string    `json:"key"`
	Context string    `json:"context,omitempty"`
}

// BrainConfig is the session's brain as a task needs it: which model, in which mode, within
// which budgets, with which tools and knowledge. It is plain JSON so it travels to a Job.
type BrainConfig struct {
	// Model names the Secret with the model's baseURL, model and apiKey; nil: no model.
	Model *SecretRef `json:"model,omitempty"`
	// Mode is Diagnose (default) or Remediate.
	Mode string `json:"mode,omitempty"`
	// MaxIterations and MaxToolCalls are the session's budgets.
	MaxIterations int `json:"maxIterations,omitempty"`
	MaxToolCalls  int `json:"maxToolCalls,omitempty"`
	// ToolServers and KnowledgeSources select what the session may use (nil: all admitted).
	ToolServers      *metav1.LabelSelector `json:"toolServers,omitempty"`
	KnowledgeSources *metav1.LabelSelector `json:"knowledgeSources,omitempty"`
	// Knowledge are the session's knowledge scopes (spec.knowledge); they replace KnowledgeSources.
	Knowledge []kubagev1alpha1.KnowledgeScope `json:"knowledge,omitempty"`
	// RedactionKey keys the pseudonyms of redacted values. It is derived per session, so
	// every task of a session names the same value alike and no two sessions do.
	RedactionKey []byte `json:"redactionKey,omitempty"`
}

// SecretRef names a Secret.
type SecretRef struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// ServiceAccount of Namespace whose rights read the Secret (empty: whoever reads it
	// decides, by its own policy).
	ServiceAccount string `json:"serviceAccount,omitempty"`
}

// String renders namespace/name.
func (r SecretRef) String() string { return r.Namespace + "/" + r.Name }

// Usage is what a task consumed of the model and the tools; it travels in TaskResult so the
// session accounts it wherever the task ran.
type Usage struct {
	LLMCalls         int64 `json:"llmCalls,omitempty"`
	PromptTokens     int64 `json:"promptTokens,omitempty"`
	CompletionTokens int64 `json:"completionTokens,omitempty"`
	// ToolCalls counts the task's tool calls; it survives a result trimmed of ToolCalls.
	ToolCalls int64 `json:"toolCalls,omitempty"`
}

// IsZero reports a task that consumed nothing.
func (u Usage) IsZero() bool { return u == Usage{} }

// Degradation says why a task ran without (part of) its model, condition-ready.
type Degradation struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// TargetRef returns the session target as an object reference (zero when none).
func (s Session) TargetRef() ObjectRef {
	if s.Target == nil || s.Target.Name == "" {
		return ObjectRef{}
	}
	return ObjectRef{Kind: s.Target.Kind, Namespace: s.Namespace, Name: s.Target.Name}
}

// TaskType is the kind of work a task does; values match the Troubleshoot API.
type TaskType string

const (
	// TaskAnalyze runs a rule-engine analyzer (Task.Tool names it).
	TaskAnalyze TaskType = "Analyze"
	// TaskToolCall calls one tool (Task.Tool) with Task.Args.
	TaskToolCall TaskType = "ToolCall"
	// TaskInvestigate hands an open question to a sub-task agent (LLM brain).
	TaskInvestigate TaskType = "Investigate"
	// TaskKnowledge retrieves from knowledge sources (LLM brain).
	TaskKnowledge TaskType = "Knowledge"
)

// Task is one unit of plan work. It is plain JSON so it can run in a Kubernetes Job.
type Task struct {
	ID          string            `json:"id"`
	Type        TaskType          `json:"type"`
	Description string            `json:"description"`
	Tool        string            `json:"tool,omitempty"`
	Args        map[string]string `json:"args,omitempty"`
	DependsOn   []string          `json:"dependsOn,omitempty"`
}

// SourceKind says where evidence came from; values match the Troubleshoot API.
type SourceKind string

const (
	SourceObject     SourceKind = "Object"
	SourceEvent      SourceKind = "Event"
	SourceLog        SourceKind = "Log"
	SourceQuery      SourceKind = "Query"
	SourceToolServer SourceKind = "ToolServer"
	SourceKnowledge  SourceKind = "Knowledge"
)

// Source references the origin of a piece of evidence.
type Source struct {
	Kind   SourceKind `json:"kind"`
	Object *ObjectRef `json:"object,omitempty"`
	Tool   string     `json:"tool,omitempty"`
	Query  string     `json:"query,omitempty"`
}

// Evidence is one observed fact with its origin and a bounded excerpt of the raw data.
type Evidence struct {
	// ID matches ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ and is unique within a session.
	ID      string `json:"id"`
	Summary string `json:"summary"`
	Source  Source `json:"source"`
	// Data is an excerpt of the raw signal (log tail, event message), at most MaxEvidenceData bytes.
	Data   string `json:"data,omitempty"`
	TaskID string `json:"taskId,omitempty"`
}

// Finding is a rule match: a candidate root cause seen on Object, blaming Culprit.
type Finding struct {
	Rule       string            `json:"rule"`
	Confidence int               `json:"confidence"`
	Summary    string            `json:"summary"`
	Object     ObjectRef         `json:"object"`
	Culprit    ObjectRef         `json:"culprit"`
	Affected   []ObjectRef       `json:"affected,omitempty"`
	Facts      map[string]string `json:"facts,omitempty"`
	Evidence   []string          `json:"evidence,omitempty"`
	// Follow lists objects that may hold the deeper cause; the regulator plans them next
	// and a finding on any of them explains (supersedes) this one.
	Follow []ObjectRef `json:"follow,omitempty"`
	// Hop is how many follow steps led here from the session target.
	Hop int `json:"hop,omitempty"`
	// Sources are the configuration objects (ConfigMaps, Secrets) the failing container
	// reads, named when nothing found broken explains its error: where to look, listed
	// after the affected objects and never used to rank or link findings.
	Sources []ObjectRef `json:"sources,omitempty"`
}

// ToolCall records one tool or API use by a task.
type ToolCall struct {
	Tool  string `json:"tool"`
	Args  string `json:"args,omitempty"`
	Error string `json:"error,omitempty"`
}

// TaskResult is what Investigate returns; plain JSON, like Task.
type TaskResult struct {
	TaskID    string     `json:"taskId"`
	Summary   string     `json:"summary"`
	Evidence  []Evidence `json:"evidence,omitempty"`
	Findings  []Finding  `json:"findings,omitempty"`
	ToolCalls []ToolCall `json:"toolCalls,omitempty"`
	// Examined lists the objects the task looked at (so they are not planned again).
	Examined []ObjectRef `json:"examined,omitempty"`
	// FollowUps are objects worth examining next that carry no finding of their own yet.
	FollowUps   []ObjectRef `json:"followUps,omitempty"`
	APIRequests int64       `json:"apiRequests"`
	Error       string      `json:"error,omitempty"`
	// Hop is copied from the task so later rounds know the depth.
	Hop int `json:"hop,omitempty"`
	// Usage is what the task consumed (nil for a task that used no model).
	Usage *Usage `json:"usage,omitempty"`
	// Degraded is set when the task fell back from the model to the rule engine.
	Degraded *Degradation `json:"degraded,omitempty"`
}

// Decision is the regulator's verdict.
type Decision string

const (
	Conclude Decision = "Conclude"
	Replan   Decision = "Replan"
	Stop     Decision = "Stop"
)

// Verdict is the regulator's judgement of the results so far.
type Verdict struct {
	Decision Decision `json:"decision"`
	Feedback string   `json:"feedback,omitempty"`
	// Next suggests tasks for the next round (the rule engine's planner uses them as is).
	Next []Task `json:"next,omitempty"`
}

// Progress is what the brain sees of a session so far.
type Progress struct {
	Iteration int          `json:"iteration"`
	Results   []TaskResult `json:"results,omitempty"`
	Verdict   *Verdict     `json:"verdict,omitempty"`
	// StopReason is set when the loop stopped on a budget.
	StopReason string `json:"stopReason,omitempty"`
}

// Risk is a remediation action's blast radius.
type Risk string

const (
	RiskLow    Risk = "Low"
	RiskMedium Risk = "Medium"
	RiskHigh   Risk = "High"
)

// Action is one proposed remediation step; Command is a draft and is never executed here.
type Action struct {
	ID          string `json:"id"`
	Description string `json:"description"`
	Command     string `json:"command,omitempty"`
	Risk        Risk   `json:"risk"`
}

// Remediation is the proposal that follows a root cause.
type Remediation struct {
	Actions         []Action `json:"actions,omitempty"`
	ValidationSteps []string `json:"validationSteps,omitempty"`
}

// RootCause is the session's conclusion.
type RootCause struct {
	Summary string `json:"summary"`
	// Category is UpperCamelCase (the API's pattern), e.g. CrashLoopBackOff.
	Category string `json:"category"`
	// Rule is the kebab-case id of the rule that matched, e.g. crash-loop.
	Rule            string      `json:"rule,omitempty"`
	Confidence      int         `json:"confidence"`
	Culprit         ObjectRef   `json:"culprit"`
	AffectedObjects []ObjectRef `json:"affectedObjects,omitempty"`
	EvidenceIDs     []string    `json:"evidenceIds,omitempty"`
	// Chain is the path from the symptom to the cause, e.g. Pod → PVC → StorageClass.
	Chain []string `json:"chain,omitempty"`
}

// Conclusion is what Summarize returns.
type Conclusion struct {
	RootCause   RootCause   `json:"rootCause"`
	Remediation Remediation `json:"remediation"`
	// Alternatives are the next-ranked candidate causes.
	Alternatives []RootCause `json:"alternatives,omitempty"`
	// Evidence holds the evidence cited by the root cause and alternatives.
	Evidence []Evidence `json:"evidence,omitempty"`
}

// Bounds that keep results small enough for a status object and a model's context.
const (
	MaxEvidenceSummary = 512
	MaxEvidenceData    = 2048
	MaxRootSummary     = 1024
	MaxAffected        = 20
	MaxEvidenceIDs     = 20
	MaxActions         = 10
	MaxValidationSteps = 10
)

// Budget bounds a session.
type Budget struct {
	MaxIterations int           `json:"maxIterations,omitempty"`
	MaxToolCalls  int           `json:"maxToolCalls,omitempty"`
	Timeout       time.Duration `json:"timeout,omitempty"`
	Parallelism   int           `json:"parallelism,omitempty"`
}

// Default budget values, used for zero fields.
const (
	DefaultMaxIterations = 5
	DefaultMaxToolCalls  = 200
	DefaultTimeout       = 2 * time.Minute
	DefaultParallelism   = 4
)

// WithDefaults fills zero fields.
func (b Budget) WithDefaults() Budget {
	if b.MaxIterations <= 0 {
		b.MaxIterations = DefaultMaxIterations
	}
	if b.MaxToolCalls <= 0 {
		b.MaxToolCalls = DefaultMaxToolCalls
	}
	if b.Timeout <= 0 {
		b.Timeout = DefaultTimeout
	}
	if b.Parallelism <= 0 {
		b.Parallelism = DefaultParallelism
	}
	return b
}

func taskID(iteration, n int) string { return fmt.Sprintf("i%d-t%d", iteration, n) }
