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

package scenarios

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Builders for wave 8c. Each scenario picks its team's own label keys (helm charts'
// app.kubernetes.io/*, kube-prometheus' own keys, or a platform team's app/tier/team), so
// the helpers take labels as key, value pairs instead of deriving them from the name.

// w8cLabels is a label set from key, value pairs.
func w8cLabels(kv ...string) map[string]string {
	l := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		l[kv[i]] = kv[i+1]
	}
	return l
}

// w8cArgs sets the first container's args.
func w8cArgs(t *corev1.PodTemplateSpec, args ...string) {
	t.Spec.Containers[0].Args = args
}

// w8cSidecar adds a second container (a config reloader, an exporter).
func w8cSidecar(t *corev1.PodTemplateSpec, name, image string, args ...string) {
	t.Spec.Containers = append(t.Spec.Containers, corev1.Container{Name: name, Image: image, Args: args})
}

// w8cReadiness probes path on the first container's named port.
func w8cReadiness(t *corev1.PodTemplateSpec, path, portName string) {
	t.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 10, FailureThreshold: 3,
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString(portName)}}}
}

// w8cRequests sets the first container's requests (and limits, when given).
func w8cRequests(t *corev1.PodTemplateSpec, cpu, memory, cpuLimit, memLimit string) {
	r := corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory)}}
	if cpuLimit != "" || memLimit != "" {
		r.Limits = corev1.ResourceList{}
		if cpuLimit != "" {
			r.Limits[corev1.ResourceCPU] = resource.MustParse(cpuLimit)
		}
		if memLimit != "" {
			r.Limits[corev1.ResourceMemory] = resource.MustParse(memLimit)
		}
	}
	t.Spec.Containers[0].Resources = r
}

// w8cEgressPolicy is a NetworkPolicy for pods sel that allows egress only by rules.
func w8cEgressPolicy(name string, sel map[string]string, rules ...networkingv1.NetworkPolicyEgressRule) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: sel},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
			Egress:      rules,
		},
	}
}

// w8cPorts are NetworkPolicy ports (protocol, number pairs: "UDP", 53).
func w8cPorts(pairs ...any) []networkingv1.NetworkPolicyPort {
	var out []networkingv1.NetworkPolicyPort
	for i := 0; i+1 < len(pairs); i += 2 {
		proto := corev1.Protocol(pairs[i].(string))
		out = append(out, networkingv1.NetworkPolicyPort{Protocol: &proto, Port: ptr.To(intstr.FromInt(pairs[i+1].(int)))})
	}
	return out
}

// w8cSetNodeUnschedulable cordons (or uncordons) a node, as kubectl cordon does.
func (e *Env) w8cSetNodeUnschedulable(ctx context.Context, node string, on bool) error {
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"unschedulable": on}})
	if err != nil {
		return err
	}
	_, err = e.Client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, patch, metav1.PatchOptions{})
	return wrap("Node", node, err)
}

// w8cReleaseFinalizers clears the finalizers of the namespace's pods on Cleanup, so a
// scenario whose pods hold a finalizer of an uninstalled controller does not keep its
// namespace Terminating.
func (e *Env) w8cReleaseFinalizers() {
	e.onCleanup(func(ctx context.Context) error {
		l, err := e.Client.CoreV1().Pods(e.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, p := range l.Items {
			if len(p.Finalizers) == 0 {
				continue
			}
			if _, err := e.Client.CoreV1().Pods(e.Namespace).Patch(ctx, p.Name, types.MergePatchType,
				[]byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); ignoreNotFound(err) != nil {
				return err
			}
		}
		return nil
	})
}

// w8cForceDeletePods force-deletes the namespace's pods on Cleanup (pods left Terminating on
// a node whose kubelet is gone, as `kubectl delete --force --grace-period=0` does).
func (e *Env) w8cForceDeletePods() {
	e.onCleanup(func(ctx context.Context) error {
		return e.Client.CoreV1().Pods(e.Namespace).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}, metav1.ListOptions{})
	})
}

// w8cStatefulSetReady waits until StatefulSet name has n ready replicas.
func w8cStatefulSetReady(name string, n int32) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		st, err := e.Client.AppsV1().StatefulSets(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if st.Status.ReadyReplicas < n {
			return fmt.Errorf("statefulset %s: %d of %d ready", name, st.Status.ReadyReplicas, n)
		}
		return nil
	}
}
