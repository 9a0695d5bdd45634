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
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubage/kubage/internal/tools"
)

// The scheduler counts each node under the first filter that turned it away, so its message
// says how many nodes each reason stopped, not which reason to fix: a node counted under a
// taint may lack the cpu too. nodeBlocks works the reasons out again from the cluster, node
// by node (labels, taints, cordons, allocatable minus the requests bound there, host ports,
// the node affinity of the pod's volumes). Nodes the pod excludes on purpose (its own node
// selection, control-plane taints) are not candidates; among the rest, the clause to act on is
// the one that alone blocks the most nodes: fixing it leaves a node feasible. A node blocked
// for several reasons is not freed by fixing one. Nodes the cluster shows no reason for are
// the message's own (topology spread, inter-pod affinity), which only the scheduler computes.

// nodeBlock is why one node turns the pod away, from the cluster.
type nodeBlock struct {
	node  *corev1.Node
	kinds map[ClauseKind]bool
	// excluded is set for a node the pod does not select or that only a control-plane taint closes.
	excluded bool
	// short holds, per short resource, what the node has free for it.
	short map[corev1.ResourceName]resource.Quantity
	// holders are the pods of the namespace on the node that hold a host port the pod asks.
	holders []*corev1.Pod
}

// schedView is the pod's request and the nodes, judged.
type schedView struct {
	req    corev1.ResourceList
	blocks []*nodeBlock
	// bound maps a node to the visible pods bound there.
	bound map[string][]*corev1.Pod
	// volumes are the pod's bound volumes that carry a node affinity.
	volumes []boundVolume
}

type boundVolume struct {
	claim *corev1.PersistentVolumeClaim
	pv    *corev1.PersistentVolume
}

// maxBlockNodes bounds the nodes whose room is weighed.
const maxBlockNodes = 60

// viewNodes judges every node (bounded) against the pod.
func (pc *podCheck) viewNodes(ctx context.Context, p *corev1.Pod) (*schedView, bool) {
	e := pc.e
	nodes, err := listOnce[*corev1.Node](ctx, e, "Node", scanMaxObjects)
	if err != nil || len(nodes) == 0 {
		return nil, false
	}
	pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects)
	if err != nil {
		return nil, false
	}
	v := &schedView{req: tools.PodRequests(&p.Spec), bound: map[string][]*corev1.Pod{}}
	for _, o := range pods {
		if o.Spec.NodeName != "" && o.UID != p.UID && o.Status.Phase != corev1.PodSucceeded && o.Status.Phase != corev1.PodFailed {
			v.bound[o.Spec.NodeName] = append(v.bound[o.Spec.NodeName], o)
		}
	}
	v.volumes = pc.boundVolumes(ctx, p)
	ports := hostPorts(&p.Spec)
	weighed := 0
	for _, n := range nodes {
		b := &nodeBlock{node: n, kinds: map[ClauseKind]bool{}}
		if !nodeMatchesPod(p, n) {
			b.kinds[ClauseNodeAffinity] = true
			b.excluded = true
		}
		if n.Spec.Unschedulable && !toleratesUnschedulable(p) {
			b.kinds[ClauseCordoned] = true
		}
		if bad := untoleratedTaints(p, n); len(bad) > 0 {
			b.kinds[ClauseTaint] = true
			cp := true
			for _, t := range bad {
				if !strings.Contains(t.Key, "control-plane") && !strings.Contains(t.Key, "master") {
					cp = false
				}
			}
			b.excluded = b.excluded || cp
		}
		// Room is weighed on the nodes the pod may use (each costs a list of the node's pods).
		if !b.excluded && weighed < maxBlockNodes {
			weighed++
			b.short = pc.shortOn(ctx, n, v)
			if len(b.short) > 0 {
				b.kinds[ClauseInsufficient] = true
			}
		}
		for _, o := range v.bound[n.Name] {
			if portsOverlap(ports, hostPorts(&o.Spec)) {
				b.holders = append(b.holders, o)
			}
		}
		if len(b.holders) > 0 {
			b.kinds[ClausePorts] = true
		}
		for _, bv := range v.volumes {
			if !pvAllowsNode(bv.pv, n) {
				b.kinds[ClauseVolumeAffinity] = true
			}
		}
		v.blocks = append(v.blocks, b)
	}
	return v, true
}

