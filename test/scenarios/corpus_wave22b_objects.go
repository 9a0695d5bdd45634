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

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Sources of wave 22b: the Kubernetes docs under ../shared/corpus and the public threads each
// scenario was written from.
const (
	w22bSrcEnvFromOrder   = "k8s-docs/tasks/configure-pod-container/configure-pod-configmap.md; https://github.com/openobserve/openobserve-helm-chart/pull/72 (envFrom: when a key exists in several sources the later source takes precedence, so a shared ConfigMap listed last overrides the app's own value)"
	w22bSrcDependentEnv   = "https://github.com/kubernetes/kubernetes/issues/90466 (Environment Variable Interpolation is Order Dependent: $(var1) stays literal when var1 is defined further down the env list); kubernetes.io define-interdependent-environment-variables"
	w22bSrcRuntimeClass   = "k8s-docs/concepts/scheduling-eviction/pod-overhead.md; https://github.com/redhat-best-practices-for-k8s/certsuite/issues/3716 (nodeSelector injected into pods by RuntimeClass.scheduling.nodeSelector, none in the workload template); https://github.com/kubernetes/kubernetes/issues/127371"
	w22bSrcExternalName   = "k8s-docs/concepts/services-networking/service.md (type ExternalName returns a CNAME); https://github.com/kubernetes/kubernetes/issues/67962 (ExternalName to a cluster.local name: CNAME without an A record, no host found)"
	w22bSrcPullSecretSA   = "k8s-docs/tasks/configure-pod-container/configure-service-account.md; https://github.com/kubernetes/kubernetes/pull/8582 (if a pod lacks ImagePullSecrets it gets the ServiceAccount's list, otherwise its own list is used alone)"
	w22bSrcVolumeMode     = "k8s-docs/concepts/storage/persistent-volumes.md (volumeMode); https://github.com/kubernetes-sigs/sig-storage-local-static-provisioner/issues/147 (PV in pending status: the PVC has VolumeMode Filesystem but the provisioner's PVs are Block)"
	w22bSrcOptionalItems  = "k8s-docs/tasks/configure-pod-container/configure-pod-configmap.md; https://github.com/kubernetes/kubernetes/pull/39981 (optional ConfigMap volumes tolerate missing keys); https://github.com/dotnet-architecture/eShopOnContainers/issues/2097 (envoy: error initializing configuration '/etc/envoy/envoy.yaml': Invalid path)"
	w22bSrcHeadlessSelect = "k8s-docs/concepts/services-networking/dns-pod-service.md; https://github.com/canonical/microk8s/issues/188 (StatefulSet pods cannot resolve each other: the headless Service's selector does not match the pods)"
)

// w22bExternalName is a Service of type ExternalName aliasing host.
func w22bExternalName(name, host string, port int32) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: host,
			Ports: []corev1.ServicePort{{Name: "postgres", Port: port}}},
	}
}

// w22bRuntimeClass creates RuntimeClass ClusterName(name) whose scheduling adds nodeSelector
// (key=value) and a matching NoSchedule toleration to every pod that names it.
func (e *Env) w22bRuntimeClass(ctx context.Context, name, handler, key, value string) error {
	rc := &nodev1.RuntimeClass{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
		Handler:    handler,
		Scheduling: &nodev1.Scheduling{
			NodeSelector: map[string]string{key: value},
			Tolerations:  []corev1.Toleration{{Key: key, Operator: corev1.TolerationOpEqual, Value: value, Effect: corev1.TaintEffectNoSchedule}},
		},
	}
	if _, err := e.Client.NodeV1().RuntimeClasses().Create(ctx, rc, metav1.CreateOptions{}); err != nil {
		return wrap("RuntimeClass", rc.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.NodeV1().RuntimeClasses().Delete(ctx, rc.Name, metav1.DeleteOptions{}))
	})
	return nil
}

// w22bLocalPV creates a local PersistentVolume ClusterName(name) on node, in StorageClass
// class (one of the scenario's own), as the local static provisioner would.
func (e *Env) w22bLocalPV(ctx context.Context, name, class, path, node, size string, mode corev1.PersistentVolumeMode) error {
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name),
			Labels:      map[string]string{LabelScenario: e.Namespace, "storage.kubernetes.io/local-volume-provisioner-node": node},
			Annotations: map[string]string{"pv.kubernetes.io/provisioned-by": "local-volume-provisioner-" + node}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			StorageClassName:              class,
			VolumeMode:                    ptr.To(mode),
			PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: path}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}},
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

// w22bOptionalKeyVolume mounts key of ConfigMap cm as file path under dir in the first
// container, the volume marked optional (a missing key leaves the file out, no mount error).
func w22bOptionalKeyVolume(t *corev1.PodTemplateSpec, cm, key, path, dir string) {
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
		LocalObjectReference: corev1.LocalObjectReference{Name: cm}, Optional: ptr.To(true),
		Items: []corev1.KeyToPath{{Key: key, Path: path}},
	}}})
	t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "config", MountPath: dir, ReadOnly: true})
}

// w22bSecretEnv appends env var name from key of Secret s to the first container.
func w22bSecretEnv(t *corev1.PodTemplateSpec, name, s, key string) {
	c := &t.Spec.Containers[0]
	c.Env = append(c.Env, corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: s}, Key: key}}})
}

// w22bServiceAccount creates ServiceAccount name whose pods get pullSecrets when they list none.
func (e *Env) w22bServiceAccount(ctx context.Context, name string, pullSecrets ...string) error {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, s := range pullSecrets {
		sa.ImagePullSecrets = append(sa.ImagePullSecrets, corev1.LocalObjectReference{Name: s})
	}
	_, err := e.Client.CoreV1().ServiceAccounts(e.Namespace).Create(ctx, sa, metav1.CreateOptions{})
	return wrap("ServiceAccount", name, err)
}
