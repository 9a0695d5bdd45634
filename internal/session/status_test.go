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
	"testing"

	. "github.com/onsi/gomega"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

func TestRootCauseFoundNeedsARealCategory(t *testing.T) {
	g := NewWithT(t)
	g.Expect(RootCauseFound(nil)).To(BeFalse())
	for _, c := range []string{"", kubagev1alpha1.CategoryUnknown, "NoProblemFound", "Inconclusive"} {
		g.Expect(RootCauseFound(&kubagev1alpha1.RootCause{Category: c, Summary: "x"})).To(BeFalse(), c)
	}
	g.Expect(RootCauseFound(&kubagev1alpha1.RootCause{Category: "CrashLoop", Summary: "x"})).To(BeTrue())
}

func TestSpecHashIgnoresApprovals(t *testing.T) {
	g := NewWithT(t)
	spec := kubagev1alpha1.TroubleshootSpec{Problem: "web restarts", Mode: kubagev1alpha1.ModeRemediate}
	approved := spec
	approved.Approvals = []kubagev1alpha1.ActionApproval{{ActionID: "a1", Decision: kubagev1alpha1.DecisionApproved}}
	g.Expect(SpecHash(approved)).To(Equal(SpecHash(spec)))
	changed := spec
	changed.Problem = "web is slow"
	g.Expect(SpecHash(changed)).NotTo(Equal(SpecHash(spec)))
}

func TestOutcomeOfAFinishedSession(t *testing.T) {
	g := NewWithT(t)
	st := &kubagev1alpha1.TroubleshootStatus{Phase: kubagev1alpha1.PhaseCompleted,
		RootCause: &kubagev1alpha1.RootCause{Category: "CrashLoop", Summary: "web exits with code 1"}}
	reason, msg := Outcome(st, nil)
	g.Expect(reason).To(Equal(kubagev1alpha1.SucceededReason))
	g.Expect(msg).To(Equal("web exits with code 1"))
	reason, msg = Outcome(st, &Checkpoint{Stop: &Stop{Reason: kubagev1alpha1.TimedOutReason, Message: "the session timed out after 10m0s"}})
	g.Expect(reason).To(Equal(kubagev1alpha1.TimedOutReason))
	g.Expect(msg).To(HavePrefix("Stopped early (the session timed out after 10m0s)"))
	reason, _ = Outcome(&kubagev1alpha1.TroubleshootStatus{Phase: kubagev1alpha1.PhaseFailed}, nil)
	g.Expect(reason).To(Equal(kubagev1alpha1.FailedReason))
}
