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

package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/runner"
	"github.com/kubage/kubage/internal/text"
)

// Local runs one session to its end inside this process, through the same Engine the
// operator runs: eval, the LLM benchmark and tests drive it on a clientset (a fake one is
// fine), with the InProcess runner investigating on the session's one brain.
type Local struct {
	// Client is the cluster under investigation; nil runs the session offline (kubage eval
	// replays recorded tool outputs): no target is looked up.
	Client kubernetes.Interface
	// State keeps the session's checkpoint and task results (NewMemoryState when nil).
	// Not the cluster: objects owned by a Troubleshoot that does not exist would be
	// garbage-collected there.
	State kubernetes.Interface
	// Brain thinks at every step; Investigator runs the tasks (Brain when nil).
	Brain        agent.Brain
	Investigator agent.Investigator
	// BrainConfig travels on every task request, as the operator sends it (nil: none), so
	// an Investigator such as task.Investigator builds the session's brain for its tasks.
	BrainConfig *agent.BrainConfig
	// Poll is how often running tasks are checked (20ms when zero).
	Poll time.Duration
}

// LocalResult is the end of a local session.
type LocalResult struct {
	Conclusion agent.Conclusion
	Trace      agent.Trace
	// Status is the session's status: usage, plan, evidence, root cause.
	Status kubagev1alpha1.TroubleshootStatus
	// Degraded is the latest fall back from the model (nil: none).
	Degraded *Degradation
	// StopReason is the condition reason the session stopped with (e.g. TargetNotFound), if any.
	StopReason string
}

// Run runs s within budget (its zero fields take agent.Budget's defaults) until the
// session completes or fails. A budget stop still concludes, and so does ctx ending: the
// session times out then, and the summary gets the engine's grace. Only a failing brain
// step returns an error.
func (l *Local) Run(ctx context.Context, s agent.Session, budget agent.Budget) (LocalResult, error) {
	budget = budget.WithDefaults()
	start := time.Now()
	inv := l.Investigator
	if inv == nil {
		inv = l.Brain
	}
	state := l.State
	if state == nil {
		state = NewMemoryState()
	}
	inproc := runner.NewInProcess(state, inv, runner.InProcessOptions{MaxConcurrent: budget.Parallelism, TaskTimeout: budget.Timeout})
	defer inproc.Stop()
	poll := l.Poll
	if poll <= 0 {
		poll = 20 * time.Millisecond
	}
	e := &Engine{
		Client:        state,
		Cluster:       l.Client,
		Offline:       l.Client == nil,
		Brains:        func(context.Context, *kubagev1alpha1.Troubleshoot) (agent.Brain, error) { return l.Brain, nil },
		Runners:       map[kubagev1alpha1.TaskRunner]runner.Runner{kubagev1alpha1.TaskRunnerInProcess: inproc},
		DefaultRunner: kubagev1alpha1.TaskRunnerInProcess,
		PollInterval:  poll,
	}
	if l.BrainConfig != nil {
		e.BrainConfig = func(context.Context, *kubagev1alpha1.Troubleshoot) *agent.BrainConfig { return l.BrainConfig }
	}
	ts := troubleshootFor(s, budget)
	tr := traceRecorder{iterations: map[int]*agent.IterationTrace{}}
	var ck *Checkpoint
	// The steps outlive ctx: when it ends, the session times out and still concludes.
	stepCtx := context.WithoutCancel(ctx)
	for !ts.Status.Phase.IsTerminal() {
		if ctx.Err() != nil && ts.Status.StartTime != nil {
			// Time is up now: the session's timeout becomes what it has run.
			ts.Spec.Budget.Timeout = &metav1.Duration{Duration: max(time.Since(ts.Status.StartTime.Time), time.Nanosecond)}
		}
		step, err := e.Advance(stepCtx, ts)
		if err != nil {
			return LocalResult{Trace: tr.trace(ck, start)}, err
		}
		ck = step.Checkpoint
		if err := tr.record(stepCtx, state, ts, ck); err != nil {
			return LocalResult{Trace: tr.trace(ck, start)}, err
		}
		if ts.Status.Phase == kubagev1alpha1.PhaseAwaitingApproval || step.RequeueAfter == 0 && !ts.Status.Phase.IsTerminal() {
			return LocalResult{Trace: tr.trace(ck, start), Status: ts.Status}, fmt.Errorf("the session waits in phase %s", ts.Status.Phase)
		}
		if step.RequeueAfter > soon {
			select {
			case <-ctx.Done():
			case <-inproc.Finished():
			case <-time.After(step.RequeueAfter):
			}
		}
	}
	res := LocalResult{Trace: tr.trace(ck, start), Status: ts.Status}
	if ck != nil {
		res.Degraded = ck.Degraded
		if ck.Stop != nil {
			res.StopReason = ck.Stop.Reason
		}
	}
	if ts.Status.Phase == kubagev1alpha1.PhaseFailed {
		msg := "the session failed"
		if ck != nil && ck.Stop != nil {
			msg = ck.Stop.Message
		}
		return res, errors.New(msg)
	}
	if ck != nil && ck.Conclusion != nil {
		res.Conclusion = *ck.Conclusion
	}
	return res, nil
}

