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
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

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

// A Remediating step whose status write is lost to a crash is redone: the redo must not
// execute an action again, nor delete a namesake of the Pod it deleted.
func TestRemediatingRedoneAfterALostStatusWriteExecutesNothingTwice(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	// The fake API ignores delete preconditions; the real one refuses a UID mismatch.
	h.cs.PrependReactor("delete", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		del := a.(k8stesting.DeleteActionImpl)
		if pre := del.DeleteOptions.Preconditions; pre != nil && pre.UID != nil {
			cur, err := h.cs.Tracker().Get(corev1.SchemeGroupVersion.WithResource("pods"), del.Namespace, del.Name)
			if err == nil && cur.(*corev1.Pod).UID != *pre.UID {
				return true, nil, apierrors.NewConflict(corev1.Resource("pods"), del.Name, errors.New("UID precondition failed"))
			}
		}
		return false, nil, nil
	})
	h.brain = &proposer{Brain: h.brain, actions: []agent.Action{
		{ID: "a1", Description: "scale down", Command: "kubectl -n payments scale deployment/web --replicas=1", Risk: agent.RiskLow},
		{ID: "a2", Description: "delete a pod", Command: "kubectl -n payments delete pod web-p0", Risk: agent.RiskLow},
	}}
	ctx := context.Background()
	pods, err := h.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	victim := pods.Items[0].Name
	h.brain.(*proposer).actions[1].Command = "kubectl -n payments delete pod " + victim

	ts := troubleshoot(webTarget)
	ts.Spec.Mode = kubagev1alpha1.ModeRemediate
	h.drive(g, ts, kubagev1alpha1.PhaseAwaitingApproval)
	for _, a := range ts.Status.Remediation.Actions {
		ts.Spec.Approvals = append(ts.Spec.Approvals, kubagev1alpha1.ActionApproval{ActionID: a.ID, Decision: kubagev1alpha1.DecisionApproved})
	}
	_, err = h.engine.Advance(ctx, ts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseRemediating))
	lost := ts.Status.DeepCopy()

	writes := func() (patches, deletes int) {
		for _, a := range h.cs.Actions() {
			switch {
			case a.GetVerb() == "patch" && a.GetResource().Resource == "deployments":
				patches++
			case a.GetVerb() == "delete" && a.GetResource().Resource == "pods":
				deletes++
			}
		}
		return patches, deletes
	}
	_, err = h.engine.Advance(ctx, ts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted))
	first := ts.Status.Remediation.DeepCopy()
	patches, deletes := writes()
	g.Expect([]int{patches, deletes}).To(Equal([]int{1, 1}))

	// The status write is lost, and a namesake of the deleted Pod appears.
	ts.Status = *lost
	_, err = h.cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: victim, UID: "namesake"}}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = h.engine.Advance(ctx, ts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseCompleted))
	g.Expect(ts.Status.Remediation.Actions).To(Equal(first.Actions), "the redo reports what the first attempt did")
	patches, _ = writes()
	g.Expect(patches).To(Equal(1), "the scale is not applied again")
	_, err = h.cs.CoreV1().Pods(ns).Get(ctx, victim, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred(), "the namesake Pod is left alone")
	d, err := h.cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(d.Annotations).To(HaveKeyWithValue(remediate.RemediatedAnnotation, string(ts.UID)+"/"+first.Actions[0].ID))
}

// A brain's risk never lowers what the action's structure implies; the LLM brain passes
// none, so a model-proposed image change is High whatever the model said.
func TestActionRiskComesFromStructure(t *testing.T) {
	g := NewWithT(t)
	rem := Remediation(ns, agent.Remediation{Actions: []agent.Action{
		{ID: "image", Description: "new image", Command: "kubectl -n payments set image deployment/web app=attacker/app:latest"},
		{ID: "patch", Description: "patch", Risk: agent.RiskLow,
			Command: `kubectl -n payments patch deployment web -p '{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"x"}]}}}}'`},
		{ID: "restart", Description: "restart", Command: "kubectl -n payments rollout restart deployment/web"},
		{ID: "undo", Description: "undo", Command: "kubectl -n payments rollout restart deployment/web", Risk: agent.RiskMedium},
	}})
	risks := []kubagev1alpha1.Risk{}
	for _, a := range rem.Actions {
		risks = append(risks, a.Risk)
	}
	g.Expect(risks).To(Equal([]kubagev1alpha1.Risk{kubagev1alpha1.RiskHigh, kubagev1alpha1.RiskHigh, kubagev1alpha1.RiskLow, kubagev1alpha1.RiskMedium}))

	// A status that claims Low for an image patch is rechecked before anything runs.
	h := newHarness(t)
	ts := troubleshoot(webTarget)
	ts.Spec.Mode = kubagev1alpha1.ModeRemediate
	w := &work{e: h.engine, ts: ts}
	_, why := w.executable(&kubagev1alpha1.RemediationAction{ID: "x", Risk: kubagev1alpha1.RiskLow, Patch: &kubagev1alpha1.RemediationPatch{
		Target: kubagev1alpha1.ObjectReference{Kind: "Deployment", Name: "web"}, Patch: `{"spec":{"template":{"spec":{"serviceAccountName":"admin"}}}}`}})
	g.Expect(why).To(ContainSubstring("this one is High risk"))
}

// With the approval webhook enabled, a decision without decidedBy never passed the
// authorizer: it counts as no decision, and the recorded approver reaches status.
func TestApprovalNeedsDecidedBy(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	h.engine.ApprovalsNeedDecidedBy = true
	h.brain = &proposer{Brain: h.brain, actions: []agent.Action{
		{ID: "a1", Description: "restart", Command: "kubectl -n payments rollout restart deployment/web"},
	}}
	ts := troubleshoot(webTarget)
	ts.Spec.Mode = kubagev1alpha1.ModeRemediate
	h.drive(g, ts, kubagev1alpha1.PhaseAwaitingApproval)
	id := ts.Status.Remediation.Actions[0].ID

	ts.Spec.Approvals = []kubagev1alpha1.ActionApproval{{ActionID: id, Decision: kubagev1alpha1.DecisionApproved}}
	ctx := context.Background()
	for range 3 {
		_, err := h.engine.Advance(ctx, ts)
		g.Expect(err).NotTo(HaveOccurred())
	}
	g.Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseAwaitingApproval))
	g.Expect(ts.Status.Remediation.Actions[0].Approval).To(Equal(kubagev1alpha1.ApprovalPending))
	d, err := h.cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(d.Spec.Template.Annotations).NotTo(HaveKey(remediate.RestartAnnotation))

	ts.Spec.Approvals[0].DecidedBy = "alice"
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted)
	g.Expect(ts.Status.Remediation.Actions[0].Approval).To(Equal(kubagev1alpha1.ApprovalExecuted))
	g.Expect(ts.Status.Remediation.Actions[0].DecidedBy).To(Equal("alice"))

}
