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
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kubage/kubage/internal/tools"
)

// The network path between a client and the Service it calls: which container port the
// Service sends to, and whether the provider's ingress or the client's egress policies
// drop the call (or the DNS lookup before it).

// targetPortOf resolves the container port a Service port sends traffic to.
func targetPortOf(svc *corev1.Service, provider *corev1.Pod, callPort string) netPort {
	sp := corev1.ServicePort{}
	if len(svc.Spec.Ports) > 0 {
		sp = svc.Spec.Ports[0]
	}
	if p, err := strconv.Atoi(callPort); err == nil {
		for _, x := range svc.Spec.Ports {
			if x.Port == int32(p) {
				sp = x
			}
		}
	}
	np := netPort{Protocol: sp.Protocol, Number: sp.Port}
	tp := sp.TargetPort
	switch {
	case tp.Type == intstr.String && tp.StrVal != "":
		np.Name, np.Number = tp.StrVal, 0
	case tp.IntVal != 0:
		np.Number = tp.IntVal
	}
	for _, c := range provider.Spec.Containers {
		for _, cp := range c.Ports {
			if (np.Name != "" && cp.Name == np.Name) || (np.Name == "" && cp.ContainerPort == np.Number) {
				np.Name, np.Number = cp.Name, cp.ContainerPort
			}
		}
	}
	return np
}

// policyBlocks checks the provider's ingress and the consumer's egress policies for the call.
func (pc *podCheck) policyBlocks(ctx context.Context, d *depCheck, svc *corev1.Service, provider *corev1.Pod, h HostPort) bool {
	e := pc.e
	pols, err := listOnce[*networkingv1.NetworkPolicy](ctx, e, "NetworkPolicy", maxPolicyList)
	if err != nil || len(pols) == 0 {
		return false
	}
	port := targetPortOf(svc, provider, h.Port)
	consumer := netPeer{Labels: pc.pod.Labels, Namespace: e.s.Namespace, IP: pc.pod.Status.PodIP}
	if ok, isolating := policyVerdict(pols, e.s.Namespace, provider.Labels, networkingv1.PolicyTypeIngress, consumer, port); !ok {
		if near, why := portNearMiss(isolating, e.s.Namespace, consumer, port, provider); near != nil {
			// A rule meant for this client, on a port the provider does not serve under
			// that name or number: the rule to fix, not the policy that isolates.
			nref := e.ref("NetworkPolicy", near.Name)
			d.evIDs = append(d.evIDs, e.objEvidence(nref, "NetworkPolicy "+near.Name+": "+tools.Summarize(near, e.now).Status))
			d.report(ctx, "networkpolicy-deny-ingress", 86, nref, fmt.Sprintf("%s: it calls Service %s, whose pods are isolated for ingress; NetworkPolicy %s admits pods labelled %s, but only on %s, so the traffic is dropped. Name the port as the pods do (%s), or use its number.",
				d.opening(), svc.Name, near.Name, podSelector(pc.pod), why, portString(port)),
				nil, []ObjectRef{nref, e.ref("Service", svc.Name)}, map[string]string{"name": near.Name, "pods": provider.Name})
			return true
		}
		pol := isolating[0]
		nref := e.ref("NetworkPolicy", pol.Name)
		ev := e.objEvidence(nref, "NetworkPolicy "+pol.Name+": "+tools.Summarize(pol, e.now).Status)
		d.evIDs = append(d.evIDs, ev)
		extra := []ObjectRef{nref, e.ref("Service", svc.Name)}
		why := fmt.Sprintf(" Its ingress rules admit %s.", policyAdmits(pol, networkingv1.PolicyTypeIngress))
		if lack := labelsLacking(pol, networkingv1.PolicyTypeIngress, pc.pod.Labels); lack != "" {
			wl := pc.workloadOrPod(ctx)
			why += fmt.Sprintf(" The client %s %s: label its pod template (%s %s) or widen the rule.", pc.pod.Name, lack, wl.Kind, wl.Name)
			extra = append(extra, wl)
		}
		d.report(ctx, "networkpolicy-deny-ingress", 85, nref, fmt.Sprintf("%s: it calls Service %s, but NetworkPolicy %s isolates the provider pods (podSelector %s) for ingress and none of its rules admits pods labelled %s on port %s, so the traffic is dropped.%s",
			d.opening(), svc.Name, pol.Name, policySelector(pol), podSelector(pc.pod), portString(port), why),
			nil, extra, map[string]string{"name": pol.Name, "pods": provider.Name})
		return true
	}
	peer := netPeer{Labels: provider.Labels, Namespace: e.s.Namespace, IP: provider.Status.PodIP}
	if pc.egressBlocked(ctx, d, h, &struct {
		peer netPeer
		port netPort
		svc  string
	}{peer, port, svc.Name}) {
		return true
	}
	if d.clue.Class != ErrTimeout {
		return false
	}
	// Dropped packets (a timeout) to ready pods, and the only rule admitting the client asks
	// its namespace for a label the session cannot see: that label is the likely gap.
	if pol, sel := undecidedAdmission(pols, e.s.Namespace, provider.Labels, networkingv1.PolicyTypeIngress, consumer, port); pol != nil {
		return pc.reportUndecided(ctx, d, pol, sel, "admits ingress", svc.Name, port)
	}
	if pol, sel := undecidedAdmission(pols, e.s.Namespace, pc.pod.Labels, networkingv1.PolicyTypeEgress, peer, port); pol != nil {
		return pc.reportUndecided(ctx, d, pol, sel, "allows egress of pod "+pc.pod.Name, svc.Name, port)
	}
	return false
}

