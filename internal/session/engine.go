// Package session drives one Troubleshoot session through its phases, one step per call,
// persisting every step: Pending → Planning → Investigating → Regulating → (Planning |
// Summarizing) → Completed, or Failed; in Remediate mode Summarizing → AwaitingApproval →
// Remediating → (AwaitingApproval | Completed). Each Advance reads the checkpoint, does one
// step with idempotent side effects (task launches keyed by a deterministic name, result
// and report ConfigMaps written whole), writes the checkpoint and only then changes the
// status in memory for the caller to persist. An operator killed at any moment therefore
// resumes from the last persisted step without launching a task twice or losing results.
//
// The package also maps the brain's types (internal/agent) to the API's status types.
package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/knowledge"
	"github.com/kubage/kubage/internal/metrics"
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

// Condition reasons of this package, in addition to those of the API.
const (
	// ReasonTargetNotFound: spec.target names an object that does not exist; the session
	// fails at once instead of investigating nothing.
	ReasonTargetNotFound = "TargetNotFound"
	// ReasonRunnerUnavailable: the task runner asked for is not configured in the operator.
	ReasonRunnerUnavailable = "RunnerUnavailable"
	// ReasonNameConflict: a ConfigMap KubAge needs (checkpoint, report, result) exists and
	// belongs to someone else; the session waits until it is renamed or deleted.
	ReasonNameConflict = "NameConflict"
	// ReasonSummarizeFailed: the brain could not write a conclusion before the deadline.
	ReasonSummarizeFailed = "SummarizeFailed"
)

// BrainFactory returns the brain for a session (the rule engine, or an LLM brain with the
// rule engine as fallback). It is called once per step, so it should be cheap.
type BrainFactory func(ctx context.Context, ts *kubagev1alpha1.Troubleshoot) (agent.Brain, error)

// Usage is what a brain consumed of a model since it was last asked.
type Usage struct {
	LLMCalls, PromptTokens, CompletionTokens int64
}

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

// SpecError means the session cannot progress until the spec or the operator's
// configuration changes; retrying alone will not help.
type SpecError struct {
	Reason string
	Err    error
}

func (e *SpecError) Error() string { return e.Err.Error() }
func (e *SpecError) Unwrap() error { return e.Err }

// Engine advances sessions. Runners maps each available TaskRunner to its runner.
type Engine struct {
	Client        kubernetes.Interface
	Brains        BrainFactory
	Runners       map[kubagev1alpha1.TaskRunner]runner.Runner
	DefaultRunner kubagev1alpha1.TaskRunner
	Executor      *remediate.Executor
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// PollInterval is how often running tasks are checked (2s when zero). Runners that
	// notify on completion make the controller react sooner.
	PollInterval time.Duration
	// MaxAttempts bounds how often a lost task is started (3 when zero).
	MaxAttempts int
	// Knowledge finds runbooks to cite for a root cause (none when nil).
	Knowledge Citer
}

// Citer finds the knowledge a conclusion should cite; *knowledge.Service is one.
type Citer interface {
	CiteForConclusion(ctx context.Context, namespace string, selector *metav1.LabelSelector, summary, category string) []knowledge.Citation
}

// Step is the outcome of one Advance.
type Step struct {
	// RequeueAfter is when the session wants its next step; zero means it waits for a
	// change of the object (an approval, a rerun) or is finished.
	RequeueAfter time.Duration
	// Checkpoint is the session's persisted checkpoint after the step (nil on error).
	Checkpoint *Checkpoint
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
	ck, found, err := loadCheckpoint(ctx, e.Client, owner)
	if errors.Is(err, runner.ErrNotManaged) {
		return Step{}, &SpecError{Reason: ReasonNameConflict, Err: err}
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
		if ts.Status.Iteration > 0 {
			// The status is the authority on the round: a checkpoint saved by a step whose
			// status write was lost is one step ahead, and the step is simply redone.
			ck.Iteration = int(ts.Status.Iteration)
		}
		after, err = w.advance(ctx)
	}
	if err == nil {
		err = saveCheckpoint(ctx, e.Client, w.owner, ck)
	}
	if errors.Is(err, runner.ErrNotManaged) {
		return Step{}, &SpecError{Reason: ReasonNameConflict, Err: err}
	}
	if err != nil {
		return Step{}, err
	}
	ts.Status = *w.st
	return Step{RequeueAfter: after, Checkpoint: ck}, nil
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
}

// closeBrain releases what the step's brain holds (an LLM brain's tool connections).
func (w *work) closeBrain() {
	if c, ok := w.brain.(io.Closer); ok {
		_ = c.Close()
	}
	w.brain = nil
}

