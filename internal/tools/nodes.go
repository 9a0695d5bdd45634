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

package tools

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/fields"
)

// NodeReport is a node's health and how much of it is already requested.
type NodeReport struct {
	Name          string            `json:"name"`
	Ready         string            `json:"ready"`
	ReadyReason   string            `json:"readyReason,omitempty"`
	ReadyMessage  string            `json:"readyMessage,omitempty"`
	Pressure      []string          `json:"pressure,omitempty"`
	Unschedulable bool              `json:"unschedulable,omitempty"`
	Taints        []string          `json:"taints,omitempty"`
	Conditions    []Condition       `json:"conditions,omitempty"`
	Allocatable   map[string]string `json:"allocatable,omitempty"`
	Requested     map[string]string `json:"requested,omitempty"`
	// RequestedPercent is requested/allocatable for cpu, memory and pods.
	RequestedPercent map[string]int `json:"requestedPercent,omitempty"`
	PodCount         int            `json:"podCount"`
	PodsInScope      []string       `json:"podsInScope,omitempty"`
	Note             string         `json:"note,omitempty"`
}

// NodeHealth reads conditions and taints of a node (no pod listing).
func NodeHealth(n *corev1.Node) NodeReport {
	r := NodeReport{Name: n.Name, Ready: "Unknown", Unschedulable: n.Spec.Unschedulable}
	for _, c := range n.Status.Conditions {
		r.Conditions = append(r.Conditions, Condition{Type: string(c.Type), Status: string(c.Status), Reason: Sanitize(c.Reason, 80, true), Message: Sanitize(c.Message, 300, true)})
		switch c.Type {
		case corev1.NodeReady:
			r.Ready, r.ReadyReason, r.ReadyMessage = string(c.Status), Sanitize(c.Reason, 80, true), Sanitize(c.Message, 300, true)
		case corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure, corev1.NodeNetworkUnavailable:
			if c.Status == corev1.ConditionTrue {
				r.Pressure = append(r.Pressure, string(c.Type))
			}
		}
	}
	for _, t := range n.Spec.Taints {
		r.Taints = append(r.Taints, TaintString(t))
	}
	return r
}

// NodeStatus reports a node's conditions and allocatable vs requested resources.
// Requests are summed over all pods on the node (names from other namespaces are not
// shown); if listing other namespaces is forbidden, only in-scope pods are summed.
func (c *Client) NodeStatus(ctx context.Context, name string) (NodeReport, error) {
	n, err := GetAs[*corev1.Node](ctx, c, "Node", name)
	if err != nil {
		return NodeReport{Name: name}, err
	}
	r := NodeHealth(n)
	r.Allocatable = map[string]string{}
	for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods, corev1.ResourceEphemeralStorage} {
		if q, ok := n.Status.Allocatable[res]; ok {
			r.Allocatable[string(res)] = q.String()
		}
	}
	opts := ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", name).String(), Max: 1000}
	res, err := c.listAllNamespaces(ctx, "Pod", opts)
	if err != nil {
		r.Note = "could not list pods in all namespaces; requests counted for this namespace only"
		pods, _, err2 := ListAs[*corev1.Pod](ctx, c, "Pod", opts)
		if err2 != nil {
			return r, err2
		}
		res.Items = nil
		for _, p := range pods {
			res.Items = append(res.Items, p)
		}
	}
	cpu, mem := resource.Quantity{}, resource.Quantity{}
	for _, o := range res.Items {
		p, ok := o.(*corev1.Pod)
		if !ok || p.Spec.NodeName != name || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		r.PodCount++
		if p.Namespace == c.scope.Namespace && len(r.PodsInScope) < 20 {
			r.PodsInScope = append(r.PodsInScope, p.Name)
		}
		req := PodRequests(&p.Spec)
		cpu.Add(req[corev1.ResourceCPU])
		mem.Add(req[corev1.ResourceMemory])
	}
	r.Requested = map[string]string{"cpu": cpu.String(), "memory": mem.String(), "pods": fmt.Sprint(r.PodCount)}
	r.RequestedPercent = map[string]int{}
	if a, ok := n.Status.Allocatable[corev1.ResourceCPU]; ok && a.MilliValue() > 0 {
		r.RequestedPercent["cpu"] = int(cpu.MilliValue() * 100 / a.MilliValue())
	}
	if a, ok := n.Status.Allocatable[corev1.ResourceMemory]; ok && a.Value() > 0 {
		r.RequestedPercent["memory"] = int(mem.Value() * 100 / a.Value())
	}
	if a, ok := n.Status.Allocatable[corev1.ResourcePods]; ok && a.Value() > 0 {
		r.RequestedPercent["pods"] = int(int64(r.PodCount) * 100 / a.Value())
	}
	if res.More {
		r.Note = joinNote(r.Note, "more than 1000 pods on the node; sums are partial")
	}
	return r, nil
}

