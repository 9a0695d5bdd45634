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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/klog/v2"

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

// maxBlockNodes bounds the nodes whose room is weighed (each is asked for its cluster-wide requests).
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

// nodeRequested is the node's requested cpu and memory over all namespaces (memoized).
func (pc *podCheck) nodeRequested(ctx context.Context, node string) map[string]string {
	key := "NodeRequested/" + node
	if m, ok := pc.e.lists[key].(map[string]string); ok {
		return m
	}
	r, err := pc.e.c.NodeStatus(ctx, node)
	m := map[string]string{}
	if err == nil {
		m = r.Requested
	}
	if pc.e.lists == nil {
		pc.e.lists = map[string]any{}
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
		summary := fmt.Sprintf("Pod %s cannot be scheduled (%s): %d node(s) it may otherwise use have a volume node affinity conflict. Its claim %s is bound to PersistentVolume %s, whose node affinity (%s) allows %s.%s",
			p.Name, said, blocked, bv.claim.Name, bv.pv.Name, pvAffinityString(bv.pv), where, nodesWhy)
		culprit := pvRef
		if mode == "Immediate" && !scRef.IsZero() {
			culprit = scRef
			summary += fmt.Sprintf(" StorageClass %s has volumeBindingMode Immediate, so the claim was bound to that local volume when it was created, before the scheduler chose a node for the pod; with volumeBindingMode WaitForFirstConsumer the volume is picked on a node where the pod fits.", class)
		} else {
			summary += fmt.Sprintf(" The volume's node affinity pins it (StorageClass %s, volumeBindingMode %s): point the volume at a node the pod may use, or let the pod run where the volume is.", orDefault(class, "none"), mode)
		}
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

// --- preemption disabled ------------------------------------------------------------------

// preemptionNever blames the pod's PriorityClass when its preemptionPolicy Never is all that
// keeps lower-priority pods from making room: on some node the pod may use, their requests
// plus what is free cover the pod's.
func (pc *podCheck) preemptionNever(ctx context.Context, p *corev1.Pod, v *schedView, m SchedMessage, said string, evIDs []string) bool {
	never := p.Spec.PreemptionPolicy != nil && *p.Spec.PreemptionPolicy == corev1.PreemptNever
	if m.Preemption != nil && strings.Contains(m.Preemption.NotEligible, "Never") {
		never = true
	}
	if !never {
		return false
	}
	mine := priorityOf(p)
	for _, b := range v.blocks {
		if b.excluded || len(b.kinds) != 1 || !b.kinds[ClauseInsufficient] {
			continue
		}
		var victims []*corev1.Pod
		held := corev1.ResourceList{}
		for _, o := range v.bound[b.node.Name] {
			if priorityOf(o) >= mine {
				continue
			}
			victims = append(victims, o)
			for r, q := range tools.PodRequests(&o.Spec) {
				h := held[r]
				h.Add(q)
				held[r] = h
			}
		}
		if len(victims) == 0 {
			continue
		}
		fits := true
		var nums []string
		for _, r := range sortedResources(b.short) {
			free := b.short[r]
			room := free.DeepCopy()
			room.Add(held[r])
			need := v.req[r]
			if room.Cmp(need) < 0 {
				fits = false
			}
			hq := held[r]
			nums = append(nums, fmt.Sprintf("%s: the pod requests %s, %s is free and lower-priority pods request %s", r, need.String(), free.String(), hq.String()))
		}
		if !fits {
			continue
		}
		var names []string
		for i, o := range victims {
			if i == 3 {
				names = append(names, fmt.Sprintf("and %d more", len(victims)-3))
				break
			}
			names = append(names, fmt.Sprintf("%s (priority %d)", o.Name, priorityOf(o)))
		}
		class := p.Spec.PriorityClassName
		culprit := ObjectRef{}
		who := "its preemptionPolicy Never"
		if class != "" {
			culprit = pc.e.ref("PriorityClass", class)
			who = fmt.Sprintf("its PriorityClass %s sets preemptionPolicy: Never", class)
		}
		summary := fmt.Sprintf("Pod %s (priority %d) cannot be scheduled (%s). On node %s lower-priority pods %s hold the room (%s): the scheduler would preempt them for a pod of higher priority, but %s, so it never evicts anything and the pod waits for room to free up. Set preemptionPolicy: PreemptLowerPriority on the class (or use another class) to let it preempt.",
			p.Name, mine, said, b.node.Name, strings.Join(names, ", "), strings.Join(nums, "; "), who)
		pc.find(ctx, "unschedulable-preemption-never", "", summary, culprit, evIDs,
			map[string]string{"priorityClass": orDefault(class, "none"), "priority": fmt.Sprint(mine), "node": b.node.Name})
		return true
	}
	return false
}

// --- extended resources nobody advertises -------------------------------------------------

// unadvertised follows "Insufficient vendor/name" that no node advertises to the device
// plugin that should register it: a DaemonSet of the namespace whose name, image or arguments
// name the resource, with its pods' state and last words.
func (pc *podCheck) unadvertised(ctx context.Context, p *corev1.Pod, v *schedView, m SchedMessage, said string, evIDs []string) bool {
	e := pc.e
	for _, rs := range m.resources() {
		if !strings.Contains(rs, "/") || strings.HasPrefix(rs, "hugepages-") {
			continue
		}
		r := corev1.ResourceName(rs)
		advertised, cands := 0, 0
		for _, b := range v.blocks {
			if b.excluded {
				continue
			}
			cands++
			if q, ok := b.node.Status.Allocatable[r]; ok && !q.IsZero() {
				advertised++
			}
		}
		if advertised > 0 || cands == 0 {
			continue
		}
		need := v.req[r]
		ds, why := pc.devicePlugin(ctx, rs)
		base := fmt.Sprintf("Pod %s requests %s=%s and cannot be scheduled (%s): none of the %d node(s) it may use advertises %s in its allocatable, so no device plugin has registered it with their kubelets.",
			p.Name, rs, need.String(), said, cands, rs)
		if ds == nil {
			pc.find(ctx, "unschedulable-device-plugin", "", base+" No DaemonSet of the namespace names the resource: install the device plugin for it, or drop the request.", ObjectRef{}, evIDs,
				map[string]string{"resource": rs})
			return true
		}
		dref := e.ref("DaemonSet", ds.Name)
		evIDs = append(evIDs, e.objEvidence(dref, "DaemonSet "+ds.Name+": "+tools.Summarize(ds, e.now).Status))
		pc.find(ctx, "unschedulable-device-plugin", "", base+fmt.Sprintf(" DaemonSet %s is the device plugin for it: %s", ds.Name, why), dref, evIDs,
			map[string]string{"resource": rs, "daemonSet": ds.Name})
		return true
	}
	return false
}

// devicePlugin finds the namespace's DaemonSet that names the resource and says how it fares.
func (pc *podCheck) devicePlugin(ctx context.Context, res string) (*appsv1.DaemonSet, string) {
	e := pc.e
	sets, err := listOnce[*appsv1.DaemonSet](ctx, e, "DaemonSet", scanMaxObjects)
	if err != nil {
		return nil, ""
	}
	vendor, name, _ := strings.Cut(strings.ToLower(res), "/")
	// brand is the vendor's first label: "nvidia" of nvidia.com, named by its plugin's image.
	brand, _, _ := strings.Cut(vendor, ".")
	var best *appsv1.DaemonSet
	bestScore := 0
	for _, ds := range sets {
		text := strings.ToLower(ds.Name)
		for _, c := range append(append([]corev1.Container{}, ds.Spec.Template.Spec.InitContainers...), ds.Spec.Template.Spec.Containers...) {
			text += " " + strings.ToLower(c.Image+" "+strings.Join(c.Command, " ")+" "+strings.Join(c.Args, " "))
			for _, ev := range c.Env {
				text += " " + strings.ToLower(ev.Value)
			}
		}
		own := strings.ToLower(ds.Name)
		for _, c := range ds.Spec.Template.Spec.Containers {
			own += " " + strings.ToLower(c.Image)
		}
		score := 0
		switch {
		case strings.Contains(text, strings.ToLower(res)):
			score = 3
		case strings.Contains(text, vendor) && strings.Contains(text, name):
			score = 2
		case (strings.Contains(own, name) || len(brand) >= 3 && strings.Contains(own, brand)) && (strings.Contains(text, "plugin") || strings.Contains(text, "device")):
			score = 1
		}
		if score > bestScore {
			best, bestScore = ds, score
		}
	}
	if best == nil {
		return nil, ""
	}
	return best, pc.pluginState(ctx, best)
}

// pluginState says what the DaemonSet's pods are doing, with a crashed container's last words.
func (pc *podCheck) pluginState(ctx context.Context, ds *appsv1.DaemonSet) string {
	e := pc.e
	pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects)
	if err != nil {
		return ""
	}
	var mine []*corev1.Pod
	for _, o := range pods {
		for _, ref := range o.OwnerReferences {
			if ref.Kind == "DaemonSet" && ref.Name == ds.Name {
				mine = append(mine, o)
			}
		}
	}
	if len(mine) == 0 {
		return fmt.Sprintf("it runs no pod (desired %d, ready %d), so nothing registers the resource; check its nodeSelector and tolerations.", ds.Status.DesiredNumberScheduled, ds.Status.NumberReady)
	}
	o := mine[0]
	for _, c := range mine {
		if tools.PodCondition(c, corev1.PodReady) == nil || tools.PodCondition(c, corev1.PodReady).Status != corev1.ConditionTrue {
			o = c
			break
		}
	}
	state := fmt.Sprintf("its pod %s is %s", o.Name, tools.Summarize(o, e.now).Status)
	for _, cs := range o.Status.ContainerStatuses {
		t := cs.LastTerminationState.Terminated
		if t == nil {
			t = cs.State.Terminated
		}
		if t != nil {
			state += fmt.Sprintf("; container %s last exited %d", cs.Name, t.ExitCode)
			if msg := strings.TrimSpace(t.Message); msg != "" {
				state += fmt.Sprintf(" with termination message %q", tools.Sanitize(msg, 200, true))
			}
		}
		lr := e.logs(ctx, o.Name, cs.Name, cs.RestartCount > 0 && cs.State.Running == nil && cs.LastTerminationState.Terminated != nil)
		if len(lr.Lines) == 0 && cs.RestartCount > 0 {
			lr = e.logs(ctx, o.Name, cs.Name, false)
		}
		if line := lastWords(lr.Lines); line != "" {
			state += fmt.Sprintf("; its log ends %q", tools.Sanitize(line, 200, true))
		}
		break
	}
	return state + ". Until it runs and registers the resource, no node offers it."
}

// lastWords is the last error-looking line of a log, else its last non-empty line.
func lastWords(lines []string) string {
	last := ""
	for i := len(lines) - 1; i >= 0 && i >= len(lines)-50; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		if last == "" {
			last = l
		}
		low := strings.ToLower(l)
		if strings.Contains(low, "error") || strings.Contains(low, "fatal") || strings.Contains(low, "fail") || strings.Contains(low, "panic") {
			return l
		}
	}
	return last
}

