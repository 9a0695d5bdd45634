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

// Package session drives one Troubleshoot session through its phases, one step per call,
// persisting every step: Pending → Planning → Investigating → Regulating → (Planning |
// Summarizing) → Completed, or Failed; in Remediate mode Summarizing → AwaitingApproval →
// Remediating → (AwaitingApproval | Completed). Each Advance reads the checkpoint, does one
// step with idempotent side effects (task launches keyed by a deterministic name, result
// and report ConfigMaps written whole), writes the checkpoint and only then changes the
// status in memory for the caller to persist. An operator killed at any moment therefore
// resumes from the last persisted step without launching a task twice or losing results.
//
// Each phase has one step, a phaseStep looked up in phaseSteps (phase.go), in a file of
// its own: pending.go, plan.go, investigate.go (with tasks.go), regulate.go, summarize.go
// and remediate.go (AwaitingApproval and Remediating). budget.go holds the budgets and the
// usage accounted against them, checkpoint.go the persisted checkpoint, and status.go the
// pure functions the controller derives conditions from (Outcome, RootCauseFound, SpecHash).
//
// The package also maps the brain's types (internal/agent) to the API's status types.
package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/knowledge"
	"github.com/kubage/kubage/internal/memory"
	"github.com/kubage/kubage/internal/remediate"
	"github.com/kubage/kubage/internal/runner"
	"github.com/kubage/kubage/internal/tools"
)

// RerunAnnotation is the rerun gesture: setting it to a value it has not had before
// restarts the session from Pending, deleting the previous run's tasks and results.
// A spec change alone never reruns a finished session.
//
//	kubectl annotate troubleshoot web kubage.io/rerun="$(date +%s)" --overwrite
const RerunAnnotation = "kubage.io/rerun"

// BrainFactory returns the brain for a session (the rule engine, or an LLM brain with the
// rule engine as fallback). It is called once per step, so it should be cheap.
type BrainFactory func(ctx context.Context, ts *kubagev1alpha1.Troubleshoot) (agent.Brain, error)

// Usage is what a brain consumed of a model since it was last asked.
type Usage = agent.Usage

// UsageReporter is implemented by brains that call a model; the engine adds what they
// report after each call to status.usage and checks it against spec.budget.maxTokens.
type UsageReporter interface {
	TakeUsage() Usage
}

// DegradationReporter is implemented by brains that may fall back from a model to the
// rule engine; the engine keeps the latest degradation in the checkpoint, for the
// Degraded condition. Plain types let brains implement it without importing session.
type DegradationReporter interface {
	TakeDegraded() (reason, message string, degraded bool)
}

// Engine advances sessions. Runners maps each available TaskRunner to its runner.
type Engine struct {
	// Client keeps the session's state: checkpoint, task results, report.
	Client kubernetes.Interface
	// Cluster is the cluster under investigation, where the target is looked up (Client
	// when nil; a local session may keep its state apart from a real cluster).
	Cluster kubernetes.Interface
	// Offline sessions have no cluster under investigation (a replay of recorded tool
	// outputs): the target is not looked up.
	Offline bool
	Brains  BrainFactory
	// BrainConfig is the session's brain as its tasks build it (nil: tasks use the rules).
	BrainConfig   func(context.Context, *kubagev1alpha1.Troubleshoot) *agent.BrainConfig
	Runners       map[kubagev1alpha1.TaskRunner]runner.Runner
	DefaultRunner kubagev1alpha1.TaskRunner
	Executor      *remediate.Executor
	// ApprovalsNeedDecidedBy is set when the approval webhook is enabled: a decision in
	// spec.approvals without decidedBy did not pass the API server's authorizer and counts
	// as none, and no action runs without a recorded approver.
	ApprovalsNeedDecidedBy bool
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// PollInterval is how often running tasks are checked (2s when zero). Runners that
	// notify on completion make the controller react sooner.
	PollInterval time.Duration
	// MaxAttempts bounds how often a task that is lost is started (3 when zero). Attempts
	// lost with the operator process that ran them (a restart, a new leader) do not count:
	// those are bounded only by the API's maximum of 10 starts per task.
	MaxAttempts int
	// Knowledge finds runbooks to cite for a root cause (none when nil).
	Knowledge Citer
	// Memory is the incident memory: concluded sessions are recorded in it and a new
	// conclusion cites a similar earlier one (none when nil).
	Memory *memory.Store
	// Clusters reaches the other clusters of sessions with spec.cluster (see cluster.go);
	// nil: such sessions wait, stalled.
	Clusters ClusterChecker
	// Cache serves reads of the engine's own cluster from memory where it can (none when
	// nil); sessions investigating another cluster never read through it.
	Cache tools.ObjectCache

	checkpoints checkpointMemo
	results     resultsMemo
}

// Citer finds the knowledge a conclusion should cite; *knowledge.Service is one.
type Citer interface {
	CiteForConclusion(ctx context.Context, namespace string, selector *metav1.LabelSelector, scopes []knowledge.Scope, summary, category string) []knowledge.Citation
}

