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
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/runner"
)

func TestRestartResumesWithoutRelaunchingFinishedTasks(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	ts := troubleshoot(nil)
	// The step that plans the round starts its tasks.
	h.drive(g, ts, kubagev1alpha1.PhaseInvestigating)
	g.Expect(ts.Status.Plan.Tasks[0].State).To(Equal(kubagev1alpha1.TaskRunning))
	// The first runner finishes the task but the operator dies before collecting it.
	g.Eventually(func() int { return h.inproc.Running() }).Should(BeZero())
	h.inproc.Stop()

	counting := &countingInvestigator{inner: h.brain, runs: map[string]int{}}
	fresh := runner.NewInProcess(h.cs, counting, runner.InProcessOptions{})
	t.Cleanup(fresh.Stop)
	h.engine.Runners[kubagev1alpha1.TaskRunnerInProcess] = fresh
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	g.Expect(counting.runs).NotTo(HaveKey("i1-t1"), "the finished task's result was collected, not recomputed")
	for id, n := range counting.runs {
		g.Expect(n).To(Equal(1), "task %s ran once", id)
	}
}

type countingInvestigator struct {
	inner agent.Investigator
	mu    sync.Mutex
	runs  map[string]int
}

func (c *countingInvestigator) Investigate(ctx context.Context, s agent.Session, t agent.Task) (agent.TaskResult, error) {
	c.mu.Lock()
	c.runs[t.ID]++
	c.mu.Unlock()
	return c.inner.Investigate(ctx, s, t)
}

func TestForeignConfigMapsAreNeverOverwritten(t *testing.T) {
	g := NewWithT(t)
	mine := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-restarts-session"}, Data: map[string]string{"k": "user data"}}
	h := newHarness(t, append(crashLoopApp(), mine)...)
	ts := troubleshoot(webTarget)
	_, err := h.engine.Advance(context.Background(), ts)
	g.Expect(err).To(MatchError(ContainSubstring("is not a KubAge session")))
	var se *serror.Stalling
	g.Expect(errors.As(err, &se)).To(BeTrue())
	g.Expect(se.Reason).To(Equal(kubagev1alpha1.NameConflictReason))
	cm, err := h.cs.CoreV1().ConfigMaps(ns).Get(context.Background(), "web-restarts-session", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cm.Data).To(Equal(map[string]string{"k": "user data"}))
}

func TestLostStatusWritesAreRedoneNotRepeated(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	judged := &countingJudge{Brain: h.brain}
	h.brain = judged
	ts := troubleshoot(webTarget)
	ctx := context.Background()
	// Every step runs twice from the same status, as when the status write of the first
	// attempt is lost (or a reconcile reads a stale cache).
	g.Eventually(func(g Gomega) {
		stale := ts.DeepCopy()
		_, err := h.engine.Advance(ctx, stale)
		g.Expect(err).NotTo(HaveOccurred())
		_, err = h.engine.Advance(ctx, ts)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted))
	}).WithTimeout(10 * time.Second).WithPolling(time.Millisecond).Should(Succeed())
	g.Expect(ts.Status.Iteration).To(Equal(int32(2)), "no round is skipped")
	g.Expect(judged.calls).To(Equal(2), "each round is judged once")
	step, err := h.engine.Advance(ctx, ts)
	g.Expect(err).NotTo(HaveOccurred())
	var phases []string
	for _, m := range step.Checkpoint.Timeline {
		phases = append(phases, m.Phase)
	}
	g.Expect(phases).To(Equal([]string{"Pending", "Planning", "Investigating", "Regulating", "Planning", "Investigating", "Regulating", "Summarizing", "Completed"}))
}

type countingJudge struct {
	agent.Brain
	calls int
}

func (c *countingJudge) Judge(ctx context.Context, s agent.Session, p agent.Progress) (agent.Verdict, error) {
	c.calls++
	return c.Brain.Judge(ctx, s, p)
}