// --- init containers that set the request -------------------------------------------------

// initDriver names the init container whose request sets the pod's effective request for r:
// the scheduler uses max(largest init container (plus the sidecars started before it), sum of
// the app containers and sidecars). "" when the app containers set it.
func initDriver(s *corev1.PodSpec, r corev1.ResourceName) string {
	app := resource.Quantity{}
	for _, c := range s.Containers {
		app.Add(c.Resources.Requests[r])
	}
	sidecars := resource.Quantity{}
	best, bestQ := "", resource.Quantity{}
	for _, c := range s.InitContainers {
		q := c.Resources.Requests[r]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars.Add(q)
			app.Add(q)
			continue
		}
		eff := q.DeepCopy()
		eff.Add(sidecars)
		if eff.Cmp(bestQ) > 0 {
			best, bestQ = c.Name, eff
		}
	}
	if best == "" || bestQ.Cmp(app) <= 0 {
		return ""
	}
	for _, c := range s.InitContainers {
		if c.Name == best {
			q := c.Resources.Requests[r]
			return fmt.Sprintf(" Its effective %s request is %s, set by init container %s (requests %s=%s) rather than by the app containers (%s=%s together): the scheduler counts the larger of the biggest init container and the app containers' sum.",
				r, bestQ.String(), best, r, q.String(), r, app.String())
		}
	}
	return ""
}

