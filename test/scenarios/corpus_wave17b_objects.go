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
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

// Builders for wave 17b: failure modes the Kubernetes documentation describes itself (debug
// pages, concept pages, the Prometheus Operator runbooks), reproduced as production incidents.

// Outside sources the wave was written from.
const (
	w17bSrcDebugService  = "k8s-docs/tasks/debug/debug-application/debug-service.md (Is the port's protocol correct for your Pods?)"
	w17bSrcLimitRange    = "https://kubernetes.io/docs/concepts/policy/limit-range/ (a request above the LimitRange default limit: 'must be less than or equal to cpu limit')"
	w17bSrcForcedRollbk  = "k8s-docs/concepts/workloads/controllers/statefulset.md#forced-rollback; https://github.com/kubernetes/kubernetes/issues/67250"
	w17bSrcTaintEviction = "k8s-docs/concepts/scheduling-eviction/taint-and-toleration.md (Taint based Evictions: tolerationSeconds)"
	w17bSrcSecretData    = "k8s-docs/concepts/configuration/secret.md (data is base64, stringData is written as is)"
	w17bSrcPVCProtection = "k8s-docs/concepts/storage/persistent-volumes.md (Storage Object in Use Protection)"
	w17bSrcEvictionAPI   = "k8s-docs/concepts/scheduling-eviction/api-eviction.md (500: multiple PodDisruptionBudgets reference the same Pod)"
	w17bSrcDownwardAPI   = "k8s-docs/concepts/workloads/pods/downward-api.md (no limit set: the node's allocatable is exposed)"
	w17bSrcPullSecret    = "k8s-docs/tasks/configure-pod-container/pull-image-private-registry.md (--type=kubernetes.io/dockerconfigjson)"
	w17bSrcQuotaClass    = "k8s-docs/concepts/policy/resource-quotas.md (Storage Resource Quota per storage class)"
	w17bSrcHistory       = "k8s-docs/concepts/workloads/controllers/deployment.md (Clean up Policy: revisionHistoryLimit 0 means a rollout cannot be undone)"
)

// w17bCPUEnv sets env var name from the downward API's limits.cpu of container (divisor 1: whole
// cores, rounded up), the way a gunicorn or Puma image sizes its worker pool.
func w17bCPUEnv(t *corev1.PodTemplateSpec, name, container string) {
	c := &t.Spec.Containers[0]
	c.Env = append(c.Env, corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{
		ContainerName: container, Resource: "limits.cpu", Divisor: resource.MustParse("1")}}})
}

// w17bUDPPort adds a UDP container port to the first container.
func w17bUDPPort(t *corev1.PodTemplateSpec, name string, number int32) {
	t.Spec.Containers[0].Ports = append(t.Spec.Containers[0].Ports, corev1.ContainerPort{Name: name, ContainerPort: number, Protocol: corev1.ProtocolUDP})
}

// w17bNumericService is a Service whose ports target container port numbers (name, number
// pairs), with the protocol left to its default, as a hand-written manifest has it.
func w17bNumericService(name string, sel map[string]string, ports ...any) *corev1.Service {
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: sel}, Spec: corev1.ServiceSpec{Selector: sel}}
	for i := 0; i+1 < len(ports); i += 2 {
		n := int32(ports[i+1].(int))
		s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: ports[i].(string), Port: n, TargetPort: intstr.FromInt32(n)})
	}
	return s
}

// w17bOpaquePullSecret creates Secret name holding a valid .dockerconfigjson for host, but of
// type Opaque: `kubectl create secret generic --from-file=.dockerconfigjson=...` without --type.
func (e *Env) w17bOpaquePullSecret(ctx context.Context, name, host, user, password string) error {
	_, err := e.Client.CoreV1().Secrets(e.Namespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Type:       corev1.SecretTypeOpaque,
		Data:       map[string][]byte{corev1.DockerConfigJsonKey: []byte(w14aDockerConfig(host, user, password))},
	}, metav1.CreateOptions{})
	return wrap("Secret", name, err)
}

// w17bStringSecret creates Secret name from stringData, written as is by whoever created it.
func (e *Env) w17bStringSecret(ctx context.Context, name string, lbl, data map[string]string) error {
	_, err := e.Client.CoreV1().Secrets(e.Namespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbl}, Type: corev1.SecretTypeOpaque, StringData: data,
	}, metav1.CreateOptions{})
	return wrap("Secret", name, err)
}

// w17bBoundClaim creates claim name of class manual with a static volume pre-bound to it.
func (e *Env) w17bBoundClaim(ctx context.Context, name, size string) error {
	if err := e.createStaticPV(ctx, name, name, size, corev1.ReadWriteOnce); err != nil {
		return err
	}
	return e.createPVC(ctx, pvc(name, "manual", size, corev1.ReadWriteOnce))
}

// w17bClaimMount mounts claim at path in the first container.
func w17bClaimMount(t *corev1.PodTemplateSpec, volume, claim, path string) {
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
	c := &t.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: volume, MountPath: path})
}

// w17bClaimBound succeeds once claim name is Bound.
func w17bClaimBound(name string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		c, err := e.Client.CoreV1().PersistentVolumeClaims(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c.Status.Phase != corev1.ClaimBound {
			return fmt.Errorf("claim %s is %s", name, c.Status.Phase)
		}
		return nil
	}
}

