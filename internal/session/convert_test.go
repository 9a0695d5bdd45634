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
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kubagev1alpha1 "github.com/kubage/kubage/api/v1alpha1"
	"github.com/kubage/kubage/internal/agent"
)

func TestNormalizeTasks(t *testing.T) {
	g := NewWithT(t)
	out := NormalizeTasks(2, []agent.Task{{ID: "x"}, {ID: "y", DependsOn: []string{"x", "nope", "y"}}})
	g.Expect(out[0].ID).To(Equal("i2-t1"))
	g.Expect(out[1].DependsOn).To(Equal([]string{"i2-t1"}))
	many := make([]agent.Task, 50)
	g.Expect(NormalizeTasks(1, many)).To(HaveLen(MaxPlanTasks))
}

func TestConvertBoundsUntrustedOutput(t *testing.T) {
	g := NewWithT(t)
	long := string(make([]byte, 5000))
	rc := RootCause(agent.RootCause{Summary: long, Category: "not camel", Confidence: 250, EvidenceIDs: []string{"E_1", "missing"}}, map[string]bool{"e-1": true})
	g.Expect(len(rc.Summary)).To(BeNumerically("<=", 1024))
	g.Expect(rc.Category).To(Equal(kubagev1alpha1.CategoryUnknown))
	g.Expect(rc.Confidence).To(Equal(int32(100)))
	g.Expect(rc.EvidenceIDs).To(Equal([]string{"e-1"}))
	ev := Evidence(nil, []agent.Evidence{{ID: "a", Summary: "s", Source: agent.Source{Kind: agent.SourceObject}}}, metav1.Now())
	g.Expect(ev[0].Source.Kind).To(Equal(kubagev1alpha1.EvidenceFromQuery), "an Object source without an object is downgraded")
	rem := Remediation("shop", agent.Remediation{Actions: []agent.Action{{ID: "A 1", Description: "d", Risk: "Catastrophic"}}})
	g.Expect(rem.Actions[0].ID).To(Equal("a1"))
	g.Expect(rem.Actions[0].Risk).To(Equal(kubagev1alpha1.RiskHigh))
}
