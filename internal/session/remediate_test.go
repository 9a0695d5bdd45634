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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/remediate"
)

// proposer concludes with fixed remediation actions.
type proposer struct {
	agent.Brain
	actions []agent.Action
}

func (p *proposer) Summarize(ctx context.Context, s agent.Session, pr agent.Progress) (agent.Conclusion, error) {
	c, err := p.Brain.Summarize(ctx, s, pr)
	c.Remediation.Actions = p.actions
	return c, err
}

func TestRemediateApprovalPath(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	h.brain = &proposer{Brain: h.brain, actions: []agent.Action{
		{ID: "a1", Description: "restart", Command: "kubectl -n payments rollout restart deployment/web", Risk: agent.RiskLow},
		{ID: "a2", Description: "scale down", Command: "kubectl -n payments scale deployment/web --replicas=0", Risk: agent.RiskLow},
		{ID: "a3", Description: "roll back", Command: "kubectl -n payments rollout undo deployment/web", Risk: agent.RiskMedium},
	}}
	ts := troubleshoot(webTarget)
	ts.Spec.Mode = kubagev1alpha1.ModeRemediate
	h.drive(g, ts, kubagev1alpha1.PhaseAwaitingApproval)
	acts := ts.Status.Remediation.Actions
	g.Expect(acts).To(HaveLen(3))
	g.Expect(acts).To(HaveEach(HaveField("Approval", kubagev1alpha1.ApprovalPending)))
	g.Expect(acts[0].ID).To(MatchRegexp(`^a1-[0-9a-f]{6}$`))

	ctx := context.Background()
	_, err := h.engine.Advance(ctx, ts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseAwaitingApproval), "nothing happens without a decision")

	ts.Spec.Approvals = []kubagev1alpha1.ActionApproval{
		{ActionID: acts[0].ID, Decision: kubagev1alpha1.DecisionApproved},
		{ActionID: acts[1].ID, Decision: kubagev1alpha1.DecisionRejected},
		{ActionID: acts[2].ID, Decision: kubagev1alpha1.DecisionApproved},
	}
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	acts = ts.Status.Remediation.Actions
	g.Expect(acts[0].Approval).To(Equal(kubagev1alpha1.ApprovalExecuted))
	g.Expect(acts[0].Result).To(ContainSubstring("Restarted the rollout of Deployment/web"))
	g.Expect(acts[1].Approval).To(Equal(kubagev1alpha1.ApprovalRejected))
	g.Expect(acts[2].Approval).To(Equal(kubagev1alpha1.ApprovalApproved))
	g.Expect(acts[2].Result).To(ContainSubstring("only Low-risk actions are executed"))

	d, err := h.cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(d.Spec.Template.Annotations).To(HaveKeyWithValue(remediate.RestartAnnotation, string(ts.UID)+"/"+acts[0].ID))
	g.Expect(*d.Spec.Replicas).To(Equal(int32(2)), "the rejected scale did not run")
	cm, err := h.cs.CoreV1().ConfigMaps(ns).Get(ctx, ts.Status.ReportRef.Name, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cm.Data[kubagev1alpha1.ReportMarkdownKey]).To(ContainSubstring("Executed"))
}
