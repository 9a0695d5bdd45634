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

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"

	fx "github.com/kubage/kubage/test/fixtures"
)

// Members of a clustered server that time out calling each other on their own peer port,
// under a policy that admits only the client port, blame that policy; a policy that admits
// the peer port too does not, and a client port shared by chance with another Service the
// pod calls is no peer traffic.
func TestPeersIsolatedFromEachOther(t *testing.T) {
	tcp := corev1.ProtocolTCP
	objs := func(ports ...int) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("quorum", 3, func(s *corev1.PodSpec) {
				s.Containers[0].Ports = []corev1.ContainerPort{{Name: "client", ContainerPort: 2379, Protocol: tcp}, {Name: "peer", ContainerPort: 2380, Protocol: tcp}}
				s.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/health", Port: intstr.FromString("client")}}}
			}, func(p *corev1.Pod) { fx.SetNotReady(p) })
			for _, x := range o {
				if p, ok := x.(*corev1.Pod); ok {
					o = append(o, fx.Event(ns, "Pod", p.Name, "Warning", "Unhealthy", "Readiness probe failed: HTTP probe failed with statuscode: 503", 30, 0))
				}
			}
			var admitted []networkingv1.NetworkPolicyPort
			for _, n := range ports {
				admitted = append(admitted, networkingv1.NetworkPolicyPort{Protocol: &tcp, Port: ptrTo(intstr.FromInt32(int32(n)))})
			}
			pol := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "quorum-clients", Namespace: ns},
				Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "quorum"}},
					PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
					Ingress: []networkingv1.NetworkPolicyIngressRule{{
						From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "quorum"}}}, {PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "gateway"}}}},
						Ports: admitted}}}}
			return append(o, pol, svcAt("quorum", "10.96.0.23", map[string]string{"app": "quorum"}, 2379), fx.Node("node-1"))
		}
	}
	logs := logBook{"quorum-": strings.Repeat(`{"level":"warn","msg":"prober detected unhealthy status","remote-peer-id":"9f2c","error":"dial tcp 10.244.7.7:2380: i/o timeout"}`+"\n"+`{"level":"warn","msg":"serving /health false; no leader"}`+"\n", 3)}
	runDepCases(t, []depCase{
		{name: "the policy admits only the client port", problem: "the key-value store never elects a leader",
			objs: objs(2379), logs: logs,
			rule: "networkpolicy-deny-ingress", culprit: "NetworkPolicy/quorum-clients", affected: []string{"Deployment/quorum"},
			terms: []string{"2380", "call each other"}},
	})
	e := engine(objs(2379, 2380)()...)
	e.Logs = logs.source()
	if rc := drive(t, e, sessionFor("the key-value store never elects a leader")).RootCause; rc.Culprit.Kind == "NetworkPolicy" {
		t.Errorf("a policy admitting the peer port was blamed: %s", rc.Summary)
	}
	// A client listening on 8080 that times out calling another Service on 8080.
	o := app("web", 1, func(s *corev1.PodSpec) {
		s.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: tcp}}
	}, crashing)
	pol := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "web-ingress", Namespace: ns},
		Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "gateway"}}}}}}}}
	o = append(o, pol, svcAt("pricing", "10.96.0.31", map[string]string{"app": "pricing"}, 8080), fx.Node("node-1"))
	e = engine(o...)
	e.Logs = logBook{"web-": "ERROR price lookup failed: dial tcp 10.96.0.31:8080: i/o timeout\n"}.source()
	if rc := drive(t, e, sessionFor("web crashes")).RootCause; rc.Culprit.Name == "web-ingress" {
		t.Errorf("a call to another Service on the same port was taken for peer traffic: %s", rc.Summary)
	}
}

func ptrTo[T any](v T) *T { return &v }
