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
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubage/kubage/internal/tools"
)

// Clustered servers (etcd, Kafka, Cassandra, ZooKeeper, Redis Cluster, RabbitMQ) talk to
// their peers on a port of their own pods that clients never use: etcd's 2380, Cassandra's
// 7000, Redis Cluster's bus. A NetworkPolicy written for the clients' port isolates the
// members from each other: every member logs timeouts to the others on the peer port and the
// cluster never elects a leader, though each pod runs. The members' own port in the error,
// and the policy that does not admit the members to it, name the fault.

// peerPolicyBlocked reports a timed-out or refused call on a port the pod itself serves,
// which the policies isolating the pod do not admit from its own peers.
func (pc *podCheck) peerPolicyBlocked(ctx context.Context, d *depCheck) bool {
	if d.clue.Class != ErrTimeout && d.clue.Class != ErrRefused && d.clue.Class != ErrUnavail {
		return false
	}
	e := pc.e
	for i, h := range d.clue.Hosts {
		if i >= maxDepHosts {
			break
		}
		n, err := strconv.Atoi(h.Port)
		if err != nil {
			continue
		}
		port, own := netPort{}, false
		for _, c := range pc.pod.Spec.Containers {
			for _, cp := range c.Ports {
				if cp.ContainerPort == int32(n) {
					port, own = netPort{Number: cp.ContainerPort, Name: cp.Name, Protocol: cp.Protocol}, true
				}
			}
		}
		if !own || !pc.mayBePeer(ctx, h.Host) {
			continue
		}
		pols, err := listOnce[*networkingv1.NetworkPolicy](ctx, e, "NetworkPolicy", maxPolicyList)
		if err != nil || len(pols) == 0 {
			return false
		}
		self := netPeer{Labels: pc.pod.Labels, Namespace: e.s.Namespace, IP: pc.pod.Status.PodIP}
		ok, isolating := policyVerdict(pols, e.s.Namespace, pc.pod.Labels, networkingv1.PolicyTypeIngress, self, port)
		dir := "ingress"
		if ok {
			if ok, isolating = policyVerdict(pols, e.s.Namespace, pc.pod.Labels, networkingv1.PolicyTypeEgress, self, port); ok {
				continue
			}
			dir = "egress"
		}
		pol := isolating[0]
		nref := e.ref("NetworkPolicy", pol.Name)
		wl := e.workloadOf(ctx, pc.pod)
		d.evIDs = append(d.evIDs, e.objEvidence(nref, "NetworkPolicy "+pol.Name+": "+tools.Summarize(pol, e.now).Status))
		d.report(ctx, "networkpolicy-deny-"+dir, 85, nref, fmt.Sprintf("%s: the pods of %s %s call each other on port %s, a port of their own, and NetworkPolicy %s isolates them for %s (podSelector %s) without admitting pods labelled %s on that port, so the members cannot reach their peers. Add port %s for the members' own labels to the policy.",
			d.opening(), wl.Kind, wl.Name, portString(port), pol.Name, dir, policySelector(pol), podSelector(pc.pod), portString(port)),
			nil, []ObjectRef{nref}, map[string]string{"name": pol.Name, "port": portString(port)})
		return true
	}
	return false
}

// mayBePeer reports a host that can be a member of the pod's own workload: a Service (or a
// pod name under a headless Service) that selects the pod, or an IP that no Service and no
// pod of another workload holds.
func (pc *podCheck) mayBePeer(ctx context.Context, host string) bool {
	e := pc.e
	svcs, err := listOnce[*corev1.Service](ctx, e, "Service", maxServiceList)
	if err != nil {
		return false
	}
	selectsMe := pc.selectsSelf
	if net.ParseIP(host) != nil {
		for _, s := range svcs {
			if s.Spec.ClusterIP == host {
				return selectsMe(s)
			}
		}
		pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects)
		if err != nil {
			return false
		}
		mine := e.workloadOf(ctx, pc.pod)
		for _, p := range pods {
			if p.Status.PodIP == host {
				return e.workloadOf(ctx, p).Key() == mine.Key()
			}
		}
		return true
	}
	parts := strings.Split(strings.ToLower(host), ".")
	for _, s := range svcs {
		if parts[0] == s.Name || len(parts) > 1 && parts[1] == s.Name {
			return selectsMe(s)
		}
	}
	return false
}

// selectsSelf reports a Service that selects the pod under examination itself.
func (pc *podCheck) selectsSelf(s *corev1.Service) bool {
	return len(s.Spec.Selector) > 0 && labels.SelectorFromSet(s.Spec.Selector).Matches(labels.Set(pc.pod.Labels))
}