// freeSaid states, for the short resources, the most any candidate node has free.
func (v *schedView) freeSaid(res []string) string {
	var parts []string
	for _, rs := range res {
		r := corev1.ResourceName(rs)
		need, ok := v.req[r]
		if !ok {
			continue
		}
		bestNode, best := "", resource.Quantity{}
		for _, b := range v.blocks {
			if b.excluded {
				continue
			}
			free, short := b.short[r]
			if !short {
				continue
			}
			if bestNode == "" || free.Cmp(best) > 0 {
				bestNode, best = b.node.Name, free
			}
		}
		if bestNode != "" {
			parts = append(parts, fmt.Sprintf("%s: requests %s, the most free on a node it may use is %s (%s)", r, need.String(), best.String(), bestNode))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, "; ") + "."
}

func toleratesUnschedulable(p *corev1.Pod) bool {
	t := corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}
	for i := range p.Spec.Tolerations {
		if p.Spec.Tolerations[i].ToleratesTaint(klog.Background(), &t, false) {
			return true
		}
	}
	return false
}

// freeSaid states the most a usable node has free of each short resource ("" when the nodes
// cannot be read).
func (pc *podCheck) freeSaid(ctx context.Context, p *corev1.Pod, res []string) string {
	v, ok := pc.viewNodes(ctx, p)
	if !ok {
		return ""
	}
	return v.freeSaid(res)
}

// initSaid names the init container that drives the effective request of a short resource.
func initSaid(s *corev1.PodSpec, res []string) string {
	for _, r := range res {
		if w := initDriver(s, corev1.ResourceName(r)); w != "" {
			return w
		}
	}
	return ""
}
