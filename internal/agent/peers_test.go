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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// peerSystem is one spelling of a system whose agent pods are not ready because another
// part of the same system is down.
type peerSystem struct {
	agentKind, agent, peer string
	agentImage, peerImage  string
	agentLabels, peerLabel map[string]string
	probeMsg               string
}

// agentWorkload is the target: a DaemonSet or Deployment whose two pods run but fail readiness.
func agentWorkload(s peerSystem) []runtime.Object {
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: s.agentLabels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{fx.Container("agent", s.agentImage)}}}
	tmpl.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 10, ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/check", "-ready"}}}}
	var owner metav1.Object
	var objs []runtime.Object
	switch s.agentKind {
	case "DaemonSet":
		ds := &appsv1.DaemonSet{TypeMeta: metav1.TypeMeta{Kind: "DaemonSet", APIVersion: "apps/v1"},
			ObjectMeta: metav1.ObjectMeta{Name: s.agent, Namespace: ns, UID: fx.UID("DaemonSet", s.agent), Generation: 1},
			Spec:       appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: s.agentLabels}, Template: tmpl},
			Status:     appsv1.DaemonSetStatus{ObservedGeneration: 1, DesiredNumberScheduled: 2, CurrentNumberScheduled: 2, UpdatedNumberScheduled: 2, NumberAvailable: 0, NumberReady: 0, NumberUnavailable: 2}}
		owner, objs = ds, []runtime.Object{ds}
	default:
		d := fx.Deployment(ns, s.agent, 2, s.agentImage)
		d.Spec.Selector = &metav1.LabelSelector{MatchLabels: s.agentLabels}
		d.Spec.Template = tmpl
		d.Status.ReadyReplicas, d.Status.AvailableReplicas = 0, 0
		rs := fx.ReplicaSet(d, 1, 2, s.agentImage)
		rs.Spec.Selector, rs.Spec.Template = d.Spec.Selector, tmpl
		owner, objs = rs, []runtime.Object{d, rs}
	}
	for i := 0; i < 2; i++ {
		kind := s.agentKind
		if kind != "DaemonSet" {
			kind = "ReplicaSet"
		}
		p := fx.Pod(ns, fmt.Sprintf("%s-n%d", s.agent, i), s.agentLabels, tmpl.Spec, owner, kind)
		fx.SetNotReady(p)
		objs = append(objs, p, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", "Readiness probe failed: "+s.probeMsg, 90, time.Minute))
	}
	return objs
}

// pendingPeer is a Deployment whose pods are Pending on a nodeSelector no node matches.
func pendingPeer(name, image string, lbls map[string]string, nodeLabel string) []runtime.Object {
	d := fx.Deployment(ns, name, 2, image)
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: lbls}
	d.Spec.Template.Labels = lbls
	d.Spec.Template.Spec.NodeSelector = map[string]string{nodeLabel: ""}
	d.Status.ReadyReplicas, d.Status.AvailableReplicas = 0, 0
	rs := fx.ReplicaSet(d, 1, 2, image)
	rs.Spec.Selector, rs.Spec.Template = d.Spec.Selector, d.Spec.Template
	objs := []runtime.Object{d, rs}
	for i := 0; i < 2; i++ {
		p := fx.PodFor(rs, fmt.Sprintf("q%04d", i))
		fx.Unschedulable(p, "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
		objs = append(objs, p)
	}
	return objs
}

