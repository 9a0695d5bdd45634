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
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// staleHPA is an autoscaler whose scale target (kind/name) no longer exists, reporting it
// under the condition type cond with reason FailedGetScale.
func staleHPA(name, kind, target string, cond autoscalingv2.HorizontalPodAutoscalerConditionType) *autoscalingv2.HorizontalPodAutoscaler {
	res := strings.ToLower(kind) + "s"
	return &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: kind, Name: target, APIVersion: "apps/v1"}, MinReplicas: fx.Ptr(int32(2)), MaxReplicas: 12},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{{Type: cond, Status: corev1.ConditionFalse, Reason: "FailedGetScale",
			Message: "the HPA controller was unable to get the target's current scale: " + res + "/scale.apps \"" + target + "\" not found"}}}}
}

// The reason Kubernetes reports for the event or condition a conclusion rests on appears in
// the summary verbatim, whichever rule wrote the sentence and however it worded it.
func TestSummaryQuotesTheReportedReason(t *testing.T) {
	cases := []struct {
		name    string
		objs    func() []runtime.Object
		target  *agent.Target
		problem string
		reason  string
	}{
		{name: "an HPA still scaling a renamed Deployment, target-less", reason: "FailedGetScale", problem: "autoscaling does nothing during the sale",
			objs: func() []runtime.Object {
				return append(app("storefront-web", 2, nil, nil), staleHPA("web", "Deployment", "web", autoscalingv2.AbleToScale), fx.Node("node-1"))
			}},
		{name: "an HPA on a StatefulSet that was deleted, ScalingActive False, targeted", reason: "FailedGetScale", problem: "the queue does not scale", target: &agent.Target{Kind: "HorizontalPodAutoscaler", Name: "queue"},
			objs: func() []runtime.Object {
				return []runtime.Object{staleHPA("queue", "StatefulSet", "queue-v1", autoscalingv2.ScalingActive), fx.Node("node-1")}
			}},
		{name: "a claim its provisioner refuses, event only", reason: "ProvisioningFailed", problem: "the database pod is Pending",
			objs: func() []runtime.Object {
				c := fx.PVC(ns, "data-db-0", fx.Ptr("fast-ssd"), corev1.ClaimPending)
				return []runtime.Object{c, fx.StorageClass("fast-ssd", "ebs.csi.aws.com", false, "Immediate"), fx.Node("node-1"),
					fx.Event(ns, "PersistentVolumeClaim", c.Name, "Warning", "ProvisioningFailed", "failed to provision volume with StorageClass \"fast-ssd\": rpc error: code = InvalidArgument desc = Volume capabilities not supported", 5, time.Minute)}
			}},
		{name: "a projected Secret key the kubelet cannot mount, told by FailedMount only", reason: "FailedMount", problem: "mailer pods stay in ContainerCreating", target: deploy("mailer"),
			objs: func() []runtime.Object {
				objs := app("mailer", 1, func(s *corev1.PodSpec) {
					s.Volumes = []corev1.Volume{{Name: "smtp", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
						SecretName: "smtp-creds", Items: []corev1.KeyToPath{{Key: "password", Path: "pass"}}}}}}
				}, func(p *corev1.Pod) { fx.Waiting(p, "ContainerCreating", "") })
				for _, o := range objs {
					if p, ok := o.(*corev1.Pod); ok {
						objs = append(objs, fx.Event(ns, "Pod", p.Name, "Warning", "FailedMount", `MountVolume.SetUp failed for volume "smtp" : references non-existent secret key: password`, 8, time.Minute))
					}
				}
				return append(objs, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "smtp-creds", Namespace: ns}, Data: map[string][]byte{"smtp-password": []byte("x")}}, fx.Node("node-1"))
			}},
		{name: "a container OOMKilled in a loop: the pod's waiting reason too", reason: "CrashLoopBackOff", problem: "the cache keeps restarting", target: deploy("cache"),
			objs: func() []runtime.Object {
				return append(app("cache", 1, func(s *corev1.PodSpec) {
					s.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")}
				}, func(p *corev1.Pod) { fx.CrashLoop(p, 137, "OOMKilled", 4) }), fx.Node("node-1"))
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rc := drive(t, engine(tc.objs()...), agent.Session{ID: "t", Problem: tc.problem, Namespace: ns, Target: tc.target}).RootCause
			t.Logf("%s on %s: %s", rc.Rule, rc.Culprit, rc.Summary)
			if !strings.Contains(rc.Summary, tc.reason) {
				t.Fatalf("%s: summary lacks the reason %s: %s", rc.Rule, tc.reason, rc.Summary)
			}
			if strings.Count(rc.Summary, tc.reason) > 2 {
				t.Errorf("the reason is repeated: %s", rc.Summary)
			}
		})
	}
}

// An HPA whose target was scaled to 0 by hand reports ScalingDisabled and never scales it up
// again: the replica count of the target is the fault, whatever else the HPA lacks.
func TestAutoscalerOverAWorkloadScaledToZero(t *testing.T) {
	o := app("queue-worker", 0, nil, nil)
	o[0].(*appsv1.Deployment).Spec.Replicas = fx.Ptr(int32(0))
	h := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "queue-worker", Namespace: ns},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "queue-worker", APIVersion: "apps/v1"}, MinReplicas: fx.Ptr(int32(2)), MaxReplicas: 10,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: fx.Ptr(int32(70))}}}}},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{Conditions: []autoscalingv2.HorizontalPodAutoscalerCondition{
			{Type: autoscalingv2.AbleToScale, Status: corev1.ConditionTrue, Reason: "SucceededGetScale"},
			{Type: autoscalingv2.ScalingActive, Status: corev1.ConditionFalse, Reason: "ScalingDisabled", Message: "scaling is disabled since the replica count of the target is zero"}}}}
	rc := drive(t, engine(append(o, h, fx.Node("node-1"))...), sessionFor("the order-events backlog grows and nothing scales")).RootCause
	if got := rc.Culprit.Kind + "/" + rc.Culprit.Name; rc.Rule != "deployment-scaled-to-zero" || got != "Deployment/queue-worker" {
		t.Fatalf("got %s on %s: %s", rc.Rule, got, rc.Summary)
	}
	for _, w := range []string{"zero", "minimum of 2"} {
		if !strings.Contains(rc.Summary, w) {
			t.Errorf("summary lacks %q: %s", w, rc.Summary)
		}
	}
}
