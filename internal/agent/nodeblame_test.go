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

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// poolNode is a Ready node labelled key=value, changed by f.
func poolNode(name, key, value string, f func(*corev1.Node)) *corev1.Node {
	n := fx.Node(name)
	n.Labels[key] = value
	if f != nil {
		f(n)
	}
	return n
}

// pinnedApp is a Deployment whose pods select key=value and whose newest pod is Pending
// with the scheduler's message.
func pinnedApp(name, key, value, msg string) []runtime.Object {
	return app(name, 1, func(s *corev1.PodSpec) { s.NodeSelector = map[string]string{key: value} }, func(p *corev1.Pod) {
		fx.Unschedulable(p, msg)
	})
}

// A finding that blames a node in its sentence carries that node among its objects, whatever
// the rule, the pool's label key, the node's name or how the node is unfit: cordoned, tainted,
// not Ready, out of room, and whether the session names the workload or nothing at all.
func TestBlamedNodeIsAnAffectedObject(t *testing.T) {
	cordon := func(n *corev1.Node) { n.Spec.Unschedulable = true }
	taint := func(n *corev1.Node) {
		n.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "batch", Effect: corev1.TaintEffectNoSchedule}}
	}
	notReady := func(n *corev1.Node) {
		fx.SetNodeCondition(n, corev1.NodeReady, corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status.")
	}
	cases := []struct {
		name   string
		objs   []runtime.Object
		target *agent.Target
		node   string
	}{
		{name: "the render pool's only node left cordoned", node: "render-1", target: deploy("render-worker"),
			objs: append(pinnedApp("render-worker", "node-pool", "render", "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."),
				poolNode("render-1", "node-pool", "render", cordon), fx.Node("general-a"), fx.Node("general-b"))},
		{name: "a GPU node cordoned, label key of a cloud, target-less", node: "ip-10-0-7-21.ec2.internal",
			objs: append(pinnedApp("trainer", "cloud.example.com/accelerator", "a100", "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) were unschedulable."),
				poolNode("ip-10-0-7-21.ec2.internal", "cloud.example.com/accelerator", "a100", cordon), fx.Node("ip-10-0-1-4.ec2.internal"))},
		{name: "a pool node tainted for batch", node: "batch-pool-x1", target: deploy("etl"),
			objs: append(pinnedApp("etl", "pool", "batch", "0/2 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) didn't match Pod's node affinity/selector."),
				poolNode("batch-pool-x1", "pool", "batch", taint), fx.Node("web-pool-y2"))},
		{name: "a crash-looping pod on a node that stopped reporting", node: "worker-7",
			objs: append(app("ledger", 1, func(s *corev1.PodSpec) { s.NodeName = "worker-7" }, func(p *corev1.Pod) {
				p.Spec.NodeName = "worker-7"
				fx.SetNotReady(p)
				p.Status.Phase = corev1.PodUnknown
			}), poolNode("worker-7", "zone", "b", notReady))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := drive(t, engine(tc.objs...), agent.Session{ID: "t", Problem: "a rollout is stuck, one pod never starts", Namespace: ns, Target: tc.target})
			rc := c.RootCause
			t.Logf("%s on %s: %s", rc.Rule, rc.Culprit, rc.Summary)
			found := false
			for _, a := range rc.AffectedObjects {
				found = found || a.Kind == "Node" && a.Name == tc.node && a.Namespace == ""
			}
			if !found {
				t.Fatalf("%s: Node %s not in affectedObjects %v: %s", rc.Rule, tc.node, rc.AffectedObjects, rc.Summary)
			}
		})
	}
}

// A node merely named, in a good state, is not blamed: a pod's own crash says which node it
// ran on without making the node an object to fix.
func TestHealthyNodeNamedIsNotBlamed(t *testing.T) {
	objs := append(app("web", 1, nil, crashing), fx.Node("node-1"))
	rc := drive(t, engine(objs...), agent.Session{ID: "t", Problem: "web keeps crashing", Namespace: ns}).RootCause
	for _, a := range rc.AffectedObjects {
		if a.Kind == "Node" {
			t.Fatalf("%s blames healthy Node %s: %v", rc.Rule, a.Name, rc.AffectedObjects)
		}
	}
}