func (w *work) advance(ctx context.Context) (time.Duration, error) {
	switch w.st.Phase {
	case "":
		w.enter(kubagev1alpha1.PhasePending, "session created")
		return soon, nil
	case kubagev1alpha1.PhasePending:
		return w.pending(ctx)
	case kubagev1alpha1.PhasePlanning:
		return w.planning(ctx)
	case kubagev1alpha1.PhaseInvestigating:
		return w.investigating(ctx)
	case kubagev1alpha1.PhaseRegulating:
		return w.regulating(ctx)
	case kubagev1alpha1.PhaseSummarizing:
		return w.summarizing(ctx)
	case kubagev1alpha1.PhaseAwaitingApproval:
		return w.awaitingApproval(ctx)
	case kubagev1alpha1.PhaseRemediating:
		return w.remediating(ctx)
	}
	return 0, nil
}

// enter moves to phase and records it on the timeline.
func (w *work) enter(phase kubagev1alpha1.TroubleshootPhase, note string) {
	w.st.Phase = phase
	w.ck.mark(string(phase), w.ck.Iteration, w.now, note)
}

// restart begins a new run from Pending, removing everything of the previous runs.
func (w *work) restart(ctx context.Context, token, why string) (time.Duration, error) {
	all := runner.Owner{Namespace: w.owner.Namespace, Name: w.owner.Name, UID: w.owner.UID}
	for name, r := range w.e.Runners {
		if err := r.Cleanup(ctx, all); err != nil {
			return 0, fmt.Errorf("stopping the tasks of the previous run (%s runner): %w", name, err)
		}
	}
	if err := runner.DeleteResults(ctx, w.e.Client, all); err != nil {
		return 0, err
	}
	err := w.e.Client.CoreV1().ConfigMaps(w.ts.Namespace).Delete(ctx, ReportName(w.ts.Name), metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return 0, fmt.Errorf("deleting the previous report: %w", err)
	}
	*w.ck = Checkpoint{Run: token, resourceVersion: w.ck.resourceVersion, exists: w.ck.exists, saved: w.ck.saved}
	w.owner.Run = token
	*w.st = kubagev1alpha1.TroubleshootStatus{Conditions: w.st.Conditions, ObservedGeneration: w.st.ObservedGeneration}
	w.enter(kubagev1alpha1.PhasePending, why)
	return soon, nil
}

// pending checks what can be checked before any work and starts the run.
func (w *work) pending(ctx context.Context) (time.Duration, error) {
	name := w.ts.Spec.TaskRunner
	if name == "" {
		name = w.e.DefaultRunner
	}
	if _, ok := w.e.Runners[name]; !ok {
		return 0, &SpecError{Reason: ReasonRunnerUnavailable, Err: fmt.Errorf("task runner %q is not available in this operator (available: %s)", name, w.e.runnerNames())}
	}
	if t := w.ts.Spec.Target; t != nil && t.Name != "" {
		if _, err := tools.ResolveKind(t.Kind); err == nil {
			c := tools.NewClient(w.e.Client, tools.Scope{Namespace: w.ts.Namespace})
			if _, _, err := c.Get(ctx, t.Kind, t.Name); err != nil {
				if tools.IsNotFound(err) {
					return w.fail(ctx, ReasonTargetNotFound, "The target does not exist: "+err.Error())
				}
				return 0, fmt.Errorf("checking the target: %w", err)
			}
		}
	}
	start := metav1.NewTime(w.now)
	w.st.StartTime, w.st.CompletionTime = &start, nil
	w.st.Iteration, w.st.Plan, w.st.Evidence, w.st.RootCause, w.st.Remediation, w.st.ReportRef = 1, nil, nil, nil, nil, nil
	w.st.Usage = kubagev1alpha1.Usage{}
	w.ck.Generation, w.ck.Runner, w.ck.Session = w.ts.Generation, string(name), SessionFor(w.ts, w.now)
	w.ck.SpecHash = SpecHash(w.ts.Spec)
	w.ck.Iteration, w.ck.Tasks, w.ck.Verdict, w.ck.VerdictIteration, w.ck.Stop, w.ck.Conclusion, w.ck.Rounds = 1, nil, nil, 0, nil, nil, nil
	w.ck.Degraded = nil
	w.enter(kubagev1alpha1.PhasePlanning, "runner "+string(name))
	return soon, nil
}

