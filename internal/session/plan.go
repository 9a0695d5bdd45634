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
	"fmt"
	"time"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
)

// plan asks the brain for this round's tasks.
func plan(ctx context.Context, w *work) (time.Duration, error) {
	if stop := w.budgetStop(); stop != nil {
		return w.stopLoop(stop), nil
	}
	tasks := w.ck.Tasks
	if len(tasks) == 0 {
		// Tasks in the checkpoint were planned for this round already (the status write of
		// that step was lost, or the plan in the status was): their Jobs may be running.
		var err error
		if tasks, err = w.planTasks(ctx); err != nil {
			return 0, err
		}
		// No checkpoint held these tasks before: none of them can have started.
		w.planned = true
	}
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

// planTasks asks the brain for this round's tasks. The first round has no results to
// plan from, so none are read.
func (w *work) planTasks(ctx context.Context) ([]agent.Task, error) {
	if w.ck.Iteration <= 1 && w.results == nil {
		w.results = map[string]agent.TaskResult{}
	}
	brain, results, err := w.brainAndResults(ctx)
	if err != nil {
		return nil, err
	}
	tasks, err := brain.Plan(ctx, w.ck.Session, agent.Progress{Iteration: w.ck.Iteration, Results: results, Verdict: w.ck.Verdict})
	w.account(brain)
	if err != nil {
		return nil, fmt.Errorf("planning iteration %d: %w", w.ck.Iteration, err)
	}
	return NormalizeTasks(w.ck.Iteration, tasks), nil
}
