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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubage/kubage/internal/tools"
)

// A pod Pending on "Insufficient cpu" may have had its place: the scheduler preempts
// lower-priority pods to place a pod of a higher PriorityClass, and the victim, re-created by
// its controller, no longer fits. The higher-priority workload on the nodes it may use is the
// cause; the Preempted event on the victim's name confirms it.

// preemptor finds a running pod of higher priority on a node the pending pod p may use that
// requests the short resource, and says so. ok is false when there is none.
func (pc *podCheck) preemptor(ctx context.Context, p *corev1.Pod) (ObjectRef, string, bool) {
	e := pc.e
	pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects)
	if err != nil {
		return ObjectRef{}, "", false
	}
	nodes, err := listOnce[*corev1.Node](ctx, e, "Node", scanMaxObjects)
	if err != nil {
		return ObjectRef{}, "", false
	}
	usable := map[string]bool{}
	sel := labels.SelectorFromSet(p.Spec.NodeSelector)
	for _, n := range nodes {
		usable[n.Name] = sel.Matches(labels.Set(n.Labels))
	}
	mine := priorityOf(p)
	var best *corev1.Pod
	for _, o := range pods {
		if o.Spec.NodeName == "" || !usable[o.Spec.NodeName] || o.Status.Phase != corev1.PodRunning || priorityOf(o) <= mine {
			continue
		}
		if best == nil || priorityOf(o) > priorityOf(best) {
			best = o
		}
	}
	if best == nil {
		return ObjectRef{}, "", false
	}
	wl := e.workloadOf(ctx, best)
	class := ""
	if best.Spec.PriorityClassName != "" {
		class = "PriorityClass " + best.Spec.PriorityClassName + ", "
	}
	why := fmt.Sprintf(" Pod %s of %s %s runs on node %s at a higher priority (%spriority %d against this pod's %d) and requests %s there: the scheduler preempts lower-priority pods to place such a pod, so this one lost its place and no longer fits.",
		best.Name, wl.Kind, wl.Name, best.Spec.NodeName, class, priorityOf(best), mine, requestsString(tools.PodRequests(&best.Spec)))
	if g := tools.EventsMention(pc.events(ctx), "Preempted"); g != nil {
		why += fmt.Sprintf(" The pod was Preempted (x%d): %s.", g.Count, tools.Sanitize(g.Message, 200, true))
	}
	return wl, why, true
}

// priorityOf is a pod's resolved priority (0 without a PriorityClass).
func priorityOf(p *corev1.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}
