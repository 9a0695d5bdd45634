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
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

// Clauses about where the pod may go: its volumes' node affinity, host ports held, topology spread.

// volumeAffinity blames how the pod's volume got its node: a class that binds at claim time
// (volumeBindingMode Immediate) picked a local volume on a node the pod cannot use; with
// WaitForFirstConsumer the volume would be chosen where the pod fits. A volume of a
// late-binding class (or none) that still points elsewhere is itself the thing to change.
func (pc *podCheck) volumeAffinity(ctx context.Context, p *corev1.Pod, v *schedView, said string, evIDs []string) bool {
	for _, bv := range v.volumes {
		var allowed []string
		var why []string
		for _, b := range v.blocks {
			if !pvAllowsNode(bv.pv, b.node) {
				continue
			}
			allowed = append(allowed, b.node.Name)
			if len(why) < 3 {
				why = append(why, fmt.Sprintf("node %s: %s", b.node.Name, v.whyNot(b, p)))
			}
		}
		blocked := 0
		for _, b := range v.blocks {
			if !b.excluded && !pvAllowsNode(bv.pv, b.node) {
				blocked++
			}
		}
		if blocked == 0 {
			continue
		}
		e := pc.e
		pvRef, claimRef := e.ref("PersistentVolume", bv.pv.Name), e.ref("PersistentVolumeClaim", bv.claim.Name)
		class := bv.pv.Spec.StorageClassName
		if class == "" && bv.claim.Spec.StorageClassName != nil {
			class = *bv.claim.Spec.StorageClassName
		}
		mode := "unknown"
		var scRef ObjectRef
		if class != "" {
			if sc, err := getAs[*storagev1.StorageClass](ctx, e, "StorageClass", class); err == nil {
				scRef = e.ref("StorageClass", class)
				mode = "Immediate"
				if sc.VolumeBindingMode != nil {
					mode = string(*sc.VolumeBindingMode)
				}
			}
		}
		where := "no node"
		if len(allowed) > 0 {
			where = "only node(s) " + strings.Join(clipList(allowed, 4), ", ")
		}
		nodesWhy := ""
		if len(why) > 0 {
			nodesWhy = " The pod cannot use them (" + strings.Join(why, "; ") + ")."
		}
		// The mechanism comes before the scheduler's own message, which grows with the
		// cluster (one clause per kind of node) and would push it out of a bounded summary.
		summary := fmt.Sprintf("Pod %s cannot be scheduled: %d node(s) it may otherwise use have a volume node affinity conflict. Its claim %s is bound to PersistentVolume %s, whose node affinity (%s) allows %s.",
			p.Name, blocked, bv.claim.Name, bv.pv.Name, pvAffinityString(bv.pv), where)
		culprit := pvRef
		if mode == "Immediate" && !scRef.IsZero() {
			culprit = scRef
			// Names here can be long (node and volume names): the mechanism leads.
			summary = fmt.Sprintf("Pod %s cannot be scheduled: volumeBindingMode Immediate of StorageClass %s bound its claim %s to a local volume when the claim was created, before the scheduler chose a node for the pod; with WaitForFirstConsumer the volume is picked on a node where the pod fits. %d node(s) it may otherwise use conflict with PersistentVolume %s, whose node affinity (%s) allows %s.",
				p.Name, class, bv.claim.Name, blocked, bv.pv.Name, pvAffinityString(bv.pv), where)
		} else {
			summary += fmt.Sprintf(" The volume's node affinity pins it (StorageClass %s, volumeBindingMode %s): point the volume at a node the pod may use, or let the pod run where the volume is.", orDefault(class, "none"), mode)
		}
		summary += nodesWhy + " Scheduler: " + said
		evIDs = append(evIDs, e.objEvidence(pvRef, "PersistentVolume "+bv.pv.Name+": node affinity "+pvAffinityString(bv.pv)))
		pc.find(ctx, "unschedulable-volume-node-affinity", "", summary, culprit, evIDs,
			map[string]string{"volume": bv.pv.Name, "claim": bv.claim.Name, "class": orDefault(class, "none"), "bindingMode": mode, "nodes": strings.Join(clipList(allowed, 4), ", ")})
		pc.addAffected(cleanRefs([]ObjectRef{pvRef, claimRef, scRef}))
		return true
	}
	return false
}

