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
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
)

// newNamespace creates a namespace with a generated name for one test.
func newNamespace(ctx context.Context, prefix string) string {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	Expect(k8sClient.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

// readSamples decodes every object in config/samples except the kustomization.
func readSamples() []*unstructured.Unstructured {
	dir := filepath.Join(repoRoot, "config", "samples")
	entries, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	var objs []*unstructured.Unstructured
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		Expect(err).NotTo(HaveOccurred())
		u := &unstructured.Unstructured{}
		Expect(yaml.Unmarshal(data, &u.Object)).To(Succeed(), e.Name())
		objs = append(objs, u)
	}
	return objs
}

// statusOf reads observedGeneration and conditions from an unstructured object's status.
func statusOf(u *unstructured.Unstructured) (int64, []metav1.Condition) {
	gen, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
	raw, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	var conds []metav1.Condition
	for _, r := range raw {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		var c metav1.Condition
		Expect(runtime.DefaultUnstructuredConverter.FromUnstructured(m, &c)).To(Succeed())
		conds = append(conds, c)
	}
	return gen, conds
}

// sampleReadyReasons are the Ready reasons a sample may reach in envtest, where the
// servers and Secrets the samples point at do not exist.
func sampleReadyReasons(kind string) []string {
	if kind == "ToolServer" {
		return []string{"Unreachable", "SecretNotFound"}
	}
	if kind == "NotificationSink" {
		// The webhook URL's Secret does not exist in the test namespace.
		return []string{kubagev1alpha1.SecretNotFoundReason}
	}
	if kind == "TroubleshootSchedule" {
		// Valid and hourly: it waits for its first run.
		return []string{kubagev1alpha1.ScheduledReason}
	}
	if kind == "Troubleshoot" {
		// The sample targets a Deployment that does not exist in the test namespace.
		return []string{"TargetNotFound"}
	}
	if kind == "KnowledgeSource" {
		// Remotes cannot be reached and Secrets and ConfigMaps do not exist in the test;
		// inline documents index (Ready=True).
		return []string{kubagev1alpha1.FetchFailedReason, "SecretNotFound", "ConfigMapNotFound", "Indexed"}
	}
	return []string{kubagev1alpha1.NotImplementedReason}
}

var _ = Describe("Reconcilers", func() {
	It("gives every sample a status with observedGeneration and a Ready condition", func(ctx SpecContext) {
		ns := newNamespace(ctx, "samples")
		samples := readSamples()
		Expect(len(samples)).To(BeNumerically(">=", 3))

		kinds := map[string]bool{}
		for _, s := range samples {
			s.SetNamespace(ns)
			Expect(k8sClient.Create(ctx, s)).To(Succeed(), "sample %s", s.GetKind())
			kinds[s.GetKind()] = true
		}
		Expect(kinds).To(HaveKey("Troubleshoot"))
		Expect(kinds).To(HaveKey("KnowledgeSource"))
		Expect(kinds).To(HaveKey("ToolServer"))

		for _, s := range samples {
			key := client.ObjectKeyFromObject(s)
			Eventually(func(g Gomega) {
				got := &unstructured.Unstructured{}
				got.SetGroupVersionKind(s.GroupVersionKind())
				g.Expect(k8sClient.Get(ctx, key, got)).To(Succeed())
				gen, conds := statusOf(got)
				g.Expect(gen).To(Equal(got.GetGeneration()))
				ready := meta.FindStatusCondition(conds, kubagev1alpha1.ReadyCondition)
				g.Expect(ready).NotTo(BeNil())
				if ready.Reason != "Indexed" && ready.Reason != kubagev1alpha1.ScheduledReason {
					g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
				}
				g.Expect(ready.Reason).To(BeElementOf(sampleReadyReasons(s.GetKind())), ready.Message)
				g.Expect(ready.ObservedGeneration).To(Equal(got.GetGeneration()))
			}).Should(Succeed(), "status of %s %s", s.GetKind(), s.GetName())
		}

		By("failing the Troubleshoot on its missing target and the KnowledgeSource on its unreachable remote")
		ts := &kubagev1alpha1.Troubleshoot{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "checkout-restarts"}, ts)).To(Succeed())
		Expect(ts.Status.Phase).To(Equal(kubagev1alpha1.PhaseFailed))
		ks := &kubagev1alpha1.KnowledgeSource{}
		Expect(k8sClient.Get(ctx, client.ObjectKey{Namespace: ns, Name: "prometheus-operator-runbooks"}, ks)).To(Succeed())
		Expect(ks.Status.Phase).To(Equal(kubagev1alpha1.KnowledgeFailed))

		By("emitting an Event for the Ready transition of each sample (phase changes for the Troubleshoot)")
		for _, s := range samples {
			if s.GetKind() == "Troubleshoot" {
				Eventually(func(g Gomega) {
					list := &eventsv1.EventList{}
					g.Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
					var reasons []string
					for _, e := range list.Items {
						if e.Regarding.Kind == "Troubleshoot" && e.Regarding.Name == s.GetName() {
							reasons = append(reasons, e.Reason)
						}
					}
					g.Expect(reasons).To(ConsistOf("Pending", "Failed"))
				}).Should(Succeed(), "events of Troubleshoot %s", s.GetName())
				continue
			}
			Eventually(func(g Gomega) {
				list := &eventsv1.EventList{}
				g.Expect(k8sClient.List(ctx, list, client.InNamespace(ns))).To(Succeed())
				var matching []eventsv1.Event
				for _, e := range list.Items {
					if e.Regarding.Name == s.GetName() && e.Regarding.Kind == s.GetKind() {
						matching = append(matching, e)
					}
				}
				g.Expect(matching).To(HaveLen(1))
				g.Expect(matching[0].Reason).To(BeElementOf(sampleReadyReasons(s.GetKind())))
				g.Expect(matching[0].ReportingController).To(Equal("kubage"))
			}).Should(Succeed(), "event of %s %s", s.GetKind(), s.GetName())
		}
	})

	It("follows a spec change with observedGeneration", func(ctx SpecContext) {
		ns := newNamespace(ctx, "generation")
		ts := &kubagev1alpha1.Troubleshoot{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "gen"},
			Spec:       kubagev1alpha1.TroubleshootSpec{Problem: "first wording"},
		}
		Expect(k8sClient.Create(ctx, ts)).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
			g.Expect(ts.Status.ObservedGeneration).To(Equal(int64(1)))
		}).Should(Succeed())

		patch := client.MergeFrom(ts.DeepCopy())
		ts.Spec.Problem = "second wording"
		Expect(k8sClient.Patch(ctx, ts, patch)).To(Succeed())
		Expect(ts.Generation).To(Equal(int64(2)))
		Eventually(func(g Gomega) {
			g.Expect(k8sClient.Get(ctx, client.ObjectKeyFromObject(ts), ts)).To(Succeed())
			g.Expect(ts.Status.ObservedGeneration).To(Equal(int64(2)))
			ready := meta.FindStatusCondition(ts.Status.Conditions, kubagev1alpha1.ReadyCondition)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.ObservedGeneration).To(Equal(int64(2)))
		}).Should(Succeed())
	})
})
