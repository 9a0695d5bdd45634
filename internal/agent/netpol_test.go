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

package agent

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNamespaceSelectorOnLabelsAgentsCannotRead: agents may not read Namespaces, so a
// namespaceSelector on a team label cannot be decided and must not make a policy the culprit;
// the name label the API server sets still decides, and known labels decide everything.
func TestNamespaceSelectorOnLabelsAgentsCannotRead(t *testing.T) {
	ingressFrom := func(sel *metav1.LabelSelector) []*networkingv1.NetworkPolicy {
		return []*networkingv1.NetworkPolicy{{ObjectMeta: metav1.ObjectMeta{Name: "db-ingress", Namespace: "shop"},
			Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"tier": "db"}},
				PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
				Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: sel}}}}}}}
	}
	labelsSel := func(l map[string]string) *metav1.LabelSelector { return &metav1.LabelSelector{MatchLabels: l} }
	exprSel := func(key string, op metav1.LabelSelectorOperator, vals ...string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: key, Operator: op, Values: vals}}}
	}
	peer := netPeer{Labels: map[string]string{"app": "web"}, Namespace: "shop"}
	known := func(l map[string]string) netPeer { p := peer; p.NamespaceLabels = l; return p }
	for _, c := range []struct {
		name    string
		sel     *metav1.LabelSelector
		peer    netPeer
		allowed bool
	}{
		{"team label, labels unknown: cannot tell, not blamed", labelsSel(map[string]string{"team": "payments"}), peer, true},
		{"name label the docs suggest, labels unknown", labelsSel(map[string]string{"name": "shop"}), peer, true},
		{"In on a team label, labels unknown", exprSel("env", metav1.LabelSelectorOpIn, "prod", "staging"), peer, true},
		{"the API server's name label decides", labelsSel(map[string]string{"kubernetes.io/metadata.name": "monitoring"}), peer, false},
		{"the name label decides even beside a team label", labelsSel(map[string]string{"kubernetes.io/metadata.name": "monitoring", "team": "obs"}), peer, false},
		{"the name label admits", exprSel("kubernetes.io/metadata.name", metav1.LabelSelectorOpIn, "shop", "web"), peer, true},
		{"known labels: team label missing", labelsSel(map[string]string{"team": "payments"}), known(map[string]string{"team": "shop"}), false},
		{"known labels: team label present", labelsSel(map[string]string{"team": "payments"}), known(map[string]string{"team": "payments"}), true},
		{"known labels: NotIn", exprSel("env", metav1.LabelSelectorOpNotIn, "prod"), known(map[string]string{"env": "prod"}), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ok, isolating := policyVerdict(ingressFrom(c.sel), "shop", map[string]string{"tier": "db"}, networkingv1.PolicyTypeIngress, c.peer, netPort{Number: 5432})
			if ok != c.allowed {
				t.Fatalf("allowed = %v (isolating %d), want %v", ok, len(isolating), c.allowed)
			}
		})
	}
	// DNS: kube-system's labels are the API server's defaults, so a "name: kube-system" selector
	// (an older docs' habit) stays a near miss.
	pol := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "egress", Namespace: "shop"},
		Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
			Egress: []networkingv1.NetworkPolicyEgressRule{{To: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: labelsSel(map[string]string{"name": "kube-system"})}}}}}}
	if ok, _ := dnsAllowed([]*networkingv1.NetworkPolicy{pol}, "shop", map[string]string{"app": "web"}); ok {
		t.Fatal("DNS allowed through a name=kube-system selector kube-system does not match")
	}
	if near := dnsNearMiss(pol, "shop"); near == "" {
		t.Fatal("no near miss for name=kube-system")
	}
}
