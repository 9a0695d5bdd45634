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

package ruleengine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// Cases reproduced from the e2e scenarios on the local cluster (test/scenarios), where a
// real control plane writes what the fake-cluster tables above did not: pods Ready between
// restarts, kube-scheduler 1.36 messages without taint names and counting the nodes a pinned
// pod never wanted, and the PV controller's ProvisioningFailed for no-provisioner classes.

// pool returns three plain nodes plus one pool node (label pool=gpu) shaped by f.
func pool(f func(n *corev1.Node)) []runtime.Object {
	n := fx.Node("pool-0")
	n.Labels["pool"] = "gpu"
	f(n)
	return []runtime.Object{fx.Node("node-a"), fx.Node("node-b"), fx.Node("node-c"), n}
}

// pinned makes web's pod select the pool and stay Pending with the scheduler's message.
func pinned(msg string) func(p *corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.NodeSelector = map[string]string{"pool": "gpu"}
		fx.Unschedulable(p, msg)
	}
}

// restartedReady is a pod Ready again after its container was killed (reason, exit code).
func restartedReady(reason string, exit int32, limit string) func(p *corev1.Pod) {
	return func(p *corev1.Pod) {
		if limit != "" {
			p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(limit)}
		}
		cs := &p.Status.ContainerStatuses[0]
		cs.RestartCount = 2
		cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: exit, Reason: reason, FinishedAt: fx.Ago(20 * time.Second)}}
	}
}

func TestRealClusterShapes(t *testing.T) {
	const mixed = "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: 0/4 nodes are available: 4 Preemption is not helpful for scheduling."
	for _, tc := range []struct {
		name          string
		target        *agent.Target
		problem       string
		objs          func() []runtime.Object
		rule, culprit string
		contains      string
	}{
		{name: "OOM-killed pod Ready between kills, found by a namespace scan", problem: "web pods restart all the time",
			rule: "oom-killed", culprit: "Deployment/web", contains: "128Mi",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, restartedReady("OOMKilled", 137, "128Mi"))
				return o
			}},
		{name: "liveness restarts while Ready, Deployment target", target: deploy("web"),
			rule: "liveness-probe-failing", culprit: "Deployment/web",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, restartedReady("Error", 137, ""))
				return append(o, fx.Event(ns, "Pod", podName(0), "Warning", "Unhealthy", "Liveness probe failed: HTTP probe failed with statuscode: 500", 4, 5*time.Second))
			}},
		{name: "Service whose pods are Ready between crashes", target: &agent.Target{Kind: "Service", Name: "web"},
			rule: "crash-loop", culprit: "Deployment/web",
			objs: func() []runtime.Object {
				_, _, o := webApp(2, func(p *corev1.Pod) {
					restartedReady("Error", 1, "")(p)
					p.Status.ContainerStatuses[0].RestartCount = 4
				})
				return append(o, fx.Service(ns, "web", map[string]string{"app": "web"}, intstr.FromString("http")))
			}},
		{name: "pinned to a tainted pool (1.36 message names no taint)", target: deploy("web"),
			rule: "unschedulable-taint", culprit: "Deployment/web", contains: "nvidia.com/gpu",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, pinned(mixed))
				return append(o, pool(func(n *corev1.Node) {
					n.Spec.Taints = []corev1.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule}}
				})...)
			}},
		{name: "pinned to a pool under memory pressure: the node condition is the cause", target: deploy("web"),
			rule: "node-memory-pressure", culprit: "Node/pool-0",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, pinned(mixed))
				return append(o, pool(func(n *corev1.Node) {
					n.Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeMemoryPressure, Effect: corev1.TaintEffectNoSchedule}}
					fx.SetNodeCondition(n, corev1.NodeMemoryPressure, corev1.ConditionTrue, "KubeletHasInsufficientMemory", "kubelet has insufficient memory available")
				})...)
			}},
		{name: "pinned to a cordoned pool", target: deploy("web"),
			rule: "unschedulable-nodes-cordoned", culprit: "Deployment/web", contains: "pool-0",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, pinned("0/4 nodes are available: 1 node(s) were unschedulable, 3 node(s) didn't match Pod's node affinity/selector."))
				return append(o, pool(func(n *corev1.Node) { n.Spec.Unschedulable = true })...)
			}},
		{name: "selector matching no node while most nodes are tainted", target: deploy("web"),
			rule: "unschedulable-node-affinity", culprit: "Deployment/web",
			objs: func() []runtime.Object {
				_, _, o := webApp(1, func(p *corev1.Pod) {
					p.Spec.NodeSelector = map[string]string{"disktype": "nvme"}
					fx.Unschedulable(p, "0/4 nodes are available: 3 node(s) had untolerated taint(s), 1 node(s) didn't match Pod's node affinity/selector.")
				})
				taint := []corev1.Taint{{Key: "dedicated", Value: "infra", Effect: corev1.TaintEffectNoSchedule}}
				nodes := []runtime.Object{fx.Node("node-a")}
				for _, name := range []string{"infra-1", "infra-2", "infra-3"} {
					n := fx.Node(name)
					n.Spec.Taints = taint
					nodes = append(nodes, n)
				}
				return append(o, nodes...)
			}},
		{name: "no-provisioner class: ProvisioningFailed is noise, the access mode is the cause", target: &agent.Target{Kind: "PersistentVolumeClaim", Name: "shared"},
			rule: "pvc-access-mode-unsupported", culprit: "PersistentVolumeClaim/shared",
			objs: func() []runtime.Object {
				pv := &corev1.PersistentVolume{
					TypeMeta:   metav1.TypeMeta{Kind: "PersistentVolume", APIVersion: "v1"},
					ObjectMeta: metav1.ObjectMeta{Name: "local-pv-1"},
					Spec: corev1.PersistentVolumeSpec{
						Capacity:         corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
						AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
						StorageClassName: "local",
					},
					Status: corev1.PersistentVolumeStatus{Phase: corev1.VolumeAvailable},
				}
				claim := fx.PVC(ns, "shared", fx.Ptr("local"), corev1.ClaimPending, corev1.ReadWriteMany)
				return []runtime.Object{pv, claim, fx.StorageClass("local", "kubernetes.io/no-provisioner", false, "Immediate"),
					fx.Event(ns, "PersistentVolumeClaim", "shared", "Warning", "ProvisioningFailed", "no volume plugin matched name: kubernetes.io/no-provisioner", 12, time.Minute)}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, tr := runProblem(t, tc.target, tc.problem, tc.objs()...)
			got := c.RootCause.Culprit.Kind + "/" + c.RootCause.Culprit.Name
			if c.RootCause.Rule != tc.rule || got != tc.culprit {
				t.Fatalf("want %s on %s, got %s on %s: %s%s", tc.rule, tc.culprit, c.RootCause.Rule, got, c.RootCause.Summary, traceString(tr))
			}
			if !strings.Contains(c.RootCause.Summary, tc.contains) {
				t.Errorf("summary does not mention %q: %s", tc.contains, c.RootCause.Summary)
			}
		})
	}
}