// A targeted session on a workload failing readiness follows to the part of its own system
// that is down: same image, a shared part-of/instance label, or named in the probe's words.
func TestReadinessFollowsDownPeerOfSameSystem(t *testing.T) {
	cases := []struct {
		name string
		sys  peerSystem
	}{
		{"DaemonSet and a Deployment of the same image", peerSystem{agentKind: "DaemonSet", agent: "mesh-node", peer: "mesh-reflector",
			agentImage: "quay.io/meshnet/node:v1.4.2", peerImage: "quay.io/meshnet/node:v1.4.2",
			agentLabels: map[string]string{"k8s-app": "mesh-node"}, peerLabel: map[string]string{"k8s-app": "mesh-reflector"},
			probeMsg: "routing daemon not ready: no session established with 10.1.0.4, 10.1.0.5"}},
		{"Deployments sharing part-of, other images", peerSystem{agentKind: "Deployment", agent: "search-data", peer: "search-master",
			agentImage: "registry.example/search/data:8.1", peerImage: "registry.example/search/master:8.1",
			agentLabels: map[string]string{"app.kubernetes.io/name": "search-data", "app.kubernetes.io/part-of": "search"},
			peerLabel:   map[string]string{"app.kubernetes.io/name": "search-master", "app.kubernetes.io/part-of": "search"},
			probeMsg:    "HTTP probe failed with statuscode: 503"}},
		{"the probe names the peer", peerSystem{agentKind: "Deployment", agent: "edge-proxy", peer: "authz",
			agentImage: "envoyproxy/envoy:v1.30.1", peerImage: "registry.example/authz:3",
			agentLabels: map[string]string{"app": "edge-proxy"}, peerLabel: map[string]string{"app": "authz"},
			probeMsg: "upstream authz not healthy: cluster has no healthy hosts"}},
	}
	for _, tc := range cases {
		for _, targeted := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/targeted=%t", tc.name, targeted), func(t *testing.T) {
				s := tc.sys
				objs := agentWorkload(s)
				objs = append(objs, pendingPeer(s.peer, s.peerImage, s.peerLabel, "node-role.example/"+s.peer)...)
				// An unrelated workload of another team is down too; it explains nothing here.
				objs = append(objs, pendingPeer("batch-report", "registry.example/reports:2", map[string]string{"app": "batch-report"}, "pool.example/batch")...)
				objs = append(objs, fx.Node("node-1"))
				sess := agent.Session{ID: "t", Problem: "pods lost connectivity after the upgrade", Namespace: ns}
				if targeted {
					sess.Target = &agent.Target{Kind: s.agentKind, Name: s.agent}
				}
				cl := rootUnderShuffles(t, objs, logBook{}, sess, "unschedulable-node-affinity on Deployment/"+s.peer)
				rc := cl.RootCause
				if !strings.Contains(rc.Summary, "node-role.example/"+s.peer) || !strings.Contains(rc.Summary, s.agent) {
					t.Errorf("summary lacks the nodeSelector or the agent it explains: %s", rc.Summary)
				}
				var aff []string
				for _, r := range rc.AffectedObjects {
					aff = append(aff, r.Kind+"/"+r.Name)
				}
				if !contains(aff, s.agentKind+"/"+s.agent) || contains(aff, "Deployment/batch-report") {
					t.Errorf("affectedObjects %v: want %s/%s and not the unrelated batch-report", aff, s.agentKind, s.agent)
				}
				t.Logf("%s\nchain: %v", rc.Summary, rc.Chain)
			})
		}
	}
}

// Nothing of the same system is down: the readiness failure stays the workload's own, and
// another team's Pending workload is not blamed for it.
func TestReadinessWithoutPeerStaysOwn(t *testing.T) {
	s := peerSystem{agentKind: "DaemonSet", agent: "mesh-node", agentImage: "quay.io/meshnet/node:v1.4.2",
		agentLabels: map[string]string{"k8s-app": "mesh-node", "app.kubernetes.io/part-of": "mesh"}, probeMsg: "routing daemon not ready"}
	objs := agentWorkload(s)
	objs = append(objs, pendingPeer("batch-report", "registry.example/reports:2", map[string]string{"app": "batch-report", "app.kubernetes.io/part-of": "reports"}, "pool.example/batch")...)
	objs = append(objs, fx.Node("node-1"))
	rootUnderShuffles(t, objs, logBook{}, agent.Session{ID: "t", Problem: "mesh-node is not ready", Namespace: ns, Target: &agent.Target{Kind: "DaemonSet", Name: "mesh-node"}},
		"readiness-probe-failing on DaemonSet/mesh-node")
}

