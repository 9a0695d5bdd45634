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
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A container that requests more CPU than the default limit a LimitRange fills in is rejected
// by the API server ("must be less than or equal to cpu limit of 500m"): the LimitRange's
// default is named; without such a default the message is reported as it is.
func TestRequestAboveTheLimitRangeDefault(t *testing.T) {
	msg := `Pod "pdf-renderer-6d5f8-x2x9q" is invalid: spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit of 500m`
	objs := func(withDefault bool) func() []runtime.Object {
		return func() []runtime.Object {
			d := fx.Deployment(ns, "pdf-renderer", 1, "gotenberg/gotenberg:8")
			d.Status = appsv1.DeploymentStatus{}
			rs := fx.ReplicaSet(d, 1, 1, "gotenberg/gotenberg:8")
			rs.Status = appsv1.ReplicaSetStatus{}
			ev := fx.Event(ns, "ReplicaSet", rs.Name, "Warning", "FailedCreate", "Error creating: "+msg, 7, time.Minute)
			lr := &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "container-defaults", Namespace: ns}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
				Type: corev1.LimitTypeContainer, Default: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}}}}}
			if withDefault {
				lr.Spec.Limits[0].Default[corev1.ResourceCPU] = resource.MustParse("500m")
			}
			return []runtime.Object{d, rs, ev, lr, fx.Node("node-1")}
		}
	}
	runDepCases(t, []depCase{
		{name: "default cpu limit below the request", problem: "pdf export answers 502", objs: objs(true),
			rule: "limitrange-violation", culprit: "Deployment/pdf-renderer", affected: []string{"LimitRange/container-defaults"},
			terms: []string{"default cpu limit of 500m", "container-defaults"}},
		{name: "no such default: the message as it is", problem: "pdf export answers 502", objs: objs(false),
			rule: "workload-create-failed", culprit: "Deployment/pdf-renderer", terms: []string{"must be less than or equal to cpu limit"}},
	})
}
