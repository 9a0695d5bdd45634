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
	"net"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// This file evaluates NetworkPolicies the way a CNI enforces them: a pod selected by a policy
// of a direction is isolated in that direction, and a connection is allowed only when some
// rule of some policy selecting the pod admits the peer and the port.

// netPeer is the other end of a connection.
type netPeer struct {
	Labels    map[string]string
	Namespace string
	IP        string
	// AnyPod marks a peer known only by namespace (cluster DNS), so any podSelector inside a
	// matching namespaceSelector admits it.
	AnyPod bool
	// NamespaceLabels are the peer namespace's labels when known. Agents may not read
	// Namespaces (that would show every tenant's labels), so they usually are not: then only
	// the kubernetes.io/metadata.name label the API server sets is certain.
	NamespaceLabels map[string]string
	// Strict counts a namespaceSelector that asks for a label the session cannot see as not
	// matching (the default counts it as matching, so no policy is blamed on a guess).
	Strict bool
}

// kubeSystemDNS is the cluster DNS as a peer: kube-system carries the API server's name label
// and, unless an administrator added more, nothing else.
var kubeSystemDNS = netPeer{Namespace: "kube-system", AnyPod: true,
	NamespaceLabels: map[string]string{corev1.LabelMetadataName: "kube-system"}}

// netPort is the destination port: the number and, when the container names it, the name.
type netPort struct {
	Number   int32
	Name     string
	Protocol corev1.Protocol
}

// isolates reports whether pol makes the pods it selects isolated in direction dir.
func isolates(pol *networkingv1.NetworkPolicy, dir networkingv1.PolicyType) bool {
	if len(pol.Spec.PolicyTypes) == 0 {
		// Without policyTypes, Ingress is implied and Egress only when egress rules exist.
		return dir == networkingv1.PolicyTypeIngress || len(pol.Spec.Egress) > 0
	}
	for _, t := range pol.Spec.PolicyTypes {
		if t == dir {
			return true
		}
	}
	return false
}

func selectsPod(pol *networkingv1.NetworkPolicy, podLabels map[string]string) bool {
	sel, err := metav1.LabelSelectorAsSelector(&pol.Spec.PodSelector)
	return err == nil && sel.Matches(labels.Set(podLabels))
}

func selectorMatches(s *metav1.LabelSelector, l map[string]string) bool {
	if s == nil {
		return false
	}
	sel, err := metav1.LabelSelectorAsSelector(s)
	return err == nil && sel.Matches(labels.Set(l))
}

// peerMatches applies one NetworkPolicyPeer of a policy in polNS to a peer.
func peerMatches(p networkingv1.NetworkPolicyPeer, polNS string, peer netPeer) bool {
	if p.IPBlock != nil {
		_, cidr, err := net.ParseCIDR(p.IPBlock.CIDR)
		ip := net.ParseIP(peer.IP)
		if err != nil || ip == nil || !cidr.Contains(ip) {
			return false
		}
		for _, ex := range p.IPBlock.Except {
			if _, c, err := net.ParseCIDR(ex); err == nil && c.Contains(ip) {
				return false
			}
		}
		return true
	}
	if p.NamespaceSelector == nil {
		// A bare podSelector means pods of the policy's own namespace.
		return peer.Namespace == polNS && (peer.AnyPod || selectorMatches(p.PodSelector, peer.Labels))
	}
	if !namespaceMatches(p.NamespaceSelector, peer) {
		return false
	}
	return p.PodSelector == nil || peer.AnyPod || selectorMatches(p.PodSelector, peer.Labels)
}

// namespaceMatches applies a namespaceSelector to the peer's namespace. With the namespace's
// labels unknown, a selector that asks for any other label (team=payments, name=shop) cannot
// be decided, and it counts as matching: the engine must not blame a policy for dropping
// traffic it may well admit.
func namespaceMatches(s *metav1.LabelSelector, peer netPeer) bool {
	if peer.NamespaceLabels != nil {
		l := map[string]string{corev1.LabelMetadataName: peer.Namespace}
		for k, v := range peer.NamespaceLabels {
			l[k] = v
		}
		return selectorMatches(s, l)
	}
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return false
	}
	name := labels.Set{corev1.LabelMetadataName: peer.Namespace}
	reqs, _ := sel.Requirements()
	for _, r := range reqs {
		// The name label decides its own requirements; any other label's cannot be decided.
		if r.Key() == corev1.LabelMetadataName && !r.Matches(name) || peer.Strict && r.Key() != corev1.LabelMetadataName {
			return false
		}
	}
	return true
}

func portMatches(ports []networkingv1.NetworkPolicyPort, port netPort) bool {
	if len(ports) == 0 || port.Number == 0 && port.Name == "" {
		return true
	}
	proto := port.Protocol
	if proto == "" {
		proto = corev1.ProtocolTCP
	}
	for _, p := range ports {
		pp := corev1.ProtocolTCP
		if p.Protocol != nil {
			pp = *p.Protocol
		}
		if pp != proto {
			continue
		}
		if p.Port == nil {
			return true
		}
		if p.Port.StrVal != "" {
			if p.Port.StrVal == port.Name {
				return true
			}
			continue
		}
		lo, hi := p.Port.IntVal, p.Port.IntVal
		if p.EndPort != nil {
			hi = *p.EndPort
		}
		if port.Number >= lo && port.Number <= hi {
			return true
		}
	}
	return false
}