// reportUndecided blames a policy whose only admitting rule needs a namespace label: a peer
// that sets namespaceSelector and podSelector together matches pods that satisfy both, and
// the client's timeout says its namespace does not carry the label.
func (pc *podCheck) reportUndecided(ctx context.Context, d *depCheck, pol *networkingv1.NetworkPolicy, sel, verb, svc string, port netPort) bool {
	e := pc.e
	nref := e.ref("NetworkPolicy", pol.Name)
	d.evIDs = append(d.evIDs, e.objEvidence(nref, "NetworkPolicy "+pol.Name+": "+tools.Summarize(pol, e.now).Status))
	rule, dirWord := "networkpolicy-deny-ingress", "from"
	if !strings.HasPrefix(verb, "admits") {
		rule, dirWord = "networkpolicy-deny-egress", "to"
	}
	d.report(ctx, rule, 72, nref, fmt.Sprintf("%s: Service %s has ready pods, yet the connection times out. NetworkPolicy %s %s on port %s only %s namespaces matching namespaceSelector %s: in one peer, namespaceSelector and podSelector must both match, and the timeout says namespace %s does not carry that label. Label the namespace, or make the namespaceSelector and the podSelector two separate peers if either was meant to be enough.",
		d.opening(), svc, pol.Name, verb, portString(port), dirWord, sel, e.s.Namespace), nil, []ObjectRef{nref, e.ref("Service", svc)}, map[string]string{"name": pol.Name})
	return true
}

func portString(p netPort) string {
	switch {
	case p.Name != "" && p.Number != 0:
		return fmt.Sprintf("%d (%s)", p.Number, p.Name)
	case p.Name != "":
		return p.Name
	}
	return strconv.Itoa(int(p.Number))
}

// egressBlocked reports an egress policy on the consumer that drops the call: first the DNS
// lookup a host name needs, then the connection to the provider when one is known.
func (pc *podCheck) egressBlocked(ctx context.Context, d *depCheck, h HostPort, to *struct {
	peer netPeer
	port netPort
	svc  string
}) bool {
	e := pc.e
	pols, err := listOnce[*networkingv1.NetworkPolicy](ctx, e, "NetworkPolicy", maxPolicyList)
	if err != nil || len(pols) == 0 {
		return false
	}
	report := func(pol *networkingv1.NetworkPolicy, what string) bool {
		nref := e.ref("NetworkPolicy", pol.Name)
		d.evIDs = append(d.evIDs, e.objEvidence(nref, "NetworkPolicy "+pol.Name+": "+tools.Summarize(pol, e.now).Status))
		extra := []ObjectRef{nref}
		if to != nil {
			extra = append(extra, e.ref("Service", to.svc))
		}
		d.report(ctx, "networkpolicy-deny-egress", 85, nref, fmt.Sprintf("%s: NetworkPolicy %s isolates pod %s for egress (podSelector %s) and none of its rules allows %s. Its egress rules allow %s.",
			d.opening(), pol.Name, pc.pod.Name, policySelector(pol), what, policyAdmits(pol, networkingv1.PolicyTypeEgress)), nil, extra, map[string]string{"name": pol.Name})
		return true
	}
	if net.ParseIP(h.Host) == nil {
		if ok, isolating := dnsAllowed(pols, e.s.Namespace, pc.pod.Labels); !ok {
			what := "DNS (port 53 to kube-system): the name " + h.Host + " cannot even be resolved"
			if near := dnsNearMiss(isolating[0], e.s.Namespace); near != "" {
				what += "; " + near
			}
			return report(isolating[0], what)
		}
	}
	if to == nil {
		return false
	}
	if ok, isolating := policyVerdict(pols, e.s.Namespace, pc.pod.Labels, networkingv1.PolicyTypeEgress, to.peer, to.port); !ok {
		return report(isolating[0], fmt.Sprintf("traffic to the pods of Service %s on port %s, so the connection is dropped", to.svc, portString(to.port)))
	}
	return false
}

