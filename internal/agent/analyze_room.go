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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/kubage/kubage/internal/tools"
)

// "Insufficient cpu" says the pod does not fit, not why. Besides the pod's own containers, the
// pod overhead its RuntimeClass adds to the requests (spec.overhead, which the scheduler counts
// and `kubectl describe` shows apart) takes room. When the pod would fit a node it may use
// without that overhead, the RuntimeClass is the cause. (Other workloads' requests holding the
// pool are poolHolder's.)

// overheadTaker names the RuntimeClass whose overhead keeps the pending pod p off every node it
// may use; ok is false when p has no overhead or does not fit without it either.
func (pc *podCheck) overheadTaker(ctx context.Context, p *corev1.Pod, short []string) (ObjectRef, string, bool) {
	e := pc.e
	nodes, err := listOnce[*corev1.Node](ctx, e, "Node", scanMaxObjects)
	if err != nil {
		return ObjectRef{}, "", false
	}
	usable := map[string]*corev1.Node{}
	for _, n := range nodes {
		if nodeMatchesPod(p, n) && !n.Spec.Unschedulable && len(untoleratedTaints(p, n)) == 0 {
			usable[n.Name] = n
		}
	}
	if len(usable) == 0 {
		return ObjectRef{}, "", false
	}
	pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects)
	if err != nil {
		return ObjectRef{}, "", false
	}
	used := map[string]corev1.ResourceList{}
	for _, o := range pods {
		if usable[o.Spec.NodeName] == nil || o.Status.Phase == corev1.PodSucceeded || o.Status.Phase == corev1.PodFailed || o.UID == p.UID {
			continue
		}
		u := used[o.Spec.NodeName]
		if u == nil {
			u = corev1.ResourceList{}
			used[o.Spec.NodeName] = u
		}
		for r, q := range tools.PodRequests(&o.Spec) {
			v := u[r]
			v.Add(q)
			u[r] = v
		}
	}
	req := tools.PodRequests(&p.Spec)
	for _, rs := range short {
		r := corev1.ResourceName(rs)
		if r != corev1.ResourceCPU && r != corev1.ResourceMemory {
			continue
		}
		need := req[r]
		if ref, why, ok := pc.overheadTakes(p, r, need, usable, used); ok {
			return ref, why, true
		}
	}
	return ObjectRef{}, "", false
}

// overheadTakes blames the RuntimeClass when the pod fits a usable node without its overhead.
func (pc *podCheck) overheadTakes(p *corev1.Pod, r corev1.ResourceName, need resource.Quantity, usable map[string]*corev1.Node, used map[string]corev1.ResourceList) (ObjectRef, string, bool) {
	oh, ok := p.Spec.Overhead[r]
	if !ok || oh.IsZero() || p.Spec.RuntimeClassName == nil {
		return ObjectRef{}, "", false
	}
	bare := need.DeepCopy()
	bare.Sub(oh)
	for _, name := range sortedNodeNames(usable) {
		alloc := usable[name].Status.Allocatable[r]
		taken := used[name][r]
		withOH, without := taken.DeepCopy(), taken.DeepCopy()
		withOH.Add(need)
		without.Add(bare)
		if without.Cmp(alloc) <= 0 && withOH.Cmp(alloc) > 0 {
			rc := *p.Spec.RuntimeClassName
			why := fmt.Sprintf(" Its RuntimeClass %s adds a pod overhead of %s (spec.overhead) to the containers' %s=%s, so the scheduler needs %s=%s; node %s has %s allocatable with %s already requested: without the overhead the pod would fit.",
				rc, requestsString(p.Spec.Overhead), r, bare.String(), r, need.String(), name, alloc.String(), taken.String())
			return pc.e.ref("RuntimeClass", rc), why, true
		}
	}
	return ObjectRef{}, "", false
}

func sortedNodeNames(m map[string]*corev1.Node) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
