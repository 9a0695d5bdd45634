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

// A Service port left at the default TCP in front of a container that listens on UDP has
// ready endpoints and no error anywhere; the scan finds it by comparing the protocols.
func TestServicePortProtocolUnserved(t *testing.T) {
	objs := func(proto corev1.Protocol) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("statsd-exporter", 1, func(s *corev1.PodSpec) {
				s.Containers[0].Ports = []corev1.ContainerPort{{Name: "statsd", ContainerPort: 9125, Protocol: corev1.ProtocolUDP}, {Name: "metrics", ContainerPort: 9102}}
			}, nil)
			svc := fx.Service(ns, "statsd-exporter", map[string]string{"app": "statsd-exporter"}, intstr.FromInt32(9125))
			svc.Spec.Ports[0].Port, svc.Spec.Ports[0].Protocol = 9125, proto
			return append(o, svc, fx.EndpointSlice(svc, readyPods(o)...), fx.Node("node-1"))
		}
	}
	runDepCases(t, []depCase{
		{name: "TCP Service port, UDP listener", problem: "the checkout dashboards are empty", objs: objs(""),
			rule: "service-target-port-mismatch", culprit: "Service/statsd-exporter", terms: []string{"9125/TCP", "9125/UDP", "protocol: UDP"}},
	})
	e := engine(objs(corev1.ProtocolUDP)()...)
	if rc := drive(t, e, sessionFor("the checkout dashboards are empty")).RootCause; rc.Rule == "service-target-port-mismatch" {
		t.Errorf("a UDP Service port in front of a UDP listener was blamed: %s", rc.Summary)
	}
}

func readyPods(o []runtime.Object) []*corev1.Pod {
	var out []*corev1.Pod
	for _, x := range o {
		if p, ok := x.(*corev1.Pod); ok {
			out = append(out, p)
		}
	}
	return out
}
