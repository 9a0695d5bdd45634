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
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// Builders for wave 9c that waves 8b/8c do not have: a pod security context, an args list on a
// Deployment's container, a completed one-shot Job, and the leftovers of a deleted claim (a
// static PersistentVolume still pointing at it).

// w9cFallbackToLogs makes the first container's termination message the tail of its log, as
// teams set terminationMessagePolicy: FallbackToLogsOnError.
func w9cFallbackToLogs(t *corev1.PodTemplateSpec) {
	t.Spec.Containers[0].TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError
}

// w9cRunAs sets the pod's user (and fsGroup when fsGroup > 0).
func w9cRunAs(t *corev1.PodTemplateSpec, uid, fsGroup int64) {
	sc := &corev1.PodSecurityContext{RunAsUser: ptr.To(uid), RunAsNonRoot: ptr.To(true)}
	if fsGroup > 0 {
		sc.FSGroup = ptr.To(fsGroup)
	}
	t.Spec.SecurityContext = sc
}

// w9cCompletedJob is a one-shot Job (its pods complete with exit 0).
func (e *Env) w9cCompletedJob(ctx context.Context, name, image string, lbl map[string]string, args ...string) error {
	t := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: lbl},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyOnFailure, TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{Name: "main", Image: image, Args: args}},
		},
	}
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbl}, Spec: batchv1.JobSpec{BackoffLimit: ptr.To[int32](3), Template: t}}
	_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
	return wrap("Job", name, err)
}

// w9cLocalClass is a StorageClass without a provisioner that binds on first consumer.
func (e *Env) w9cLocalClass(ctx context.Context, name string) error {
	return e.createStorageClass(ctx, name, "kubernetes.io/no-provisioner", storagev1.VolumeBindingWaitForFirstConsumer)
}

// w9cOrphanedPV is a hostPath PersistentVolume of class (a scenario StorageClass) whose claimRef
// still names claim with the UID of a claim deleted long ago, reclaim policy Delete: the PV
// controller tries to delete it as it would any released volume.
func (e *Env) w9cOrphanedPV(ctx context.Context, name, class, claim, size, path string) error {
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace, "disk": "ssd0"}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			StorageClassName:              e.ClusterName(class),
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path}},
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: e.Namespace, Name: claim,
				UID: types.UID("5b0e7c1d-2f43-4a8e-9c61-0d7f3e2a9b14")},
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

// w9cPVPhase waits until PersistentVolume name (scenario-relative) is in phase.
func w9cPVPhase(name string, phase corev1.PersistentVolumePhase) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		pv, err := e.Client.CoreV1().PersistentVolumes().Get(ctx, e.ClusterName(name), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if pv.Status.Phase != phase {
			return fmt.Errorf("pv %s is %s (%s)", pv.Name, pv.Status.Phase, pv.Status.Message)
		}
		return nil
	}
}

// w9cMemoryMaxLimitRange caps every container's memory at max.
func (e *Env) w9cMemoryMaxLimitRange(ctx context.Context, name, max, defaultLimit, defaultRequest string) error {
	lr := &corev1.LimitRange{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"platform.acme.io/managed-by": "namespace-baseline"}},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
			Type:           corev1.LimitTypeContainer,
			Max:            corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(max)},
			Default:        corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(defaultLimit)},
			DefaultRequest: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(defaultRequest)},
		}}},
	}
	_, err := e.Client.CoreV1().LimitRanges(e.Namespace).Create(ctx, lr, metav1.CreateOptions{})
	return wrap("LimitRange", name, err)
}
