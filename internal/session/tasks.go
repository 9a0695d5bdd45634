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
	"regexp"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/metrics"
	"github.com/kubage/kubage/internal/runner"
	"github.com/kubage/kubage/internal/telemetry"
)

// taskRequest is everything a runner needs to run one task of this run: the session,
// with the brain its tasks build wherever they run.
func (w *work) taskRequest(ctx context.Context, def agent.Task) agent.TaskRequest {
	s := w.ck.Session
	if w.e.BrainConfig != nil {
		// Every task of the step carries the same brain: build it once, not per task.
		if !w.taskBrainBuilt {
			w.taskBrain, w.taskBrainBuilt = w.e.BrainConfig(ctx, w.ts), true
		}
		s.Brain = w.taskBrain
	}
	s.TraceParent = telemetry.TraceParent(ctx)
	return agent.TaskRequest{Session: s, Task: def}
}

// startTask hands a task to the runner, bounded by the session's deadline.
func (w *work) startTask(ctx context.Context, r runner.Runner, def agent.Task) error {
	ctx = runner.WithTaskDeadline(ctx, w.deadline())
	if w.planned {
		ctx = runner.WithFreshTask(ctx)
	}
	return r.Start(ctx, w.owner, w.taskRequest(ctx, def))
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

// maxTaskStarts bounds how often one task is started, whatever ended its attempts: the
// API's maximum of status.plan.tasks[].attempts.
const maxTaskStarts = 10

func (w *work) started(r runner.Runner, t *kubagev1alpha1.PlanTask) {
	now := metav1.NewTime(w.now)
	t.State, t.StartedAt = kubagev1alpha1.TaskRunning, &now
	if t.Attempts < maxTaskStarts {
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
	metrics.TasksTotal.WithLabelValues(w.ck.Runner, string(t.State)).Inc()
	w.accountTask(res)
	w.e.results.add(w.owner, res)
	if w.results != nil {
		w.results[res.TaskID] = res
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

// roundRecorded says whether the current round has its record.
func (w *work) roundRecorded() bool {
	for _, r := range w.ck.Rounds {
		if r.Iteration == w.ck.Iteration {
			return true
		}
	}
	return false
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
