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
	"k8s.io/apimachinery/pkg/util/intstr"

	fx "github.com/kubage/kubage/test/fixtures"
)

// An Ingress answering 502 over healthy pods: its Service has ready endpoints, yet sends
// traffic to a port the pods do not serve. The namespace scan follows the Ingress's
// backends to the Service and names its targetPort; a targetPort the pods serve, by number or
// by name, is no finding.
func TestIngressBackendTargetPortUnserved(t *testing.T) {
	cluster := func(target intstr.IntOrString) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("catalog", 2, nil, nil)
			svc := fx.Service(ns, "catalog", map[string]string{"app": "catalog"}, target)
			svc.Spec.ClusterIP = "10.96.7.7"
			var pods []*corev1.Pod
			for _, x := range o {
				if p, ok := x.(*corev1.Pod); ok {
					pods = append(pods, p)
				}
			}
			return append(o, svc, fx.EndpointSlice(svc, pods...), ingressFor("catalog", "shop.example.com", "catalog"), fx.Node("node-1"))
		}
	}
	runDepCases(t, []depCase{
		{name: "numeric targetPort no container declares", problem: "the shop answers 502 Bad Gateway",
			objs: cluster(intstr.FromInt32(80)),
			rule: "service-target-port-mismatch", culprit: "Service/catalog", terms: []string{"targetPort 80", "http:8080"}},
		{name: "named targetPort the pods do not name", problem: "the shop answers 502 Bad Gateway",
			objs: cluster(intstr.FromString("web")),
			rule: "service-target-port-mismatch", culprit: "Service/catalog", terms: []string{"targetPort web"}},
		{name: "the pods serve the targetPort by number", problem: "the shop answers 502 Bad Gateway",
			objs: cluster(intstr.FromInt32(8080)), rule: "no-problem-found", culprit: ""},
		{name: "the pods serve the targetPort by name", problem: "the shop answers 502 Bad Gateway",
			objs: cluster(intstr.FromString("http")), rule: "no-problem-found", culprit: ""},
	})
}
