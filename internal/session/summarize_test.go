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
	"github.com/kubage/kubage/internal/knowledge"
)

// citer is a knowledge service that always finds the same runbook.
type citer struct{ asked []string }

func (c *citer) CiteForConclusion(_ context.Context, namespace string, _ *metav1.LabelSelector, _ []knowledge.Scope, summary, category string) []knowledge.Citation {
	c.asked = append(c.asked, namespace+"|"+category+"|"+summary)
	return []knowledge.Citation{{
		Namespace: namespace, Source: "runbooks", Path: "kubernetes/KubePodCrashLooping.md",
		Anchor: "mitigation", HeadingPath: []string{"KubePodCrashLooping", "Mitigation"}, ChunkID: "c1", TrustLevel: 4,
	}}
}

func TestRootCauseCitesRunbooks(t *testing.T) {
	g := NewWithT(t)
	h := newHarness(t, crashLoopApp()...)
	kb := &citer{}
	h.engine.Knowledge = kb
	ts := troubleshoot(webTarget)
	h.drive(g, ts, kubagev1alpha1.PhaseCompleted, kubagev1alpha1.PhaseFailed)

	g.Expect(kb.asked).To(ConsistOf(HavePrefix(ns + "|CrashLoopBackOff|")))
	st := ts.Status
	g.Expect(st.RootCause.EvidenceIDs).To(ContainElement("kb-1"))
	var cited *kubagev1alpha1.Evidence
	for i := range st.Evidence {
		if st.Evidence[i].ID == "kb-1" {
			cited = &st.Evidence[i]
		}
	}
	g.Expect(cited).NotTo(BeNil(), "the citation is in the status evidence")
	g.Expect(cited.Source.Kind).To(Equal(kubagev1alpha1.EvidenceFromKnowledge))
	g.Expect(cited.Source.Knowledge).NotTo(BeNil())
	g.Expect(cited.Source.Knowledge.Source).To(Equal("runbooks"))
	g.Expect(cited.Source.Knowledge.Document).To(Equal("kubernetes/KubePodCrashLooping.md"))

	cm, err := h.cs.CoreV1().ConfigMaps(ns).Get(context.Background(), "web-restarts-report", metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cm.Data[kubagev1alpha1.ReportMarkdownKey]).To(ContainSubstring("Source: Knowledge (runbooks:kubernetes/KubePodCrashLooping.md"))
	g.Expect(cm.Data[kubagev1alpha1.ReportJSONKey]).To(ContainSubstring("runbooks:kubernetes/KubePodCrashLooping.md#mitigation"))
}
