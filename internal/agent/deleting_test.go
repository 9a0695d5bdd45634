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
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// deleting marks an object deleted ago, with finalizers (a pod's deletionTimestamp is the
// request plus its 30 s grace period, as the API server sets it).
func deleting(m metav1.Object, ago time.Duration, fins ...string) {
	t := fx.Ago(ago)
	if _, ok := m.(*corev1.Pod); ok {
		t = fx.Ago(ago - 30*time.Second)
		m.SetDeletionGracePeriodSeconds(fx.Ptr(int64(30)))
	}
	m.SetDeletionTimestamp(&t)
	m.SetFinalizers(fins)
}

// stsPod is ordinal i of a StatefulSet, Running and Ready.
func stsPod(s *appsv1.StatefulSet, i int) *corev1.Pod {
	return fx.Pod(ns, s.Name+"-"+string(rune('0'+i)), s.Spec.Template.Labels, s.Spec.Template.Spec, s, "StatefulSet")
}

type deletionCase struct {
	name    string
	objs    func() []runtime.Object
	target  *agent.Target
	problem string
	rule    string
	culprit string   // Kind/Name
	terms   []string // in the summary
}

// A deletion that does not finish is explained by what holds it: the finalizer of a dependent
// a foreground deletion waits for, a pod that still mounts a claim under pvc-protection, a
// node that never confirms a pod stopped, or a controller's finalizer on the object itself:
// on StatefulSets, Deployments and claims, under any finalizer name, targeted and target-less.
func TestDeletionHeldByWhatItWaitsFor(t *testing.T) {
	cases := []deletionCase{
		{name: "a StatefulSet pruned with foreground deletion waits for a pod under a service-mesh finalizer", target: &agent.Target{Kind: "StatefulSet", Name: "kafka"},
			problem: "the kafka StatefulSet has been Deleting for an hour", rule: "deletion-blocked", culprit: "Pod/kafka-0",
			terms: []string{"mesh.acme.io/drain", "foregroundDeletion", "Pod kafka-0"},
			objs: func() []runtime.Object {
				s := statefulSet("kafka", 1, 1, nil)
				deleting(s, time.Hour, "foregroundDeletion")
				p := stsPod(s, 0)
				deleting(p, 59*time.Minute, "mesh.acme.io/drain")
				return []runtime.Object{s, p, fx.Node("node-1")}
			}},
		{name: "the same, target-less, with a registry finalizer that was never removed", problem: "something will not go away",
			rule: "deletion-blocked", culprit: "Pod/search-0", terms: []string{"discovery.example.com/deregister"},
			objs: func() []runtime.Object {
				s := statefulSet("search", 1, 1, nil)
				deleting(s, 40*time.Second, "foregroundDeletion")
				p := stsPod(s, 0)
				deleting(p, 30*time.Second, "foregroundDeletion", "discovery.example.com/deregister")
				return []runtime.Object{s, p, fx.Node("node-1")}
			}},
		{name: "a Deployment deleted in the foreground waits through its ReplicaSet for a pod", target: deploy("billing"),
			problem: "kubectl delete --cascade=foreground on billing hangs", rule: "deletion-blocked", terms: []string{"example.org/cleanup-hook", "ReplicaSet"},
			objs: func() []runtime.Object {
				d := fx.Deployment(ns, "billing", 1, "registry.example/billing:1")
				deleting(d, 10*time.Minute, "foregroundDeletion")
				rs := fx.ReplicaSet(d, 1, 1, "registry.example/billing:1")
				deleting(rs, 10*time.Minute, "foregroundDeletion")
				p := fx.PodFor(rs, "k2x9")
				deleting(p, 10*time.Minute, "example.org/cleanup-hook")
				return []runtime.Object{d, rs, p, fx.Node("node-1")}
			}},
		{name: "a claim under pvc-protection still mounted by a StatefulSet's pod", target: &agent.Target{Kind: "PersistentVolumeClaim", Name: "data-pg-0"},
			problem: "the old volume claim is stuck Terminating", rule: "deletion-blocked", culprit: "StatefulSet/pg", terms: []string{"kubernetes.io/pvc-protection", "pod pg-0"},
			objs: func() []runtime.Object {
				s := statefulSet("pg", 1, 1, func(s *appsv1.StatefulSet) {
					s.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-pg-0"}}}}
				})
				c := fx.PVC(ns, "data-pg-0", fx.Ptr("standard"), corev1.ClaimBound)
				deleting(c, 25*time.Minute, "kubernetes.io/pvc-protection")
				return []runtime.Object{s, stsPod(s, 0), c, fx.Node("node-1")}
			}},
		{name: "a foreground deletion waiting on a pod whose node stopped reporting", target: &agent.Target{Kind: "StatefulSet", Name: "zk"},
			problem: "zk will not delete", rule: "deletion-blocked", culprit: "Node/worker-3", terms: []string{"worker-3", "not Ready", "Pod zk-0"},
			objs: func() []runtime.Object {
				s := statefulSet("zk", 1, 1, nil)
				deleting(s, 20*time.Minute, "foregroundDeletion")
				p := stsPod(s, 0)
				p.Spec.NodeName = "worker-3"
				deleting(p, 20*time.Minute)
				n := fx.Node("worker-3")
				fx.SetNodeCondition(n, corev1.NodeReady, corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status.")
				return []runtime.Object{s, p, n}
			}},
		{name: "a pod held by a CNI finalizer keeps its StatefulSet from recreating the ordinal", problem: "redis has 2 of 3 replicas and never gets the third back",
			rule: "pod-stuck-terminating", culprit: "Pod/redis-2", terms: []string{"cni.example.net/ip-release", "ordinal 2", "StatefulSet redis"},
			objs: func() []runtime.Object {
				s := statefulSet("redis", 3, 2, nil)
				a, b, c := stsPod(s, 0), stsPod(s, 1), stsPod(s, 2)
				deleting(c, 45*time.Minute, "cni.example.net/ip-release")
				c.Status.Phase = corev1.PodFailed
				fx.SetNotReady(c)
				return []runtime.Object{s, a, b, c, fx.Service(ns, "redis", s.Spec.Selector.MatchLabels, intstr.FromString("http")), fx.Node("node-1")}
			}},
		{name: "a LoadBalancer Service whose cloud controller never cleans up", target: &agent.Target{Kind: "Service", Name: "public-lb"},
			problem: "the old load balancer Service is stuck Terminating", rule: "pod-stuck-terminating", culprit: "Service/public-lb", terms: []string{"service.kubernetes.io/load-balancer-cleanup", "30m0s"},
			objs: func() []runtime.Object {
				s := fx.Service(ns, "public-lb", map[string]string{"app": "gone"}, intstr.FromString("http"))
				s.Spec.Type = corev1.ServiceTypeLoadBalancer
				deleting(s, 30*time.Minute, "service.kubernetes.io/load-balancer-cleanup")
				return []runtime.Object{s, fx.Node("node-1")}
			}},
		{name: "the same target-less, an operator's finalizer on a Service", problem: "something is stuck deleting",
			rule: "pod-stuck-terminating", culprit: "Service/grafana", terms: []string{"operator.example.io/cleanup"},
			objs: func() []runtime.Object {
				s := fx.Service(ns, "grafana", map[string]string{"app": "grafana"}, intstr.FromString("http"))
				deleting(s, 2*time.Hour, "operator.example.io/cleanup")
				return []runtime.Object{s, fx.Node("node-1")}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := drive(t, engine(tc.objs()...), agent.Session{ID: "t", Problem: tc.problem, Namespace: ns, Target: tc.target})
			rc := c.RootCause
			t.Logf("%s on %s: %s (affected %v)", rc.Rule, rc.Culprit, rc.Summary, rc.AffectedObjects)
			if rc.Rule != tc.rule || tc.culprit != "" && rc.Culprit.Kind+"/"+rc.Culprit.Name != tc.culprit {
				t.Fatalf("got %s on %s, want %s on %s", rc.Rule, rc.Culprit, tc.rule, tc.culprit)
			}
			for _, w := range tc.terms {
				if !strings.Contains(rc.Summary, w) {
					t.Errorf("summary lacks %q", w)
				}
			}
			if len(c.Remediation.Actions) == 0 || !strings.Contains(c.Remediation.Actions[0].Description+c.Remediation.Actions[0].Command, "finalizer") {
				t.Errorf("first action does not deal with the finalizer: %+v", c.Remediation.Actions)
			}
		})
	}
}

// A deletion that has just started, or one that only the garbage collector still works on,
// is no finding.
func TestFreshDeletionIsNotHeld(t *testing.T) {
	s := statefulSet("cache", 2, 2, nil)
	deleting(s, 5*time.Second, "foregroundDeletion")
	p0, p1 := stsPod(s, 0), stsPod(s, 1)
	deleting(p0, 5*time.Second)
	rc := drive(t, engine(s, p0, p1, fx.Node("node-1")), agent.Session{ID: "t", Problem: "cache is being removed", Namespace: ns}).RootCause
	if rc.Rule == "deletion-blocked" || rc.Rule == "pod-stuck-terminating" {
		t.Fatalf("a fresh deletion is blamed: %s on %s: %s", rc.Rule, rc.Culprit, rc.Summary)
	}
	// A StatefulSet pod replaced in a rolling update, under a mesh finalizer for a few seconds.
	m := statefulSet("mesh-app", 1, 1, nil)
	mp := stsPod(m, 0)
	deleting(mp, 8*time.Second, "mesh.example.io/drain")
	rc = drive(t, engine(m, mp, fx.Node("node-1")), agent.Session{ID: "t", Problem: "mesh-app is restarting", Namespace: ns, Target: &agent.Target{Kind: "Pod", Name: mp.Name}}).RootCause
	if rc.Rule == "deletion-blocked" || rc.Rule == "pod-stuck-terminating" {
		t.Fatalf("a pod seconds into its grace period is blamed: %s on %s: %s", rc.Rule, rc.Culprit, rc.Summary)
	}
	// A claim asked about moments after its last pod went: pvc-protection is about to let go.
	c := fx.PVC(ns, "scratch", fx.Ptr("standard"), corev1.ClaimBound)
	deleting(c, 3*time.Second, "kubernetes.io/pvc-protection")
	rc = drive(t, engine(c, fx.Node("node-1")), agent.Session{ID: "t", Problem: "scratch claim deleting", Namespace: ns, Target: &agent.Target{Kind: "PersistentVolumeClaim", Name: "scratch"}}).RootCause
	if rc.Rule == "deletion-blocked" || rc.Rule == "pod-stuck-terminating" {
		t.Fatalf("a claim moments into its deletion is blamed: %s on %s: %s", rc.Rule, rc.Culprit, rc.Summary)
	}
}
