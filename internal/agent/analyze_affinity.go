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
)

// A pod no node may run says why with the terms it requires and the values the nodes
// have for those keys: "topology.kubernetes.io/zone In [zone-d]; nodes have zone-a, zone-b".

// requiredAffinity renders the pod's required node affinity terms (bounded), or "".
func requiredAffinity(p *corev1.Pod) string {
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return ""
	}
	var terms []string
	for i, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if i >= 3 {
			break
		}
		var exprs []string
		for j, e := range t.MatchExpressions {
			if j >= 4 {
				break
			}
			exprs = append(exprs, strings.TrimSpace(fmt.Sprintf("%s %s %s", e.Key, e.Operator, bracketList(e.Values))))
		}
		if len(exprs) > 0 {
			terms = append(terms, strings.Join(exprs, " and "))
		}
	}
	return clipString(strings.Join(terms, " or "), 300)
}

func bracketList(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return "[" + strings.Join(clipList(v, 6), ", ") + "]"
}

// nodeLabelValues says which values the nodes carry for the keys the affinity requires.
func (pc *podCheck) nodeLabelValues(ctx context.Context, p *corev1.Pod) string {
	a := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	nodes, err := listOnce[*corev1.Node](ctx, pc.e, "Node", scanMaxObjects)
	if err != nil || len(nodes) == 0 {
		return ""
	}
	var parts []string
	seen := map[string]bool{}
	for _, t := range a.NodeSelectorTerms {
		for _, e := range t.MatchExpressions {
			if seen[e.Key] || len(parts) >= 3 {
				continue
			}
			seen[e.Key] = true
			vals := map[string]bool{}
			for _, n := range nodes {
				if v, ok := n.Labels[e.Key]; ok {
					vals[v] = true
				}
			}
			vs := sortedKeys(vals)
			if len(vs) == 0 {
				parts = append(parts, fmt.Sprintf("no node has a %s label", e.Key))
			} else {
				parts = append(parts, fmt.Sprintf("the nodes' %s values are %s", e.Key, strings.Join(clipList(vs, 8), ", ")))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
