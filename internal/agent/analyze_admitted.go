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
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// A pod can carry scheduling constraints its workload's template never wrote: admission adds
// the nodeSelector of the pod's RuntimeClass (scheduling.nodeSelector) and the namespace's
// scheduler.alpha.kubernetes.io/node-selector annotation (PodNodeSelector). When no node
// carries what was added, the object that added it is the one to fix, not the template.

// templateSpec is the pod spec of workload wl's template.
func (e *env) templateSpec(ctx context.Context, wl ObjectRef) (*corev1.PodSpec, bool) {
	switch wl.Kind {
	case "Deployment":
		if x, err := getAs[*appsv1.Deployment](ctx, e, wl.Kind, wl.Name); err == nil {
			return &x.Spec.Template.Spec, true
		}
	case "StatefulSet":
		if x, err := getAs[*appsv1.StatefulSet](ctx, e, wl.Kind, wl.Name); err == nil {
			return &x.Spec.Template.Spec, true
		}
	case "DaemonSet":
		if x, err := getAs[*appsv1.DaemonSet](ctx, e, wl.Kind, wl.Name); err == nil {
			return &x.Spec.Template.Spec, true
		}
	case "Job":
		if x, err := getAs[*batchv1.Job](ctx, e, wl.Kind, wl.Name); err == nil {
			return &x.Spec.Template.Spec, true
		}
	case "CronJob":
		if x, err := getAs[*batchv1.CronJob](ctx, e, wl.Kind, wl.Name); err == nil {
			return &x.Spec.JobTemplate.Spec.Template.Spec, true
		}
	}
	return nil, false
}

// admittedSelector names what added the pod's nodeSelector entries that its workload's
// template does not hold, when no node carries them; ok is false otherwise.
func (pc *podCheck) admittedSelector(ctx context.Context, p *corev1.Pod) (ObjectRef, string, bool) {
	e := pc.e
	wl := e.workloadOf(ctx, p)
	spec, ok := e.templateSpec(ctx, wl)
	if !ok || len(p.Spec.NodeSelector) == 0 {
		return ObjectRef{}, "", false
	}
	added := map[string]string{}
	for k, v := range p.Spec.NodeSelector {
		if tv, ok := spec.NodeSelector[k]; !ok || tv != v {
			added[k] = v
		}
	}
	if len(added) == 0 {
		return ObjectRef{}, "", false
	}
	nodes, err := listOnce[*corev1.Node](ctx, e, "Node", scanMaxObjects)
	if err != nil {
		return ObjectRef{}, "", false
	}
	sel := labels.SelectorFromSet(added)
	for _, n := range nodes {
		if sel.Matches(labels.Set(n.Labels)) {
			return ObjectRef{}, "", false // some node carries it: the rest of the constraints decide
		}
	}
	var kv []string
	for k, v := range added {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	what := strings.Join(kv, ", ")
	owned := wl.Kind + " " + wl.Name + "'s pod template"
	if p.Spec.RuntimeClassName != nil && *p.Spec.RuntimeClassName != "" {
		rc := *p.Spec.RuntimeClassName
		return ObjectRef{Kind: "RuntimeClass", Name: rc}, fmt.Sprintf(" The nodeSelector %s is not in %s: admission added it from RuntimeClass %s (its scheduling.nodeSelector, for the nodes that run that runtime handler), and none of the %d node(s) carries it. Label the nodes that have the runtime, or correct scheduling.nodeSelector of RuntimeClass %s.",
			what, owned, rc, len(nodes), rc), true
	}
	if ns, err := getAs[*corev1.Namespace](ctx, e, "Namespace", e.s.Namespace); err == nil && ns.Annotations["scheduler.alpha.kubernetes.io/node-selector"] != "" {
		return e.ref("Namespace", e.s.Namespace), fmt.Sprintf(" The nodeSelector %s is not in %s: admission (PodNodeSelector) added it from the namespace's annotation scheduler.alpha.kubernetes.io/node-selector=%s, and none of the %d node(s) carries it. Correct the annotation of namespace %s or label the nodes.",
			what, owned, clipString(ns.Annotations["scheduler.alpha.kubernetes.io/node-selector"], 120), len(nodes), e.s.Namespace), true
	}
	return ObjectRef{}, "", false
}
