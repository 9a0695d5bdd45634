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

package controllers_test

import (
	"context"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/controllers"
	"github.com/kubage/kubage/internal/agent"
)

// The approval webhook runs in the suite's manager over envtest's TLS; these users are
// authenticated by the API server and hold only the RBAC given here.
var _ = Describe("Approvals through the API server's authorizer", func() {
	It("admits a decision only from a user who may approve and perform the action, and records who", func(ctx SpecContext) {
		cs, err := kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		ns := newNamespace(ctx, "approvals")
		createCrashLoopApp(ctx, ns)
		brain := &proposingBrain{Brain: agent.NewRuleEngine(cs), actions: []agent.Action{
			{ID: "restart", Description: "Restart the rollout", Command: "kubectl -n " + ns + " rollout restart deployment/web", Risk: agent.RiskLow},
			// What a model might propose, calling it Low.
			{ID: "image", Description: "Use a fixed image", Command: "kubectl -n " + ns + " set image deployment/web app=registry.example/app:fixed", Risk: agent.RiskLow},
		}}
		startManager(ctx, controllers.Options{Clientset: cs, TaskPollInterval: 200 * time.Millisecond, ApprovalWebhook: true,
			Brains: func(context.Context, *kubagev1alpha1.Troubleshoot) (agent.Brain, error) { return brain, nil }})

		ts := newSession(ns, "remediate", func(ts *kubagev1alpha1.Troubleshoot) { ts.Spec.Mode = kubagev1alpha1.ModeRemediate })
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseAwaitingApproval)
		actions := ts.Status.Remediation.Actions
		Expect(actions).To(HaveLen(2))
		Expect(actions[0].Risk).To(Equal(kubagev1alpha1.RiskLow))
		Expect(actions[1].Risk).To(Equal(kubagev1alpha1.RiskHigh), "an image change is never Low, whatever the proposer said")

		editTroubleshoots := rbacv1.PolicyRule{APIGroups: []string{"kubage.io"}, Resources: []string{"troubleshoots"}, Verbs: []string{"get", "patch", "update"}}
		approve := rbacv1.PolicyRule{APIGroups: []string{"kubage.io"}, Resources: []string{"troubleshoots"}, Verbs: []string{"approve"}}
		patchDeployments := rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"patch"}}
		bob := userClient(ctx, ns, "bob", editTroubleshoots)
		carol := userClient(ctx, ns, "carol", editTroubleshoots, approve)
		dave := userClient(ctx, ns, "dave", editTroubleshoots, approve, patchDeployments)

		decide := func(c client.Client, decidedBy string) error {
			cur := &kubagev1alpha1.Troubleshoot{}
			Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), cur)).To(Succeed())
			patch := client.MergeFrom(cur.DeepCopy())
			cur.Spec.Approvals = []kubagev1alpha1.ActionApproval{{ActionID: actions[0].ID, Decision: kubagev1alpha1.DecisionApproved, DecidedBy: decidedBy}}
			return c.Patch(ctx, cur, patch)
		}

		By("refusing a user who may edit the Troubleshoot but not approve")
		err = decide(bob, "")
		Expect(err).To(MatchError(ContainSubstring(`user "bob" may not decide on these actions: missing permission: approve troubleshoots.kubage.io "remediate" in namespace "` + ns + `"`)))

		By("refusing a user who may approve but not perform the action")
		err = decide(carol, "")
		Expect(err).To(MatchError(ContainSubstring(`missing permission: patch deployments.apps "web" in namespace "` + ns + `"`)))
		Expect(err.Error()).NotTo(ContainSubstring("approve troubleshoots"))

		By("admitting a user with both rights, recording them whatever they claim")
		Expect(decide(dave, "alice")).To(Succeed())
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
		Expect(ts.Spec.Approvals).To(ConsistOf(HaveField("DecidedBy", "dave")))

		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
			g.Expect(ts.Status.Remediation.Actions[0].Approval).To(Equal(kubagev1alpha1.ApprovalExecuted))
		}).Should(Succeed())
		Expect(ts.Status.Remediation.Actions[0].DecidedBy).To(Equal("dave"))
		Expect(ts.Status.Remediation.Actions[1].Approval).To(Equal(kubagev1alpha1.ApprovalPending))

		By("keeping the recorded author when someone else rewrites the list")
		Expect(decide(bob, "dave")).To(Succeed(), "an unchanged decision needs no right")
		cur := &kubagev1alpha1.Troubleshoot{}
		Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), cur)).To(Succeed())
		Expect(cur.Spec.Approvals).To(ConsistOf(HaveField("DecidedBy", "dave")))
	})
})

// userClient is a client authenticated as user, who holds rules in ns and nothing else.
func userClient(ctx context.Context, ns, user string, rules ...rbacv1.PolicyRule) client.Client {
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user}, Rules: rules}
	Expect(k8sClient.Create(ctx, role)).To(Succeed())
	Expect(k8sClient.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: user},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: user},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}}})).To(Succeed())
	u, err := testEnv.AddUser(envtest.User{Name: user}, cfg)
	Expect(err).NotTo(HaveOccurred())
	c, err := client.New(u.Config(), client.Options{Scheme: k8sClient.Scheme()})
	Expect(err).NotTo(HaveOccurred())
	return c
}