func TestARestartAfterADeferredCheckpointKeepsEveryRound(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	ts := troubleshoot(webTarget)
	h.drive(g, ts, kubagev1alpha1.PhaseRegulating)
	// The round's record was kept in this process only; a restarted operator has none.
	e := h.engine
	h.engine = &Engine{Client: e.Client, Brains: e.Brains, Runners: e.Runners, DefaultRunner: e.DefaultRunner,
		Executor: e.Executor, Now: e.Now, PollInterval: e.PollInterval}
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	step, err := h.engine.Advance(context.Background(), ts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(step.Checkpoint.Rounds).To(HaveLen(int(ts.Status.Iteration)))
	for i, r := range step.Checkpoint.Rounds {
		g.Expect(r.Iteration).To(Equal(i + 1))
		g.Expect(r.Tasks).NotTo(BeEmpty())
		g.Expect(r.Verdict).NotTo(BeEmpty())
	}
}

// A kill after the step that judged a round and started the next one saved its
// checkpoint, but before its status write: the restarted operator resumes from Regulating,
// takes the saved verdict and tasks, and judges, plans and runs nothing a second time.
func TestARestartAfterAChainedStepLostItsStatusWrite(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	brain := &countingBrain{Brain: h.brain, planned: map[int]int{}}
	h.brain = brain
	counting := &countingInvestigator{inner: brain.Brain, runs: map[string]int{}}
	first := runner.NewInProcess(h.cs, counting, runner.InProcessOptions{})
	t.Cleanup(first.Stop)
	h.engine.Runners[kubagev1alpha1.TaskRunnerInProcess] = first
	ts := troubleshoot(webTarget)
	h.drive(g, ts, kubagev1alpha1.PhaseRegulating)

	lost := ts.DeepCopy()
	_, err := h.engine.Advance(context.Background(), lost)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(lost.Status.Phase).To(Equal(kubagev1alpha1.PhaseInvestigating), "the verdict planned and started round 2 in one step")
	g.Expect(lost.Status.Iteration).To(Equal(int32(2)))
	g.Eventually(first.Running).Should(BeZero())
	first.Stop()

	// The restarted operator has neither the memo nor the runner's tasks; the status
	// still says Regulating in round 1.
	e := h.engine
	restarted := runner.NewInProcess(h.cs, counting, runner.InProcessOptions{})
	t.Cleanup(restarted.Stop)
	h.engine = &Engine{Client: e.Client, Brains: e.Brains, DefaultRunner: e.DefaultRunner, Executor: e.Executor, Now: e.Now, PollInterval: e.PollInterval,
		Runners: map[kubagev1alpha1.TaskRunner]runner.Runner{kubagev1alpha1.TaskRunnerInProcess: restarted}}
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	g.Expect(ts.Status.Iteration).To(Equal(int32(2)))
	g.Expect(brain.judged).To(Equal(2), "each round is judged once")
	g.Expect(brain.planned).To(Equal(map[int]int{1: 1, 2: 1}), "each round is planned once")
	g.Expect(counting.runs).NotTo(BeEmpty())
	for id, n := range counting.runs {
		g.Expect(n).To(Equal(1), "task %s ran once", id)
	}
	step, err := h.engine.Advance(context.Background(), ts)
	g.Expect(err).NotTo(HaveOccurred())
	var phases []string
	for _, m := range step.Checkpoint.Timeline {
		phases = append(phases, m.Phase)
	}
	g.Expect(phases).To(Equal([]string{"Pending", "Planning", "Investigating", "Regulating", "Planning", "Investigating", "Regulating", "Summarizing", "Completed"}))
}

// countingBrain counts the verdicts and the plans (by round) it is asked for.
type countingBrain struct {
	agent.Brain
	mu      sync.Mutex
	judged  int
	planned map[int]int
}

func (c *countingBrain) Judge(ctx context.Context, s agent.Session, p agent.Progress) (agent.Verdict, error) {
	c.mu.Lock()
	c.judged++
	c.mu.Unlock()
	return c.Brain.Judge(ctx, s, p)
}

func (c *countingBrain) Plan(ctx context.Context, s agent.Session, p agent.Progress) ([]agent.Task, error) {
	c.mu.Lock()
	c.planned[p.Iteration]++
	c.mu.Unlock()
	return c.Brain.Plan(ctx, s, p)
}
