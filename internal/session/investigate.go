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
	"time"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/runner"
)

// investigate collects finished tasks and launches the next ones within parallelism.
func investigate(ctx context.Context, w *work) (time.Duration, error) {
	r, ok := w.e.Runners[kubagev1alpha1.TaskRunner(w.ck.Runner)]
	if !ok {
		return 0, serror.NewStalling(kubagev1alpha1.RunnerUnavailableReason, fmt.Errorf("task runner %q of this run is not available in this operator (available: %s)", w.ck.Runner, w.e.runnerNames()))
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
			// Losses of the task itself: its attempts but those lost with the operator
			// process that ran them, which any restart of the operator causes.
			lost := t.Attempts - w.ck.Restarts[t.ID]
			switch {
			case !known:
				err = w.failTask(ctx, t, "the task's definition was lost")
			case t.Attempts >= maxTaskStarts:
				// A task that takes the operator down with it every time must not do so
				// forever.
				err = w.failTask(ctx, t, fmt.Sprintf("the task was started %d times and never finished; %d of its attempts ended with the operator process that ran it",
					t.Attempts, w.ck.Restarts[t.ID]+boolInt(out.Orphaned)))
			case !out.Orphaned && lost >= maxAttempts:
				err = w.failTask(ctx, t, fmt.Sprintf("the task was lost %d times", lost))
			default:
				running++
				if err = w.startTask(ctx, r, def); err == nil {
					if out.Orphaned {
						w.ck.noteRestart(t.ID)
					}
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
		if err := w.startTask(ctx, r, def); err != nil {
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
		// Nothing a resumed session needs changed in the checkpoint: the round's record
		// is redone from the status by regulate if this process dies.
		w.deferSave = true
		return soon, nil
	}
	return w.poll(), nil
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

func boolInt(b bool) int32 {
	if b {
		return 1
	}
	return 0
}
