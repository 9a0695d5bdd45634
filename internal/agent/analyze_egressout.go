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
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubage/kubage/internal/tools"
)

// A client that times out calling a host outside the cluster (a SaaS API, a webhook, a
// public IP on 443) while its in-cluster calls work is often cut off by an egress policy
// that allows only DNS, or only the private ranges. Only ipBlock rules (or a rule with no
// destination at all) can admit an outside host: pod and namespace selectors never do.

// privateRanges hold no host of the public internet.
var privateRanges = func() []*net.IPNet {
	var out []*net.IPNet
	for _, c := range []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "fc00::/7", "fe80::/10", "::1/128"} {
		if _, n, err := net.ParseCIDR(c); err == nil {
			out = append(out, n)
		}
	}
	return out
}()

// withinPrivate reports a CIDR that lies inside the private ranges (so it holds no public host).
func withinPrivate(cidr *net.IPNet) bool {
	ones, bits := cidr.Mask.Size()
	for _, p := range privateRanges {
		pOnes, pBits := p.Mask.Size()
		if pBits == bits && pOnes <= ones && p.Contains(cidr.IP) {
			return true
		}
	}
	return false
}

// outsideAdmitted reports whether an egress rule's destination may be a public host: ip when
// the address is known, any public address otherwise.
func outsideAdmitted(to []networkingv1.NetworkPolicyPeer, ip net.IP) bool {
	if len(to) == 0 {
		return true
	}
	for _, p := range to {
		if p.IPBlock == nil {
			continue // pod and namespace selectors select pods, never outside hosts
		}
		_, cidr, err := net.ParseCIDR(p.IPBlock.CIDR)
		if err != nil {
			continue
		}
		if ip == nil {
			if !withinPrivate(cidr) {
				return true
			}
			continue
		}
		if !cidr.Contains(ip) {
			continue
		}
		excluded := false
		for _, ex := range p.IPBlock.Except {
			if _, c, err := net.ParseCIDR(ex); err == nil && c.Contains(ip) {
				excluded = true
			}
		}
		if !excluded {
			return true
		}
	}
	return false
}

// outsidePorts are the ports a call to host may use: its own, or those of its scheme.
func outsidePorts(h HostPort) []netPort {
	if p, err := strconv.Atoi(h.Port); err == nil && p > 0 && p < 65536 {
		return []netPort{{Number: int32(p), Protocol: corev1.ProtocolTCP}}
	}
	return []netPort{{Number: 443, Protocol: corev1.ProtocolTCP}, {Number: 80, Protocol: corev1.ProtocolTCP}}
}

// egressOutsideBlocked reports the egress policies that drop the pod's call to a host outside
// the cluster: every policy isolating the pod for egress, none of whose rules admits the host
// on the port.
func egressOutsideBlocked(pols []*networkingv1.NetworkPolicy, ns string, podLabels map[string]string, h HostPort) []*networkingv1.NetworkPolicy {
	ip := net.ParseIP(h.Host)
	return egressBlockedUnless(pols, ns, podLabels, func(r networkingv1.NetworkPolicyEgressRule) bool {
		for _, port := range outsidePorts(h) {
			if portMatches(r.Ports, port) && outsideAdmitted(r.To, ip) {
				return true
			}
		}
		return false
	})
}

// egressBlockedUnless returns the policies isolating the pod for egress when none of their
// rules admits the call (admits says whether one does); nil when one does or none isolates.
func egressBlockedUnless(pols []*networkingv1.NetworkPolicy, ns string, podLabels map[string]string, admits func(networkingv1.NetworkPolicyEgressRule) bool) []*networkingv1.NetworkPolicy {
	var isolating []*networkingv1.NetworkPolicy
	for _, pol := range pols {
		if pol.Namespace != "" && pol.Namespace != ns || !selectsPod(pol, podLabels) || !isolates(pol, networkingv1.PolicyTypeEgress) {
			continue
		}
		isolating = append(isolating, pol)
		for _, r := range pol.Spec.Egress {
			if admits(r) {
				return nil
			}
		}
	}
	return isolating
}

// outsideHost reports whether the clue's host lies outside the cluster: a name that is no
// Service's, or an address outside the ranges of the cluster's Services and pods.
func (pc *podCheck) outsideHost(h HostPort, scope hostScope, svcs []*corev1.Service) bool {
	switch scope {
	case hostExternal:
		// Names under private suffixes may resolve to the private ranges a policy allows.
		low := strings.ToLower(strings.TrimSuffix(h.Host, "."))
		for _, s := range []string{".internal", ".local", ".localdomain", ".lan", ".corp", ".home.arpa"} {
			if strings.HasSuffix(low, s) {
				return false
			}
		}
		return !clusterName(h.Host, pc.e.s.Namespace)
	case hostIP:
		ip := net.ParseIP(h.Host)
		return ip != nil && !ip.IsLoopback() && !inClusterRange(ip, svcs, pc.pod)
	}
	return false
}

// egressToOutside reports a call outside the cluster that the pod's egress policies drop.
func (pc *podCheck) egressToOutside(ctx context.Context, d *depCheck, h HostPort) bool {
	if d.clue.Class != ErrTimeout && d.clue.Class != ErrRefused && d.clue.Class != ErrUnavail {
		return false
	}
	e := pc.e
	pols, err := listOnce[*networkingv1.NetworkPolicy](ctx, e, "NetworkPolicy", maxPolicyList)
	if err != nil || len(pols) == 0 {
		return false
	}
	blocking := egressOutsideBlocked(pols, e.s.Namespace, pc.pod.Labels, h)
	if len(blocking) == 0 {
		return false
	}
	pol := blocking[0]
	nref := e.ref("NetworkPolicy", pol.Name)
	d.evIDs = append(d.evIDs, e.objEvidence(nref, "NetworkPolicy "+pol.Name+": "+tools.Summarize(pol, e.now).Status))
	extra := []ObjectRef{nref}
	for _, p := range blocking[1:] {
		extra = append(extra, e.ref("NetworkPolicy", p.Name))
	}
	port := h.Port
	if port == "" {
		port = "443 or 80"
	}
	d.report(ctx, "networkpolicy-deny-egress", 85, nref, fmt.Sprintf("%s: it calls %s, outside the cluster, on port %s, but NetworkPolicy %s isolates pod %s for egress (podSelector %s) and allows only %s; no rule admits a public address on that port, so the connection is dropped.",
		d.opening(), h.Host, port, pol.Name, pc.pod.Name, policySelector(pol), policyAdmits(pol, networkingv1.PolicyTypeEgress)), nil, extra, map[string]string{"name": pol.Name, "host": h.Host})
	return true
}

// egressDNSDenied reports a pod configured to call a host by name while the egress policies
// isolating it admit no DNS: every lookup fails, whatever else they allow. It needs no word
// from the pod (a Ready worker whose log cannot be read still gets nothing done).
func (pc *podCheck) egressDNSDenied(ctx context.Context, d *depCheck) bool {
	pols, err := listOnce[*networkingv1.NetworkPolicy](ctx, pc.e, "NetworkPolicy", maxPolicyList)
	if err != nil || len(pols) == 0 {
		return false
	}
	if ok, _ := dnsAllowed(pols, pc.e.s.Namespace, pc.pod.Labels); ok {
		return false
	}
	for i, ch := range pc.configuredHosts(ctx, d) {
		if i >= maxConfiguredHosts {
			break
		}
		if (ch.hosty || ch.addr) && net.ParseIP(ch.host.Host) == nil {
			return pc.egressBlocked(ctx, d, ch.host, nil)
		}
	}
	return false
}
