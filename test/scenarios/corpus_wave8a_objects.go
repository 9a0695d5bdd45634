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
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// Builders for wave 8a: objects a team lays out with its own label conventions, and the
// cluster-scoped ones (RuntimeClass, a pre-provisioned volume) that only these scenarios need.

// w8aDeployment is a Deployment of replicas whose pods carry lbl, serving HTTP on port.
func w8aDeployment(name, image string, replicas, port int32, lbl, annotations map[string]string) *appsv1.Deployment {
	d := labelledDeployment(name, image, lbl, annotations)
	d.Spec.Replicas = ptr.To(replicas)
	d.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort = port
	return d
}

// w8aStatefulSet is a StatefulSet governed by Service svc whose pods carry lbl.
func w8aStatefulSet(name, image, svc string, replicas int32, lbl, annotations map[string]string) *appsv1.StatefulSet {
	t := template(name, image, annotations)
	t.Labels = lbl
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbl},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To(replicas), ServiceName: svc,
			Selector: &metav1.LabelSelector{MatchLabels: lbl},
			Template: t,
		},
	}
}

// w8aDaemonSet is a DaemonSet whose pods carry lbl, edited by edit (ports, pinning).
func w8aDaemonSet(name, image string, lbl map[string]string, edit func(*corev1.PodTemplateSpec)) *appsv1.DaemonSet {
	t := template(name, image, nil)
	t.Labels = lbl
	t.Spec.Containers[0].Ports = nil
	if edit != nil {
		edit(&t)
	}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbl},
		Spec:       appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: lbl}, Template: t},
	}
}

func (e *Env) w8aCreateDaemonSet(ctx context.Context, d *appsv1.DaemonSet) error {
	_, err := e.Client.AppsV1().DaemonSets(e.Namespace).Create(ctx, d, metav1.CreateOptions{})
	return wrap("DaemonSet", d.Name, err)
}

// w8aLabelNamespace merges labels into the scenario's namespace (creating it when the client
// does not know it, as a fake clientset does not).
func (e *Env) w8aLabelNamespace(ctx context.Context, kv map[string]string) error {
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": kv}})
	if err != nil {
		return err
	}
	_, err = e.Client.CoreV1().Namespaces().Patch(ctx, e.Namespace, types.MergePatchType, patch, metav1.PatchOptions{})
	if apierrors.IsNotFound(err) {
		_, err = e.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.Namespace, Labels: kv}}, metav1.CreateOptions{})
	}
	return err
}

// w8aCreateRuntimeClass creates RuntimeClass ClusterName(name) for handler with a fixed pod
// overhead, removed by Cleanup.
func (e *Env) w8aCreateRuntimeClass(ctx context.Context, name, handler string, overhead corev1.ResourceList) error {
	rc := &nodev1.RuntimeClass{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
		Handler:    handler,
		Overhead:   &nodev1.Overhead{PodFixed: overhead},
	}
	if _, err := e.Client.NodeV1().RuntimeClasses().Create(ctx, rc, metav1.CreateOptions{}); err != nil {
		return wrap("RuntimeClass", rc.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.NodeV1().RuntimeClasses().Delete(ctx, rc.Name, metav1.DeleteOptions{}))
	})
	return nil
}

// w8aCreateRetainedPV creates PersistentVolume ClusterName(name) with reclaim policy Retain,
// still claimed by an earlier claim of the same name that was deleted (claimRef holds the old
// UID): the volume controller marks it Released, and a new claim of that name cannot bind.
func (e *Env) w8aCreateRetainedPV(ctx context.Context, name, claim, class, size string) error {
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              class,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/mnt/disks/" + name}},
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: e.Namespace, Name: claim,
				UID: "3f1c2a9e-7b4d-4c55-9a0e-5d2b8c6f1e07", ResourceVersion: "48211"},
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

// w8aPVPhase succeeds once PersistentVolume ClusterName(name) is in phase.
func w8aPVPhase(name string, phase corev1.PersistentVolumePhase) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		pv, err := e.Client.CoreV1().PersistentVolumes().Get(ctx, e.ClusterName(name), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if pv.Status.Phase != phase {
			return fmt.Errorf("volume %s is %s, not %s", pv.Name, pv.Status.Phase, phase)
		}
		return nil
	}
}

// w8aStatefulSetPods succeeds once StatefulSet name has created exactly n pods and kept it so
// (status.replicas), as OrderedReady does while a lower ordinal is not Ready.
func w8aStatefulSetPods(name string, n int32) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		s, err := e.Client.AppsV1().StatefulSets(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if s.Status.Replicas != n || s.Status.ObservedGeneration < s.Generation {
			return fmt.Errorf("statefulset %s has %d pods, want %d", name, s.Status.Replicas, n)
		}
		return nil
	}
}

// w8aDeploymentReplicas succeeds once Deployment name asks for n replicas.
func w8aDeploymentReplicas(name string, n int32) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Spec.Replicas == nil || *d.Spec.Replicas != n {
			return fmt.Errorf("deployment %s asks for %v replicas, want %d", name, d.Spec.Replicas, n)
		}
		return nil
	}
}

// w8aRestricted is a container security context that passes the "restricted" Pod Security
// Standard (with the pod's runAsNonRoot and seccomp profile).
func w8aRestricted() *corev1.SecurityContext {
	return &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
}

// w8aNeverScheduled: the pod has waited at least age without being bound to a node (no
// scheduler has picked it up, so it has no PodScheduled condition either).
func w8aNeverScheduled(age time.Duration) func(p *corev1.Pod) error {
	return func(p *corev1.Pod) error {
		if p.Status.Phase != corev1.PodPending || p.Spec.NodeName != "" {
			return fmt.Errorf("phase %s on node %q", p.Status.Phase, p.Spec.NodeName)
		}
		if waited := time.Since(p.CreationTimestamp.Time); waited < age {
			return fmt.Errorf("unbound for only %s", waited.Round(time.Second))
		}
		return nil
	}
}
