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
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	"github.com/kubage/kubage/internal/tools"
)

// nodeFit is how the nodes a pod selects turn it away, read from the nodes themselves: the
// scheduler's summary counts the nodes rejected for the pod's nodeSelector next to the few it
// wants, and since Kubernetes 1.3x prints "had untolerated taint(s)" without the taints.
type nodeFit struct {
	// matching counts nodes that satisfy the pod's nodeSelector and required node affinity.
	matching int
	cordoned []string
	// tainted are matching, schedulable nodes with a NoSchedule/NoExecute taint the pod does not tolerate.
	tainted []string
	// taints are those taints as the scheduler used to print them ("key: value").
	taints []string
	// conditionNodes carry an untolerated node.kubernetes.io/* taint: their condition is the cause.
	conditionNodes []string
	// free counts the matching nodes neither cordoned nor tainted against the pod; maxCPU and
	// maxMemory are the largest allocatable amounts among them.
	free              int
	maxCPU, maxMemory resource.Quantity
}

// capacity says what the largest node the pod may use offers ("cpu=4, memory=15Gi").
func (f nodeFit) capacity() string {
	if f.free == 0 {
		return ""
	}
	return fmt.Sprintf("cpu=%s, memory=%s", f.maxCPU.String(), f.maxMemory.String())
}

// maxFitNodes bounds the nodes read to explain one pod.
const maxFitNodes = 1000

// fitNodes reads the nodes and matches them against the pod; ok is false when they could not
// be read (the caller then trusts the scheduler's message alone).
func (e *env) fitNodes(ctx context.Context, p *corev1.Pod) (nodeFit, bool) {
	nodes, _, err := listAs[*corev1.Node](ctx, e, "Node", tools.ListOptions{Max: maxFitNodes})
	if err != nil {
		return nodeFit{}, false
	}
	var fit nodeFit
	seen := map[string]bool{}
	for _, n := range nodes {
		if !nodeMatchesPod(p, n) {
			continue
		}
		fit.matching++
		if n.Spec.Unschedulable {
			fit.cordoned = append(fit.cordoned, n.Name)
			continue
		}
		bad := untoleratedTaints(p, n)
		if len(bad) == 0 {
			fit.free++
			if q, ok := n.Status.Allocatable[corev1.ResourceCPU]; ok && q.Cmp(fit.maxCPU) > 0 {
				fit.maxCPU = q
			}
			if q, ok := n.Status.Allocatable[corev1.ResourceMemory]; ok && q.Cmp(fit.maxMemory) > 0 {
				fit.maxMemory = q
			}
			continue
		}
		fit.tainted = append(fit.tainted, n.Name)
		for _, t := range bad {
			s := t.Key + ": " + t.Value
			if !seen[s] {
				seen[s] = true
				fit.taints = append(fit.taints, s)
			}
			if strings.HasPrefix(t.Key, "node.kubernetes.io/") && !containsStr(fit.conditionNodes, n.Name) {
				fit.conditionNodes = append(fit.conditionNodes, n.Name)
			}
		}
	}
	sort.Strings(fit.taints)
	return fit, true
}

