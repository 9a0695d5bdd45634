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
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// A finding that blames a node in words ("the candidate nodes are cordoned ... cordoned:
// render-1", "its node mq-c is not Ready") names an object a user acts on (uncordon, drain,
// repair), so the node belongs among the finding's objects, not only in its sentence. The
// task remembers the nodes it read; find adds those its summary names that are in a state
// to blame, whichever rule wrote the sentence.

// maxBlamedNodes bounds the nodes one finding adds.
const maxBlamedNodes = 5

// noteNodes remembers nodes the task read.
func (e *env) noteNodes(ns ...*corev1.Node) {
	if e.nodes == nil {
		e.nodes = map[string]*corev1.Node{}
	}
	for _, n := range ns {
		if n != nil && len(e.nodes) < maxFitNodes {
			e.nodes[n.Name] = n
		}
	}
}

// nodeBlamable reports a node in a state a finding may blame: cordoned, not Ready, under a
// pressure condition, or tainted against scheduling (the control plane's own taint aside).
func nodeBlamable(n *corev1.Node) bool {
	if n.Spec.Unschedulable {
		return true
	}
	for _, c := range n.Status.Conditions {
		switch c.Type {
		case corev1.NodeReady:
			if c.Status != corev1.ConditionTrue {
				return true
			}
		case corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure, corev1.NodeNetworkUnavailable:
			if c.Status == corev1.ConditionTrue {
				return true
			}
		}
	}
	for _, t := range n.Spec.Taints {
		if (t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute) && !strings.HasPrefix(t.Key, "node-role.kubernetes.io/") {
			return true
		}
	}
	return false
}

// nodeFullRules blame the nodes they name for their room (requests, disk, evictions) rather
// than their state.
var nodeFullRules = map[string]bool{"unschedulable-insufficient-resources": true, "pod-evicted": true, "volume-full": true}

// blamedNodes are the nodes the task read that f's summary names and blames, not yet among
// f's objects.
func (e *env) blamedNodes(f Finding) []ObjectRef {
	if len(e.nodes) == 0 || f.Summary == "" {
		return nil
	}
	have := refSet(append([]ObjectRef{f.Object, f.Culprit}, f.Affected...)...)
	low := strings.ToLower(f.Summary)
	var out []ObjectRef
	for _, name := range sortedKeys(e.nodes) {
		r := ObjectRef{Kind: "Node", Name: name}
		if len(out) >= maxBlamedNodes || have[r.Key()] || !mentionsName(low, strings.ToLower(name)) {
			continue
		}
		if nodeBlamable(e.nodes[name]) || nodeFullRules[f.Rule] {
			out = append(out, r)
		}
	}
	return out
}

// mentionsName reports whether text holds name as a whole name (not inside a longer one).
func mentionsName(text, name string) bool {
	if name == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(text[i:], name)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(name)
		if (start == 0 || !isNameByte(text[start-1])) && (end == len(text) || !isNameByte(text[end])) {
			return true
		}
		i = start + 1
	}
}
