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

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

func anyDestination(port int32) networkingv1.NetworkPolicyEgressRule {
	tcp := corev1.ProtocolTCP
	p := intstr.FromInt32(port)
	return networkingv1.NetworkPolicyEgressRule{Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: &p}}}
}

// A pod that times out calling the API server's Service address from behind an egress
// baseline admitting only DNS and 443 is cut off by the baseline: the policy applies after
// the address is translated to the API server's own port. A baseline admitting that port, or
// no egress policy at all, is not blamed.
func TestAPIServerEgressBaseline(t *testing.T) {
	exporter := func(extra ...runtime.Object) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("kube-state-metrics", 1, nil, crashing)
			return append(append(o, svcAt("kube-state-metrics", "10.96.14.2", map[string]string{"app": "kube-state-metrics"}, 8080), fx.Node("node-1")), extra...)
		}
	}
	timeout := logBook{"kube-state-metrics-": `E1127 15:40:41.403377       1 utils.go:72] "Failed to create client" err="error while trying to communicate with apiserver: Get \"https://10.96.0.1:443/version\": dial tcp 10.96.0.1:443: i/o timeout"` + "\n" +
		`I1127 15:40:41.403412       1 wrapper.go:98] "Exiting"` + "\n"}
	byName := logBook{"kube-state-metrics-": `F1127 15:40:41.4 main.go:91] Get "https://kubernetes.default.svc:443/api/v1/namespaces": dial tcp: i/o timeout` + "\n"}
	runDepCases(t, []depCase{
		{name: "baseline admits DNS and 443 only", problem: "all kube_* metrics are gone",
			objs: exporter(egressPolicy("egress-baseline", nil, dnsRule(), anyDestination(443))), logs: timeout,
			rule: "networkpolicy-deny-egress", culprit: "NetworkPolicy/egress-baseline", affected: []string{"Deployment/kube-state-metrics"},
			terms: []string{"API server", "10.96.0.1:443", "egress", "6443"}},
		{name: "the API server by its Service name", problem: "all kube_* metrics are gone",
			objs: exporter(egressPolicy("egress-baseline", nil, dnsRule(), anyDestination(443))), logs: byName,
			rule: "networkpolicy-deny-egress", culprit: "NetworkPolicy/egress-baseline", terms: []string{"API server", "egress"}},
	})
	// Admitting the API server's port, or having no egress policy, leaves the baseline unblamed.
	for name, objs := range map[string]func() []runtime.Object{
		"baseline admits 6443":    exporter(egressPolicy("egress-baseline", nil, dnsRule(), anyDestination(443), anyDestination(6443))),
		"an ipBlock on all ports": exporter(egressPolicy("egress-baseline", nil, dnsRule(), toCIDR("172.18.0.0/16", 0))),
		"no egress policy":        exporter(),
	} {
		t.Run(name, func(t *testing.T) {
			e := agent.NewRuleEngine(fake.NewClientset(objs()...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = timeout.source()
			c := drive(t, e, agent.Session{ID: "t", Problem: "all kube_* metrics are gone", Namespace: ns})
			if c.RootCause.Rule == "networkpolicy-deny-egress" {
				t.Fatalf("blamed a policy: %s", c.RootCause.Summary)
			}
		})
	}
}