// policyVerdict says whether traffic in direction dir for the pod with podLabels (in ns) to or
// from peer on port is allowed. It returns the isolating policies when it is not.
func policyVerdict(pols []*networkingv1.NetworkPolicy, ns string, podLabels map[string]string, dir networkingv1.PolicyType, peer netPeer, port netPort) (allowed bool, isolating []*networkingv1.NetworkPolicy) {
	for _, pol := range pols {
		if pol.Namespace != "" && pol.Namespace != ns || !selectsPod(pol, podLabels) || !isolates(pol, dir) {
			continue
		}
		isolating = append(isolating, pol)
		if dir == networkingv1.PolicyTypeIngress {
			for _, r := range pol.Spec.Ingress {
				if portMatches(r.Ports, port) && (len(r.From) == 0 || anyPeer(r.From, ns, peer)) {
					return true, nil
				}
			}
		} else {
			for _, r := range pol.Spec.Egress {
				if portMatches(r.Ports, port) && (len(r.To) == 0 || anyPeer(r.To, ns, peer)) {
					return true, nil
				}
			}
		}
	}
	return len(isolating) == 0, isolating
}

func anyPeer(peers []networkingv1.NetworkPolicyPeer, ns string, peer netPeer) bool {
	for _, p := range peers {
		if peerMatches(p, ns, peer) {
			return true
		}
	}
	return false
}

// dnsAllowed reports whether an egress-isolated pod may still reach the cluster DNS. The
// DNS pods' labels and IP are outside the session's view, so any rule that opens port 53
// to other namespaces or to an IP block counts as allowing it.
func dnsAllowed(pols []*networkingv1.NetworkPolicy, ns string, podLabels map[string]string) (bool, []*networkingv1.NetworkPolicy) {
	var isolating []*networkingv1.NetworkPolicy
	for _, pol := range pols {
		if pol.Namespace != "" && pol.Namespace != ns || !selectsPod(pol, podLabels) || !isolates(pol, networkingv1.PolicyTypeEgress) {
			continue
		}
		isolating = append(isolating, pol)
		for _, r := range pol.Spec.Egress {
			// Lookups go over UDP (TCP only for truncated answers): a rule that opens port 53
			// over TCP alone, as a port without protocol does, does not let them through.
			if !portMatches(r.Ports, netPort{Number: 53, Protocol: corev1.ProtocolUDP}) {
				continue
			}
			if len(r.To) == 0 {
				return true, nil
			}
			for _, p := range r.To {
				if p.IPBlock != nil || p.NamespaceSelector != nil && peerMatches(p, ns, kubeSystemDNS) {
					return true, nil
				}
			}
		}
	}
	return len(isolating) == 0, isolating
}

// dnsNearMiss describes a rule of pol that almost opens DNS, or "": port 53 to namespaces
// chosen by a selector kube-system does not match (a "name=kube-system" label the namespace
// does not carry), or port 53 over TCP only.
func dnsNearMiss(pol *networkingv1.NetworkPolicy, ns string) string {
	for _, r := range pol.Spec.Egress {
		udp := portMatches(r.Ports, netPort{Number: 53, Protocol: corev1.ProtocolUDP})
		if !udp && !portMatches(r.Ports, netPort{Number: 53, Protocol: corev1.ProtocolTCP}) {
			continue
		}
		for _, p := range r.To {
			if p.NamespaceSelector != nil && !peerMatches(p, ns, kubeSystemDNS) {
				return "its port-53 rule selects namespaces " + metav1.FormatLabelSelector(p.NamespaceSelector) + ", which does not select kube-system by its kubernetes.io/metadata.name label"
			}
		}
		if !udp {
			return "its port-53 rule admits TCP only (a port without protocol is TCP), and lookups go over UDP: add protocol UDP port 53"
		}
	}
	return ""
}

// undecidedAdmission finds, for traffic policyVerdict allows, the policy whose admission rests
// only on a namespaceSelector label the session cannot see: evaluated strictly, the traffic
// is dropped, and every rule that would admit it needs that label. It returns the policy and
// the selector ("" when the verdict does not hinge on such a label).
func undecidedAdmission(pols []*networkingv1.NetworkPolicy, ns string, podLabels map[string]string, dir networkingv1.PolicyType, peer netPeer, port netPort) (*networkingv1.NetworkPolicy, string) {
	strict := peer
	strict.Strict = true
	ok, isolating := policyVerdict(pols, ns, podLabels, dir, strict, port)
	if ok || len(isolating) == 0 {
		return nil, ""
	}
	for _, pol := range isolating {
		rules := pol.Spec.Ingress
		var peersOf func(i int) []networkingv1.NetworkPolicyPeer
		var portsOf func(i int) []networkingv1.NetworkPolicyPort
		n := len(rules)
		peersOf = func(i int) []networkingv1.NetworkPolicyPeer { return rules[i].From }
		portsOf = func(i int) []networkingv1.NetworkPolicyPort { return rules[i].Ports }
		if dir == networkingv1.PolicyTypeEgress {
			eg := pol.Spec.Egress
			n = len(eg)
			peersOf = func(i int) []networkingv1.NetworkPolicyPeer { return eg[i].To }
			portsOf = func(i int) []networkingv1.NetworkPolicyPort { return eg[i].Ports }
		}
		for i := 0; i < n; i++ {
			if !portMatches(portsOf(i), port) {
				continue
			}
			for _, p := range peersOf(i) {
				if p.NamespaceSelector != nil && peerMatches(p, ns, peer) && !peerMatches(p, ns, strict) {
					return pol, metav1.FormatLabelSelector(p.NamespaceSelector)
				}
			}
		}
	}
	return nil, ""
}
