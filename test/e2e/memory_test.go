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

package e2e

import (
	"context"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/memory"
)

// Incident memory end to end: a fault, its fix, the fault again after an operator restart.
var _ = Describe("Incident memory", Ordered, func() {
	BeforeAll(func(ctx SpecContext) { setupKubage(ctx) })

	It("cites the earlier session and its fix when the same fault recurs, across an operator restart", func(ctx SpecContext) {
		ns := newNamespace(ctx)
		brokenConfigApp(ctx, ns)
		first := startManager("--agent-start-timeout=5s")

		By("a first session names the missing ConfigMap and remembers it")
		ts1 := createTroubleshoot(ctx, ns, "api-down", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Problem = "api does not start"
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "api"}
		})
		ts1 = waitForTerminal(ctx, ts1)
		expectConfigMapMissing(ctx, ts1)
		Expect(ts1.Status.SeenBefore).To(BeNil(), "nothing was remembered before")
		Expect(ts1.Status.Remediation).NotTo(BeNil())
		Expect(ts1.Status.Remediation.Actions).NotTo(BeEmpty())
		fix := ts1.Status.Remediation.Actions[0].Description
		mem, err := clients.CoreV1().ConfigMaps(ns).Get(ctx, memory.MemoryName, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(mem.OwnerReferences).To(BeEmpty(), "the memory outlives its sessions")

		By("applying the fix: the ConfigMap exists and the pods start")
		_, err = clients.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "api-flags"}, Data: map[string]string{"LOG_LEVEL": "info"},
		}, metav1.CreateOptions{})
		Expect(err).NotTo(HaveOccurred())
		setSimulatedBehavior(ctx, ns, "api", "")
		Eventually(func(g Gomega) {
			for _, p := range podsOf(ctx, g, ns, "api") {
				g.Expect(p.Annotations).NotTo(HaveKey(annBehavior), "pod %s is of the old template", p.Name)
				g.Expect(p.Status.Phase).To(Equal(corev1.PodRunning), "pod %s", p.Name)
			}
		}).WithContext(ctx).Should(Succeed())

		By("restarting the operator")
		first.Kill()
		startManager("--agent-start-timeout=5s")

		By("the fault recurs: the ConfigMap is deleted again and a new rollout needs it")
		Expect(clients.CoreV1().ConfigMaps(ns).Delete(ctx, "api-flags", metav1.DeleteOptions{})).To(Succeed())
		setSimulatedBehavior(ctx, ns, "api", "create-config-error")
		Eventually(func(g Gomega) {
			var reasons []string
			for _, p := range podsOf(ctx, g, ns, "api") {
				for _, cs := range p.Status.ContainerStatuses {
					if cs.State.Waiting != nil {
						reasons = append(reasons, cs.State.Waiting.Reason)
					}
				}
			}
			g.Expect(reasons).To(ContainElement("CreateContainerConfigError"))
		}).WithContext(ctx).Should(Succeed())

		ts2 := createTroubleshoot(ctx, ns, "api-down-again", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Problem = "api does not start again"
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "api"}
		})
		ts2 = waitForTerminal(ctx, ts2)
		expectConfigMapMissing(ctx, ts2)
		sb := ts2.Status.SeenBefore
		Expect(sb).NotTo(BeNil(), "the second session cites the first")
		Expect(sb.Session).To(Equal("api-down"))
		Expect(sb.Culprit).To(Equal("ConfigMap/api-flags"))
		Expect(sb.Fix).To(ContainSubstring(fix))
		Expect(sb.Similarity).To(BeNumerically(">=", 50))
		report, err := clients.CoreV1().ConfigMaps(ns).Get(ctx, ts2.Status.ReportRef.Name, metav1.GetOptions{})
		Expect(err).NotTo(HaveOccurred())
		Expect(report.Data[kubagev1alpha1.ReportMarkdownKey]).To(And(ContainSubstring("## Seen before"), ContainSubstring("api-down")))

		By("deleting the first session keeps what was learnt from it")
		Expect(kube.Delete(ctx, ts1)).To(Succeed())
		Eventually(func(g Gomega) {
			entries, err := (&memory.Store{Client: clients}).Entries(ctx, ns)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(entries).To(HaveLen(2))
			g.Expect(entries[1].Session).To(Equal("api-down"))
		}).WithContext(ctx).Should(Succeed())
	})
})

// setSimulatedBehavior sets (or, when empty, removes) the simulated kubelet behaviour of a
// Deployment's pod template, which rolls out new pods.
func setSimulatedBehavior(ctx context.Context, ns, name, behavior string) {
	GinkgoHelper()
	Expect(retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := clients.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if behavior == "" {
			delete(d.Spec.Template.Annotations, annBehavior)
		} else {
			d.Spec.Template.Annotations[annBehavior] = behavior
		}
		_, err = clients.AppsV1().Deployments(ns).Update(ctx, d, metav1.UpdateOptions{})
		return err
	})).To(Succeed())
}
