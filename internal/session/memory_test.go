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
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
	"github.com/kubage/kubage/internal/memory"
	fx "github.com/kubage/kubage/test/fixtures"
)

func TestRecurringFaultCitesTheEarlierSession(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	h := newHarness(t, crashLoopApp()...)
	h.engine.Memory = &memory.Store{Client: h.cs, Now: h.clock.Now}

	first := troubleshoot(webTarget)
	h.drive(g, first, kubagev1alpha1.PhaseCompleted)
	g.Expect(first.Status.RootCause.Category).To(Equal("CrashLoopBackOff"))
	g.Expect(first.Status.SeenBefore).To(BeNil(), "nothing is remembered yet")
	entries, err := h.engine.Memory.Entries(ctx, ns)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(entries).To(HaveLen(1))
	g.Expect(entries[0].Session).To(Equal(first.Name))
	g.Expect(entries[0].Fingerprint.Root).To(Equal("CrashLoopBackOff@Deployment"))
	g.Expect(entries[0].Fix).NotTo(BeEmpty())

	By := "the same fault on new pods: a second session cites the first with its fix"
	for _, p := range []string{"p0", "p1"} {
		g.Expect(h.cs.CoreV1().Pods(ns).Delete(ctx, "web-"+fx.Hash("web", 1)+"-"+p, metav1.DeleteOptions{})).To(Succeed(), By)
	}
	d, err := h.cs.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	rs := fx.ReplicaSet(d, 1, 2, "registry.example/web:1.1")
	for _, suffix := range []string{"q0", "q1"} {
		p := fx.PodFor(rs, suffix)
		fx.CrashLoop(p, 1, "Error", 3)
		_, err := h.cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
	}
	h.clock.Add(time.Hour)
	second := troubleshoot(webTarget)
	second.Name, second.UID = "web-restarts-again", types.UID("ts-uid-2")
	h.drive(g, second, kubagev1alpha1.PhaseCompleted)
	sb := second.Status.SeenBefore
	g.Expect(sb).NotTo(BeNil(), By)
	g.Expect(sb.Session).To(Equal(first.Name))
	g.Expect(sb.Similarity).To(BeEquivalentTo(100))
	g.Expect(sb.Occurrences).To(BeEquivalentTo(1))
	g.Expect(sb.RootCause).To(Equal(first.Status.RootCause.Summary))
	g.Expect(sb.Fix).To(Equal(entries[0].Fix))
	g.Expect(sb.Culprit).To(Equal("Deployment/web"))
	cm, err := h.cs.CoreV1().ConfigMaps(ns).Get(ctx, second.Status.ReportRef.Name, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cm.Data[kubagev1alpha1.ReportMarkdownKey]).To(ContainSubstring("## Seen before"))
	g.Expect(cm.Data[kubagev1alpha1.ReportMarkdownKey]).To(ContainSubstring("Session `web-restarts`"))
	g.Expect(cm.Data[kubagev1alpha1.ReportJSONKey]).To(ContainSubstring(`"seenBefore"`))

	By = "both are remembered, newest first; a third cites the newest of the two"
	entries, err = h.engine.Memory.Entries(ctx, ns)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(entries).To(HaveLen(2), By)
	g.Expect(entries[0].Session).To(Equal(second.Name))
	third := troubleshoot(webTarget)
	third.Name, third.UID = "web-restarts-3", types.UID("ts-uid-3")
	h.drive(g, third, kubagev1alpha1.PhaseCompleted)
	g.Expect(third.Status.SeenBefore.Session).To(Equal(second.Name))
	g.Expect(third.Status.SeenBefore.Occurrences).To(BeEquivalentTo(2))

	By = "past the retention the memory forgets"
	h.engine.Memory.Retention = 30 * time.Minute
	h.clock.Add(time.Hour)
	fourth := troubleshoot(webTarget)
	fourth.Name, fourth.UID = "web-restarts-4", types.UID("ts-uid-4")
	h.drive(g, fourth, kubagev1alpha1.PhaseCompleted)
	g.Expect(fourth.Status.SeenBefore).To(BeNil(), By)
	entries, err = h.engine.Memory.Entries(ctx, ns)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(entries).To(HaveLen(1), "expired entries are dropped on the next write")
}

func TestFingerprintLeavesNamesOut(t *testing.T) {
	g := NewWithT(t)
	results := func(pod string) []agent.TaskResult {
		return []agent.TaskResult{{Findings: []agent.Finding{
			{Rule: "configmap-missing", Object: agent.ObjectRef{Kind: "Pod", Name: pod}, Culprit: agent.ObjectRef{Kind: "ConfigMap", Name: "flags"}},
			{Rule: "rollout-stuck", Object: agent.ObjectRef{Kind: "Deployment", Name: "api"}, Culprit: agent.ObjectRef{Kind: "Deployment", Name: "api"}},
		}}}
	}
	rc := agent.RootCause{Category: "ConfigMapMissing", Rule: "configmap-missing", Culprit: agent.ObjectRef{Kind: "ConfigMap", Name: "flags"}}
	a, b := Fingerprint(rc, results("api-7d9-abcde")), Fingerprint(rc, results("api-7d9-zzzzz"))
	g.Expect(a).To(Equal(b))
	g.Expect(a.Similarity(b)).To(Equal(100))
	g.Expect(a.Signals).To(ConsistOf("rule:configmap-missing", "configmap-missing:Pod>ConfigMap", "rollout-stuck:Deployment>Deployment"))

	other := rc
	other.Category = "SecretMissing"
	g.Expect(a.Similarity(Fingerprint(other, results("x")))).To(BeZero(), "another cause never matches, however alike the symptoms")
	g.Expect(Fingerprint(agent.RootCause{}, nil).IsZero()).To(BeTrue())
}
