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

package kubectlplugin

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/session"
)

// states is a session as a watcher sees it: planning, two tasks, evidence, the conclusion.
func states() []*kubagev1alpha1.Troubleshoot {
	ts := &kubagev1alpha1.Troubleshoot{ObjectMeta: metav1.ObjectMeta{Name: "api-x7k2p", Namespace: "shop"}}
	var out []*kubagev1alpha1.Troubleshoot
	step := func(mutate func(st *kubagev1alpha1.TroubleshootStatus)) {
		mutate(&ts.Status)
		out = append(out, ts.DeepCopy())
	}
	step(func(st *kubagev1alpha1.TroubleshootStatus) { st.Phase = kubagev1alpha1.PhasePending })
	step(func(st *kubagev1alpha1.TroubleshootStatus) { st.Phase, st.Iteration = kubagev1alpha1.PhasePlanning, 1 })
	step(func(st *kubagev1alpha1.TroubleshootStatus) {
		st.Phase = kubagev1alpha1.PhaseInvestigating
		st.Plan = &kubagev1alpha1.Plan{Tasks: []kubagev1alpha1.PlanTask{
			{ID: "i1-t1", Type: kubagev1alpha1.TaskTypeAnalyze, Description: "analyze Deployment/api", State: kubagev1alpha1.TaskRunning},
			{ID: "i1-t2", Type: kubagev1alpha1.TaskTypeAnalyze, Description: "read events"},
		}}
	})
	step(func(st *kubagev1alpha1.TroubleshootStatus) {
		st.Plan.Tasks[0].State, st.Plan.Tasks[0].Summary = kubagev1alpha1.TaskSucceeded, "ConfigMap api-flags is missing"
		st.Evidence = []kubagev1alpha1.Evidence{{ID: "i1-t1-e1", Summary: "Pod api-1 container config-reloader:\nCreateContainerConfigError"}}
	})
	step(func(st *kubagev1alpha1.TroubleshootStatus) {}) // a status write that changes nothing shown
	step(func(st *kubagev1alpha1.TroubleshootStatus) {
		st.Plan.Tasks[1].State = kubagev1alpha1.TaskSucceeded
		st.Phase = kubagev1alpha1.PhaseCompleted
	})
	return out
}

func TestProgressPlainAppendsOneLinePerChange(t *testing.T) {
	g := NewWithT(t)
	var out bytes.Buffer
	p := NewProgress(&out, false, 80)
	for _, ts := range states() {
		p.Update(ts)
	}
	p.Close()
	g.Expect(out.String()).To(Equal(strings.Join([]string{
		"phase Pending",
		"phase Planning (iteration 1)",
		"phase Investigating (iteration 1)",
		"task i1-t1 Running: analyze Deployment/api",
		"task i1-t2 Pending: read events",
		"task i1-t1 Succeeded: ConfigMap api-flags is missing",
		"evidence i1-t1-e1: Pod api-1 container config-reloader: CreateContainerConfigError",
		"phase Completed (iteration 1)",
		"task i1-t2 Succeeded: read events",
		"",
	}, "\n")))
	g.Expect(out.String()).NotTo(ContainSubstring("\x1b"), "no escape sequences when piped")
}

func TestProgressTTYUpdatesOneLine(t *testing.T) {
	g := NewWithT(t)
	var out bytes.Buffer
	p := NewProgress(&out, true, 100)
	for _, ts := range states() {
		p.Update(ts)
	}
	g.Expect(out.String()).NotTo(ContainSubstring("\n"), "one line, redrawn in place")
	draws := strings.Split(out.String(), "\r\x1b[2K")[1:]
	g.Expect(draws).To(HaveLen(5), "a redraw per state that changed something")
	for _, d := range draws {
		g.Expect(len([]rune(d))).To(BeNumerically("<", 100))
	}
	g.Expect(draws[3]).To(HavePrefix("Investigating · iteration 1 · tasks 1/2 · evidence 1 · evidence i1-t1-e1"))
	g.Expect(draws[4]).To(HavePrefix("Completed · iteration 1 · tasks 2/2"))
	p.Close()
	g.Expect(out.String()).To(HaveSuffix("\r\x1b[2K"), "Close clears the line for what follows")
}

