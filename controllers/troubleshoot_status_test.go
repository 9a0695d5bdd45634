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

package controllers

import (
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	serror "github.com/kubage/kubage/internal/errors"
	"github.com/kubage/kubage/internal/session"
)

func completed(rc *kubagev1alpha1.RootCause) *kubagev1alpha1.Troubleshoot {
	ts := newTroubleshoot(1, kubagev1alpha1.PhaseCompleted)
	ts.Status.RootCause = rc
	return ts
}

func TestTroubleshootConditions(t *testing.T) {
	crash := &kubagev1alpha1.RootCause{Summary: "web crashes", Category: "CrashLoopBackOff", Confidence: 85}
	cases := []struct {
		name                      string
		ts                        *kubagev1alpha1.Troubleshoot
		ck                        *session.Checkpoint
		ready, rootCause, degrade string
	}{
		{"a found root cause", completed(crash), &session.Checkpoint{}, "True/Succeeded", "True/CrashLoopBackOff", ""},
		{"nothing found", completed(&kubagev1alpha1.RootCause{Summary: "nothing", Category: "NoProblemFound"}), &session.Checkpoint{}, "True/NoRootCause", "False/NoRootCause", ""},
		{"stopped at a budget", completed(crash), &session.Checkpoint{Stop: &session.Stop{Reason: kubagev1alpha1.BudgetExhaustedReason, Message: "tool-call budget of 1 used"}},
			"True/BudgetExhausted", "True/CrashLoopBackOff", "True/BudgetExhausted"},
		{"timed out", completed(crash), &session.Checkpoint{Stop: &session.Stop{Reason: kubagev1alpha1.TimedOutReason, Message: "timed out"}},
			"True/TimedOut", "True/CrashLoopBackOff", "True/TimedOut"},
		{"target not found", newTroubleshoot(1, kubagev1alpha1.PhaseFailed), &session.Checkpoint{Stop: &session.Stop{Reason: kubagev1alpha1.TargetNotFoundReason, Message: "no such Deployment web", Failed: true}},
			"False/TargetNotFound", "False/NoRootCause", ""},
		{"investigating", newTroubleshoot(1, kubagev1alpha1.PhaseInvestigating), &session.Checkpoint{}, "False/Progressing", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := NewWithT(t)
			summarizeTroubleshoot(c.ts, c.ck, nil)
			g.Expect(condString(c.ts, kubagev1alpha1.ReadyCondition)).To(Equal(c.ready))
			g.Expect(condString(c.ts, kubagev1alpha1.RootCauseFoundCondition)).To(Equal(c.rootCause))
			g.Expect(condString(c.ts, kubagev1alpha1.DegradedCondition)).To(Equal(c.degrade))
			g.Expect(c.ts.Status.Conditions[0].Type).To(Equal(kubagev1alpha1.ReadyCondition))
		})
	}
}

func condString(ts *kubagev1alpha1.Troubleshoot, typ string) string {
	c := meta.FindStatusCondition(ts.Status.Conditions, typ)
	if c == nil {
		return ""
	}
	return string(c.Status) + "/" + c.Reason
}

func TestOutdatedFollowsTheQuestionNotTheApprovals(t *testing.T) {
	g := NewWithT(t)
	ts := completed(&kubagev1alpha1.RootCause{Summary: "s", Category: "CrashLoopBackOff"})
	ts.Spec = kubagev1alpha1.TroubleshootSpec{Problem: "web restarts", Mode: kubagev1alpha1.ModeRemediate}
	ck := &session.Checkpoint{Generation: 1, SpecHash: session.SpecHash(ts.Spec)}

	ts.Spec.Approvals = []kubagev1alpha1.ActionApproval{{ActionID: "a1-abc123", Decision: kubagev1alpha1.DecisionApproved}}
	ts.Generation = 2
	summarizeTroubleshoot(ts, ck, nil)
	g.Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.OutdatedCondition)).To(BeNil())

	ts.Spec.Problem = "web is slow"
	ts.Generation = 3
	summarizeTroubleshoot(ts, ck, nil)
	g.Expect(condString(ts, kubagev1alpha1.OutdatedCondition)).To(Equal("True/SpecChanged"))
	g.Expect(ts.Status.ObservedGeneration).To(Equal(int64(3)))
	g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted))
}

func TestRemediationApproved(t *testing.T) {
	g := NewWithT(t)
	ts := newTroubleshoot(1, kubagev1alpha1.PhaseAwaitingApproval)
	ts.Spec.Mode = kubagev1alpha1.ModeRemediate
	ts.Status.Remediation = &kubagev1alpha1.Remediation{Actions: []kubagev1alpha1.RemediationAction{
		{ID: "a1", Approval: kubagev1alpha1.ApprovalExecuted}, {ID: "a2", Approval: kubagev1alpha1.ApprovalPending},
	}}
	summarizeTroubleshoot(ts, &session.Checkpoint{}, nil)
	g.Expect(condString(ts, kubagev1alpha1.RemediationApprovedCondition)).To(Equal("False/AwaitingApproval"))
	g.Expect(condString(ts, kubagev1alpha1.ReadyCondition)).To(Equal("False/AwaitingApproval"))

	// A decision the session left unapplied lacks the webhook's record of who decided.
	ts.Spec.Approvals = []kubagev1alpha1.ActionApproval{{ActionID: "a2", Decision: kubagev1alpha1.DecisionApproved}}
	summarizeTroubleshoot(ts, &session.Checkpoint{}, nil)
	g.Expect(condString(ts, kubagev1alpha1.RemediationApprovedCondition)).To(Equal("False/ApprovalNotRecorded"))
	g.Expect(meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.RemediationApprovedCondition).Message).To(ContainSubstring("a2"))

	ts.Status.Remediation.Actions[1].Approval = kubagev1alpha1.ApprovalRejected
	summarizeTroubleshoot(ts, &session.Checkpoint{}, nil)
	g.Expect(condString(ts, kubagev1alpha1.RemediationApprovedCondition)).To(Equal("True/Succeeded"))
}