// NodeLoad is the cpu and memory requested on one node by its running pods, over all namespaces.
type NodeLoad struct {
	CPU, Memory resource.Quantity
	Pods        int
}

// RequestedByNode sums, for every node, the requests of the pods bound there, in one
// cluster-wide list (pod names from other namespaces are never returned). complete is false
// when the cluster has more pods than one bounded list holds: the sums are then partial and a
// caller asks NodeStatus per node. An error (listing all namespaces forbidden) is returned as is.
func (c *Client) RequestedByNode(ctx context.Context) (load map[string]NodeLoad, complete bool, err error) {
	opts := ListOptions{FieldSelector: "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed", Max: HardListMax}
	res, err := c.listAllNamespaces(ctx, "Pod", opts)
	if err != nil {
		return nil, false, err
	}
	load = map[string]NodeLoad{}
	for _, o := range res.Items {
		p, ok := o.(*corev1.Pod)
		// Servers and fakes that ignore the field selector still get the same sums.
		if !ok || p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		l := load[p.Spec.NodeName]
		req := PodRequests(&p.Spec)
		l.CPU.Add(req[corev1.ResourceCPU])
		l.Memory.Add(req[corev1.ResourceMemory])
		l.Pods++
		load[p.Spec.NodeName] = l
	}
	return load, !res.More, nil
}

// PodRequests sums a pod's effective requests — the figure the scheduler uses: the larger
// of what runs together once started (the app containers plus every sidecar, an init
// container with restartPolicy Always) and what the init phase needs at its peak (each
// regular init container beside the sidecars started before it), plus pod overhead.
func PodRequests(spec *corev1.PodSpec) corev1.ResourceList {
	sum := corev1.ResourceList{}
	add := func(to corev1.ResourceList, l corev1.ResourceList) {
		for n, q := range l {
			v := to[n]
			v.Add(q)
			to[n] = v
		}
	}
	for _, c := range spec.Containers {
		add(sum, c.Resources.Requests)
	}
	sidecars, initPeak := corev1.ResourceList{}, corev1.ResourceList{}
	for _, c := range spec.InitContainers {
		step := corev1.ResourceList{}
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			add(sidecars, c.Resources.Requests)
			add(step, sidecars)
		} else {
			add(step, sidecars)
			add(step, c.Resources.Requests)
		}
		for n, q := range step {
			if v, ok := initPeak[n]; !ok || q.Cmp(v) > 0 {
				initPeak[n] = q.DeepCopy()
			}
		}
	}
	add(sum, sidecars)
	for n, q := range initPeak {
		if v, ok := sum[n]; !ok || q.Cmp(v) > 0 {
			sum[n] = q.DeepCopy()
		}
	}
	add(sum, spec.Overhead)
	return sum
}

// NodeLines renders a NodeReport.
func NodeLines(t *Text, r NodeReport) {
	line := fmt.Sprintf("node %s: Ready=%s", r.Name, r.Ready)
	if r.ReadyReason != "" {
		line += " (" + r.ReadyReason + ")"
	}
	if len(r.Pressure) > 0 {
		line += fmt.Sprintf(", conditions true: %v", r.Pressure)
	}
	if r.Unschedulable {
		line += ", cordoned (SchedulingDisabled)"
	}
	t.Line(line)
	if r.ReadyMessage != "" {
		t.Line("  ready message: " + r.ReadyMessage)
	}
	if len(r.Taints) > 0 {
		t.Linef("  taints: %v", r.Taints)
	}
	keys := make([]string, 0, len(r.Allocatable))
	for k := range r.Allocatable {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		req := r.Requested[k]
		if req == "" {
			t.Linef("  %s: allocatable %s", k, r.Allocatable[k])
			continue
		}
		t.Linef("  %s: requested %s of allocatable %s (%d%%)", k, req, r.Allocatable[k], r.RequestedPercent[k])
	}
	if len(r.PodsInScope) > 0 {
		t.Linef("  pods from this namespace: %v", r.PodsInScope)
	}
	if r.Note != "" {
		t.Line("  note: " + r.Note)
	}
}