// shortOn lists the resources the pod requests that node n lacks, with what it has free.
// cpu and memory count the requests of every pod bound to the node (all namespaces, summed
// without names); other resources count the namespace's pods.
func (pc *podCheck) shortOn(ctx context.Context, n *corev1.Node, v *schedView) map[corev1.ResourceName]resource.Quantity {
	out := map[corev1.ResourceName]resource.Quantity{}
	var all map[string]string
	for r, need := range v.req {
		if need.IsZero() {
			continue
		}
		alloc := n.Status.Allocatable[r]
		used := resource.Quantity{}
		counted := false
		if r == corev1.ResourceCPU || r == corev1.ResourceMemory {
			if all == nil {
				all = pc.nodeRequested(ctx, n.Name)
			}
			if s, ok := all[string(r)]; ok {
				if q, err := resource.ParseQuantity(s); err == nil {
					used, counted = q, true
				}
			}
		}
		if !counted {
			for _, o := range v.bound[n.Name] {
				used.Add(tools.PodRequests(&o.Spec)[r])
			}
		}
		free := alloc.DeepCopy()
		free.Sub(used)
		if free.Cmp(need) < 0 {
			out[r] = free
		}
	}
	return out
}

// nodeRequested is the node's requested cpu and memory over all namespaces. The whole
// cluster is summed in one list, once per session; only when that list is partial (a cluster
// larger than one bounded list) is each node asked on its own (memoized).
func (pc *podCheck) nodeRequested(ctx context.Context, node string) map[string]string {
	if pc.e.lists == nil {
		pc.e.lists = map[string]any{}
	}
	type clusterLoad struct {
		load     map[string]tools.NodeLoad
		complete bool
		err      error
	}
	cl, ok := pc.e.lists["NodeRequested"].(*clusterLoad)
	if !ok {
		cl = &clusterLoad{}
		cl.load, cl.complete, cl.err = pc.e.c.RequestedByNode(ctx)
		pc.e.lists["NodeRequested"] = cl
	}
	if cl.err != nil {
		// Other namespaces cannot be read: the caller counts the pods it sees.
		return map[string]string{}
	}
	if l, ok := cl.load[node]; ok || cl.complete {
		return map[string]string{"cpu": l.CPU.String(), "memory": l.Memory.String()}
	}
	key := "NodeRequested/" + node
	if m, ok := pc.e.lists[key].(map[string]string); ok {
		return m
	}
	r, err := pc.e.c.NodeStatus(ctx, node)
	m := map[string]string{}
	if err == nil {
		m = r.Requested
	}
	pc.e.lists[key] = m
	return m
}

// leadClause picks the clause to act on: the kind that alone blocks the most candidate nodes
// (the nodes the pod selects, less the tainted ones when some are not).
// freed counts those nodes; candidates counts the nodes the pod may use at all. kind is ""
// when every candidate node is blocked for several reasons, or there is no candidate.
func (v *schedView) leadClause(m SchedMessage) (kind ClauseKind, freed, candidates int) {
	singles := map[ClauseKind]int{}
	unexplained := 0
	// Nodes with a taint the pod does not tolerate are another team's pool when some node it
	// selects has none: those untainted nodes are where it was meant to run.
	untainted := false
	for _, b := range v.blocks {
		untainted = untainted || !b.excluded && !b.kinds[ClauseTaint]
	}
	for _, b := range v.blocks {
		if b.excluded || untainted && b.kinds[ClauseTaint] {
			continue
		}
		candidates++
		switch len(b.kinds) {
		case 0:
			unexplained++
		case 1:
			for k := range b.kinds {
				singles[k]++
			}
		}
	}
	// Nodes the cluster shows no reason for are stopped by a clause only the scheduler
	// computes (spread, inter-pod affinity, other volume filters): the largest of those.
	if unexplained > 0 {
		best, bestN := ClauseKind(""), 0
		for _, c := range m.Clauses {
			switch c.Kind {
			case ClauseSpread, ClauseAntiAffinity, ClausePodAffinity, ClauseVolume, ClauseOther:
				if c.Nodes > bestN {
					best, bestN = c.Kind, c.Nodes
				}
			}
		}
		if best != "" {
			singles[best] += unexplained
		}
	}
	order := []ClauseKind{ClauseVolumeAffinity, ClausePorts, ClauseSpread, ClauseAntiAffinity, ClausePodAffinity, ClauseInsufficient, ClauseTaint, ClauseCordoned, ClauseVolume, ClauseOther}
	for _, k := range order {
		if singles[k] > freed {
			kind, freed = k, singles[k]
		}
	}
	return kind, freed, candidates
}

// clausesSaid renders the message's clauses as the scheduler counted them ("2 Insufficient
// cpu, 1 untolerated taint"), bounded.
func clausesSaid(m SchedMessage) string {
	var parts []string
	for i, c := range m.Clauses {
		if i == 6 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprintf("%d %s", c.Nodes, c.Text))
	}
	if len(parts) == 0 {
		return ""
	}
	total := ""
	if m.Total > 0 {
		total = fmt.Sprintf("0/%d nodes are available: ", m.Total)
	}
	return total + strings.Join(parts, ", ")
}