// Step is the outcome of one Advance.
type Step struct {
	// RequeueAfter is when the session wants its next step; zero means it waits for a
	// change of the object (an approval, a rerun) or is finished.
	RequeueAfter time.Duration
	// Checkpoint is the session's persisted checkpoint after the step (nil on error).
	Checkpoint *Checkpoint
	// Entered lists the phases the session entered during this Advance, in order, with
	// the timeline's note for each (an Advance may run more than one step).
	Entered []Mark
}

// soon is the requeue delay between two steps that need no waiting.
const soon = 5 * time.Millisecond

// defaults the API server applies; repeated here for objects built without it (tests).
const (
	defaultTimeout     = 10 * time.Minute
	defaultParallelism = 3
	summarizeGrace     = 2 * time.Minute
)

// Advance runs one step of ts's session. On success ts.Status holds the new state and the
// checkpoint is already saved; on error ts.Status is unchanged.
func (e *Engine) Advance(ctx context.Context, ts *kubagev1alpha1.Troubleshoot) (Step, error) {
	owner := runner.Owner{Namespace: ts.Namespace, Name: ts.Name, UID: ts.UID}
	ck, found, err := e.loadCheckpoint(ctx, owner, ts.Status.Phase == "")
	if errors.Is(err, runner.ErrNotManaged) {
		return Step{}, serror.NewStalling(kubagev1alpha1.NameConflictReason, err)
	}
	if err != nil {
		return Step{}, err
	}
	owner.Run = ck.Run
	w := &work{e: e, ts: ts, st: ts.Status.DeepCopy(), ck: ck, owner: owner, now: e.now()}
	defer w.closeBrain()

	token := runner.RunToken(ts.Annotations[RerunAnnotation])
	var after time.Duration
	switch {
	case token != ck.Run:
		after, err = w.restart(ctx, token, "rerun requested with annotation "+RerunAnnotation)
	case !found && ts.Status.Phase.IsTerminal():
		// A finished session whose checkpoint was deleted keeps its status as it is.
		return Step{Checkpoint: ck}, nil
	case !found && ts.Status.Phase != "" && ts.Status.Phase != kubagev1alpha1.PhasePending:
		after, err = w.restart(ctx, token, "session checkpoint lost; starting over")
	default:
		if !ts.Status.Phase.IsTerminal() {
			w.remote, err = w.sessionCluster(ctx)
		}
		var late *clusterDeadline
		switch {
		case errors.As(err, &late):
			after, err = w.fail(ctx, late.reason, late.Error())
		case err != nil:
			return Step{}, err
		default:
			if ts.Status.Iteration > 0 {
				// The status is the authority on the round: a checkpoint saved by a step whose
				// status write was lost is one step ahead, and the step is simply redone.
				ck.Iteration = int(ts.Status.Iteration)
				ck.resumeAt(string(ts.Status.Phase), ck.Iteration)
			}
			after, err = w.steps(ctx)
		}
	}
	switch {
	case err != nil:
	case w.deferSave && ck.exists:
		err = e.deferCheckpoint(w.owner, ck)
	default:
		err = e.saveCheckpoint(ctx, w.owner, ck)
	}
	if errors.Is(err, runner.ErrAccessConflict) {
		return Step{}, &serror.Waiting{Reason: kubagev1alpha1.AgentAccessConflictReason, Err: err, RequeueAfter: time.Minute}
	}
	if errors.Is(err, runner.ErrNotManaged) {
		return Step{}, serror.NewStalling(kubagev1alpha1.NameConflictReason, err)
	}
	if err != nil {
		return Step{}, err
	}
	if w.st.Phase.IsTerminal() {
		// A finished session moves again only through a rerun, which reads the ConfigMaps.
		e.checkpoints.drop(owner.UID)
		e.results.drop(owner.UID)
	}
	ts.Status = *w.st
	return Step{RequeueAfter: after, Checkpoint: ck, Entered: w.entered}, nil
}

// cluster is the cluster under investigation of this step: the session's other cluster,
// else the engine's.
func (w *work) cluster() kubernetes.Interface {
	switch {
	case w.remote != nil:
		return w.remote
	case w.e.Cluster != nil:
		return w.e.Cluster
	}
	return w.e.Client
}

// executor is the remediation executor acting on the cluster under investigation.
func (w *work) executor() *remediate.Executor {
	if w.remote == nil || w.e.Executor == nil {
		return w.e.Executor
	}
	return &remediate.Executor{Client: w.remote}
}