// w17bDeleteClaim is the user's `kubectl delete pvc name`, which does not return while the
// claim is in use: the claim keeps its kubernetes.io/pvc-protection finalizer.
func w17bDeleteClaim(name string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		return ignoreNotFound(e.Client.CoreV1().PersistentVolumeClaims(e.Namespace).Delete(ctx, name, metav1.DeleteOptions{}))
	}
}

// w17bPDB creates a PodDisruptionBudget over lbl with maxUnavailable or minAvailable (one of
// them "", the other an int or a percentage).
func (e *Env) w17bPDB(ctx context.Context, name string, lbl map[string]string, maxUnavailable, minAvailable string) error {
	spec := policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: lbl}}
	if maxUnavailable != "" {
		spec.MaxUnavailable = ptr.To(intstr.Parse(maxUnavailable))
	}
	if minAvailable != "" {
		spec.MinAvailable = ptr.To(intstr.Parse(minAvailable))
	}
	_, err := e.Client.PolicyV1().PodDisruptionBudgets(e.Namespace).Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}, metav1.CreateOptions{})
	return wrap("PodDisruptionBudget", name, err)
}

// w17bDrainRefused cordons node key (e.State) once n pods of lbl are ready, as kubectl drain
// does, and succeeds once evicting one of those pods is refused with 500 Internal Server Error.
func w17bDrainRefused(key string, lbl map[string]string, n int) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		if err := w10aStatefulSetPods(lbl, n, runningReady)(ctx, e); err != nil {
			return err
		}
		if e.State["cordoned-"+key] == "" {
			if err := e.w8cSetNodeUnschedulable(ctx, e.State[key], true); err != nil {
				return err
			}
			e.State["cordoned-"+key] = "yes"
		}
		l, err := e.Client.CoreV1().Pods(e.Namespace).List(ctx, w15cSelect(lbl))
		if err != nil || len(l.Items) == 0 {
			return fmt.Errorf("no pods of %v: %v", lbl, err)
		}
		p := l.Items[0]
		err = e.Client.PolicyV1().Evictions(e.Namespace).Evict(ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: e.Namespace}})
		if apierrors.IsInternalError(err) && strings.Contains(err.Error(), "more than one PodDisruptionBudget") {
			return nil
		}
		return fmt.Errorf("eviction of %s not refused for two budgets yet: %v", p.Name, err)
	}
}

// w17bSetTemplate replaces the StatefulSet's first container image and the pod template's
// annotations (the kubelet behaviour of the new revision).
func (e *Env) w17bSetTemplate(ctx context.Context, name, image string, ann map[string]string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		st, err := e.Client.AppsV1().StatefulSets(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		st.Spec.Template.Spec.Containers[0].Image = image
		st.Spec.Template.Annotations = ann
		_, err = e.Client.AppsV1().StatefulSets(e.Namespace).Update(ctx, st, metav1.UpdateOptions{})
		return err
	})
}

// w17bRevertedButStuck rolls StatefulSet name to bad (with behaviour ann) once n replicas are
// ready, then, once pod <name>-<n-1> is stuck on it, reverts the template to good; it succeeds
// when the template is back on good while that pod still waits on the bad revision.
func w17bRevertedButStuck(name string, n int32, good, bad string, ann map[string]string) func(context.Context, *Env) error {
	last := fmt.Sprintf("%s-%d", name, n-1)
	stuck := func(ctx context.Context, e *Env) error {
		p, err := e.Client.CoreV1().Pods(e.Namespace).Get(ctx, last, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if p.Spec.Containers[0].Image != bad {
			return fmt.Errorf("pod %s still runs %s", last, p.Spec.Containers[0].Image)
		}
		return waiting("ErrImagePull", "ImagePullBackOff")(p)
	}
	return func(ctx context.Context, e *Env) error {
		if e.State["rolled"] == "" {
			if err := readyStatefulSet(ctx, e, name, n); err != nil {
				return err
			}
			if err := e.w17bSetTemplate(ctx, name, bad, ann); err != nil {
				return err
			}
			e.State["rolled"] = "yes"
		}
		if e.State["reverted"] == "" {
			if err := stuck(ctx, e); err != nil {
				return err
			}
			if err := e.w17bSetTemplate(ctx, name, good, nil); err != nil {
				return err
			}
			e.State["reverted"] = "yes"
		}
		st, err := e.Client.AppsV1().StatefulSets(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if st.Status.ObservedGeneration < st.Generation || st.Status.UpdateRevision != st.Status.CurrentRevision {
			return errors.New("the revert is not observed yet")
		}
		return stuck(ctx, e)
	}
}

// w17bOrderedStatefulSet is w8bStatefulSet with the default OrderedReady pod management and
// rolling updates, as most charts leave them.
func w17bOrderedStatefulSet(name, image, governing string, replicas int32, lbl map[string]string, portName string, port int32) *appsv1.StatefulSet {
	st := w8bStatefulSet(name, image, governing, replicas, lbl, nil, portName, port)
	st.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	st.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType}
	return st
}

// w17bNoOldReplicaSets succeeds once Deployment name has rolled out n replicas and no other
// ReplicaSet of it is left.
func w17bNoOldReplicaSets(name string, n int32, lbl map[string]string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		if err := w15bRolledOut(name, n)(ctx, e); err != nil {
			return err
		}
		l, err := e.Client.AppsV1().ReplicaSets(e.Namespace).List(ctx, w15cSelect(lbl))
		if err != nil {
			return err
		}
		if len(l.Items) != 1 {
			return fmt.Errorf("deployment %s still has %d ReplicaSets", name, len(l.Items))
		}
		return nil
	}
}