// addAffected adds refs to the last finding's affected objects.
func (pc *podCheck) addAffected(refs []ObjectRef) {
	fs := pc.e.res.Findings
	if len(fs) == 0 {
		return
	}
	f := &fs[len(fs)-1]
	f.Affected = mergeRefs(f.Affected, refs)
}

// --- host ports ---------------------------------------------------------------------------

type hostPort struct {
	port     int32
	protocol corev1.Protocol
}

func hostPorts(s *corev1.PodSpec) []hostPort {
	var out []hostPort
	for _, c := range append(append([]corev1.Container{}, s.InitContainers...), s.Containers...) {
		for _, cp := range c.Ports {
			if cp.HostPort > 0 {
				out = append(out, hostPort{cp.HostPort, orProtocol(cp.Protocol)})
			}
		}
	}
	return out
}

func orProtocol(p corev1.Protocol) corev1.Protocol {
	if p == "" {
		return corev1.ProtocolTCP
	}
	return p
}

func portsOverlap(a, b []hostPort) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// portHolders names the pods that hold the host port the pod asks on the nodes it may use.
func (pc *podCheck) portHolders(ctx context.Context, p *corev1.Pod, v *schedView, said string, evIDs []string) bool {
	e := pc.e
	own := e.workloadOf(ctx, p)
	ports := hostPorts(&p.Spec)
	var holders []string
	var nodes []string
	counts := map[string]int{}
	refs := map[string]ObjectRef{}
	for _, b := range v.blocks {
		if b.excluded || len(b.holders) == 0 {
			continue
		}
		nodes = append(nodes, b.node.Name)
		for _, o := range b.holders {
			wl := e.workloadOf(ctx, o)
			counts[wl.Key()]++
			refs[wl.Key()] = wl
			if len(holders) < 4 {
				holders = append(holders, fmt.Sprintf("%s on %s", o.Name, b.node.Name))
			}
		}
	}
	if len(nodes) == 0 {
		return false
	}
	culprit := own
	top := ""
	for k := range counts {
		if top == "" || counts[k] > counts[top] || counts[k] == counts[top] && k < top {
			top = k
		}
	}
	if top != "" {
		culprit = refs[top]
	}
	var ps []string
	for _, hp := range ports {
		ps = append(ps, fmt.Sprintf("%d/%s", hp.port, hp.protocol))
	}
	who := fmt.Sprintf("%s %s", culprit.Kind, culprit.Name)
	if culprit.Key() == own.Key() {
		who = fmt.Sprintf("other replicas of %s %s itself (one pod per node can bind a host port)", own.Kind, own.Name)
	}
	summary := fmt.Sprintf("Pod %s cannot be scheduled (%s): it asks hostPort %s, and on %d of the node(s) it may use that port is already held by %s: pod(s) %s. A host port binds once per node and protocol.",
		p.Name, said, strings.Join(uniq(ps), ", "), len(nodes), who, strings.Join(holders, ", "))
	pc.find(ctx, "unschedulable-host-port", "", summary, culprit, evIDs,
		map[string]string{"hostPort": strings.Join(uniq(ps), ","), "nodes": strings.Join(clipList(nodes, 4), ", ")})
	pc.addAffected([]ObjectRef{own})
	return true
}

// --- topology spread ----------------------------------------------------------------------