func (e *Engine) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// work is one step in progress: the status copy and checkpoint it changes.
type work struct {
	e     *Engine
	ts    *kubagev1alpha1.Troubleshoot
	st    *kubagev1alpha1.TroubleshootStatus
	ck    *Checkpoint
	owner runner.Owner
	now   time.Time
	// brain is this step's brain, built once and closed when the step ends.
	brain agent.Brain
	// remote is the session's other cluster (spec.cluster), checked for this step; nil for
	// the engine's own.
	remote kubernetes.Interface
	// entered records the phases entered by this Advance.
	entered []Mark
	// results memoises the run's task results read during this Advance.
	results map[string]agent.TaskResult
	// planned is set when this Advance planned the round's tasks anew.
	planned bool
	// deferSave is set by a step whose checkpoint changes need not be written yet.
	deferSave bool
	// taskBrain is the brain this Advance's task requests carry, built once (it may read
	// the model Secret); taskBrainBuilt says it was.
	taskBrain      *agent.BrainConfig
	taskBrainBuilt bool
}

// closeBrain releases what the step's brain holds (an LLM brain's tool connections).
func (w *work) closeBrain() {
	if c, ok := w.brain.(io.Closer); ok {
		_ = c.Close()
	}
	w.brain = nil
}

// enter moves to phase and records it on the timeline.
func (w *work) enter(phase kubagev1alpha1.TroubleshootPhase, note string) {
	w.st.Phase = phase
	w.ck.mark(string(phase), w.ck.Iteration, w.now, note)
	w.entered = append(w.entered, w.ck.Timeline[len(w.ck.Timeline)-1])
}

// restart begins a new run from Pending, removing everything of the previous runs.
func (w *work) restart(ctx context.Context, token, why string) (time.Duration, error) {
	all := runner.Owner{Namespace: w.owner.Namespace, Name: w.owner.Name, UID: w.owner.UID}
	for name, r := range w.e.Runners {
		if err := r.Cleanup(ctx, all); err != nil {
			return 0, fmt.Errorf("stopping the tasks of the previous run (%s runner): %w", name, err)
		}
	}
	w.e.results.drop(w.owner.UID)
	w.results = nil
	if err := runner.DeleteResults(ctx, w.e.Client, all); err != nil {
		return 0, err
	}
	err := w.e.Client.CoreV1().ConfigMaps(w.ts.Namespace).Delete(ctx, ReportName(w.ts.Name), metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return 0, fmt.Errorf("deleting the previous report: %w", err)
	}
	*w.ck = Checkpoint{Run: token, resourceVersion: w.ck.resourceVersion, exists: w.ck.exists, saved: w.ck.saved}
	w.owner.Run = token
	// The outbox of spec.notify outlives the run: a message about the previous outcome that
	// is still being retried is not lost to the rerun.
	*w.st = kubagev1alpha1.TroubleshootStatus{Conditions: w.st.Conditions, ObservedGeneration: w.st.ObservedGeneration, Notifications: w.st.Notifications}
	w.enter(kubagev1alpha1.PhasePending, why)
	return soon, nil
}

// doneTasks lists the tasks of this run known to have a result: those that succeeded or
// failed, in the rounds before and in the current plan.
func (w *work) doneTasks() []string {
	var out []string
	for _, r := range w.ck.Rounds {
		for _, t := range r.Tasks {
			if t.State == string(kubagev1alpha1.TaskSucceeded) || t.State == string(kubagev1alpha1.TaskFailed) {
				out = append(out, t.ID)
			}
		}
	}
	if w.st.Plan != nil {
		for _, t := range w.st.Plan.Tasks {
			if t.State == kubagev1alpha1.TaskSucceeded || t.State == kubagev1alpha1.TaskFailed {
				out = append(out, t.ID)
			}
		}
	}
	return out
}

// brainAndResults returns the session's brain and every result of this run, in task order.
func (w *work) brainAndResults(ctx context.Context) (agent.Brain, []agent.TaskResult, error) {
	if w.e.Brains == nil {
		return nil, nil, errors.New("no brain configured")
	}
	if w.brain == nil {
		brain, err := w.e.Brains(ctx, w.ts)
		if err != nil {
			return nil, nil, fmt.Errorf("creating the brain: %w", err)
		}
		w.brain = brain
	}
	results, err := w.runResults(ctx)
	if err != nil {
		return nil, nil, err
	}
	return w.brain, results, nil
}

// runResults returns every result of this run, in task order: those this Advance already
// has, else the memo's when it holds every task known to be done, else the ConfigMaps'.
func (w *work) runResults(ctx context.Context) ([]agent.TaskResult, error) {
	if w.results == nil {
		if byID, ok := w.e.results.get(w.owner, w.doneTasks()); ok {
			w.results = byID
		} else {
			byID, err := runner.ReadResults(ctx, w.e.Client, w.owner)
			if err != nil {
				return nil, err
			}
			w.results = byID
			for _, r := range byID {
				w.e.results.add(w.owner, r)
			}
		}
	}
	results := make([]agent.TaskResult, 0, len(w.results))
	for _, r := range w.results {
		results = append(results, r)
	}
	sort.Slice(results, func(i, j int) bool { return taskLess(results[i].TaskID, results[j].TaskID) })
	return results, nil
}
