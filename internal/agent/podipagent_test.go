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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A client that reaches its node agent through an env taken from status.podIP calls its own
// pod; the refused sends name that env and the DaemonSet serving the agent's hostPort. The
// same env from status.hostIP is no fault.
func TestNodeAgentAddressFromPodIP(t *testing.T) {
	objs := func(field string) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("orders", 1, func(s *corev1.PodSpec) {
				s.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}
				s.Containers[0].Env = []corev1.EnvVar{{Name: "OTEL_AGENT_HOST", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: field}}}}
			}, nil)
			ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "otel-agent", Namespace: ns}, Spec: appsv1.DaemonSetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "otel-agent"}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "otel-agent"}}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "agent", Image: "otel/opentelemetry-collector:0.110.0", Ports: []corev1.ContainerPort{{Name: "otlp", ContainerPort: 4317, HostPort: 4317}}}}}}}}
			return append(o, ds, fx.Node("node-1"))
		}
	}
	logs := logBook{"orders-": "msg=\"listening\" addr=:8080\n" + strings.Repeat("level=error msg=\"exporter export failed\" error=\"rpc error: code = Unavailable desc = connection error: desc = \\\"transport: Error while dialing: dial tcp 10.244.3.17:4317: connect: connection refused\\\"\"\n", 4)}
	runDepCases(t, []depCase{
		{name: "the agent host comes from status.podIP", problem: "no traces from orders since the chart change",
			objs: objs("status.podIP"), logs: logs,
			rule: "agent-address-pod-ip", culprit: "Deployment/orders", affected: []string{"DaemonSet/otel-agent"},
			terms: []string{"OTEL_AGENT_HOST", "status.podIP", "status.hostIP", "4317"}},
	})
	e := engine(objs("status.hostIP")()...)
	e.Logs = logs.source()
	if rc := drive(t, e, sessionFor("no traces from orders since the chart change")).RootCause; strings.Contains(rc.Summary, "status.podIP") {
		t.Errorf("an address from status.hostIP was blamed: %s", rc.Summary)
	}
}