// refineScheduling decides between affinity, taint and cordon when the message mixes them or
// names no taint, using the nodes the pod actually selects.
func (e *env) refineScheduling(ctx context.Context, p *corev1.Pod, v SchedulingVerdict) (SchedulingVerdict, nodeFit) {
	// Several reasons over the nodes: which ones the pod may use decides. "1 Insufficient
	// cpu, 3 didn't match the node selector" is a pool too small for the requests, however
	// many other nodes there are.
	mixed := v.Counts[SchedTaint] > 0 || v.Counts[SchedCordoned] > 0 || v.Counts[SchedAffinity] > 0 && v.Counts[SchedInsufficient] > 0
	if !mixed || (v.Reason != SchedAffinity && v.Reason != SchedTaint && v.Reason != SchedCordoned && v.Reason != SchedInsufficient) {
		return v, nodeFit{}
	}
	fit, ok := e.fitNodes(ctx, p)
	if !ok {
		return v, fit
	}
	// Nodes the pod may use that are neither cordoned nor tainted turned it away for resources:
	// its requests are the constraint, whatever other nodes (other pools, other teams' nodes
	// under pressure) refuse it for.
	if v.Counts[SchedInsufficient] > 0 && fit.free > 0 {
		v.Reason = SchedInsufficient
		return v, fit
	}
	if v.Reason == SchedInsufficient {
		return v, fit
	}
	switch {
	case fit.matching == 0:
		v.Reason = SchedAffinity
	case len(fit.cordoned) == fit.matching:
		v.Reason = SchedCordoned
	case len(fit.cordoned)+len(fit.tainted) == fit.matching:
		v.Reason = SchedTaint
	}
	if v.Reason == SchedTaint && len(fit.taints) > 0 {
		v.Taints = fit.taints
	}
	return v, fit
}

// nodeMatchesPod applies the pod's nodeSelector and required node affinity to a node.
func nodeMatchesPod(p *corev1.Pod, n *corev1.Node) bool {
	if len(p.Spec.NodeSelector) > 0 && !labels.SelectorFromSet(p.Spec.NodeSelector).Matches(labels.Set(n.Labels)) {
		return false
	}
	if p.Spec.NodeName != "" && p.Spec.NodeName != n.Name {
		return false
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return true
	}
	// Terms are ORed; the requirements inside a term are ANDed.
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if termMatches(term, n) {
			return true
		}
	}
	return false
}

func termMatches(t corev1.NodeSelectorTerm, n *corev1.Node) bool {
	if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
		return false
	}
	for _, r := range t.MatchExpressions {
		v, has := n.Labels[r.Key]
		if !requirementMatches(r, v, has) {
			return false
		}
	}
	for _, r := range t.MatchFields {
		if r.Key != "metadata.name" || !requirementMatches(r, n.Name, true) {
			return false
		}
	}
	return true
}

func requirementMatches(r corev1.NodeSelectorRequirement, v string, has bool) bool {
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		return has && containsStr(r.Values, v)
	case corev1.NodeSelectorOpNotIn:
		return !has || !containsStr(r.Values, v)
	case corev1.NodeSelectorOpExists:
		return has
	case corev1.NodeSelectorOpDoesNotExist:
		return !has
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		if !has || len(r.Values) != 1 {
			return false
		}
		got, err1 := strconv.ParseInt(v, 10, 64)
		want, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		if r.Operator == corev1.NodeSelectorOpGt {
			return got > want
		}
		return got < want
	}
	return false
}

// untoleratedTaints are the node's scheduling taints the pod does not tolerate.
func untoleratedTaints(p *corev1.Pod, n *corev1.Node) []corev1.Taint {
	var out []corev1.Taint
	for i := range n.Spec.Taints {
		t := &n.Spec.Taints[i]
		if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		tolerated := false
		for j := range p.Spec.Tolerations {
			if p.Spec.Tolerations[j].ToleratesTaint(klog.Background(), t, false) {
				tolerated = true
				break
			}
		}
		if !tolerated {
			out = append(out, *t)
		}
	}
	return out
}

// fitSummary says in words which selected nodes turned the pod away.
func (f nodeFit) summary() string {
	var parts []string
	if len(f.cordoned) > 0 {
		parts = append(parts, fmt.Sprintf("cordoned: %s", strings.Join(clipList(f.cordoned, 5), ", ")))
	}
	if len(f.tainted) > 0 {
		parts = append(parts, fmt.Sprintf("tainted: %s", strings.Join(clipList(f.tainted, 5), ", ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf(" Of the %d node(s) it selects, %s.", f.matching, strings.Join(parts, "; "))
}

func clipList(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string(nil), s[:n]...), fmt.Sprintf("and %d more", len(s)-n))
}
