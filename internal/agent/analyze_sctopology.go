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
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// A StorageClass's allowedTopologies limit where its volumes may be provisioned, by node
// labels. Copied from an example or an older cluster, they may name a label no node carries
// any more (failure-domain.beta.kubernetes.io/zone, removed in favour of
// topology.kubernetes.io/zone) or a zone the cluster does not have: then no node qualifies,
// the scheduler cannot place the claim's pod and nothing is provisioned, with no error of the
// provisioner to read. topologyUnmatched compares the terms with the nodes' labels.

// maxTopologyNodes bounds the nodes read to judge a class's topologies.
const maxTopologyNodes = 500

// topologyUnmatched reports a Pending claim whose StorageClass's allowedTopologies no node meets.
func (e *env) topologyUnmatched(ctx context.Context, sc *storagev1.StorageClass, pvc *corev1.PersistentVolumeClaim, cref, scRef ObjectRef, evIDs []string, facts map[string]string) bool {
	if len(sc.AllowedTopologies) == 0 {
		return false
	}
	nodes, err := listOnce[*corev1.Node](ctx, e, "Node", maxTopologyNodes)
	if err != nil || len(nodes) == 0 {
		return false
	}
	var terms []string
	for _, t := range sc.AllowedTopologies {
		var exprs []string
		for _, x := range t.MatchLabelExpressions {
			exprs = append(exprs, fmt.Sprintf("%s in (%s)", x.Key, strings.Join(x.Values, ", ")))
		}
		terms = append(terms, strings.Join(exprs, " and "))
		for _, n := range nodes {
			if nodeMeetsTerm(n, t) {
				return false
			}
		}
	}
	// What the nodes do carry for the keys asked, so the reader sees the label to use instead.
	carry := ""
	for _, t := range sc.AllowedTopologies {
		for _, x := range t.MatchLabelExpressions {
			if v, ok := nodes[0].Labels[x.Key]; ok {
				carry = fmt.Sprintf(" Node %s has %s=%s.", nodes[0].Name, x.Key, v)
			} else if z, ok := nodes[0].Labels[corev1.LabelTopologyZone]; ok && strings.Contains(x.Key, "zone") {
				carry = fmt.Sprintf(" No node has the label %s; node %s has %s=%s.", x.Key, nodes[0].Name, corev1.LabelTopologyZone, z)
			} else {
				carry = fmt.Sprintf(" No node has the label %s.", x.Key)
			}
		}
	}
	facts["allowedTopologies"] = strings.Join(terms, "; or ")
	e.find(Finding{Rule: "storageclass-topology-unmatched", Object: cref, Culprit: scRef, Affected: []ObjectRef{cref}, Evidence: evIDs, Facts: facts,
		Summary: fmt.Sprintf("PersistentVolumeClaim %s is Pending: StorageClass %s allows volumes only where %s, and none of the %d node(s) has such labels, so no node can take the claim's pod and nothing is provisioned.%s Fix allowedTopologies in StorageClass %s (a StorageClass cannot be edited: recreate it) or label the nodes.",
			pvc.Name, sc.Name, facts["allowedTopologies"], len(nodes), carry, sc.Name)})
	return true
}

// nodeMeetsTerm reports whether node n carries every label a topology term asks for.
func nodeMeetsTerm(n *corev1.Node, t corev1.TopologySelectorTerm) bool {
	for _, x := range t.MatchLabelExpressions {
		v, ok := n.Labels[x.Key]
		if !ok || !containsStr(x.Values, v) {
			return false
		}
	}
	return true
}

// A WaitForFirstConsumer claim binds when the scheduler places its first pod: the scheduler
// picks the node and the volume together. A pod that names its node itself (spec.nodeName)
// skips the scheduler, so the claim waits forever and the pod cannot mount it.
// nodeNameBypass finds such a pod of the claim and the workload that sets nodeName.
func (e *env) nodeNameBypass(ctx context.Context, pvc *corev1.PersistentVolumeClaim, sc *storagev1.StorageClass, cref, scRef ObjectRef, evIDs []string, facts map[string]string) bool {
	pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects)
	if err != nil {
		return false
	}
	for _, p := range pods {
		if p.Spec.NodeName == "" || p.Status.Phase != corev1.PodPending || !podUsesClaim(p, pvc.Name) {
			continue
		}
		if pvc.Annotations[annSelectedNode] != "" {
			continue // the scheduler did pick a node for the claim: provisioning is the question
		}
		wl := e.workloadOf(ctx, p)
		facts["node"] = p.Spec.NodeName
		facts["sourceResource"] = kubectlResource(wl)
		e.find(Finding{Rule: "pvc-nodename-bypasses-scheduler", Object: cref, Culprit: wl, Affected: []ObjectRef{cref, e.ref("Pod", p.Name), scRef}, Evidence: evIDs, Facts: facts,
			Summary: fmt.Sprintf("PersistentVolumeClaim %s stays Pending: its StorageClass %s binds volumes WaitForFirstConsumer, that is when the scheduler places the first pod using it, but pod %s of %s %s sets spec.nodeName %s itself and so never passes the scheduler: the claim is never bound and the pod cannot mount it. Replace nodeName with a nodeSelector (kubernetes.io/hostname: %s) or node affinity in %s %s.",
				pvc.Name, sc.Name, p.Name, wl.Kind, wl.Name, p.Spec.NodeName, p.Spec.NodeName, wl.Kind, wl.Name)})
		return true
	}
	return false
}

// annSelectedNode is the annotation the scheduler puts on a WaitForFirstConsumer claim when
// it picks the node of the claim's first pod; a pod on a node with the claim still without
// it never passed the scheduler.
const annSelectedNode = "volume.kubernetes.io/selected-node"
