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
	"sync"
	"testing"

	. "github.com/onsi/gomega"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/runner"
)

// scriptedRunner reports what the test tells it, like a Job runner whose Jobs fail or vanish.
type scriptedRunner struct {
	mu      sync.Mutex
	starts  map[string]int
	outcome func(taskID string, starts int) runner.Outcome
}

func (s *scriptedRunner) Start(_ context.Context, _ runner.Owner, req agent.TaskRequest) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.starts[req.Task.ID]++
	return nil
}

func (s *scriptedRunner) Check(_ context.Context, _ runner.Owner, id string) (runner.Outcome, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outcome(id, s.starts[id]), nil
}

func (s *scriptedRunner) Cleanup(context.Context, runner.Owner) error { return nil }

func (s *scriptedRunner) TaskObjectName(o runner.Owner, id string) string {
	return runner.ObjectName(o.Name, id)
}

func TestFailedAndLostTasksReachTheRegulator(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	sr := &scriptedRunner{starts: map[string]int{}, outcome: func(id string, starts int) runner.Outcome {
		if id == "i1-t1" {
			return runner.Outcome{State: runner.StateFailed, Reason: "Job web-restarts-i1-t1 exceeded its deadline"}
		}
		return runner.Outcome{State: runner.StateMissing}
	}}
	h.engine.Runners = map[kubagev1alpha1.TaskRunner]runner.Runner{kubagev1alpha1.TaskRunnerJob: sr}
	h.engine.DefaultRunner = kubagev1alpha1.TaskRunnerJob
	ts := troubleshoot(nil)
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)

	task := ts.Status.Plan.Tasks[0]
	g.Expect(task.State).To(Equal(kubagev1alpha1.TaskFailed))
	g.Expect(task.Summary).To(ContainSubstring("exceeded its deadline"))
	g.Expect(task.JobName).To(Equal("web-restarts-i1-t1"))
	g.Expect(sr.starts["i1-t1"]).To(Equal(1), "a failed task is not restarted by the engine")
	g.Expect(ts.Status.RootCause.Category).To(Equal("Inconclusive"), "the regulator stops when every task failed and says so")
	res, err := runner.ReadResult(context.Background(), h.cs, runner.Owner{Namespace: ns, Name: ts.Name, UID: ts.UID}, "i1-t1")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.Error).To(ContainSubstring("exceeded its deadline"), "the failure is kept as a result for later steps")

	By := "a task that keeps vanishing is started at most MaxAttempts times"
	h2 := newHarness(t, crashLoopApp()...)
	lost := &scriptedRunner{starts: map[string]int{}, outcome: func(string, int) runner.Outcome { return runner.Outcome{State: runner.StateMissing} }}
	h2.engine.Runners = map[kubagev1alpha1.TaskRunner]runner.Runner{kubagev1alpha1.TaskRunnerInProcess: lost}
	ts2 := troubleshoot(nil)
	h2.drive(g, ts2, kubagev1alpha1.PhaseCompleted)
	g.Expect(lost.starts["i1-t1"]).To(Equal(3), By)
	g.Expect(ts2.Status.Plan.Tasks[0].Summary).To(ContainSubstring("lost 3 times"))
}

// conflictRunner is a Job runner that finds the agent's binding taken by something else.
type conflictRunner struct{ scriptedRunner }

func (c *conflictRunner) Start(context.Context, runner.Owner, agent.TaskRequest) error {
	return fmt.Errorf("binding ClusterRole kubage-agent to payments/kubage-agent: %w", runner.ErrAccessConflict)
}

func TestAgentAccessConflictWaitsWithItsReason(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	h.engine.Runners = map[kubagev1alpha1.TaskRunner]runner.Runner{kubagev1alpha1.TaskRunnerJob: &conflictRunner{}}
	h.engine.DefaultRunner = kubagev1alpha1.TaskRunnerJob
	ts := troubleshoot(nil)
	var err error
	for i := 0; i < 10 && err == nil; i++ {
		_, err = h.engine.Advance(context.Background(), ts)
	}
	var waiting *serror.Waiting
	g.Expect(errors.As(err, &waiting)).To(BeTrue(), "%v", err)
	g.Expect(waiting.Reason).To(Equal(kubagev1alpha1.AgentAccessConflictReason))
	g.Expect(waiting.RequeueAfter).To(BeNumerically(">", 0), "checked again after an administrator had a chance to fix it")
}

