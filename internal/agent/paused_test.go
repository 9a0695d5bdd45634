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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// A Job whose parallelism was set to 0 runs nothing and never fails: the namespace scan
// names it, as it names a suspended one.
func TestJobWithParallelismZero(t *testing.T) {
	j := fx.Job(ns, "export", "registry.example/export:1")
	j.Spec.Parallelism = fx.Ptr(int32(0))
	j.Status.StartTime = fx.Ptr(fx.Ago(48 * time.Hour))
	e := agent.NewRuleEngine(fake.NewClientset(j, fx.Node("node-1")))
	e.Now = func() time.Time { return fx.Now }
	rc := drive(t, e, agent.Session{ID: "t", Problem: "the export has produced nothing for two days", Namespace: ns}).RootCause
	t.Logf("%s on %s/%s: %s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, rc.Summary)
	if rc.Rule != "job-parallelism-zero" || rc.Culprit.Name != "export" || !strings.Contains(rc.Summary, "parallelism 0") {
		t.Fatalf("want job-parallelism-zero on Job export")
	}
}

// DB_HOST is not set, and the ConfigMap loaded with envFrom has DB_HOST: its prefix renames
// the variable, so the workload's envFrom is the fix, not the ConfigMap.
func TestEnvFromPrefixRenamesTheSetting(t *testing.T) {
	objs := app("web", 1, func(s *corev1.PodSpec) {
		s.Containers[0].EnvFrom = []corev1.EnvFromSource{{Prefix: "APP_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "web-settings"}}}}
	}, func(p *corev1.Pod) {
		crashing(p)
		p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = "FATAL: environment variable DB_HOST is not set"
	})
	objs = append(objs, cmWith("web-settings", "DB_HOST", "db", "DB_PORT", "5432"))
	rc := quietRun(t, objs)
	if rc.Rule != "config-value-missing" || rc.Culprit.Kind != "Deployment" || !strings.Contains(rc.Summary, "APP_DB_HOST") {
		t.Fatalf("want config-value-missing on the Deployment naming APP_DB_HOST")
	}
}

// A pod required on a zone no node is in: the summary states the requirement and the
// zones the nodes are in.
func TestNodeAffinitySaysWhatItRequires(t *testing.T) {
	objs := app("etcd", 1, func(s *corev1.PodSpec) {
		s.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-d"}}}}}}}}
	}, func(p *corev1.Pod) {
		fx.Unschedulable(p, "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.")
	})
	for i, z := range []string{"zone-a", "zone-b"} {
		n := fx.Node(fmt.Sprintf("node-%d", i))
		n.Labels["topology.kubernetes.io/zone"] = z
		objs = append(objs, n)
	}
	e := agent.NewRuleEngine(fake.NewClientset(objs...))
	e.Now = func() time.Time { return fx.Now }
	rc := drive(t, e, agent.Session{ID: "t", Problem: "etcd pods stay Pending", Namespace: ns}).RootCause
	t.Logf("%s on %s/%s: %s", rc.Rule, rc.Culprit.Kind, rc.Culprit.Name, rc.Summary)
	if rc.Rule != "unschedulable-node-affinity" || !strings.Contains(rc.Summary, "In [zone-d]") || !strings.Contains(rc.Summary, "zone-a, zone-b") {
		t.Fatalf("want the required zone and the nodes' zones in the summary")
	}
}

// A StatefulSet in the middle of an ordinary rolling update holds nothing back.
func TestRollingStatefulSetIsNotHeld(t *testing.T) {
	s := statefulSet("db", 3, 3, func(s *appsv1.StatefulSet) {
		s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType}
		s.Status.CurrentRevision, s.Status.UpdateRevision, s.Status.UpdatedReplicas = "db-1", "db-2", 1
	})
	svc := svcAt("db", "None", map[string]string{"app": "db"}, 5432)
	objs := []runtime.Object{s, svc, fx.Node("node-1")}
	var pods []*corev1.Pod
	for i := 0; i < 3; i++ {
		p := fx.Pod(ns, fmt.Sprintf("db-%d", i), s.Spec.Template.Labels, s.Spec.Template.Spec, s, "StatefulSet")
		pods = append(pods, p)
		objs = append(objs, p)
	}
	objs = append(objs, fx.EndpointSlice(svc, pods...))
	rc := conclude(t, objs...).RootCause
	if rc.Rule == "rollout-held" {
		t.Fatalf("an ordinary rolling update is reported as held: %s", rc.Summary)
	}
	s.Spec.UpdateStrategy.Type = appsv1.OnDeleteStatefulSetStrategyType
	if rc := conclude(t, objs...).RootCause; rc.Rule != "rollout-held" || !strings.Contains(rc.Summary, "OnDelete") {
		t.Fatalf("OnDelete: got %s: %s", rc.Rule, rc.Summary)
	}
}

// A DaemonSet kept off a tainted node does not hide why its running pods crash.
func TestTaintExcludedDaemonSetLosesToItsCrash(t *testing.T) {
	ds := daemonSet("node-agent", func(d *appsv1.DaemonSet) { d.Status.DesiredNumberScheduled = 1 })
	p := fx.Pod(ns, "node-agent-abcde", ds.Spec.Template.Labels, ds.Spec.Template.Spec, ds, "DaemonSet")
	fx.CrashLoop(p, 1, "Error", 5)
	gpu := fx.Node("gpu-a")
	gpu.Spec.Taints = []corev1.Taint{{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule}}
	e := agent.NewRuleEngine(fake.NewClientset(ds, p, fx.Node("node-1"), gpu))
	e.Now = func() time.Time { return fx.Now }
	e.Logs = logBook{"node-agent-": "open /host/proc/1/status: no such file or directory\n"}.source()
	rc := drive(t, e, agent.Session{ID: "t", Problem: "node-agent keeps restarting", Namespace: ns, Target: &agent.Target{Kind: "DaemonSet", Name: "node-agent"}}).RootCause
	if rc.Rule == "daemonset-taint-excluded" {
		t.Fatalf("the taint finding hides the crash: %s", rc.Summary)
	}
}