// explainClauses follows the clause to act on to the object a user changes; false when the
// lead clause has no such follow-up here (the caller's rules then apply).
func (pc *podCheck) explainClauses(ctx context.Context, p *corev1.Pod, msg string, evIDs []string) bool {
	m := ParseSchedMessage(msg)
	if len(m.Clauses) == 0 {
		return false
	}
	v, ok := pc.viewNodes(ctx, p)
	if !ok {
		return false
	}
	kind, _, _ := v.leadClause(m)
	said := clausesSaid(m)
	switch kind {
	case ClauseVolumeAffinity:
		return pc.volumeAffinity(ctx, p, v, said, evIDs)
	case ClausePorts:
		return pc.portHolders(ctx, p, v, said, evIDs)
	case ClauseSpread:
		return pc.spreadDomains(ctx, p, v, said, evIDs)
	case ClauseVolume:
		// No volume to bind, zone, attach limits: the pod's claims say which.
		return pc.claims(ctx, evIDs)
	case ClauseInsufficient:
		if pc.preemptionNever(ctx, p, v, m, said, evIDs) {
			return true
		}
		return pc.unadvertised(ctx, p, v, m, said, evIDs)
	}
	return false
}

// --- volumes bound to a node -------------------------------------------------------------

// boundVolumes are the pod's claims bound to a PersistentVolume with a required node affinity.
func (pc *podCheck) boundVolumes(ctx context.Context, p *corev1.Pod) []boundVolume {
	var out []boundVolume
	for i, vol := range p.Spec.Volumes {
		if i == 20 || len(out) == 5 {
			break
		}
		name := ""
		switch {
		case vol.PersistentVolumeClaim != nil:
			name = vol.PersistentVolumeClaim.ClaimName
		case vol.Ephemeral != nil:
			name = p.Name + "-" + vol.Name
		default:
			continue
		}
		pvc, err := getAs[*corev1.PersistentVolumeClaim](ctx, pc.e, "PersistentVolumeClaim", name)
		if err != nil || pvc.Spec.VolumeName == "" {
			continue
		}
		pv, err := getAs[*corev1.PersistentVolume](ctx, pc.e, "PersistentVolume", pvc.Spec.VolumeName)
		if err != nil || pv.Spec.NodeAffinity == nil || pv.Spec.NodeAffinity.Required == nil {
			continue
		}
		out = append(out, boundVolume{claim: pvc, pv: pv})
	}
	return out
}

func pvAllowsNode(pv *corev1.PersistentVolume, n *corev1.Node) bool {
	for _, t := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
		if termMatches(t, n) {
			return true
		}
	}
	return false
}

// pvAffinityString renders a volume's required node affinity (bounded).
func pvAffinityString(pv *corev1.PersistentVolume) string {
	var terms []string
	for i, t := range pv.Spec.NodeAffinity.Required.NodeSelectorTerms {
		if i == 3 {
			break
		}
		var ex []string
		for j, r := range t.MatchExpressions {
			if j == 3 {
				break
			}
			ex = append(ex, strings.TrimSpace(fmt.Sprintf("%s %s %s", r.Key, r.Operator, bracketList(r.Values))))
		}
		terms = append(terms, strings.Join(ex, " and "))
	}
	return clipString(strings.Join(terms, " or "), 200)
}

// whyNot says why the pod cannot use a node, from its block.
func (v *schedView) whyNot(b *nodeBlock, p *corev1.Pod) string {
	var parts []string
	if b.kinds[ClauseNodeAffinity] {
		parts = append(parts, "the pod's node selection excludes it")
	}
	if b.kinds[ClauseCordoned] {
		parts = append(parts, "it is cordoned")
	}
	if b.kinds[ClauseTaint] {
		var ts []string
		for _, t := range untoleratedTaints(p, b.node) {
			ts = append(ts, tools.TaintString(t))
		}
		parts = append(parts, "it carries taint "+strings.Join(clipList(ts, 2), ", "))
	}
	for _, r := range sortedResources(b.short) {
		free, need := b.short[r], v.req[r]
		parts = append(parts, fmt.Sprintf("it has %s=%s free where the pod requests %s", r, free.String(), need.String()))
	}
	if len(b.holders) > 0 {
		parts = append(parts, "its host port is taken")
	}
	if len(parts) == 0 {
		return "no reason the cluster shows"
	}
	return strings.Join(parts, "; ")
}

func sortedResources(m map[corev1.ResourceName]resource.Quantity) []corev1.ResourceName {
	out := make([]corev1.ResourceName, 0, len(m))
	for r := range m {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