// spreadDomains explains a DoNotSchedule spread constraint that a domain the pod can never
// use keeps unsatisfiable: with nodeTaintsPolicy unset (Ignore) a zone whose nodes all carry a
// taint the pod does not tolerate still counts as a domain, with 0 matching pods, and so does
// a zone of unselected nodes under nodeAffinityPolicy Ignore. The skew against that empty
// domain caps every other one.
func (pc *podCheck) spreadDomains(ctx context.Context, p *corev1.Pod, v *schedView, said string, evIDs []string) bool {
	e := pc.e
	pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects)
	if err != nil {
		return false
	}
	for _, c := range p.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == corev1.ScheduleAnyway {
			continue
		}
		taintsPolicy, affinityPolicy := corev1.NodeInclusionPolicyIgnore, corev1.NodeInclusionPolicyHonor
		if c.NodeTaintsPolicy != nil {
			taintsPolicy = *c.NodeTaintsPolicy
		}
		if c.NodeAffinityPolicy != nil {
			affinityPolicy = *c.NodeAffinityPolicy
		}
		usable := map[string]bool{}    // domain → some node the pod may run on
		counted := map[string]bool{}   // domains the constraint counts
		why := map[string][]string{}   // domain → why its nodes are closed
		nodeDom := map[string]string{} // node → domain
		for _, b := range v.blocks {
			d, ok := b.node.Labels[c.TopologyKey]
			if !ok {
				continue
			}
			selected := nodeMatchesPod(p, b.node)
			tainted := len(untoleratedTaints(p, b.node)) > 0
			if affinityPolicy == corev1.NodeInclusionPolicyHonor && !selected {
				continue
			}
			if taintsPolicy == corev1.NodeInclusionPolicyHonor && tainted {
				continue
			}
			counted[d] = true
			nodeDom[b.node.Name] = d
			if selected && !tainted && !b.kinds[ClauseCordoned] {
				usable[d] = true
				continue
			}
			if len(why[d]) < 2 {
				w := b.node.Name + ": " + v.whyNot(b, p)
				why[d] = append(why[d], w)
			}
		}
		sel := c.LabelSelector
		inDomain := map[string]int{}
		for _, o := range pods {
			if o.UID == p.UID || o.Spec.NodeName == "" || o.DeletionTimestamp != nil || sel == nil {
				continue
			}
			if d, ok := nodeDom[o.Spec.NodeName]; ok && selectorMatches(sel, o.Labels) {
				inDomain[d]++
			}
		}
		var dead []string
		for d := range counted {
			if !usable[d] {
				dead = append(dead, d)
			}
		}
		sort.Strings(dead)
		var counts []string
		for _, d := range sortedKeys(counted) {
			counts = append(counts, fmt.Sprintf("%s=%d", d, inDomain[d]))
		}
		policy := fmt.Sprintf("nodeTaintsPolicy %s, nodeAffinityPolicy %s", taintsPolicy, affinityPolicy)
		summary := fmt.Sprintf("Pod %s cannot be scheduled (%s): its topology spread constraint maxSkew=%d on %s (whenUnsatisfiable DoNotSchedule, %s) counts matching pods per domain %s.",
			p.Name, said, c.MaxSkew, c.TopologyKey, policy, strings.Join(clipList(counts, 6), ", "))
		if len(dead) > 0 {
			var ws []string
			for _, d := range dead {
				ws = append(ws, fmt.Sprintf("%s (%s)", d, strings.Join(why[d], "; ")))
			}
			fix := "set nodeTaintsPolicy: Honor so tainted nodes' domains are left out, or tolerate the taint"
			if taintsPolicy == corev1.NodeInclusionPolicyHonor {
				fix = "set nodeAffinityPolicy: Honor so unselected nodes' domains are left out"
			}
			summary += fmt.Sprintf(" Domain(s) %s hold no node the pod may run on, yet the constraint counts them as empty domains (0 matching pods), so no other domain may get more than %d pod(s) beyond them: %s.",
				strings.Join(clipList(ws, 3), ", "), c.MaxSkew, fix)
		} else {
			summary += " Every domain has a node the pod may use: the skew against the least-filled domain is what blocks; raise maxSkew or add room there."
		}
		pc.find(ctx, "unschedulable-topology-spread", "", summary, ObjectRef{}, evIDs,
			map[string]string{"topologyKey": c.TopologyKey, "maxSkew": fmt.Sprint(c.MaxSkew), "domains": strings.Join(clipList(counts, 6), ", ")})
		return true
	}
	return false
}