// policySelector renders a policy's podSelector for a reader: an empty one selects every pod
// of the namespace, which is what a default-deny policy means.
func policySelector(pol *networkingv1.NetworkPolicy) string {
	sel := pol.Spec.PodSelector
	if len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0 {
		return "{}, every pod in the namespace"
	}
	if len(sel.MatchExpressions) == 0 {
		return tools.LabelsString(sel.MatchLabels)
	}
	return tools.LabelsString(sel.MatchLabels) + " and match expressions"
}

// localTrafficOnly reports a Service with internalTrafficPolicy Local none of whose ready pods
// runs on the client's node: kube-proxy then drops the client's traffic, although the Service
// has ready endpoints elsewhere.
func (pc *podCheck) localTrafficOnly(ctx context.Context, d *depCheck, svc *corev1.Service, ready []*corev1.Pod, head string, facts map[string]string) bool {
	p := svc.Spec.InternalTrafficPolicy
	node := pc.pod.Spec.NodeName
	if p == nil || *p != corev1.ServiceInternalTrafficPolicyLocal || node == "" || svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return false
	}
	var nodes []string
	for _, r := range ready {
		if r.Spec.NodeName == node {
			return false
		}
		if r.Spec.NodeName != "" && !containsStr(nodes, r.Spec.NodeName) {
			nodes = append(nodes, r.Spec.NodeName)
		}
	}
	sref := pc.e.ref("Service", svc.Name)
	d.report(ctx, "dependency-unreachable", 80, sref, fmt.Sprintf("%s, which sets internalTrafficPolicy: Local, so traffic from a node goes only to ready pods on that same node; pod %s runs on node %s and the Service's %d ready pod(s) run on %s, so its connections are dropped. Set internalTrafficPolicy: Cluster, or run a backend on every client node (a DaemonSet).",
		head, pc.pod.Name, node, len(ready), strings.Join(clipList(nodes, 4), ", ")), nil, []ObjectRef{sref}, facts)
	return true
}

// portNearMiss finds, among the policies isolating the provider, an ingress rule whose peers
// admit the consumer but whose ports miss the one it calls: a named port no container of the
// provider defines (the Service's port name written for the pod's), or another number. It
// says which ports the rule lists and what the provider calls them.
func portNearMiss(pols []*networkingv1.NetworkPolicy, ns string, consumer netPeer, port netPort, provider *corev1.Pod) (*networkingv1.NetworkPolicy, string) {
	defined := map[string]bool{}
	for _, c := range provider.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name != "" {
				defined[cp.Name] = true
			}
		}
	}
	for _, pol := range pols {
		for _, r := range pol.Spec.Ingress {
			if len(r.Ports) == 0 || len(r.From) > 0 && !anyPeer(r.From, ns, consumer) || portMatches(r.Ports, port) {
				continue
			}
			var listed []string
			undefined := ""
			for _, p := range r.Ports {
				if p.Port == nil {
					continue
				}
				listed = append(listed, p.Port.String())
				if p.Port.StrVal != "" && !defined[p.Port.StrVal] && undefined == "" {
					undefined = p.Port.StrVal
				}
			}
			why := "port " + strings.Join(listed, ", ")
			if undefined != "" {
				why = fmt.Sprintf("the named port %s, which no container of pod %s defines", undefined, provider.Name)
			}
			return pol, why
		}
	}
	return nil, ""
}
