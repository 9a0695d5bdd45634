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
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubage/kubage/internal/tools"
)

// A policy that drops a call is fixed in one of its rules or in the labels of the pods it
// expects: a reader needs what the rules do admit (which labels, which ports), and the
// labels the dropped client lacks, to choose.

// maxRulesWorded bounds the rules a summary spells out.
const maxRulesWorded = 4

// policyAdmits says in words what a policy's rules of direction dir let through.
func policyAdmits(pol *networkingv1.NetworkPolicy, dir networkingv1.PolicyType) string {
	type rule struct {
		peers []networkingv1.NetworkPolicyPeer
		ports []networkingv1.NetworkPolicyPort
	}
	var rules []rule
	word := "from"
	if dir == networkingv1.PolicyTypeEgress {
		word = "to"
		for _, r := range pol.Spec.Egress {
			rules = append(rules, rule{r.To, r.Ports})
		}
	} else {
		for _, r := range pol.Spec.Ingress {
			rules = append(rules, rule{r.From, r.Ports})
		}
	}
	if len(rules) == 0 {
		return fmt.Sprintf("no %s at all", strings.ToLower(string(dir)))
	}
	var out []string
	for i, r := range rules {
		if i == maxRulesWorded {
			out = append(out, fmt.Sprintf("%d more rule(s)", len(rules)-i))
			break
		}
		out = append(out, portsWorded(r.ports)+" "+word+" "+peersWorded(r.peers))
	}
	return strings.Join(out, "; ")
}

func portsWorded(ports []networkingv1.NetworkPolicyPort) string {
	if len(ports) == 0 {
		return "all ports"
	}
	var ps []string
	for _, p := range ports {
		proto := "TCP"
		if p.Protocol != nil {
			proto = string(*p.Protocol)
		}
		s := proto
		if p.Port != nil {
			s += " " + p.Port.String()
			if p.EndPort != nil {
				s += fmt.Sprintf("-%d", *p.EndPort)
			}
		}
		ps = append(ps, s)
	}
	return "port " + strings.Join(ps, ", ")
}

func peersWorded(peers []networkingv1.NetworkPolicyPeer) string {
	if len(peers) == 0 {
		return "anywhere"
	}
	var ds []string
	for _, p := range peers {
		switch {
		case p.IPBlock != nil:
			d := p.IPBlock.CIDR
			if len(p.IPBlock.Except) > 0 {
				d += " except " + strings.Join(p.IPBlock.Except, ",")
			}
			ds = append(ds, d)
		case p.NamespaceSelector != nil:
			d := "pods of selected namespaces"
			if s := selectorWorded(p.NamespaceSelector); s != "" {
				d += " (" + s + ")"
			}
			if s := selectorWorded(p.PodSelector); s != "" {
				d += " labelled " + s
			}
			ds = append(ds, d)
		default:
			if s := selectorWorded(p.PodSelector); s != "" {
				ds = append(ds, "pods labelled "+s)
			} else {
				ds = append(ds, "pods of this namespace")
			}
		}
	}
	return strings.Join(ds, ", ")
}

// selectorWorded renders a selector's labels and expressions, "" for none.
func selectorWorded(s *metav1.LabelSelector) string {
	if s == nil {
		return ""
	}
	parts := []string{}
	if len(s.MatchLabels) > 0 {
		parts = append(parts, tools.LabelsString(s.MatchLabels))
	}
	for _, x := range s.MatchExpressions {
		parts = append(parts, fmt.Sprintf("%s %s (%s)", x.Key, strings.ToLower(string(x.Operator)), strings.Join(x.Values, ",")))
	}
	return strings.Join(parts, ",")
}

// labelsLacking says, for the closest rule peer of a policy that selects pods of the
// namespace by matchLabels only, which of its labels the pod lacks or carries with another
// value, when that peer is a label or two from admitting it ("" when no peer is that close):
// "lacks fraud-client=true".
func labelsLacking(pol *networkingv1.NetworkPolicy, dir networkingv1.PolicyType, podLabels map[string]string) string {
	var peers []networkingv1.NetworkPolicyPeer
	if dir == networkingv1.PolicyTypeEgress {
		for _, r := range pol.Spec.Egress {
			peers = append(peers, r.To...)
		}
	} else {
		for _, r := range pol.Spec.Ingress {
			peers = append(peers, r.From...)
		}
	}
	best, bestN := "", 3
	for _, p := range peers {
		if p.IPBlock != nil || p.NamespaceSelector != nil || p.PodSelector == nil || len(p.PodSelector.MatchExpressions) > 0 || len(p.PodSelector.MatchLabels) == 0 {
			continue
		}
		var absent, differ []string
		for _, k := range sortedKeys(p.PodSelector.MatchLabels) {
			v := p.PodSelector.MatchLabels[k]
			switch have, ok := podLabels[k]; {
			case !ok:
				absent = append(absent, k+"="+v)
			case have != v:
				differ = append(differ, fmt.Sprintf("%s=%s where the rule asks %s=%s", k, have, k, v))
			}
		}
		n := len(absent) + len(differ)
		// Labels the pod lacks altogether, or one value off while the peer's other labels
		// match: a peer whose values differ otherwise names another workload, not a gap.
		near := len(differ) == 0 && len(absent) > 0 || len(absent) == 0 && len(differ) == 1 && len(p.PodSelector.MatchLabels) >= 2
		if !near || n >= bestN {
			continue
		}
		var words []string
		if len(absent) > 0 {
			words = append(words, "lacks "+strings.Join(absent, ","))
		}
		if len(differ) > 0 {
			words = append(words, "carries "+strings.Join(differ, ", "))
		}
		best, bestN = strings.Join(words, " and "), n
	}
	return best
}
