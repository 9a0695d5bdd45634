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

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

func toPods(port int32) networkingv1.NetworkPolicyEgressRule {
	tcp := corev1.ProtocolTCP
	p := intstr.FromInt32(port)
	return networkingv1.NetworkPolicyEgressRule{To: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}}, Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: &p}}}
}

// A worker configured to call a Service by name, isolated for egress by a policy that admits
// the Service's pods but no DNS, resolves nothing: found from the spec when its log cannot be
// read, whether it stays Ready or crashes quietly. A policy that admits DNS is not blamed.
func TestEgressWithoutDNSFromTheSpec(t *testing.T) {
	worker := func(pod func(*corev1.Pod), rules ...networkingv1.NetworkPolicyEgressRule) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("ledger-worker", 1, withEnv("REDIS_URL", "redis://ledger-redis:6379/0"), pod)
			o = append(o, app("ledger-redis", 1, nil, nil)...)
			return append(o, svcAt("ledger-redis", "10.96.0.71", map[string]string{"app": "ledger-redis"}, 6379),
				egressPolicy("ledger-worker-egress", map[string]string{"app": "ledger-worker"}, rules...), fx.Node("node-1"))
		}
	}
	target := &agent.Target{Kind: "Deployment", Name: "ledger-worker"}
	for _, tc := range []struct {
		name  string
		objs  func() []runtime.Object
		blame bool
	}{
		// Policies see the pods' port (svcAt's Service sends 6379 to the pods' http, 8080).
		{"a Ready worker, no DNS admitted", worker(nil, toPods(8080)), true},
		{"a quietly crashing worker, no DNS admitted", worker(crashing, toPods(8080)), true},
		{"a Ready worker, DNS admitted", worker(nil, toPods(8080), dnsRule()), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := agent.NewRuleEngine(fake.NewClientset(tc.objs()...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = logBook(nil).source()
			c := drive(t, e, agent.Session{ID: "t", Problem: "ledger jobs are not processed", Namespace: ns, Target: target})
			rc := c.RootCause
			blamed := rc.Rule == "networkpolicy-deny-egress" && rc.Culprit.Name == "ledger-worker-egress"
			if blamed != tc.blame {
				t.Fatalf("blamed %v, want %v: %s on %s: %s", blamed, tc.blame, rc.Rule, rc.Culprit, rc.Summary)
			}
			if blamed && (!strings.Contains(rc.Summary, "DNS") || !strings.Contains(rc.Summary, "ledger-redis")) {
				t.Errorf("summary: %s", rc.Summary)
			}
			t.Logf("%s: %s", rc.Rule, rc.Summary)
		})
	}
}

// A Ready client whose log cannot be read, configured to call a Service whose pods a policy
// isolates for ingress without admitting it, is explained by that policy from the spec.
func TestIngressPolicyOnConfiguredProviderWithoutLogs(t *testing.T) {
	cluster := func(fromLabels map[string]string) func() []runtime.Object {
		return func() []runtime.Object {
			o := app("prometheus", 1, withEnv("ALERTMANAGER_URL", "http://alertmanager-main:9093"), nil)
			o = append(o, app("alertmanager", 1, nil, nil)...)
			p := intstr.FromInt32(8080)
			pol := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "alertmanager-main", Namespace: ns},
				Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "alertmanager"}}, PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
					Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: fromLabels}}}, Ports: []networkingv1.NetworkPolicyPort{{Port: &p}}}}}}
			return append(o, svcAt("alertmanager-main", "10.96.0.81", map[string]string{"app": "alertmanager"}, 9093), pol, fx.Node("node-1"))
		}
	}
	for _, tc := range []struct {
		name  string
		from  map[string]string
		blame bool
	}{
		{"the policy admits another app", map[string]string{"app": "grafana"}, true},
		{"the policy admits prometheus", map[string]string{"app": "prometheus"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := agent.NewRuleEngine(fake.NewClientset(cluster(tc.from)()...))
			e.Now = func() time.Time { return fx.Now }
			e.Logs = logBook(nil).source()
			c := drive(t, e, agent.Session{ID: "t", Problem: "no alerts reach the on-call", Namespace: ns, Target: &agent.Target{Kind: "Deployment", Name: "prometheus"}})
			rc := c.RootCause
			blamed := rc.Rule == "networkpolicy-deny-ingress" && rc.Culprit.Name == "alertmanager-main" && rc.Culprit.Kind == "NetworkPolicy"
			if blamed != tc.blame {
				t.Fatalf("blamed %v, want %v: %s on %s: %s", blamed, tc.blame, rc.Rule, rc.Culprit, rc.Summary)
			}
			t.Logf("%s: %s", rc.Rule, rc.Summary)
		})
	}
}