// troubleshootFor is the Troubleshoot a local session stands for: named after s.ID
// (namespace/name), with s's problem, target, time range and hints.
func troubleshootFor(s agent.Session, b agent.Budget) *kubagev1alpha1.Troubleshoot {
	name := "local"
	if _, n, ok := strings.Cut(s.ID, "/"); ok && n != "" {
		name = n
	}
	// The API server admits no longer problem or hints (the CRD's bounds); a local session
	// stands for a Troubleshoot it would admit.
	hints := append([]string(nil), s.Hints[:min(len(s.Hints), 16)]...)
	for i := range hints {
		hints[i] = text.Clip(hints[i], 2048)
	}
	ts := &kubagev1alpha1.Troubleshoot{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.Namespace, Name: name, UID: types.UID("local-" + name), Generation: 1},
		Spec: kubagev1alpha1.TroubleshootSpec{
			Problem:    text.Clip(s.Problem, 4096),
			Hints:      hints,
			TaskRunner: kubagev1alpha1.TaskRunnerInProcess,
			Budget: kubagev1alpha1.Budget{
				MaxIterations: int32(b.MaxIterations), MaxToolCalls: int32(b.MaxToolCalls),
				Timeout: &metav1.Duration{Duration: b.Timeout}, Parallelism: int32(b.Parallelism),
			},
		},
	}
	if t := s.Target; t != nil {
		tt := &kubagev1alpha1.TroubleshootTarget{Kind: t.Kind, Name: t.Name}
		if t.Selector != "" {
			if sel, err := metav1.ParseToLabelSelector(t.Selector); err == nil {
				tt.Selector = sel
			}
		}
		ts.Spec.Target = tt
	}
	if r := s.TimeRange; r != nil && r.From != nil {
		tr := &kubagev1alpha1.TimeRange{From: &metav1.Time{Time: *r.From}}
		if r.To != nil {
			tr.To = &metav1.Time{Time: *r.To}
		}
		ts.Spec.TimeRange = tr
	}
	return ts
}

// traceRecorder rebuilds agent.Trace from the steps of a local session: the tasks of a
// round while it is investigated, its results and verdict once they exist.
type traceRecorder struct {
	iterations map[int]*agent.IterationTrace
	order      []int
	began      map[int]time.Time
}

func (r *traceRecorder) round(n int) *agent.IterationTrace {
	it, ok := r.iterations[n]
	if !ok {
		it = &agent.IterationTrace{Iteration: n}
		r.iterations[n] = it
		r.order = append(r.order, n)
		if r.began == nil {
			r.began = map[int]time.Time{}
		}
		r.began[n] = time.Now()
	}
	return it
}

func (r *traceRecorder) record(ctx context.Context, cs kubernetes.Interface, ts *kubagev1alpha1.Troubleshoot, ck *Checkpoint) error {
	if ck == nil || ck.Iteration == 0 {
		return nil
	}
	it := r.round(ck.Iteration)
	if len(ck.Tasks) > 0 && len(it.Tasks) == 0 {
		it.Tasks = append([]agent.Task(nil), ck.Tasks...)
	}
	if v := ck.Verdict; v != nil && ck.VerdictIteration > 0 {
		vv := *v
		r.round(ck.VerdictIteration).Verdict = &vv
	}
	if len(it.Tasks) > 0 && len(it.Results) == 0 && ts.Status.Phase != kubagev1alpha1.PhaseInvestigating {
		byID, err := runner.ReadResults(ctx, cs, runner.Owner{Namespace: ts.Namespace, Name: ts.Name, UID: ts.UID, Run: ck.Run})
		if err != nil {
			return err
		}
		for _, t := range it.Tasks {
			if res, ok := byID[t.ID]; ok {
				it.Results = append(it.Results, res)
			}
		}
		it.Duration = time.Since(r.began[ck.Iteration])
	}
	return nil
}

func (r *traceRecorder) trace(ck *Checkpoint, start time.Time) agent.Trace {
	var tr agent.Trace
	for _, n := range r.order {
		it := *r.iterations[n]
		for _, res := range it.Results {
			tr.ToolCalls += len(res.ToolCalls)
			tr.APIRequests += res.APIRequests
		}
		tr.Iterations = append(tr.Iterations, it)
	}
	if ck != nil && ck.Stop != nil {
		tr.StopReason = ck.Stop.Message
	}
	tr.Duration = time.Since(start)
	return tr
}