// A namespace scan checks a DaemonSet against tainted nodes only when the DaemonSet shows the
// shortfall itself: its nodeSelector picks more schedulable nodes than it desires pods for.
// A DaemonSet that runs wherever it may is not blamed for another team's tainted pool, nor is
// one that tolerates the taint.
func TestScanFindsDaemonSetShortOfItsSelectedNodes(t *testing.T) {
	type spelling struct{ ds, poolKey, pool, taintKey string }
	for _, sp := range []spelling{
		{"log-shipper", "pool.example/team", "observability", "nvidia.com/gpu"},
		{"node-exporter", "kubernetes.io/role-group", "edge", "dedicated"},
		{"falco", "nodepool", "secure-a", "example.com/sandbox"},
	} {
		taint := corev1.Taint{Key: sp.taintKey, Value: "true", Effect: corev1.TaintEffectNoSchedule}
		nodes := func() []runtime.Object {
			plain, tainted := fx.Node(sp.pool+"-1"), fx.Node(sp.pool+"-2")
			plain.Labels[sp.poolKey], tainted.Labels[sp.poolKey] = sp.pool, sp.pool
			tainted.Spec.Taints = []corev1.Taint{taint}
			other := fx.Node("other-team-1")
			other.Spec.Taints = []corev1.Taint{{Key: "team.example/ml", Value: "only", Effect: corev1.TaintEffectNoSchedule}}
			return []runtime.Object{plain, tainted, other}
		}
		ds := func(nodeSelector map[string]string, tolerate bool) []runtime.Object {
			d := daemonSet(sp.ds, func(d *appsv1.DaemonSet) {
				d.Spec.Template.Spec.NodeSelector = nodeSelector
				if tolerate {
					d.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: sp.taintKey, Operator: corev1.TolerationOpExists}}
				}
				d.Status.DesiredNumberScheduled, d.Status.CurrentNumberScheduled, d.Status.NumberReady, d.Status.NumberAvailable = 1, 1, 1, 1
			})
			p := fx.Pod(ns, sp.ds+"-abcde", d.Spec.Template.Labels, d.Spec.Template.Spec, d, "DaemonSet")
			p.Spec.NodeName = sp.pool + "-1"
			return []runtime.Object{d, p}
		}
		sess := agent.Session{ID: "t", Problem: "nothing arrives from some nodes", Namespace: ns}
		t.Run(sp.ds+"/selected pool with a tainted node", func(t *testing.T) {
			cl := rootUnderShuffles(t, append(ds(map[string]string{sp.poolKey: sp.pool}, false), nodes()...), logBook{}, sess, "daemonset-taint-excluded on DaemonSet/"+sp.ds)
			if s := cl.RootCause.Summary; !strings.Contains(s, sp.taintKey) || !strings.Contains(s, sp.pool+"-2") || strings.Contains(s, "other-team-1") {
				t.Errorf("summary should name the taint and the pool's node only: %s", s)
			}
		})
		t.Run(sp.ds+"/runs everywhere: other teams' pools are not its fault", func(t *testing.T) {
			objs := append(ds(nil, false), nodes()...)
			e := engine(objs...)
			e.Logs = logBook{}.source()
			if rc := drive(t, e, sess).RootCause; rc.Rule == "daemonset-taint-excluded" {
				t.Fatalf("blamed for a pool it never selected: %s", rc.Summary)
			}
		})
		t.Run(sp.ds+"/tolerates the taint", func(t *testing.T) {
			objs := append(ds(map[string]string{sp.poolKey: sp.pool}, true), nodes()...)
			e := engine(objs...)
			e.Logs = logBook{}.source()
			if rc := drive(t, e, sess).RootCause; rc.Rule == "daemonset-taint-excluded" {
				t.Fatalf("blamed though it tolerates the taint: %s", rc.Summary)
			}
		})
	}
}

