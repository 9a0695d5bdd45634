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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubage/kubage/internal/tools"
)

// A DaemonSet's status counts only the nodes it can run on: a node whose taint its pods do
// not tolerate is left out of desiredNumberScheduled, so the DaemonSet reports every pod
// ready while that node has none (no log shipper, no monitoring agent there).

// A DaemonSet kept off tainted nodes explains nothing its running pods suffer from: it ranks
// with the symptoms, so a crash of those pods, or anything deeper, wins over it.
func init() { causeLayer["daemonset-taint-excluded"] = 0 }

// daemonSetTaintedNodes reports the nodes a DaemonSet selects that get no pod because of a
// taint its template does not tolerate. Control-plane taints and the node-condition taints
// (node.kubernetes.io/*) are left out: keeping DaemonSets off them is usually intended, or
// another finding explains them.
//
// words, when not nil, keeps only the nodes the problem text speaks of (a word of the
// taint's key or value, or the node's name): a DaemonSet that runs wherever it may and shows
// no shortfall of its own is not blamed for every tainted pool of the cluster.
func (e *env) daemonSetTaintedNodes(ctx context.Context, ds *appsv1.DaemonSet, evIDs []string, words map[string]bool) bool {
	nodes, err := listOnce[*corev1.Node](ctx, e, "Node", scanMaxObjects)
	if err != nil {
		return false
	}
	sel := labels.SelectorFromSet(ds.Spec.Template.Spec.NodeSelector)
	probe := &corev1.Pod{Spec: ds.Spec.Template.Spec}
	var missed, taints []string
	var refs []ObjectRef
	for _, n := range nodes {
		if !sel.Matches(labels.Set(n.Labels)) || n.Spec.Unschedulable {
			continue
		}
		for _, t := range untoleratedTaints(probe, n) {
			if strings.HasPrefix(t.Key, "node.kubernetes.io/") || strings.HasPrefix(t.Key, "node-role.kubernetes.io/") {
				continue
			}
			if words != nil && !taintNamed(words, t, n.Name) {
				continue
			}
			missed = append(missed, n.Name)
			refs = append(refs, ObjectRef{Kind: "Node", Name: n.Name})
			taints = append(taints, fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect))
			break
		}
	}
	if len(missed) == 0 {
		return false
	}
	dref := e.ref("DaemonSet", ds.Name)
	e.find(Finding{Rule: "daemonset-taint-excluded", Object: dref, Culprit: dref, Affected: refs, Evidence: evIDs,
		Facts: map[string]string{"taint": taints[0], "nodes": strings.Join(clipList(missed, 5), ", "), "podSelector": selectorOr(ds.Spec.Selector)},
		Summary: fmt.Sprintf("DaemonSet %s runs no pod on node(s) %s: their taint %s is not tolerated by its pod template (no matching toleration), so the nodes are left out of desiredNumberScheduled (%d) and the DaemonSet still reports %d of %d ready.",
			ds.Name, strings.Join(clipList(missed, 5), ", "), strings.Join(clipList(uniq(taints), 3), ", "), ds.Status.DesiredNumberScheduled, ds.Status.NumberReady, ds.Status.DesiredNumberScheduled)})
	return true
}

// daemonSetShortfall reports whether a DaemonSet's own spec and status disagree: its
// nodeSelector names more schedulable nodes than status.desiredNumberScheduled counts. A
// namespace scan checks taints only then: a DaemonSet that runs wherever it may (no
// nodeSelector) is kept off other teams' tainted pools on purpose, and blaming each such
// DaemonSet for them would bury the real fault.
func (e *env) daemonSetShortfall(ctx context.Context, ds *appsv1.DaemonSet) bool {
	if len(ds.Spec.Template.Spec.NodeSelector) == 0 || ds.Status.ObservedGeneration == 0 {
		return false
	}
	nodes, err := listOnce[*corev1.Node](ctx, e, "Node", scanMaxObjects)
	if err != nil {
		return false
	}
	sel := labels.SelectorFromSet(ds.Spec.Template.Spec.NodeSelector)
	selected := int32(0)
	for _, n := range nodes {
		if sel.Matches(labels.Set(n.Labels)) && !n.Spec.Unschedulable {
			selected++
		}
	}
	return selected > ds.Status.DesiredNumberScheduled
}

// taintNamed reports whether the problem's words name a taint (a word of its key or value of
// at least three letters, "gpu" in nvidia.com/gpu) or the node.
func taintNamed(words map[string]bool, t corev1.Taint, node string) bool {
	if words[strings.ToLower(node)] {
		return true
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(t.Key+" "+t.Value), func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
		if len(w) >= 3 && (words[w] || words[w+"s"]) {
			return true
		}
	}
	return false
}

func uniq(l []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range l {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// selectorOr renders a workload's matchLabels for kubectl -l.
func selectorOr(s *metav1.LabelSelector) string {
	if s == nil {
		return "<selector>"
	}
	return orDefault(tools.LabelsString(s.MatchLabels), "<selector>")
}
