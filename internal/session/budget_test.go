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
	"testing"
	"time"

	. "github.com/onsi/gomega"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/runner"
)

func TestToolCallBudgetStopsAndStillConcludes(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	ts := troubleshoot(nil) // the namespace scan plans follow-ups
	ts.Spec.Budget.MaxToolCalls = 1
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	step, err := h.engine.Advance(context.Background(), ts)
	g.Expect(err).NotTo(HaveOccurred())
	reason, msg := Outcome(&ts.Status, step.Checkpoint)
	g.Expect(reason).To(Equal(kubagev1alpha1.BudgetExhaustedReason))
	g.Expect(msg).To(ContainSubstring("tool-call budget of 1 used"))
	g.Expect(ts.Status.RootCause).NotTo(BeNil(), "what was found is still summarized")
}

// replanForever always wants another round and reports model usage.
type replanForever struct{ agent.Brain }

func (r *replanForever) Judge(context.Context, agent.Session, agent.Progress) (agent.Verdict, error) {
	return agent.Verdict{Decision: agent.Replan, Feedback: "look again", Next: []agent.Task{{Type: agent.TaskAnalyze, Tool: "namespace", Description: "scan again", Args: map[string]string{"kind": "Namespace", "name": ns}}}}, nil
}

func (r *replanForever) Plan(ctx context.Context, s agent.Session, p agent.Progress) ([]agent.Task, error) {
	if p.Verdict != nil {
		return p.Verdict.Next, nil
	}
	return r.Brain.Plan(ctx, s, p)
}

func (r *replanForever) TakeUsage() Usage {
	return Usage{LLMCalls: 1, PromptTokens: 300, CompletionTokens: 100}
}

func TestTokenBudget(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	h.brain = &replanForever{Brain: h.brain}
	ts := troubleshoot(webTarget)
	ts.Spec.Budget.MaxTokens = 1000
	ts.Spec.Budget.MaxIterations = 20
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	step, _ := h.engine.Advance(context.Background(), ts)
	reason, msg := Outcome(&ts.Status, step.Checkpoint)
	g.Expect(reason).To(Equal(kubagev1alpha1.BudgetExhaustedReason))
	g.Expect(msg).To(ContainSubstring("token budget of 1000 used"))
	g.Expect(ts.Status.Usage.LLMCalls).To(BeNumerically(">=", 3))
}

func TestTimeout(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	gate := make(chan struct{})
	defer close(gate)
	blocking := &blockingInvestigator{gate: gate}
	h.inproc = runner.NewInProcess(h.cs, blocking, runner.InProcessOptions{})
	t.Cleanup(h.inproc.Stop)
	h.engine.Runners[kubagev1alpha1.TaskRunnerInProcess] = h.inproc
	ts := troubleshoot(webTarget)
	h.drive(g, ts, kubagev1alpha1.PhaseInvestigating)
	h.clock.Add(6 * time.Minute)
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	step, _ := h.engine.Advance(context.Background(), ts)
	reason, _ := Outcome(&ts.Status, step.Checkpoint)
	g.Expect(reason).To(Equal(kubagev1alpha1.TimedOutReason))
	g.Expect(ts.Status.Plan.Tasks).To(HaveEach(HaveField("State", kubagev1alpha1.TaskSkipped)))
	g.Eventually(h.inproc.Running).Should(BeZero(), "the running task was cancelled")
}

type blockingInvestigator struct{ gate chan struct{} }

func (b *blockingInvestigator) Investigate(ctx context.Context, _ agent.Session, t agent.Task) (agent.TaskResult, error) {
	select {
	case <-b.gate:
	case <-ctx.Done():
	}
	return agent.TaskResult{TaskID: t.ID, Summary: "blocked"}, ctx.Err()
}