func TestFinishedAndVerdict(t *testing.T) {
	g := NewWithT(t)
	ts := states()[5]
	g.Expect(Finished(ts)).To(BeFalse(), "Completed, but the conditions are not written yet")

	ts.Status.RootCause = &kubagev1alpha1.RootCause{Summary: "ConfigMap api-flags does not exist", Category: "ConfigMapMissing", Confidence: 90,
		AffectedObjects: []kubagev1alpha1.ObjectReference{{Kind: "ConfigMap", Namespace: "shop", Name: "api-flags"}}, EvidenceIDs: []string{"i1-t1-e1"}}
	ts.Status.ReportRef = &kubagev1alpha1.LocalConfigMapReference{Name: "api-x7k2p-report"}
	ts.Status.Conditions = []metav1.Condition{{Type: kubagev1alpha1.RootCauseFoundCondition, Status: metav1.ConditionTrue, Reason: "ConfigMapMissing"}}
	g.Expect(Finished(ts)).To(BeTrue())
	g.Expect(Verdict(ts, "deployment/api")).To(Succeed())

	var out bytes.Buffer
	PrintOutcome(&out, ts)
	g.Expect(out.String()).To(And(
		ContainSubstring("Root cause: ConfigMap api-flags does not exist"),
		ContainSubstring("Category:   ConfigMapMissing"),
		ContainSubstring("Confidence: 90%"),
		ContainSubstring("Affected:   ConfigMap/shop/api-flags"),
		ContainSubstring("- i1-t1-e1: Pod api-1 container config-reloader: CreateContainerConfigError"),
		ContainSubstring("Full report: kubectl kubage report api-x7k2p -n shop"),
	))

	healthy := ts.DeepCopy()
	healthy.Status.RootCause = &kubagev1alpha1.RootCause{Summary: "Deployment api is healthy", Category: "NoProblemFound"}
	healthy.Status.Conditions = []metav1.Condition{{Type: kubagev1alpha1.RootCauseFoundCondition, Status: metav1.ConditionFalse,
		Reason: kubagev1alpha1.NoRootCauseReason, Message: "Deployment api is healthy"}}
	out.Reset()
	PrintOutcome(&out, healthy)
	g.Expect(out.String()).To(ContainSubstring("No root cause found: Deployment api is healthy"))
	err := Verdict(healthy, "deployment/api")
	g.Expect(err).To(MatchError("no problem found on deployment/api: Deployment api is healthy"))
	g.Expect(ExitCode(err)).To(Equal(ExitNoRootCause))

	failed := healthy.DeepCopy()
	failed.Status.Phase = kubagev1alpha1.PhaseFailed
	failed.Status.Conditions = []metav1.Condition{{Type: kubagev1alpha1.ReadyCondition, Status: metav1.ConditionFalse, Reason: "TargetNotFound", Message: "Deployment api not found"}}
	g.Expect(Finished(failed)).To(BeTrue())
	g.Expect(Verdict(failed, "deployment/api")).To(MatchError("the diagnosis of deployment/api failed: Deployment api not found"))
}

func remediating() *kubagev1alpha1.Troubleshoot {
	return &kubagev1alpha1.Troubleshoot{
		ObjectMeta: metav1.ObjectMeta{Name: "evicted", Namespace: "batch", ResourceVersion: "42"},
		Spec: kubagev1alpha1.TroubleshootSpec{Mode: kubagev1alpha1.ModeRemediate, Approvals: []kubagev1alpha1.ActionApproval{
			{ActionID: "a1-aaaa", Decision: kubagev1alpha1.DecisionRejected},
		}},
		Status: kubagev1alpha1.TroubleshootStatus{Phase: kubagev1alpha1.PhaseAwaitingApproval, Remediation: &kubagev1alpha1.Remediation{
			Actions: []kubagev1alpha1.RemediationAction{
				{ID: "a1-aaaa", Approval: kubagev1alpha1.ApprovalRejected},
				{ID: "a2-bbbb", Approval: kubagev1alpha1.ApprovalPending},
				{ID: "a3-cccc", Approval: kubagev1alpha1.ApprovalExecuted},
			},
		}},
	}
}

func TestApprovalPatch(t *testing.T) {
	g := NewWithT(t)
	decode := func(raw []byte) map[string]any {
		var m map[string]any
		g.Expect(json.Unmarshal(raw, &m)).To(Succeed())
		return m
	}

	raw, err := ApprovalPatch(remediating(), "a2-bbbb", kubagev1alpha1.DecisionApproved)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(decode(raw)).To(Equal(map[string]any{
		"metadata": map[string]any{"resourceVersion": "42"},
		"spec": map[string]any{"approvals": []any{
			map[string]any{"actionID": "a1-aaaa", "decision": "Rejected"},
			map[string]any{"actionID": "a2-bbbb", "decision": "Approved"},
		}},
	}), "the other decision is kept and the patch is conditional on the version read")

	raw, err = ApprovalPatch(remediating(), "a1-aaaa", kubagev1alpha1.DecisionApproved)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(decode(raw)["spec"]).To(Equal(map[string]any{"approvals": []any{
		map[string]any{"actionID": "a1-aaaa", "decision": "Approved"},
	}}), "a second decision on an action replaces the first")

	_, err = ApprovalPatch(remediating(), "a9-zzzz", kubagev1alpha1.DecisionApproved)
	g.Expect(err).To(MatchError(`troubleshoot "evicted" has no action "a9-zzzz"; its actions are: a1-aaaa, a2-bbbb, a3-cccc`))
	_, err = ApprovalPatch(remediating(), "a3-cccc", kubagev1alpha1.DecisionRejected)
	g.Expect(err).To(MatchError(ContainSubstring("already ran (Executed)")))

	diagnosing := remediating()
	diagnosing.Spec.Mode = ""
	_, err = ApprovalPatch(diagnosing, "a2-bbbb", kubagev1alpha1.DecisionApproved)
	g.Expect(err).To(MatchError(ContainSubstring("runs in Diagnose mode")))

	early := remediating()
	early.Status.Remediation, early.Status.Phase = nil, kubagev1alpha1.PhaseInvestigating
	_, err = ApprovalPatch(early, "a2-bbbb", kubagev1alpha1.DecisionApproved)
	g.Expect(err).To(MatchError(ContainSubstring("proposes no action (yet; phase Investigating)")))
}

func TestRerunPatch(t *testing.T) {
	g := NewWithT(t)
	g.Expect(RerunAnnotation).To(Equal(session.RerunAnnotation), "the operator's contract")
	raw, err := RerunPatch("2026-11-25T12:00:00.1Z")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(raw)).To(Equal(`{"metadata":{"annotations":{"kubage.io/rerun":"2026-11-25T12:00:00.1Z"}}}`))
}
