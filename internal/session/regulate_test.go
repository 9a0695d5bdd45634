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

	. "github.com/onsi/gomega"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

func TestIterationBudget(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	h.brain = &replanForever{Brain: h.brain}
	ts := troubleshoot(webTarget)
	ts.Spec.Budget.MaxIterations = 2
	ts.Spec.Budget.MaxTokens = 1000000
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	g.Expect(ts.Status.Iteration).To(Equal(int32(2)))
	step, _ := h.engine.Advance(context.Background(), ts)
	reason, msg := Outcome(&ts.Status, step.Checkpoint)
	g.Expect(reason).To(Equal(kubagev1alpha1.BudgetExhaustedReason))
	g.Expect(msg).To(ContainSubstring("iteration budget of 2 used"))
	g.Expect(step.Checkpoint.Rounds).To(HaveLen(2))
	g.Expect(step.Checkpoint.Rounds[1].Tasks[0].ID).To(Equal("i2-t1"), "ids are unique per iteration")
}
