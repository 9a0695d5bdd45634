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

package agent_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A nodeSelector the template never wrote was added at admission by the pod's RuntimeClass:
// when no node carries it, the RuntimeClass is fixed, not the workload.
func TestNodeSelectorAddedByTheRuntimeClass(t *testing.T) {
	objs := func(inTemplate bool) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("build-sandbox", 1, func(s *corev1.PodSpec) {
				s.RuntimeClassName = fx.Ptr("gvisor")
				if inTemplate {
					s.NodeSelector = map[string]string{"sandbox.gke.io/runtime": "gvisor"}
				}
			}, func(p *corev1.Pod) {
				p.Spec.NodeSelector = map[string]string{"sandbox.gke.io/runtime": "gvisor"}
				fx.Unschedulable(p, "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector.")
			})
			return append(o, fx.Node("node-1"), fx.Node("node-2"), fx.Node("node-3"))
		}
	}
	runDepCases(t, []depCase{
		{name: "the RuntimeClass's scheduling.nodeSelector matches no node", problem: "build-sandbox pods stay Pending", objs: objs(false),
			rule: "unschedulable-node-affinity", culprit: "RuntimeClass/gvisor", affected: []string{"Deployment/build-sandbox"},
			terms: []string{"sandbox.gke.io/runtime=gvisor", "RuntimeClass gvisor", "scheduling.nodeSelector"}},
		{name: "the template's own nodeSelector stays the template's", problem: "build-sandbox pods stay Pending", objs: objs(true),
			rule: "unschedulable-node-affinity", culprit: "Deployment/build-sandbox", terms: []string{"sandbox.gke.io/runtime=gvisor"}},
	})
}