// TestNoFindingCitesTheTarget: a pod whose deletion has just started is no problem yet, and the
// conclusion says what was seen rather than nothing.
func TestNoFindingCitesTheTarget(t *testing.T) {
	_, _, objs := webApp(1, func(p *corev1.Pod) {
		now := fx.Ago(3 * time.Second)
		p.DeletionTimestamp = &now
		p.Finalizers = []string{"example.com/hold"}
	})
	c, _ := run(t, &agent.Target{Kind: "Pod", Name: podName(0)}, objs...)
	if c.RootCause.Rule != "no-problem-found" || len(c.Evidence) == 0 || len(c.RootCause.EvidenceIDs) != len(c.Evidence) {
		t.Fatalf("want no-problem-found citing the pod's evidence, got %+v with %d evidence", c.RootCause, len(c.Evidence))
	}
	var text strings.Builder
	for _, ev := range c.Evidence {
		text.WriteString(ev.Summary)
	}
	if !strings.Contains(text.String(), "being deleted") {
		t.Errorf("evidence does not mention the deletion: %s", text.String())
	}
}

func runProblem(t *testing.T, target *agent.Target, problem string, objs ...runtime.Object) (agent.Conclusion, agent.Trace) {
	t.Helper()
	c, tr, err := runSession(context.Background(), engine(objs...), agent.Session{ID: "t", Problem: problem, Namespace: ns, Target: target}, agent.Budget{})
	if err != nil {
		t.Fatalf("session: %v", err)
	}
	return c, tr
}
