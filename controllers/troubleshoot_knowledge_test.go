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
	"os"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/controllers"
)

// A session's root cause cites the runbook a KnowledgeSource in its namespace indexed.
var _ = Describe("Troubleshoot sessions with knowledge", func() {
	It("cite the matching runbook in the status and the report", func(ctx SpecContext) {
		runbooks := filepath.Join("..", "..", "shared", "corpus", "runbooks", "kubernetes")
		if _, err := os.Stat(runbooks); err != nil {
			Skip("the shared runbook corpus is not beside the checkout (" + runbooks + "): nothing to index")
		}
		ns := newNamespace(ctx, "cite")
		createCrashLoopApp(ctx, ns)

		By("indexing a few Prometheus Operator runbooks from an inline KnowledgeSource")
		var docs []kubagev1alpha1.InlineDocument
		for _, name := range []string{"KubePodCrashLooping.md", "KubePodNotReady.md", "KubeDeploymentReplicasMismatch.md", "KubePersistentVolumeFillingUp.md"} {
			raw, err := os.ReadFile(filepath.Join(runbooks, name))
			Expect(err).NotTo(HaveOccurred())
			docs = append(docs, kubagev1alpha1.InlineDocument{Name: "kubernetes/" + name, Content: string(raw)})
		}
		ks := &kubagev1alpha1.KnowledgeSource{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "runbooks"},
			Spec:       kubagev1alpha1.KnowledgeSourceSpec{Inline: docs, TrustLevel: 4},
		}
		Expect(k8sClient.Create(ctx, ks)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ks), ks)).To(Succeed())
			g.Expect(meta.IsStatusConditionTrue(ks.Status.Conditions, kubagev1alpha1.ReadyCondition)).To(BeTrue(), "conditions: %v", ks.Status.Conditions)
			g.Expect(ks.Status.DocumentCount).To(BeNumerically("==", len(docs)))
		}).Should(Succeed())

		By("running a session on the operator's knowledge service")
		cs, err := kubernetes.NewForConfig(cfg)
		Expect(err).NotTo(HaveOccurred())
		startManager(ctx, controllers.Options{Clientset: cs, Knowledge: knowledgeService, TaskPollInterval: 200 * time.Millisecond})
		ts := newSession(ns, "web-restarts", func(ts *kubagev1alpha1.Troubleshoot) {
			ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "web"}
		})
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)
		Expect(ts.Status.RootCause).NotTo(BeNil())
		Expect(ts.Status.RootCause.Category).To(Equal("CrashLoopBackOff"))

		By("citing the crash-loop runbook as Knowledge evidence of the root cause")
		var cited []kubagev1alpha1.Evidence
		for _, ev := range ts.Status.Evidence {
			if ev.Source.Kind == kubagev1alpha1.EvidenceFromKnowledge {
				cited = append(cited, ev)
			}
		}
		Expect(cited).NotTo(BeEmpty(), "evidence: %v", ts.Status.Evidence)
		Expect(cited[0].Source.Knowledge.Source).To(Equal("runbooks"))
		Expect(cited[0].Source.Knowledge.Document).To(Equal("kubernetes/KubePodCrashLooping.md"))
		Expect(ts.Status.RootCause.EvidenceIDs).To(ContainElement(cited[0].ID))

		report := &corev1.ConfigMap{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: ts.Status.ReportRef.Name}, report)).To(Succeed())
		Expect(report.Data[kubagev1alpha1.ReportMarkdownKey]).To(ContainSubstring("Source: Knowledge (runbooks:kubernetes/KubePodCrashLooping.md"))
	})

	It("cite the page a matching runbook links to, though the problem matches only the runbook", func(ctx SpecContext) {
		ns := newNamespace(ctx, "cite-links")
		createCrashLoopApp(ctx, ns)

		By("indexing a crash-loop runbook whose See also section links to a rollback page")
		docs := []kubagev1alpha1.InlineDocument{
			{Name: "runbooks/crash-loop.md", Content: "# Pod crash looping\n\n## Meaning\n\nA container keeps restarting and the pod shows CrashLoopBackOff.\n\n" +
				"## Mitigation\n\nRead the logs of the previous container run to find why it exits.\n\n" +
				"## See also\n\n- [Undo a bad release](../releases/undo.md)\n"},
			{Name: "releases/undo.md", Content: "# Undo a bad release\n\nHelm history lists revisions; helm rollback returns to the one before.\n"},
			{Name: "runbooks/disk.md", Content: "# Disk pressure\n\nThe kubelet evicts workloads when node storage fills up.\n"},
		}
		ks := &kubagev1alpha1.KnowledgeSource{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "runbooks"},
			Spec:       kubagev1alpha1.KnowledgeSourceSpec{Inline: docs, TrustLevel: 4},
		}
		Expect(k8sClient.Create(ctx, ks)).To(Succeed())
		expectLinkedPageCited(ctx, ns, ks, len(docs))
	})

	It("cite the page a runbook in a git repository links to, though the problem matches only the runbook", func(ctx SpecContext) {
		By("committing a crash-loop runbook whose See also section links to a rollback page, and unrelated pages")
		repo := newGitRepo(map[string][]byte{
			"runbooks/crash-loop.md": []byte("---\ntitle: Pod crash looping\n---\n\n# Pod crash looping\n\n## Meaning\n\nA container keeps restarting and the pod shows CrashLoopBackOff.\n\n" +
				"## Mitigation\n\nRead the logs of the previous container run to find why it exits.\n\n" +
				"## See also\n\n- [Undo a bad release](../releases/undo.md)\n"),
			"releases/undo.md":  []byte("# Undo a bad release\n\nHelm history lists revisions; helm rollback returns to the one before.\n"),
			"runbooks/disk.md":  []byte("# Disk pressure\n\nThe kubelet evicts workloads when node storage fills up.\n"),
			"releases/notes.md": []byte("# Release notes\n\nVersion 2 adds dark mode.\n"),
		})
		ns := newNamespace(ctx, "cite-git-links")
		createCrashLoopApp(ctx, ns)
		ksGitCredentials(ctx, ns, "git-creds", gitPassword)
		ks := gitKnowledgeSource(ns, "runbooks", repo.url, "", "git-creds")
		Expect(k8sClient.Create(ctx, ks)).To(Succeed())
		expectLinkedPageCited(ctx, ns, ks, 4)
	})
})

