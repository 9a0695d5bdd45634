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
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// roomSpelling is one cluster's names for a pool where a pod does not fit.
type roomSpelling struct {
	app, other, label, poolKey, runtime string
	nodes                               []string
}

var roomSpellings = []roomSpelling{
	{app: "recommender", other: "session-cache", label: "app", poolKey: "pool", runtime: "gvisor", nodes: []string{"shared-a", "shared-b"}},
	{app: "notebook", other: "elasticsearch", label: "app.kubernetes.io/name", poolKey: "node.example.com/tier", runtime: "kata-qemu", nodes: []string{"ip-10-0-1-7"}},
	{app: "ml-trainer", other: "feature-store", label: "component", poolKey: "nodegroup", runtime: "runsc", nodes: []string{"gpu-1", "gpu-2", "gpu-3"}},
}

func resources(cpu, mem string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}
	}
}

// poolNodes are the pool's nodes (4 CPUs, 8Gi each), labelled for the pool.
func poolNodes(s roomSpelling) []runtime.Object {
	var o []runtime.Object
	for _, n := range s.nodes {
		node := fx.Node(n)
		node.Labels[s.poolKey] = "shared"
		o = append(o, node)
	}
	return o
}

// placedOn spreads a workload's pods over the pool, one per node.
func placedOn(s roomSpelling, name string, spec func(*corev1.PodSpec)) []runtime.Object {
	o := labelledApp(name, s.label, len(s.nodes), func(ps *corev1.PodSpec) {
		spec(ps)
		ps.NodeSelector = map[string]string{s.poolKey: "shared"}
	}, nil)
	i := 0
	for _, x := range o {
		if p, ok := x.(*corev1.Pod); ok {
			p.Spec.NodeName = s.nodes[i]
			i++
		}
	}
	return o
}

func pendingOn(s roomSpelling, spec func(*corev1.PodSpec), msg string) []runtime.Object {
	return labelledApp(s.app, s.label, 1, func(ps *corev1.PodSpec) {
		spec(ps)
		ps.NodeSelector = map[string]string{s.poolKey: "shared"}
	}, func(p *corev1.Pod) { fx.Unschedulable(p, msg) })
}

// A pod Pending on Insufficient cpu/memory is explained by what takes the room: the overhead
// its RuntimeClass adds, or another workload's requests on the nodes it may use; its own
// requests stay the culprit when they exceed any node or its own replicas fill the pool.
func TestInsufficientRoomTakenBy(t *testing.T) {
	cpuMsg := func(s roomSpelling) string {
		n := len(s.nodes)
		return fmt.Sprintf("0/%d nodes are available: %d Insufficient cpu. preemption: 0/%d nodes are available: %d No preemption victims found for incoming pod.", n, n, n, n)
	}
	memMsg := func(s roomSpelling) string {
		n := len(s.nodes)
		return fmt.Sprintf("0/%d nodes are available: %d Insufficient memory. preemption: 0/%d nodes are available: %d No preemption victims found for incoming pod.", n, n, n, n)
	}
	cases := []struct {
		name    string
		objs    func(s roomSpelling) []runtime.Object
		culprit func(s roomSpelling) string
		terms   func(s roomSpelling) []string
	}{
		{name: "RuntimeClass overhead tips the pod over the node",
			objs: func(s roomSpelling) []runtime.Object {
				o := pendingOn(s, func(ps *corev1.PodSpec) {
					resources("3600m", "6Gi")(ps)
					ps.RuntimeClassName = fx.Ptr(s.runtime)
					ps.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")}
				}, cpuMsg(s))
				return append(o, poolNodes(s)...)
			},
			culprit: func(s roomSpelling) string { return "RuntimeClass/" + s.runtime },
			terms:   func(s roomSpelling) []string { return []string{"overhead", "500m", "3600m", s.runtime} }},
		{name: "another workload's memory requests fill the pool",
			objs: func(s roomSpelling) []runtime.Object {
				o := pendingOn(s, resources("1", "3Gi"), memMsg(s))
				o = append(o, placedOn(s, s.other, resources("500m", "7Gi"))...)
				return append(o, poolNodes(s)...)
			},
			culprit: func(s roomSpelling) string { return "Deployment/" + s.other },
			terms:   func(s roomSpelling) []string { return []string{s.other, "7Gi", "3Gi"} }},
		{name: "own replicas fill the pool",
			objs: func(s roomSpelling) []runtime.Object {
				o := pendingOn(s, resources("3", "1Gi"), cpuMsg(s))
				o = append(o, placedOn(s, s.app+"-old", resources("100m", "128Mi"))...)
				own := placedOn(s, s.app, resources("3", "1Gi"))
				for _, x := range own {
					if p, ok := x.(*corev1.Pod); ok {
						p.Name += "-placed"
						o = append(o, p)
					}
				}
				return append(o, poolNodes(s)...)
			},
			culprit: func(s roomSpelling) string { return "Deployment/" + s.app },
			terms:   func(s roomSpelling) []string { return []string{"cpu=3"} }},
		{name: "a LimitRange's default request, not the workload, asks for more than a node has",
			objs: func(s roomSpelling) []runtime.Object {
				o := pendingOn(s, resources("100m", "24Gi"), memMsg(s))
				for _, x := range o {
					if p, ok := x.(*corev1.Pod); ok {
						p.Annotations = map[string]string{"kubernetes.io/limit-ranger": "LimitRanger plugin set: memory request for container app; memory limit for container app"}
					}
				}
				storage := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "claims", Namespace: ns}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
					Type: corev1.LimitTypePersistentVolumeClaim, Max: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("24Gi")}}}}}
				defaults := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: s.other + "-defaults", Namespace: ns}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
					Type: corev1.LimitTypeContainer, DefaultRequest: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("24Gi")}}}}}
				return append(append(o, storage, defaults), poolNodes(s)...)
			},
			culprit: func(s roomSpelling) string { return "LimitRange/" + s.other + "-defaults" },
			terms: func(s roomSpelling) []string {
				return []string{"defaultRequest memory=24Gi", "not in the pod template"}
			}},
		{name: "the pod asks more than any node has",
			objs: func(s roomSpelling) []runtime.Object {
				o := pendingOn(s, resources("16", "1Gi"), cpuMsg(s))
				o = append(o, placedOn(s, s.other, resources("3", "1Gi"))...)
				return append(o, poolNodes(s)...)
			},
			culprit: func(s roomSpelling) string { return "Deployment/" + s.app },
			terms:   func(s roomSpelling) []string { return []string{"cpu=16"} }},
	}
	for _, s := range roomSpellings {
		for _, tc := range cases {
			t.Run(s.app+"/"+tc.name, func(t *testing.T) {
				e := agent.NewRuleEngine(fake.NewClientset(tc.objs(s)...))
				e.Now = func() time.Time { return fx.Now }
				c := drive(t, e, agent.Session{ID: "t", Problem: s.app + " pods stay Pending", Namespace: ns, Target: &agent.Target{Kind: "Deployment", Name: s.app}})
				rc := c.RootCause
				t.Logf("%s: %s", rc.Rule, rc.Summary)
				if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; rc.Rule != "unschedulable-insufficient-resources" || got != tc.culprit(s) {
					t.Fatalf("got %s on %s, want %s", rc.Rule, got, tc.culprit(s))
				}
				for _, term := range tc.terms(s) {
					if !strings.Contains(rc.Summary, term) {
						t.Errorf("summary lacks %q", term)
					}
				}
			})
		}
	}
}