// The down peer's own cause is the root, however deep: here its pods cannot start without a
// Secret, and the chain runs from the agent's readiness through the peer to the Secret.
func TestReadinessFollowsPeerToItsMissingSecret(t *testing.T) {
	s := peerSystem{agentKind: "Deployment", agent: "kafka-connect", peer: "kafka-broker",
		agentImage: "registry.example/kafka:3.7", peerImage: "registry.example/kafka:3.7",
		agentLabels: map[string]string{"app": "kafka-connect"}, peerLabel: map[string]string{"app": "kafka-broker"},
		probeMsg: "HTTP probe failed with statuscode: 500"}
	objs := agentWorkload(s)
	peerObjs := pendingPeer(s.peer, s.peerImage, s.peerLabel, "unused")
	for _, o := range peerObjs {
		switch x := o.(type) {
		case *appsv1.Deployment:
			x.Spec.Template.Spec.NodeSelector = nil
			x.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "KAFKA_PASSWORD", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "broker-jaas"}, Key: "password"}}}}
		case *corev1.Pod:
			x.Spec.NodeName = "node-1"
			x.Status = corev1.PodStatus{Phase: corev1.PodPending}
			x.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Image: s.peerImage}}
			fx.Waiting(x, "CreateContainerConfigError", `secret "broker-jaas" not found`)
		}
	}
	objs = append(append(objs, peerObjs...), fx.Node("node-1"))
	for _, target := range []*agent.Target{nil, {Kind: "Deployment", Name: s.agent}} {
		cl := rootUnderShuffles(t, objs, logBook{}, agent.Session{ID: "t", Problem: "connectors are down", Namespace: ns, Target: target}, "secret-missing on Secret/broker-jaas")
		if !strings.Contains(cl.RootCause.Summary, "kafka-connect") {
			t.Errorf("the summary does not show the chain to kafka-connect: %s", cl.RootCause.Summary)
		}
	}
}

// A targeted DaemonSet that runs wherever it may (no nodeSelector, no shortfall) is checked
// only against the tainted nodes the problem speaks of: another team's pool is not listed.
func TestTargetedDaemonSetTaintsOnlyTheNamedPool(t *testing.T) {
	for _, tc := range []struct{ problem, want, notWant string }{
		{"no logs from the GPU nodes", "gpu-a", "batch-1"},
		{"nothing is collected on the batch nodes", "batch-1", "gpu-a"},
	} {
		d := daemonSet("collector", func(d *appsv1.DaemonSet) {
			d.Status.DesiredNumberScheduled, d.Status.CurrentNumberScheduled, d.Status.NumberReady, d.Status.NumberAvailable = 1, 1, 1, 1
		})
		p := fx.Pod(ns, "collector-abcde", d.Spec.Template.Labels, d.Spec.Template.Spec, d, "DaemonSet")
		gpu, batch := fx.Node("gpu-a"), fx.Node("batch-1")
		gpu.Spec.Taints = []corev1.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule}}
		batch.Spec.Taints = []corev1.Taint{{Key: "workload.example/batch", Value: "true", Effect: corev1.TaintEffectNoSchedule}}
		e := engine(d, p, fx.Node("node-1"), gpu, batch)
		e.Logs = logBook{}.source()
		rc := drive(t, e, agent.Session{ID: "t", Problem: tc.problem, Namespace: ns, Target: &agent.Target{Kind: "DaemonSet", Name: "collector"}}).RootCause
		if rc.Rule != "daemonset-taint-excluded" || !strings.Contains(rc.Summary, tc.want) || strings.Contains(rc.Summary, tc.notWant) {
			t.Errorf("%q: got %s: %s", tc.problem, rc.Rule, rc.Summary)
		}
	}
	// The problem names no pool: nothing to blame on a DaemonSet that runs wherever it may.
	d := daemonSet("collector", func(d *appsv1.DaemonSet) { d.Status.DesiredNumberScheduled, d.Status.NumberReady = 1, 1 })
	gpu := fx.Node("gpu-a")
	gpu.Spec.Taints = []corev1.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule}}
	e := engine(d, fx.Pod(ns, "collector-abcde", d.Spec.Template.Labels, d.Spec.Template.Spec, d, "DaemonSet"), fx.Node("node-1"), gpu)
	e.Logs = logBook{}.source()
	if rc := drive(t, e, agent.Session{ID: "t", Problem: "collector has no pods", Namespace: ns, Target: &agent.Target{Kind: "DaemonSet", Name: "collector"}}).RootCause; rc.Rule == "daemonset-taint-excluded" {
		t.Errorf("blamed for a pool nobody asked about: %s", rc.Summary)
	}
}