// restartOperator stands for a killed operator and its successor: the running process's
// tasks end with it, and a new engine with a new in-process runner (which knows nothing
// of them) carries on from what the cluster holds.
func (h *harness) restartOperator(t *testing.T, inv agent.Investigator) {
	h.inproc.Stop()
	h.inproc = runner.NewInProcess(h.cs, inv, runner.InProcessOptions{})
	t.Cleanup(h.inproc.Stop)
	old := h.engine
	h.engine = &Engine{
		Client: old.Client, Brains: old.Brains, DefaultRunner: old.DefaultRunner, Executor: old.Executor, Now: old.Now, PollInterval: old.PollInterval,
		Runners: map[kubagev1alpha1.TaskRunner]runner.Runner{kubagev1alpha1.TaskRunnerInProcess: h.inproc},
	}
}

func TestTasksLostWithTheOperatorAreNotTheirOwnLosses(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	owner := func(ts *kubagev1alpha1.Troubleshoot) runner.Owner {
		return runner.Owner{Namespace: ts.Namespace, Name: ts.Name, UID: ts.UID}
	}
	gate := make(chan struct{})
	defer close(gate)
	// Every process is killed while the task still runs.
	blocking := &blockingInvestigator{gate: gate}

	h := newHarness(t, crashLoopApp()...)
	h.restartOperator(t, blocking)
	ts := troubleshoot(nil)
	h.drive(g, ts, kubagev1alpha1.PhaseInvestigating)
	g.Expect(ts.Status.Plan.Tasks[0].Attempts).To(BeEquivalentTo(1))
	const kills = 5 // more than MaxAttempts (3)
	for i := 0; i < kills; i++ {
		h.restartOperator(t, blocking)
		_, err := h.engine.Advance(ctx, ts)
		g.Expect(err).NotTo(HaveOccurred())
		task := ts.Status.Plan.Tasks[0]
		g.Expect(task.State).To(Equal(kubagev1alpha1.TaskRunning), "restart %d: the task runs again, in the new process: %s", i+1, task.Summary)
		g.Expect(task.Attempts).To(BeEquivalentTo(i+2), "restart %d", i+1)
	}
	// The last operator lets the task finish.
	h.restartOperator(t, h.brain)
	g.Eventually(func(g Gomega) {
		_, err := h.engine.Advance(ctx, ts)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(ts.Status.Plan.Tasks[0].State).To(Equal(kubagev1alpha1.TaskSucceeded), "a task lost only with operator restarts is not the task's failure: %s", ts.Status.Plan.Tasks[0].Summary)
	}).Should(Succeed())
	g.Expect(ts.Status.Plan.Tasks[0].Attempts).To(BeEquivalentTo(kills + 2))
	ck, _, err := loadCheckpoint(ctx, h.cs, owner(ts))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ck.Restarts).To(HaveKeyWithValue("i1-t1", BeEquivalentTo(kills+1)))
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	g.Expect(ts.Status.RootCause.Category).NotTo(Equal("Inconclusive"))

	// The same conclusion as a session that was never killed.
	calm := newHarness(t, crashLoopApp()...)
	want := troubleshoot(nil)
	calm.drive(g, want, kubagev1alpha1.PhaseCompleted)
	g.Expect(ts.Status.RootCause.Category).To(Equal(want.Status.RootCause.Category))
	g.Expect(ts.Status.RootCause.Confidence).To(Equal(want.Status.RootCause.Confidence))

	By := "a task whose every attempt ends with the operator is started at most 10 times"
	crashing := newHarness(t, crashLoopApp()...)
	crashing.restartOperator(t, blocking)
	ts2 := troubleshoot(nil)
	crashing.drive(g, ts2, kubagev1alpha1.PhaseInvestigating)
	for i := 0; i < 20 && ts2.Status.Phase == kubagev1alpha1.PhaseInvestigating; i++ {
		crashing.restartOperator(t, blocking)
		_, err := crashing.engine.Advance(ctx, ts2)
		g.Expect(err).NotTo(HaveOccurred())
	}
	task := ts2.Status.Plan.Tasks[0]
	g.Expect(task.State).To(Equal(kubagev1alpha1.TaskFailed), By)
	g.Expect(task.Attempts).To(BeEquivalentTo(10), By)
	g.Expect(task.Summary).To(ContainSubstring("started 10 times"))
	g.Expect(task.Summary).To(ContainSubstring("10 of its attempts ended with the operator process"))
}
