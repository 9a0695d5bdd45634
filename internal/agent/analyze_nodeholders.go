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
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubage/kubage/internal/tools"
)

// A pod Pending on "Insufficient memory" that would fit on an empty node of its pool is kept
// out by what the pool's other pods request, not by its own size. When one workload of the
// namespace holds most of the short resource on the nodes the pod may use, its requests are
// the cause (a cache reserving far more than it uses): it is named, with the numbers.

// holderShare is the part of the pool's allocatable a workload must request to be named.
const holderShare = 0.5

// poolHolder finds the workload of the namespace that requests most of a short resource on
// the nodes the pending pod p may use. ok is false when p would not fit an empty node, or
// when no workload holds at least holderShare of the pool.
func (pc *podCheck) poolHolder(ctx context.Context, p *corev1.Pod, short []string) (ObjectRef, string, bool) {
	e := pc.e
	nodes, err := listOnce[*corev1.Node](ctx, e, "Node", scanMaxObjects)
	if err != nil {
		return ObjectRef{}, "", false
	}
	pods, err := listOnce[*corev1.Pod](ctx, e, "Pod", scanMaxObjects)
	if err != nil {
		return ObjectRef{}, "", false
	}
	sel := labels.SelectorFromSet(p.Spec.NodeSelector)
	usable := map[string]bool{}
	for _, n := range nodes {
		if sel.Matches(labels.Set(n.Labels)) && !n.Spec.Unschedulable && len(untoleratedTaints(p, n)) == 0 {
			usable[n.Name] = true
		}
	}
	own := e.workloadOf(ctx, p)
	want := tools.PodRequests(&p.Spec)
	for _, r := range short {
		name := corev1.ResourceName(r)
		if name != corev1.ResourceCPU && name != corev1.ResourceMemory {
			continue
		}
		need, ok := want[name]
		if !ok {
			continue
		}
		var pool resource.Quantity
		fits := false
		for _, n := range nodes {
			if a, ok := n.Status.Allocatable[name]; ok && usable[n.Name] {
				pool.Add(a)
				fits = fits || need.Cmp(a) <= 0
			}
		}
		if !fits || pool.IsZero() {
			continue
		}
		held := map[string]*resource.Quantity{}
		refs := map[string]ObjectRef{}
		perPod := map[string]resource.Quantity{}
		for _, o := range pods {
			if o.Spec.NodeName == "" || !usable[o.Spec.NodeName] || o.Status.Phase == corev1.PodSucceeded || o.Status.Phase == corev1.PodFailed {
				continue
			}
			q, ok := tools.PodRequests(&o.Spec)[name]
			if !ok {
				continue
			}
			wl := e.workloadOf(ctx, o)
			if wl.Key() == own.Key() {
				continue
			}
			if held[wl.Key()] == nil {
				held[wl.Key()], refs[wl.Key()], perPod[wl.Key()] = &resource.Quantity{}, wl, q
			}
			held[wl.Key()].Add(q)
		}
		var top string
		for k, q := range held {
			if top == "" || q.Cmp(*held[top]) > 0 || q.Cmp(*held[top]) == 0 && k < top {
				top = k
			}
		}
		if top == "" || held[top].AsApproximateFloat64() < holderShare*pool.AsApproximateFloat64() {
			continue
		}
		wl, each := refs[top], perPod[top]
		why := fmt.Sprintf(" %s %s requests %s=%s per pod, %s of the %s allocatable on the %d node(s) this pod may use, while this pod asks for %s: those requests hold the pool; lower them to what %s uses, or add capacity.",
			wl.Kind, wl.Name, name, each.String(), held[top].String(), pool.String(), len(usable), need.String(), wl.Name)
		return wl, why, true
	}
	return ObjectRef{}, "", false
}
