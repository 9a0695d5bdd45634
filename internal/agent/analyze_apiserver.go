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
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/kubage/kubage/internal/tools"
)

// Pods reach the API server through the Service kubernetes in namespace default
// (10.96.0.1:443, kubernetes.default.svc). NetworkPolicy is enforced after kube-proxy has
// translated that address to the API server's own endpoint, the control plane's address on
// the port the API server listens on (6443 on clusters built with kubeadm): an egress rule
// admitting TCP 443 to anywhere does not admit it. A controller, exporter or operator that
// times out calling the API server from a namespace with an egress baseline is cut off by
// that baseline, although it looks as if it allowed the call.

// apiServerPort is the port kubeadm-built API servers listen on behind the Service's 443.
const apiServerPort = 6443

// apiServerCall reports whether a call to h goes to the API server: the Service's DNS names,
// or an address in the cluster's Service range that the error line says is the API server
// (or that is the range's first address, which the API server's Service takes).
func apiServerCall(h HostPort, line string, svcs []*corev1.Service, self *corev1.Pod) bool {
	host := strings.TrimSuffix(strings.ToLower(h.Host), ".")
	switch host {
	case "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local":
		return true
	}
	ip := net.ParseIP(host)
	if ip == nil || ip.To4() == nil || !inClusterRange(ip, svcs, self) || h.Port != "" && h.Port != "443" {
		return false
	}
	if v4 := ip.To4(); v4[2] == 0 && v4[3] == 1 {
		return true
	}
	low := strings.ToLower(line)
	return strings.Contains(low, "apiserver") || strings.Contains(low, "api server") || strings.Contains(low, "/api/v1") || strings.Contains(low, "/apis/") || strings.Contains(low, "/version")
}

// apiServerName finds the API server's Service DNS name in a line, with the port after it.
var apiServerName = regexp.MustCompile(`(?i)\bkubernetes\.default(?:\.svc(?:\.cluster\.local)?)?\.?(?::(\d{1,5}))?\b`)

// apiServerNamed returns the API server's Service name as a line calls it.
func apiServerNamed(line string) (HostPort, bool) {
	m := apiServerName.FindStringSubmatch(line)
	if m == nil {
		return HostPort{}, false
	}
	host := strings.TrimSuffix(m[0], ":"+m[1])
	return HostPort{Host: strings.ToLower(host), Port: m[1]}, true
}

// apiServerEgressBlocked reports a pod that times out calling the API server while an egress
// policy isolates it and no rule admits the API server's own port.
func (pc *podCheck) apiServerEgressBlocked(ctx context.Context, d *depCheck, h HostPort, svcs []*corev1.Service) bool {
	if d.clue.Class != ErrTimeout || !apiServerCall(h, d.clue.Line, svcs, pc.pod) {
		return false
	}
	e := pc.e
	pols, err := listOnce[*networkingv1.NetworkPolicy](ctx, e, "NetworkPolicy", maxPolicyList)
	if err != nil || len(pols) == 0 {
		return false
	}
	isolating := egressBlockedUnless(pols, e.s.Namespace, pc.pod.Labels, func(r networkingv1.NetworkPolicyEgressRule) bool {
		return portMatches(r.Ports, netPort{Number: apiServerPort, Protocol: corev1.ProtocolTCP}) && apiServerAdmitted(r.To)
	})
	if len(isolating) == 0 {
		return false
	}
	pol := isolating[0]
	nref := e.ref("NetworkPolicy", pol.Name)
	d.evIDs = append(d.evIDs, e.objEvidence(nref, "NetworkPolicy "+pol.Name+": "+tools.Summarize(pol, e.now).Status))
	extra := []ObjectRef{nref}
	for _, p := range isolating[1:] {
		extra = append(extra, e.ref("NetworkPolicy", p.Name))
	}
	d.report(ctx, "networkpolicy-deny-egress", 75, nref, fmt.Sprintf("%s: it calls the API server at %s, and NetworkPolicy %s isolates pod %s for egress (podSelector %s), allowing only %s. Policies apply after the Service address is translated to the API server's endpoint, whose own port (%d on kubeadm-built clusters) no rule admits, so the call is dropped. Admit egress to that endpoint's address and port.",
		d.opening(), h.String(), pol.Name, pc.pod.Name, policySelector(pol), policyAdmits(pol, networkingv1.PolicyTypeEgress), apiServerPort), nil, extra, map[string]string{"name": pol.Name, "host": h.Host})
	return true
}

// apiServerAdmitted reports whether an egress rule's destinations may include the API
// server's endpoint: any destination, or an ipBlock (its address is a node's or the control
// plane's, which this session cannot read). Pod and namespace selectors never select it.
func apiServerAdmitted(to []networkingv1.NetworkPolicyPeer) bool {
	if len(to) == 0 {
		return true
	}
	for _, p := range to {
		if p.IPBlock != nil {
			return true
		}
	}
	return false
}