func (e *Engine) runnerNames() string {
	names := make([]string, 0, len(e.Runners))
	for n := range e.Runners {
		names = append(names, string(n))
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// planning asks the brain for this round's tasks.
func (w *work) planning(ctx context.Context) (time.Duration, error) {
	if stop := w.budgetStop(); stop != nil {
		return w.stopLoop(stop), nil
	}
	brain, results, err := w.brainAndResults(ctx)
	if err != nil {
		return 0, err
	}
	tasks, err := brain.Plan(ctx, w.ck.Session, agent.Progress{Iteration: w.ck.Iteration, Results: results, Verdict: w.ck.Verdict})
	w.account(brain)
	if err != nil {
		return 0, fmt.Errorf("planning iteration %d: %w", w.ck.Iteration, err)
	}
	tasks = NormalizeTasks(w.ck.Iteration, tasks)
	if len(tasks) == 0 {
		w.enter(kubagev1alpha1.PhaseSummarizing, "nothing left to investigate")
		return soon, nil
	}
	w.ck.Tasks = tasks
	feedback := ""
	if w.ck.Verdict != nil {
		feedback = clean(w.ck.Verdict.Feedback, 1024)
	}
	w.st.Plan = &kubagev1alpha1.Plan{Tasks: PlanTasks(tasks), Feedback: feedback}
	w.st.Iteration = int32(w.ck.Iteration)
	w.enter(kubagev1alpha1.PhaseInvestigating, fmt.Sprintf("%d task(s) planned", len(tasks)))
	return soon, nil
}

// investigating collects finished tasks and launches the next ones within parallelism.
func (w *work) investigating(ctx context.Context) (time.Duration, error) {
	r, ok := w.e.Runners[kubagev1alpha1.TaskRunner(w.ck.Runner)]
	if !ok {
		return 0, &SpecError{Reason: ReasonRunnerUnavailable, Err: fmt.Errorf("task runner %q of this run is not available in this operator (available: %s)", w.ck.Runner, w.e.runnerNames())}
	}
	if w.st.Plan == nil || len(w.st.Plan.Tasks) == 0 {
		w.enter(kubagev1alpha1.PhasePlanning, "plan lost; planning again")
		return soon, nil
	}
	if stop := w.budgetStop(); stop != nil {
		return w.abort(ctx, r, stop)
	}
	defs := make(map[string]agent.Task, len(w.ck.Tasks))
	for _, t := range w.ck.Tasks {
		defs[t.ID] = t
	}
	maxAttempts := int32(w.e.MaxAttempts)
	if maxAttempts <= 0 {
		maxAttempts = 3
	}
	var errs []error
	running := 0
	tasks := w.st.Plan.Tasks
	for i := range tasks {
		t := &tasks[i]
		if t.State != kubagev1alpha1.TaskRunning {
			continue
		}
		out, err := r.Check(ctx, w.owner, t.ID)
		if err != nil {
			errs = append(errs, err)
			running++
			continue
		}
		switch out.State {
		case runner.StateDone:
			w.finishTask(t, *out.Result)
		case runner.StateFailed:
			if err := w.failTask(ctx, t, out.Reason); err != nil {
				errs = append(errs, err)
				running++
			}
		case runner.StateMissing:
			def, known := defs[t.ID]
			switch {
			case !known:
				err = w.failTask(ctx, t, "the task's definition was lost")
			case t.Attempts >= maxAttempts:
				err = w.failTask(ctx, t, fmt.Sprintf("the task was lost %d times", t.Attempts))
			default:
				running++
				if err = r.Start(runner.WithTaskDeadline(ctx, w.deadline()), w.owner, agent.TaskRequest{Session: w.ck.Session, Task: def}); err == nil {
					w.started(r, t)
				}
			}
			if err != nil {
				errs = append(errs, err)
			}
		default:
			running++
		}
	}
	if stop := w.budgetStop(); stop != nil {
		return w.abort(ctx, r, stop)
	}

	parallelism := int(w.ts.Spec.Budget.Parallelism)
	if parallelism <= 0 {
		parallelism = defaultParallelism
	}
	state := make(map[string]kubagev1alpha1.TaskState, len(tasks))
	for _, t := range tasks {
		state[t.ID] = t.State
	}
	startable := 0
	for i := range tasks {
		t := &tasks[i]
		if t.State != kubagev1alpha1.TaskPending || !depsDone(t.DependsOn, state) {
			continue
		}
		startable++
		if running >= parallelism || len(errs) > 0 {
			continue
		}
		def, known := defs[t.ID]
		if !known {
			if err := w.failTask(ctx, t, "the task's definition was lost"); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if err := r.Start(runner.WithTaskDeadline(ctx, w.deadline()), w.owner, agent.TaskRequest{Session: w.ck.Session, Task: def}); err != nil {
			errs = append(errs, fmt.Errorf("starting task %s: %w", t.ID, err))
			continue
		}
		w.started(r, t)
		running++
	}
	if running == 0 && startable == 0 {
		// Whatever is still Pending waits on a dependency cycle: it can never run.
		for i := range tasks {
			if tasks[i].State == kubagev1alpha1.TaskPending {
				w.skipTask(&tasks[i], "not run: its dependencies never finished")
			}
		}
	}
	if len(errs) > 0 {
		return 0, errors.Join(errs...)
	}
	if allDone(tasks) {
		w.recordRound()
		w.enter(kubagev1alpha1.PhaseRegulating, roundSummary(tasks))
		return soon, nil
	}
	return w.poll(), nil
}

func depsDone(deps []string, state map[string]kubagev1alpha1.TaskState) bool {
	for _, d := range deps {
		if s, ok := state[d]; ok && !s.IsDone() {
			return false
		}
	}
	return true
}

func allDone(tasks []kubagev1alpha1.PlanTask) bool {
	for _, t := range tasks {
		if !t.State.IsDone() {
			return false
		}
	}
	return true
}

func roundSummary(tasks []kubagev1alpha1.PlanTask) string {
	n := map[kubagev1alpha1.TaskState]int{}
	for _, t := range tasks {
		n[t.State]++
	}
	return fmt.Sprintf("%d task(s): %d succeeded, %d failed, %d skipped", len(tasks), n[kubagev1alpha1.TaskSucceeded], n[kubagev1alpha1.TaskFailed], n[kubagev1alpha1.TaskSkipped])
}

// poll is the wait before checking running tasks again, shortened near the deadline.
func (w *work) poll() time.Duration {
	d := w.e.PollInterval
	if d <= 0 {
		d = 2 * time.Second
	}
	if left := w.deadline().Sub(w.now); left > 0 && left < d {
		d = left + 10*time.Millisecond
	}
	return d
}

func (w *work) started(r runner.Runner, t *kubagev1alpha1.PlanTask) {
	now := metav1.NewTime(w.now)
	t.State, t.StartedAt = kubagev1alpha1.TaskRunning, &now
	if t.Attempts < 10 {
		t.Attempts++
	}
	if n, ok := r.(runner.Namer); ok {
		t.JobName = n.TaskObjectName(w.owner, t.ID)
	}
}

// finishTask records a result.
func (w *work) finishTask(t *kubagev1alpha1.PlanTask, res agent.TaskResult) {
	now := metav1.NewTime(w.now)
	t.State, t.FinishedAt = kubagev1alpha1.TaskSucceeded, &now
	summary := res.Summary
	if res.Error != "" {
		t.State = kubagev1alpha1.TaskFailed
		if summary == "" {
			summary = "task failed: " + res.Error
		}
	}
	t.Summary = clean(summary, 1024)
	w.st.Usage.ToolCalls += int64(len(res.ToolCalls))
	metrics.TasksTotal.WithLabelValues(w.ck.Runner, string(t.State)).Inc()
	for _, tc := range res.ToolCalls {
		metrics.ToolCallsTotal.WithLabelValues(clean(tc.Tool, 64)).Inc()
	}
}

// failTask records a task that produced no result. A result saying so is written like any
// other, so that the regulator and the summarizer see the failure in later steps too.
func (w *work) failTask(ctx context.Context, t *kubagev1alpha1.PlanTask, reason string) error {
	res := agent.TaskResult{TaskID: t.ID, Summary: clean("task failed: "+reason, 1000), Error: clean(reason, 500)}
	if err := runner.WriteResult(ctx, w.e.Client, w.owner, res); err != nil {
		return err
	}
	w.finishTask(t, res)
	return nil
}

func (w *work) skipTask(t *kubagev1alpha1.PlanTask, why string) {
	now := metav1.NewTime(w.now)
	t.State, t.FinishedAt, t.Summary = kubagev1alpha1.TaskSkipped, &now, clean(why, 1024)
	metrics.TasksTotal.WithLabelValues(w.ck.Runner, string(t.State)).Inc()
}

// abort stops the round's tasks for a budget and moves on to summarizing what was found.
func (w *work) abort(ctx context.Context, r runner.Runner, stop *Stop) (time.Duration, error) {
	if err := r.Cleanup(ctx, w.owner); err != nil {
		return 0, fmt.Errorf("stopping tasks: %w", err)
	}
	for i := range w.st.Plan.Tasks {
		t := &w.st.Plan.Tasks[i]
		if !t.State.IsDone() {
			w.skipTask(t, "not finished: "+stop.Message)
		}
	}
	w.recordRound()
	return w.stopLoop(stop), nil
}

// stopLoop ends the investigation early; Summarizing still concludes from the results.
func (w *work) stopLoop(stop *Stop) time.Duration {
	w.ck.Stop = stop
	w.enter(kubagev1alpha1.PhaseSummarizing, stop.Message)
	return soon
}

func (w *work) deadline() time.Time {
	timeout := defaultTimeout
	if t := w.ts.Spec.Budget.Timeout; t != nil && t.Duration > 0 {
		timeout = t.Duration
	}
	start := w.now
	if w.st.StartTime != nil {
		start = w.st.StartTime.Time
	}
	return start.Add(timeout)
}

// budgetStop says which budget, if any, is spent: time, tool calls or tokens.
func (w *work) budgetStop() *Stop {
	b := w.ts.Spec.Budget
	if !w.now.Before(w.deadline()) {
		timeout := w.deadline().Sub(w.st.StartTime.Time)
		return &Stop{Reason: kubagev1alpha1.TimedOutReason, Message: "the session timed out after " + timeout.String()}
	}
	if b.MaxToolCalls > 0 && w.st.Usage.ToolCalls >= int64(b.MaxToolCalls) {
		return &Stop{Reason: kubagev1alpha1.BudgetExhaustedReason, Message: fmt.Sprintf("tool-call budget of %d used (%d calls)", b.MaxToolCalls, w.st.Usage.ToolCalls)}
	}
	if tokens := w.st.Usage.PromptTokens + w.st.Usage.CompletionTokens; b.MaxTokens > 0 && tokens >= b.MaxTokens {
		return &Stop{Reason: kubagev1alpha1.BudgetExhaustedReason, Message: fmt.Sprintf("token budget of %d used (%d tokens)", b.MaxTokens, tokens)}
	}
	return nil
}

// recordRound keeps how the current round's tasks ended, for the report.
func (w *work) recordRound() {
	if w.st.Plan == nil {
		return
	}
	round := Round{Iteration: w.ck.Iteration}
	for _, t := range w.st.Plan.Tasks {
		round.Tasks = append(round.Tasks, RoundTask{ID: t.ID, Description: t.Description, State: string(t.State), Summary: t.Summary})
	}
	for i := range w.ck.Rounds {
		if w.ck.Rounds[i].Iteration == round.Iteration {
			w.ck.Rounds[i] = round
			return
		}
	}
	w.ck.Rounds = append(w.ck.Rounds, round)
}

// regulating asks the brain whether to conclude, plan another round, or stop.
func (w *work) regulating(ctx context.Context) (time.Duration, error) {
	if stop := w.budgetStop(); stop != nil {
		return w.stopLoop(stop), nil
	}
	brain, results, err := w.brainAndResults(ctx)
	if err != nil {
		return 0, err
	}
	var v agent.Verdict
	if w.ck.Verdict != nil && w.ck.VerdictIteration == w.ck.Iteration {
		// Judged already; only the status write of that step was lost.
		v = *w.ck.Verdict
	} else {
		v, err = brain.Judge(ctx, w.ck.Session, agent.Progress{Iteration: w.ck.Iteration, Results: results, Verdict: w.ck.Verdict})
		w.account(brain)
		if err != nil {
			return 0, fmt.Errorf("judging iteration %d: %w", w.ck.Iteration, err)
		}
		w.ck.Verdict, w.ck.VerdictIteration = &v, w.ck.Iteration
	}
	note := clean(string(v.Decision)+": "+v.Feedback, 300)
	for i := range w.ck.Rounds {
		if w.ck.Rounds[i].Iteration == w.ck.Iteration {
			w.ck.Rounds[i].Verdict = note
		}
	}
	switch v.Decision {
	case agent.Replan:
		if max := int(w.ts.Spec.Budget.MaxIterations); max > 0 && w.ck.Iteration >= max {
			return w.stopLoop(&Stop{Reason: kubagev1alpha1.BudgetExhaustedReason,
				Message: clean(fmt.Sprintf("iteration budget of %d used; left unexplored: %s", max, v.Feedback), 500)}), nil
		}
		w.ck.Iteration = int(w.st.Iteration) + 1
		w.ck.Tasks = nil
		w.st.Iteration = int32(w.ck.Iteration)
		w.enter(kubagev1alpha1.PhasePlanning, note)
	case agent.Stop:
		w.ck.Stop = &Stop{Message: clean("the regulator stopped: "+v.Feedback, 500)}
		w.enter(kubagev1alpha1.PhaseSummarizing, note)
	default:
		w.enter(kubagev1alpha1.PhaseSummarizing, note)
	}
	return soon, nil
}

// summarizing writes the conclusion, the evidence and the report.
func (w *work) summarizing(ctx context.Context) (time.Duration, error) {
	brain, results, err := w.brainAndResults(ctx)
	if err != nil {
		return 0, err
	}
	p := agent.Progress{Iteration: w.ck.Iteration, Results: results, Verdict: w.ck.Verdict}
	if w.ck.Stop != nil {
		p.StopReason = w.ck.Stop.Message
	}
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	c, err := brain.Summarize(sctx, w.ck.Session, p)
	w.account(brain)
	if err != nil {
		if w.now.After(w.deadline().Add(summarizeGrace)) {
			return w.fail(ctx, ReasonSummarizeFailed, "No conclusion could be written: "+err.Error())
		}
		return 0, fmt.Errorf("summarizing: %w", err)
	}
	cited := w.cite(ctx, &c)
	w.ck.Conclusion = &c
	var all []agent.Evidence
	for _, r := range results {
		all = append(all, r.Evidence...)
	}
	w.st.Evidence = Evidence(c.Evidence, all, metav1.NewTime(w.now))
	for i := range w.st.Evidence {
		if ev, ok := cited[w.st.Evidence[i].ID]; ok {
			w.st.Evidence[i] = ev
		}
	}
	known := make(map[string]bool, len(w.st.Evidence))
	for _, ev := range w.st.Evidence {
		known[ev.ID] = true
	}
	w.st.RootCause = RootCause(c.RootCause, known)
	w.st.Remediation = Remediation(c.Remediation)
	if w.st.Remediation != nil {
		for i := range w.st.Remediation.Actions {
			w.st.Remediation.Actions[i].ID = w.actionID(w.st.Remediation.Actions[i].ID)
		}
	}
	if RootCauseFound(w.st.RootCause) && w.st.StartTime != nil {
		metrics.TimeToRootCause.Observe(w.now.Sub(w.st.StartTime.Time).Seconds())
	}
	if w.ts.Spec.Mode == kubagev1alpha1.ModeRemediate && w.st.Remediation != nil && len(w.st.Remediation.Actions) > 0 {
		w.enter(kubagev1alpha1.PhaseAwaitingApproval, fmt.Sprintf("%d action(s) proposed", len(w.st.Remediation.Actions)))
		if err := w.writeReport(ctx); err != nil {
			return 0, err
		}
		return soon, nil
	}
	return w.complete(ctx)
}

// maxCitations bounds the runbook citations added to a conclusion.
const maxCitations = 3

// cite adds the runbooks that match the root cause to the conclusion (so the report lists
// them) and returns their status form by evidence id, with the full knowledge citation.
func (w *work) cite(ctx context.Context, c *agent.Conclusion) map[string]kubagev1alpha1.Evidence {
	rc := c.RootCause
	if w.e.Knowledge == nil || rc.Summary == "" || rc.Category == "" || rc.Category == kubagev1alpha1.CategoryUnknown {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	at := metav1.NewTime(w.now)
	out := map[string]kubagev1alpha1.Evidence{}
	for i, cit := range w.e.Knowledge.CiteForConclusion(cctx, w.ts.Namespace, w.ts.Spec.KnowledgeSources, rc.Summary, rc.Category) {
		if i >= maxCitations || len(c.RootCause.EvidenceIDs) >= agent.MaxEvidenceIDs {
			break
		}
		ev := cit.Evidence(fmt.Sprintf("kb-%d", i+1), &at)
		out[ev.ID] = ev
		c.Evidence = append(c.Evidence, agent.Evidence{
			ID: ev.ID, Summary: ev.Summary,
			Source: agent.Source{Kind: agent.SourceKnowledge, Query: cit.String()},
		})
		c.RootCause.EvidenceIDs = append(c.RootCause.EvidenceIDs, ev.ID)
	}
	return out
}

// actionID makes a brain's action id unique to this run, so that approvals written for
// an earlier run (still in spec.approvals) never approve a new run's actions.
func (w *work) actionID(id string) string {
	sum := sha256.Sum256([]byte(string(w.owner.UID) + "/" + w.owner.Run + "/" + strconv.FormatInt(w.ck.Generation, 10)))
	suffix := hex.EncodeToString(sum[:])[:6]
	if len(id) > 63-7 {
		id = strings.Trim(id[:63-7], "-")
	}
	return id + "-" + suffix
}

// complete ends the session in Completed.
func (w *work) complete(ctx context.Context) (time.Duration, error) {
	return w.finish(ctx, kubagev1alpha1.PhaseCompleted, "")
}

// fail ends the session in Failed with a reason.
func (w *work) fail(ctx context.Context, reason, message string) (time.Duration, error) {
	w.ck.Stop = &Stop{Reason: reason, Message: clean(message, 1000), Failed: true}
	return w.finish(ctx, kubagev1alpha1.PhaseFailed, message)
}

func (w *work) finish(ctx context.Context, phase kubagev1alpha1.TroubleshootPhase, note string) (time.Duration, error) {
	all := runner.Owner{Namespace: w.owner.Namespace, Name: w.owner.Name, UID: w.owner.UID}
	for name, r := range w.e.Runners {
		if err := r.Cleanup(ctx, all); err != nil {
			return 0, fmt.Errorf("cleaning up after the session (%s runner): %w", name, err)
		}
	}
	now := metav1.NewTime(w.now)
	w.st.CompletionTime = &now
	w.enter(phase, note)
	if err := w.writeReport(ctx); err != nil {
		return 0, err
	}
	reason, _ := Outcome(w.st, w.ck)
	metrics.SessionsFinishedTotal.WithLabelValues(string(phase), reason).Inc()
	return 0, nil
}

// awaitingApproval applies the decisions in spec.approvals.
func (w *work) awaitingApproval(ctx context.Context) (time.Duration, error) {
	if w.st.Remediation == nil || len(w.st.Remediation.Actions) == 0 || w.ts.Spec.Mode != kubagev1alpha1.ModeRemediate {
		// Switching to Diagnose (which the API allows only without approvals) ends the wait.
		return w.complete(ctx)
	}
	decisions := map[string]kubagev1alpha1.ApprovalDecision{}
	for _, a := range w.ts.Spec.Approvals {
		decisions[a.ActionID] = a.Decision
	}
	runnable, undecided, changed := 0, 0, false
	for i := range w.st.Remediation.Actions {
		a := &w.st.Remediation.Actions[i]
		if a.Approval == kubagev1alpha1.ApprovalExecuted || a.Approval == kubagev1alpha1.ApprovalFailed || a.Approval == kubagev1alpha1.ApprovalRejected {
			continue
		}
		d, ok := decisions[a.ID]
		if !ok {
			if a.Approval != kubagev1alpha1.ApprovalApproved {
				undecided++
			}
			continue
		}
		before := *a
		if d == kubagev1alpha1.DecisionRejected {
			a.Approval, a.Result = kubagev1alpha1.ApprovalRejected, "Rejected; not executed."
		} else {
			a.Approval = kubagev1alpha1.ApprovalApproved
			if _, why := w.executable(a); why != "" {
				a.Result = clean("Approved, but not executed by the operator: "+why+". Run it yourself if it still applies.", 1024)
			} else {
				a.Result = ""
				runnable++
			}
		}
		changed = changed || before != *a
	}
	if runnable > 0 {
		w.enter(kubagev1alpha1.PhaseRemediating, fmt.Sprintf("%d approved action(s) to execute", runnable))
		return soon, nil
	}
	if undecided == 0 {
		return w.complete(ctx)
	}
	if changed {
		return 0, w.writeReport(ctx)
	}
	return 0, nil
}

// executable says whether the operator may run an approved action itself, or why not.
// Only Low-risk actions of a Remediate session that parse into a supported operation in
// the session's namespace run; everything else stays advice for a human.
func (w *work) executable(a *kubagev1alpha1.RemediationAction) (remediate.Op, string) {
	if w.ts.Spec.Mode != kubagev1alpha1.ModeRemediate {
		return remediate.Op{}, "Diagnose mode never changes the cluster"
	}
	if a.Risk != kubagev1alpha1.RiskLow {
		return remediate.Op{}, "only Low-risk actions are executed, this one is " + string(a.Risk) + " risk"
	}
	var op remediate.Op
	var err error
	switch {
	case a.Patch != nil:
		p := a.Patch
		op, err = remediate.ParsePatch(w.ts.Namespace, p.Target.Kind, p.Target.Namespace, p.Target.Name, string(p.Type), p.Patch)
	case a.Command != "":
		op, err = remediate.ParseCommand(w.ts.Namespace, a.Command)
	default:
		return remediate.Op{}, "the action has no command or patch"
	}
	if err != nil {
		return remediate.Op{}, err.Error()
	}
	return op, ""
}

// remediating executes the approved, executable actions.
func (w *work) remediating(ctx context.Context) (time.Duration, error) {
	if w.st.Remediation == nil {
		return w.complete(ctx)
	}
	undecided := 0
	for i := range w.st.Remediation.Actions {
		a := &w.st.Remediation.Actions[i]
		switch {
		case a.Approval == kubagev1alpha1.ApprovalPending || a.Approval == "":
			undecided++
			continue
		case a.Approval != kubagev1alpha1.ApprovalApproved || a.Result != "":
			continue
		}
		op, why := w.executable(a)
		if why != "" {
			a.Result = clean("Approved, but not executed by the operator: "+why+".", 1024)
			continue
		}
		res, err := w.e.Executor.Execute(ctx, op, string(w.owner.UID)+"/"+a.ID)
		if err != nil {
			a.Approval, a.Result = kubagev1alpha1.ApprovalFailed, clean(err.Error(), 1024)
		} else {
			a.Approval, a.Result = kubagev1alpha1.ApprovalExecuted, clean(res, 1024)
		}
		w.ck.mark(string(kubagev1alpha1.PhaseRemediating), w.ck.Iteration, w.now, a.ID+": "+a.Result)
	}
	if undecided > 0 {
		w.enter(kubagev1alpha1.PhaseAwaitingApproval, fmt.Sprintf("%d action(s) still await a decision", undecided))
		return 0, w.writeReport(ctx)
	}
	return w.complete(ctx)
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
	brain := w.brain
	byID, err := runner.ReadResults(ctx, w.e.Client, w.owner)
	if err != nil {
		return nil, nil, err
	}
	results := make([]agent.TaskResult, 0, len(byID))
	for _, r := range byID {
		results = append(results, r)
	}
	sort.Slice(results, func(i, j int) bool { return taskLess(results[i].TaskID, results[j].TaskID) })
	return brain, results, nil
}

var taskIDRE = regexp.MustCompile(`^i(\d+)-t(\d+)$`)

// taskLess orders i<iteration>-t<n> ids numerically.
func taskLess(a, b string) bool {
	ma, mb := taskIDRE.FindStringSubmatch(a), taskIDRE.FindStringSubmatch(b)
	if ma == nil || mb == nil {
		return a < b
	}
	for k := 1; k <= 2; k++ {
		x, _ := strconv.Atoi(ma[k])
		y, _ := strconv.Atoi(mb[k])
		if x != y {
			return x < y
		}
	}
	return false
}

// account adds what a model-backed brain consumed to status.usage and keeps its latest
// fallback from the model in the checkpoint.
func (w *work) account(brain agent.Brain) {
	if dr, ok := brain.(DegradationReporter); ok {
		if reason, msg, degraded := dr.TakeDegraded(); degraded {
			w.ck.Degraded = &Degradation{Reason: clean(reason, 128), Message: clean(msg, 1024)}
		}
	}
	ur, ok := brain.(UsageReporter)
	if !ok {
		return
	}
	u := ur.TakeUsage()
	w.st.Usage.LLMCalls += u.LLMCalls
	w.st.Usage.PromptTokens += u.PromptTokens
	w.st.Usage.CompletionTokens += u.CompletionTokens
	metrics.LLMTokensTotal.WithLabelValues("prompt").Add(float64(u.PromptTokens))
	metrics.LLMTokensTotal.WithLabelValues("completion").Add(float64(u.CompletionTokens))
}

// SpecHash identifies what a run answers: the spec without the approvals (which change
// during a Remediate session without asking a new question).
func SpecHash(spec kubagev1alpha1.TroubleshootSpec) string {
	spec.Approvals = nil
	raw, _ := json.Marshal(spec)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:8])
}

// RootCauseFound reports whether a root cause names an actual cause.
func RootCauseFound(rc *kubagev1alpha1.RootCause) bool {
	if rc == nil {
		return false
	}
	switch rc.Category {
	case "", kubagev1alpha1.CategoryUnknown, "NoProblemFound", "Inconclusive":
		return false
	}
	return true
}

// Outcome is the condition reason and message that describe where a session stands.
func Outcome(st *kubagev1alpha1.TroubleshootStatus, ck *Checkpoint) (string, string) {
	var stop *Stop
	if ck != nil {
		stop = ck.Stop
	}
	summary := ""
	if st.RootCause != nil {
		summary = st.RootCause.Summary
	}
	switch st.Phase {
	case kubagev1alpha1.PhaseFailed:
		if stop != nil && stop.Reason != "" {
			return stop.Reason, stop.Message
		}
		return kubagev1alpha1.FailedReason, "The investigation failed"
	case kubagev1alpha1.PhaseCompleted:
		switch {
		case stop != nil && stop.Reason != "":
			return stop.Reason, clean("Stopped early ("+stop.Message+"); concluded from what was found: "+orNone(summary), 1024)
		case RootCauseFound(st.RootCause):
			return kubagev1alpha1.SucceededReason, summary
		default:
			return kubagev1alpha1.NoRootCauseReason, orNone(summary)
		}
	case kubagev1alpha1.PhaseAwaitingApproval:
		n := 0
		if st.Remediation != nil {
			for _, a := range st.Remediation.Actions {
				if a.Approval == kubagev1alpha1.ApprovalPending || a.Approval == "" {
					n++
				}
			}
		}
		return kubagev1alpha1.AwaitingApprovalReason, fmt.Sprintf("%d remediation action(s) await a decision in spec.approvals", n)
	case "", kubagev1alpha1.PhasePending:
		return kubagev1alpha1.ProgressingReason, "The session is about to start"
	}
	msg := "Session in phase " + string(st.Phase)
	if st.Iteration > 0 {
		msg += fmt.Sprintf(", iteration %d", st.Iteration)
	}
	if st.Phase == kubagev1alpha1.PhaseInvestigating && st.Plan != nil {
		done := 0
		for _, t := range st.Plan.Tasks {
			if t.State.IsDone() {
				done++
			}
		}
		msg += fmt.Sprintf(", %d of %d task(s) done", done, len(st.Plan.Tasks))
	}
	return kubagev1alpha1.ProgressingReason, msg
}

func orNone(s string) string {
	if s == "" {
		return "no root cause named"
	}
	return s
}
