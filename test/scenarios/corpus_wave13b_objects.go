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
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

// Builders for wave 13b: node taints added after pods run, LimitRanges, pre-created local
// volumes with a zone, and the wait steps of the scenarios whose failure shows in stages.

// w13bLimitRange creates LimitRange name with items.
func (e *Env) w13bLimitRange(ctx context.Context, name string, items ...corev1.LimitRangeItem) error {
	_, err := e.Client.CoreV1().LimitRanges(e.Namespace).Create(ctx, &corev1.LimitRange{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.LimitRangeSpec{Limits: items}}, metav1.CreateOptions{})
	return wrap("LimitRange", name, err)
}

// w13bList is a ResourceList from name, quantity pairs.
func w13bList(kv ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return l
}

// w13bLocalPV creates an Available local PersistentVolume of the scenario's class (a
// ClusterName) on nodes of zone, as a local-volume provisioner leaves it.
func (e *Env) w13bLocalPV(ctx context.Context, name, class, size, zone string) error {
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      w13bList("storage", size),
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              class,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/disks/" + name}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}},
			}}}},
		},
	}
	if _, err := e.Client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		return wrap("PersistentVolume", pv.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{}))
	})
	return nil
}

// w13bClaimTemplate gives st a ReadWriteOnce claim template name of size in class, mounted at path.
func w13bClaimTemplate(st *appsv1.StatefulSet, name, class, size, path string) {
	st.Spec.VolumeClaimTemplates = append(st.Spec.VolumeClaimTemplates, corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: ptr.To(class),
			Resources:        corev1.VolumeResourceRequirements{Requests: w13bList("storage", size)},
		},
	})
	c := &st.Spec.Template.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: name, MountPath: path})
}

// w13bZoneAffinity requires nodes of one of zones.
func w13bZoneAffinity(t *corev1.PodTemplateSpec, zones ...string) {
	t.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
			{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: zones}}}},
	}}}
}

// w13bRoleBinding binds Role role to ServiceAccount sa of namespace saNamespace.
func (e *Env) w13bRoleBinding(ctx context.Context, name, role, sa, saNamespace string) error {
	_, err := e.Client.RbacV1().RoleBindings(e.Namespace).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: saNamespace}},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: role},
	}, metav1.CreateOptions{})
	return wrap("RoleBinding", name, err)
}

// w13bSetImage rolls Deployment name out to image (kubectl set image).
func (e *Env) w13bSetImage(ctx context.Context, name, image string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		d.Spec.Template.Spec.Containers[0].Image = image
		_, err = e.Client.AppsV1().Deployments(e.Namespace).Update(ctx, d, metav1.UpdateOptions{})
		return err
	})
}

// w13bOnce runs step once (State[key] remembers it) after ready succeeds, then checks visible:
// the later steps of a scenario whose fault is introduced while its workloads run.
func w13bOnce(key string, ready func(context.Context, *Env) error, step func(context.Context, *Env) error, visible func(context.Context, *Env) error) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		if e.State[key] == "" {
			if err := ready(ctx, e); err != nil {
				return err
			}
			if err := step(ctx, e); err != nil {
				return err
			}
			e.State[key] = "done"
		}
		return visible(ctx, e)
	}
}

// w13bPodsAtLeast succeeds once the namespace holds n pods that are not finished.
func w13bPodsAtLeast(n int) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		l, err := e.Client.CoreV1().Pods(e.Namespace).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		live := 0
		for _, p := range l.Items {
			if p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed {
				live++
			}
		}
		if live < n {
			return fmt.Errorf("%d of %d pods", live, n)
		}
		return nil
	}
}

// w13bNoEndpoints succeeds while Service name has no ready endpoint address (its pods exist).
func w13bNoEndpoints(name string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		l, err := e.Client.DiscoveryV1().EndpointSlices(e.Namespace).List(ctx, metav1.ListOptions{LabelSelector: "kubernetes.io/service-name=" + name})
		if err != nil {
			return err
		}
		for _, s := range l.Items {
			for _, ep := range s.Endpoints {
				if ep.Conditions.Ready == nil || *ep.Conditions.Ready {
					return errors.New("service " + name + " has a ready endpoint")
				}
			}
		}
		return nil
	}
}

// w13bIngressPolicy is a NetworkPolicy for pods sel (every pod when nil) that admits only rules.
func w13bIngressPolicy(name string, sel map[string]string, rules ...networkingv1.NetworkPolicyIngressRule) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: sel},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress:     rules,
		},
	}
}

// w13bFrom is an ingress rule from one peer on ports (protocol, number pairs): pods pods (any
// when nil) in namespaces ns (this one when nil). Both selectors in one peer mean both must match.
func w13bFrom(ns, pods map[string]string, ports ...any) networkingv1.NetworkPolicyIngressRule {
	peer := networkingv1.NetworkPolicyPeer{}
	if ns != nil {
		peer.NamespaceSelector = &metav1.LabelSelector{MatchLabels: ns}
	}
	if pods != nil {
		peer.PodSelector = &metav1.LabelSelector{MatchLabels: pods}
	}
	return networkingv1.NetworkPolicyIngressRule{From: []networkingv1.NetworkPolicyPeer{peer}, Ports: w8cPorts(ports...)}
}

// w13bRule is an RBAC rule on one resource of apiGroup.
func w13bRule(apiGroup, res string, verbs ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{apiGroup}, Resources: []string{res}, Verbs: verbs}
}
