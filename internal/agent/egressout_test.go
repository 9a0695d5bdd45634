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

	"github.com/kubage/kubage/internal/agent"
	fx "github.com/kubage/kubage/test/fixtures"
)

// egressPolicy isolates the pods matching sel (all pods when nil) for egress with rules.
func egressPolicy(name string, sel map[string]string, rules ...networkingv1.NetworkPolicyEgressRule) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: sel}, PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}, Egress: rules}}
}

func dnsRule() networkingv1.NetworkPolicyEgressRule {
	udp, tcp := corev1.ProtocolUDP, corev1.ProtocolTCP
	p := intstr.FromInt32(53)
	return networkingv1.NetworkPolicyEgressRule{Ports: []networkingv1.NetworkPolicyPort{{Protocol: &udp, Port: &p}, {Protocol: &tcp, Port: &p}}}
}

func toCIDR(cidr string, port int32, except ...string) networkingv1.NetworkPolicyEgressRule {
	r := networkingv1.NetworkPolicyEgressRule{To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: cidr, Except: except}}}}
	if port > 0 {
		p := intstr.FromInt32(port)
		r.Ports = []networkingv1.NetworkPolicyPort{{Port: &p}}
	}
	return r
}

func toNamespaces() networkingv1.NetworkPolicyEgressRule {
	return networkingv1.NetworkPolicyEgressRule{To: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{}}}}
}

// A client that times out calling a host outside the cluster is explained by the egress
// policy that allows it only DNS, pods, or private ranges, with what that policy allows:
// whether the host is a public IP or a name, the port given or implied by https, the client
// Running and logging or crash-looping, the policy namespace-wide or on its pods alone.
func TestEgressToOutsideHosts(t *testing.T) {
	repeat := func(line string) string { return strings.Repeat(line+"\n", 4) }
	cases := []depCase{
		{name: "Ready notifier times out on a public IP:443; default egress allows DNS and 10.0.0.0/8", problem: "no notifications reach the chat channel",
			objs: func() []runtime.Object {
				return append(app("notifier", 2, nil, nil), egressPolicy("egress-lockdown", nil, dnsRule(), toCIDR("10.0.0.0/8", 0)), fx.Node("node-1"))
			},
			logs: logBook{"notifier-": repeat(`ts=2026-11-27T09:12:44Z level=error component=dispatcher msg="Notify for alerts failed" num_alerts=3 err="chat/webhook[0]: notify retry canceled after 7 attempts: Post \"<redacted>\": dial tcp 34.226.36.40:443: i/o timeout"`)},
			rule: "networkpolicy-deny-egress", culprit: "NetworkPolicy/egress-lockdown", affected: []string{"Deployment/notifier"},
			terms: []string{"34.226.36.40", "443", "10.0.0.0/8", "UDP 53", "outside the cluster"}},
		{name: "crash-looping Python billing worker times out on a payment API name; policy allows pods and DNS", problem: "billing worker keeps restarting",
			objs: func() []runtime.Object {
				return append(app("billing", 1, nil, crashing), egressPolicy("billing-egress", map[string]string{"app": "billing"}, dnsRule(), toNamespaces()), fx.Node("node-1"))
			},
			logs: logBook{"billing-": "Traceback (most recent call last):\n  File \"/app/charge.py\", line 88, in charge\nrequests.exceptions.ConnectTimeout: HTTPSConnectionPool(host='api.payments-provider.com', port=443): Max retries exceeded with url: /v1/charges (Caused by ConnectTimeoutError(<urllib3.connection.HTTPSConnection object at 0x7f>, 'Connection to api.payments-provider.com timed out. (connect timeout=10)'))\n"},
			rule: "networkpolicy-deny-egress", culprit: "NetworkPolicy/billing-egress", terms: []string{"api.payments-provider.com", "443", "pods of selected namespaces"}},
		{name: "Go exporter's https call without a port, context deadline exceeded; policy allows 443 to a private /12 only", problem: "metrics exports stopped",
			objs: func() []runtime.Object {
				return append(app("exporter", 1, nil, nil), egressPolicy("exporter-out", map[string]string{"app": "exporter"}, dnsRule(), toCIDR("172.16.0.0/12", 443)), fx.Node("node-1"))
			},
			logs: logBook{"exporter-": repeat(`2026/11/27 09:14:02 ERROR export failed: Post "https://ingest.metrics-saas.io/api/v2/series": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`)},
			rule: "networkpolicy-deny-egress", culprit: "NetworkPolicy/exporter-out", terms: []string{"ingest.metrics-saas.io", "172.16.0.0/12"}},
	}
	runDepCases(t, cases)
}

// A policy that admits the public internet on the port, or a host under a private suffix
// that the private ranges may hold, is not blamed.
func TestEgressToOutsideAdmitted(t *testing.T) {
	line := strings.Repeat(`level=error msg="send failed" err="dial tcp 52.1.2.3:443: i/o timeout"`+"\n", 4)
	for name, objs := range map[string][]runtime.Object{
		"0.0.0.0/0 except the private ranges on 443": {egressPolicy("internet-443", nil, dnsRule(), toCIDR("0.0.0.0/0", 443, "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"))},
		"a rule with no destination on 443":          {egressPolicy("any-443", nil, dnsRule(), networkingv1.NetworkPolicyEgressRule{Ports: []networkingv1.NetworkPolicyPort{{Port: fx.Ptr(intstr.FromInt32(443))}}})},
	} {
		t.Run(name, func(t *testing.T) {
			e := engine(append(append(app("sender", 1, nil, nil), objs...), fx.Node("node-1"))...)
			e.Logs = logBook{"sender-": line}.source()
			rc := drive(t, e, sessionFor("sends fail")).RootCause
			if rc.Rule == "networkpolicy-deny-egress" {
				t.Fatalf("blames a policy that admits the host: %s", rc.Summary)
			}
		})
	}
	e := engine(append(app("erp-sync", 1, nil, nil), egressPolicy("private-only", nil, dnsRule(), toCIDR("10.0.0.0/8", 0)), fx.Node("node-1"))...)
	e.Logs = logBook{"erp-sync-": strings.Repeat(`ERROR sync: dial tcp: lookup erp.corp.internal: i/o timeout`+"\n", 4)}.source()
	if rc := drive(t, e, sessionFor("erp sync fails")).RootCause; rc.Rule == "networkpolicy-deny-egress" {
		t.Fatalf("blames a private-only policy for a host under a private suffix: %s", rc.Summary)
	}
}

func sessionFor(problem string) agent.Session {
	return agent.Session{ID: "t", Problem: problem, Namespace: ns}
}
