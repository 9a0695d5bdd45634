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
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// Faults the objects prove without the application's words: logs unreachable (nil logBook)
// or silent, the configuration still names a port or a Service that cannot answer.
func TestConfigurationProvesTheFault(t *testing.T) {
	brokers := map[string]string{"app": "broker"}
	// withSlice adds Service s and its EndpointSlice over the pods named prefix*, as the
	// EndpointSlice controller would.
	withSlice := func(o []runtime.Object, s *corev1.Service, prefix string) []runtime.Object {
		var pods []*corev1.Pod
		for _, x := range o {
			if p, ok := x.(*corev1.Pod); ok && strings.HasPrefix(p.Name, prefix) {
				pods = append(pods, p)
			}
		}
		return append(o, s, fx.EndpointSlice(s, pods...))
	}
	withTermMsg := func(msg string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			crashing(p)
			p.Status.ContainerStatuses[0].LastTerminationState.Terminated.Message = msg
		}
	}
	runDepCases(t, []depCase{
		{name: "Running consumer, logs unreachable: its host:port names a port the Service does not expose", problem: "events are not consumed",
			objs: func() []runtime.Object {
				o := app("consumer", 1, envFrom("consumer-settings"), nil)
				o = append(o, app("broker", 1, nil, nil)...)
				o = withSlice(o, svcAt("broker", "10.96.0.40", brokers, 7000), "broker-")
				return append(o, cmWith("consumer-settings", "BROKER_ADDR", "broker:7001", "GROUP", "c1"), fx.Node("node-1"))
			},
			logs: nil,
			rule: "dependency-port-mismatch", culprit: "ConfigMap/consumer-settings", affected: []string{"Deployment/consumer", "Service/broker"},
			terms: []string{"7001", "7000", "consumer-settings"}},
		{name: "crash with a generic message, logs unreachable: the configured host is a near miss of a Service", problem: "billing keeps restarting",
			objs: func() []runtime.Object {
				o := app("billing", 1, envFrom("billing-settings"), withTermMsg("fatal: startup failed, see log"))
				o = append(o, app("invoices-db", 1, nil, nil)...)
				o = withSlice(o, svcAt("invoices-db", "10.96.0.41", map[string]string{"app": "invoices-db"}, 5432), "invoices-db-")
				return append(o, cmWith("billing-settings", "DB_HOST", "invoice-db"), fx.Node("node-1"))
			},
			logs: nil,
			rule: "dependency-host-unknown", culprit: "ConfigMap/billing-settings", affected: []string{"Deployment/billing"},
			terms: []string{"invoice-db", "invoices-db"}},
		{name: "a Running consumer configured right is not blamed", problem: "is anything wrong?",
			objs: func() []runtime.Object {
				o := app("consumer", 1, envFrom("consumer-settings"), nil)
				o = append(o, app("broker", 1, nil, nil)...)
				o = withSlice(o, svcAt("broker", "10.96.0.40", brokers, 7000), "broker-")
				return append(o, cmWith("consumer-settings", "BROKER_ADDR", "broker:7000", "UPSTREAM_URL", "https://api.partner.example.com:8443"), fx.Node("node-1"))
			},
			logs: nil, rule: "no-problem-found"},
		{name: "a generic crash whose configured host resembles no Service stays the workload's", problem: "billing keeps restarting",
			objs: func() []runtime.Object {
				o := app("billing", 1, envFrom("billing-settings"), withTermMsg("fatal: startup failed, see log"))
				o = append(o, app("invoices-db", 1, nil, nil)...)
				o = withSlice(o, svcAt("invoices-db", "10.96.0.41", map[string]string{"app": "invoices-db"}, 5432), "invoices-db-")
				return append(o, cmWith("billing-settings", "DB_HOST", "ledger"), fx.Node("node-1"))
			},
			logs: nil, rule: "crash-loop", culprit: "Deployment/billing", terms: []string{"startup failed"}},
	})
}
