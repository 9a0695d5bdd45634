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

// regulate asks the brain whether to conclude, plan another round, or stop.
func regulate(ctx context.Context, w *work) (time.Duration, error) {
	if stop := w.budgetStop(); stop != nil {
		return w.stopLoop(stop), nil
	}
	if !w.roundRecorded() {
		// The checkpoint written after the round was not saved before a restart.
		w.recordRound()
	}
	brain, results, err := w.brainAndResults(ctx)
	if err != nil {
		return 0, err
	}
	var v agent.Verdict
	judgedBefore := w.ck.Verdict != nil && w.ck.VerdictIteration == w.ck.Iteration
	if judgedBefore {
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
		if !judgedBefore {
			// The tasks saved with a verdict judged before were planned for the next round by
			// the step that judged it (see steps) and may be running: plan takes them again.
			w.ck.Tasks = nil
		}
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