// expectLinkedPageCited waits for ks (holding runbooks/crash-loop.md, which links to
// releases/undo.md) to be Ready with want documents, checks that the linked page alone
// does not match the problem, runs a session on the crash-looping app of ns and expects
// the runbook, then the linked page, cited in the status and the report.
func expectLinkedPageCited(ctx context.Context, ns string, ks *kubagev1alpha1.KnowledgeSource, want int) {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ks), ks)).To(Succeed())
		g.Expect(meta.IsStatusConditionTrue(ks.Status.Conditions, kubagev1alpha1.ReadyCondition)).To(BeTrue(), "conditions: %v", ks.Status.Conditions)
		g.Expect(ks.Status.DocumentCount).To(BeNumerically("==", want))
	}).Should(Succeed())
	By("the linked page alone does not match the problem")
	for _, sn := range ksSearch(ctx, ns, "CrashLoopBackOff container restarts").Snippets {
		Expect(sn.Citation.Path).NotTo(Equal("releases/undo.md"))
	}

	By("running a session on the operator's knowledge service")
	cs, err := kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())
	startManager(ctx, controllers.Options{Clientset: cs, Knowledge: knowledgeService, TaskPollInterval: 200 * time.Millisecond})
	ts := newSession(ns, "web-restarts", func(ts *kubagev1alpha1.Troubleshoot) {
		ts.Spec.Target = &kubagev1alpha1.TroubleshootTarget{Kind: "Deployment", Name: "web"}
	})
	Expect(k8sClient.Create(ctx, ts)).To(Succeed())
	waitForPhase(ctx, ts, kubagev1alpha1.PhaseCompleted)
	Expect(ts.Status.RootCause).NotTo(BeNil())
	Expect(ts.Status.RootCause.Category).To(Equal("CrashLoopBackOff"))

	By("citing the runbook, then the page it links to, as Knowledge evidence in the status and the report")
	var cited []string
	var linked *kubagev1alpha1.Evidence
	for i, ev := range ts.Status.Evidence {
		if ev.Source.Kind == kubagev1alpha1.EvidenceFromKnowledge {
			cited = append(cited, ev.Source.Knowledge.Document)
			if ev.Source.Knowledge.Document == "releases/undo.md" {
				linked = &ts.Status.Evidence[i]
			}
		}
	}
	Expect(cited).To(HaveLen(2), "evidence: %v", ts.Status.Evidence)
	Expect(cited[0]).To(Equal("runbooks/crash-loop.md"))
	Expect(linked).NotTo(BeNil())
	Expect(linked.Summary).To(ContainSubstring("linked from runbooks:runbooks/crash-loop.md"))
	Expect(ts.Status.RootCause.EvidenceIDs).To(ContainElement(linked.ID))
	report := &corev1.ConfigMap{}
	Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: ts.Status.ReportRef.Name}, report)).To(Succeed())
	Expect(report.Data[kubagev1alpha1.ReportMarkdownKey]).To(ContainSubstring("runbooks:releases/undo.md"))
}
