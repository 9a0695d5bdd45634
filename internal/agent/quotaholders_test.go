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
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
	"github.com/kubage/kubage/test/vocabulary"
)

// pileUp is a pods quota of 3 held by two runs of a CronJob that never finish, and a
// Deployment whose new pod the quota refuses.
func pileUp(policy batchv1.ConcurrencyPolicy) []runtime.Object {
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "team-payments", Namespace: ns},
		Spec:   corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("3")}},
		Status: corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("3")}, Used: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("3")}}}
	objs := app("payments-api", 1, nil, nil)
	d := objs[0].(*appsv1.Deployment)
	d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate",
		Message: `pods "payments-api-7c9-x" is forbidden: exceeded quota: team-payments, requested: pods=1, used: pods=3, limited: pods=3`}}
	cj := fx.CronJob(ns, "session-cleanup", "*/1 * * * *")
	cj.UID = fx.UID("CronJob", "session-cleanup")
	cj.Spec.ConcurrencyPolicy = policy
	objs = append(objs, q, cj, fx.Node("node-1"))
	for i := 0; i < 2; i++ {
		j := fx.Job(ns, fmt.Sprintf("session-cleanup-2993%d", i), "registry.example/payments-app:4.2.0")
		j.OwnerReferences = []metav1.OwnerReference{fx.OwnerRef("CronJob", "batch/v1", cj)}
		j.Status.StartTime = fx.Ptr(fx.Ago(time.Duration(20-i) * time.Minute))
		j.Status.Active = 1
		cj.Status.Active = append(cj.Status.Active, corev1.ObjectReference{Kind: "Job", Name: j.Name, Namespace: ns})
		objs = append(objs, j, fx.Pod(ns, j.Name+"-abcde", j.Spec.Template.Labels, j.Spec.Template.Spec, j, "Job"))
	}
	return objs
}

// A quota full of a CronJob's piled-up runs: the CronJob is the cause, not the quota.
func TestQuotaHeldByPiledUpCronJob(t *testing.T) {
	for _, target := range []*agent.Target{nil, {Kind: "Deployment", Name: "payments-api"}} {
		e := agent.NewRuleEngine(fake.NewClientset(pileUp(batchv1.AllowConcurrent)...))
		e.Now = func() time.Time { return fx.Now }
		e.Logs = logBook{}.source()
		rc := drive(t, e, agent.Session{ID: "t", Problem: "payments-api deploy is stuck since this morning", Namespace: ns, Target: target}).RootCause
		if rc.Rule != "cronjob-jobs-pile-up" || rc.Culprit.Name != "session-cleanup" {
			t.Fatalf("target %v: got %s on %s: %s", target, rc.Rule, rc.Culprit, rc.Summary)
		}
		for _, g := range vocabulary.Gaps(rc) {
			t.Errorf("the summary does not name %s: %s", g, rc.Summary)
		}
		for _, w := range []string{"concurrencyPolicy", "team-payments", "2 of its Jobs", "payments-api"} {
			if !strings.Contains(rc.Summary, w) {
				t.Errorf("summary lacks %q: %s", w, rc.Summary)
			}
		}
	}
	// With Forbid, runs cannot pile up: the quota stays the finding, with its holders.
	rc := conclude(t, pileUp(batchv1.ForbidConcurrent)...).RootCause
	if rc.Rule != "quota-exceeded" || !strings.Contains(rc.Summary, "held by CronJob session-cleanup 2 pod(s)") {
		t.Fatalf("Forbid: got %s on %s: %s", rc.Rule, rc.Culprit, rc.Summary)
	}
}

// A pod Pending on Insufficient cpu after a pod of a higher PriorityClass took its node: the
// higher-priority workload is named as the cause.
func TestPendingPodPreemptedByHigherPriority(t *testing.T) {
	ing := statefulSet("ingester", 2, 1, nil)
	objs := []runtime.Object{ing, fx.Node("node-1"), svcAt("ingester", "None", map[string]string{"app": "ingester"}, 9095)}
	for i := 0; i < 2; i++ {
		p := fx.Pod(ns, fmt.Sprintf("ingester-%d", i), ing.Spec.Template.Labels, ing.Spec.Template.Spec, ing, "StatefulSet")
		if i == 1 {
			p.Spec.NodeName = ""
			fx.Unschedulable(p, "0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.")
			objs = append(objs, fx.Event(ns, "Pod", p.Name, "Normal", "Preempted", "Preempted by pod 6c1f0e2a-0d3b-4c55-9a7e-2f1d8f0c9b11 on node node-1", 1, 10*time.Minute))
		}
		objs = append(objs, p)
	}
	dist := app("distributor", 1, func(s *corev1.PodSpec) {
		s.PriorityClassName, s.Priority = "stateless-critical", fx.Ptr(int32(1000000))
		s.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
	}, nil)
	objs = append(objs, dist...)
	for _, target := range []*agent.Target{nil, {Kind: "StatefulSet", Name: "ingester"}} {
		e := agent.NewRuleEngine(fake.NewClientset(objs...))
		e.Now = func() time.Time { return fx.Now }
		e.Logs = logBook{}.source()
		rc := drive(t, e, agent.Session{ID: "t", Problem: "an ingester is stuck in Pending and remote writes are failing", Namespace: ns, Target: target}).RootCause
		if rc.Culprit.Kind != "Deployment" || rc.Culprit.Name != "distributor" || !strings.Contains(rc.Summary, "preempt") || !strings.Contains(rc.Summary, "Preempted") {
			t.Fatalf("target %v: got %s on %s: %s", target, rc.Rule, rc.Culprit, rc.Summary)
		}
	}
}