func TestPhaseEventsOnlyOnChange(t *testing.T) {
	g := NewWithT(t)
	rec := events.NewFakeRecorder(10)
	before := newTroubleshoot(1, kubagev1alpha1.PhaseInvestigating)
	after := before.DeepCopy()
	recordPhaseTransition(rec, after, before, &session.Checkpoint{}, nil)
	g.Expect(rec.Events).NotTo(Receive(), "no phase change, no Event")

	// The loop's own steps show in the status and the timeline, not as Events.
	after.Status.Phase = kubagev1alpha1.PhaseRegulating
	recordPhaseTransition(rec, after, before, &session.Checkpoint{Timeline: []session.Mark{{Phase: "Regulating", Note: "1 task(s): 1 succeeded, 0 failed, 0 skipped"}}}, nil)
	g.Expect(rec.Events).NotTo(Receive(), "no Event for Regulating")

	// A new session is announced once, when it starts, though its first step goes on to Planning.
	created := newTroubleshoot(1, "")
	started := created.DeepCopy()
	started.Status.Phase = kubagev1alpha1.PhasePlanning
	recordPhaseTransition(rec, started, created, &session.Checkpoint{}, []session.Mark{{Phase: "Pending", Note: "session created"}, {Phase: "Planning", Note: "runner InProcess"}})
	g.Expect(rec.Events).To(Receive(Equal("Normal Pending session created")))
	g.Expect(rec.Events).NotTo(Receive())

	// The end says what was found and the path the run took.
	done := after.DeepCopy()
	done.Status.Phase = kubagev1alpha1.PhaseCompleted
	done.Status.RootCause = &kubagev1alpha1.RootCause{Summary: "Deployment web crash-loops: cannot connect to database", Category: "CrashLoopBackOff", Confidence: 90}
	var timeline []session.Mark
	for _, p := range []string{"Pending", "Planning", "Investigating", "Regulating", "Planning", "Investigating", "Regulating", "Summarizing", "Completed"} {
		timeline = append(timeline, session.Mark{Phase: p})
	}
	recordPhaseTransition(rec, done, after, &session.Checkpoint{Timeline: timeline}, []session.Mark{{Phase: "Summarizing"}, {Phase: "Completed"}})
	g.Expect(rec.Events).To(Receive(Equal("Normal Completed Deployment web crash-loops: cannot connect to database (phases: Pending → Planning → Investigating → Regulating → Planning → Investigating → Regulating → Summarizing → Completed)")))
	g.Expect(rec.Events).NotTo(Receive())

	// A long run keeps the start and the end of its path, and the outcome before it.
	long := &session.Checkpoint{}
	for i := 0; i < 100; i++ {
		long.Timeline = append(long.Timeline, session.Mark{Phase: "Investigating"})
	}
	long.Timeline = append(long.Timeline, session.Mark{Phase: "Completed"})
	note := outcomeNote(done, long)
	g.Expect(len(note)).To(BeNumerically("<=", maxConditionMessage))
	g.Expect(note).To(HavePrefix("Deployment web crash-loops"))
	g.Expect(note).To(ContainSubstring("(77 more)"))
	g.Expect(note).To(HaveSuffix("→ Completed)"))

	after.Status.Phase = kubagev1alpha1.PhaseFailed
	recordPhaseTransition(rec, after, before, &session.Checkpoint{Stop: &session.Stop{Reason: kubagev1alpha1.TargetNotFoundReason, Message: "no such Deployment web in payments", Failed: true}}, nil)
	g.Expect(rec.Events).To(Receive(Equal("Warning Failed no such Deployment web in payments")))

	stalled := before.DeepCopy()
	summarizeTroubleshoot(stalled, nil, serror.NewStalling(kubagev1alpha1.RunnerUnavailableReason, errors.New(`task runner "Job" is not available`)))
	recordPhaseTransition(rec, stalled, before, nil, nil)
	g.Expect(rec.Events).To(Receive(HavePrefix("Warning RunnerUnavailable")))
	g.Expect(stalled.Status.ObservedGeneration).To(BeZero())
	g.Expect(meta.FindStatusCondition(stalled.Status.Conditions, kubagev1alpha1.ReadyCondition).Status).To(Equal(metav1.ConditionFalse))

	// A session whose model may not be used says so once, when it degrades.
	degraded := before.DeepCopy()
	forbidden := &session.Checkpoint{Degraded: &session.Degradation{Reason: kubagev1alpha1.ForbiddenReason, Message: "The model Secret ns/model cannot be used"}}
	summarizeTroubleshoot(degraded, forbidden, nil)
	recordPhaseTransition(rec, degraded, before, forbidden, nil)
	g.Expect(rec.Events).To(Receive(Equal("Warning Forbidden The model Secret ns/model cannot be used")))
	again := degraded.DeepCopy()
	recordPhaseTransition(rec, again, degraded, forbidden, nil)
	g.Expect(rec.Events).NotTo(Receive(), "no second Event while it stays degraded for the same reason")
}
