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

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Builders for wave 15b: Kubernetes-native faults two or more hops from the symptom (rollouts
// that deadlock on volumes or anti-affinity, autoscalers that disable each other, admission and
// quota scopes that refuse a provider's pods, hand-written service-account volumes), built with
// the wave 8 to 14 helpers wherever they fit.

// Outside sources the wave was written from.
const (
	w15bSrcMultiAttach  = "https://github.com/harvester/vm-import-controller/issues/23 (upgrade stuck: RWO PVC, new pod never leaves ContainerCreating, Multi-Attach error; fix strategy Recreate); https://github.com/cloudnativedaysjp/dreamkast-infra/issues/1056 (Grafana RollingUpdate: FailedMount 'Unable to attach or mount volumes: unmounted volumes=[storage]...')"
	w15bSrcAntiAffinity = "https://github.com/kubernetes/kubernetes/issues/116891 (Deployment rolling update stuck with required pod anti-affinity on 3 nodes, 3 replicas); https://github.com/ceph/ceph-csi-operator/issues/273 (maxSurge > 0 with anti-affinity deadlocks; use maxSurge 0, maxUnavailable 1)"
	w15bSrcKedaHPA      = "https://github.com/kedacore/keda/issues/5825 (ScalingActive False: pods by selector ... are controlled by multiple HPAs: [keda-hpa-X X]); https://github.com/kubernetes/kubernetes/pull/112011 (AmbiguousSelector)"
	w15bSrcRootCA       = "https://github.com/kubernetes-retired/dashboard/issues/1287 (Expected to load root CA config from /var/run/secrets/kubernetes.io/serviceaccount/ca.crt ... x509); ../shared/corpus/k8s-docs/tasks/configure-pod-container/configure-service-account.md (projected token, kube-root-ca.crt)"
	w15bSrcPodsLog      = "https://github.com/project-codeflare/mlbatch/pull/166 (Fix rbac rules for pods/log: the Role listed pods/logs); https://kubernetes.io/docs/reference/access-authn-authz/rbac/#referring-to-resources"
	w15bSrcPSAInit      = "https://github.com/bitnami/charts/issues/3857 (volumePermissions init container runs as uid 0, refused by a restricted policy); https://github.com/kubernetes/kubernetes/pull/105857 (restricted forbids runAsUser=0 at admission)"
	w15bSrcQuotaPrio    = "../shared/corpus/k8s-docs/concepts/policy/resource-quotas.md (Resource Quota Per PriorityClass, scopeSelector scopeName PriorityClass)"
	w15bSrcEmptyClass   = "../shared/corpus/k8s-docs/concepts/storage/persistent-volumes.md (a PVC with storageClassName \"\" only binds PVs with no class); bitnami charts' persistence.storageClass \"-\" renders storageClassName: \"\""
	w15bSrcOrphanRS     = "../shared/corpus/k8s-docs/concepts/workloads/controllers/replicaset.md (deleting a Deployment/ReplicaSet with propagationPolicy Orphan leaves its pods); ../shared/corpus/k8s-docs/concepts/workloads/controllers/deployment.md (do not overlap selectors)"
	w15bSrcTaintPool    = "../shared/corpus/k8s-docs/concepts/scheduling-eviction/taint-and-toleration.md (a toleration matches a taint by key, value and effect); https://github.com/kubernetes/kubernetes/issues/56539"
)

// w15bRolledOut succeeds once Deployment name runs n updated, ready replicas and nothing else.
func w15bRolledOut(name string, n int32) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		s := d.Status
		if s.ObservedGeneration < d.Generation || s.UpdatedReplicas != n || s.ReadyReplicas != n || s.Replicas != n {
			return fmt.Errorf("deployment %s: %d updated, %d ready, %d total of %d", name, s.UpdatedReplicas, s.ReadyReplicas, s.Replicas, n)
		}
		return nil
	}
}

// w15bPoolNode registers a kwok node of the scenario with labels (and taints), cordoned or not,
// and records its name in e.State[key].
func (e *Env) w15bPoolNode(ctx context.Context, key string, cordoned bool, lbl map[string]string, taints ...corev1.Taint) error {
	n, err := e.createNode(ctx, nodeSpec{name: key, kwok: true, unschedulable: cordoned, taints: taints})
	if err != nil {
		return err
	}
	e.State[key] = n
	if len(lbl) == 0 {
		return nil
	}
	return e.labelScenarioNode(ctx, n, lbl)
}

// w15bCSIVolume creates a PersistentVolume of a CSI block-storage driver (an EBS volume), pre-bound
// to claim, in class (a ClusterName of the scenario), as a provisioner would have left it.
func (e *Env) w15bCSIVolume(ctx context.Context, name, class, claim, size, handle string) error {
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace},
			Annotations: map[string]string{"pv.kubernetes.io/provisioned-by": "ebs.csi.aws.com"}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete,
			StorageClassName:              class,
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: "ebs.csi.aws.com", VolumeHandle: handle, FSType: "ext4",
				VolumeAttributes: map[string]string{"storage.kubernetes.io/csiProvisionerIdentity": "1718012345678-8081-ebs.csi.aws.com"},
			}},
			ClaimRef: &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: e.Namespace, Name: claim},
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

// w15bVolume adds a volume to t and mounts it into the first container at path.
func w15bVolume(t *corev1.PodTemplateSpec, name, path string, src corev1.VolumeSource) {
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: src})
	c := &t.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: name, MountPath: path})
}

// w15bAntiAffinity keeps pods matching lbl on distinct nodes (required, by hostname).
func w15bAntiAffinity(t *corev1.PodTemplateSpec, lbl map[string]string) {
	t.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: lbl}, TopologyKey: "kubernetes.io/hostname",
		}},
	}}
}

// w15bServiceAccountVolume turns off the automatic token mount and mounts a hand-written
// projected volume at the standard path instead: token and namespace, plus the cluster CA
// (ConfigMap kube-root-ca.crt) when withCA.
func w15bServiceAccountVolume(t *corev1.PodTemplateSpec, sa string, withCA bool) {
	t.Spec.ServiceAccountName = sa
	t.Spec.AutomountServiceAccountToken = ptr.To(false)
	sources := []corev1.VolumeProjection{
		{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr.To[int64](3600)}},
		{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{
			Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"},
		}}}},
	}
	if withCA {
		sources = append(sources, corev1.VolumeProjection{ConfigMap: &corev1.ConfigMapProjection{
			LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
			Items:                []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}},
		}})
	}
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: "sa-token", VolumeSource: corev1.VolumeSource{
		Projected: &corev1.ProjectedVolumeSource{DefaultMode: ptr.To[int32](0o444), Sources: sources},
	}})
	c := &t.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "sa-token", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true})
}

// w15bCreateHPA creates an autoscaler of Deployment target with the given metrics.
func (e *Env) w15bCreateHPA(ctx context.Context, name, target string, lbl map[string]string, minReplicas, maxReplicas int32, metrics ...autoscalingv2.MetricSpec) error {
	_, err := e.Client.AutoscalingV2().HorizontalPodAutoscalers(e.Namespace).Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbl},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: target},
			MinReplicas:    ptr.To(minReplicas), MaxReplicas: maxReplicas, Metrics: metrics,
		},
	}, metav1.CreateOptions{})
	return wrap("HorizontalPodAutoscaler", name, err)
}

// w15bCPUMetric is a CPU utilization target.
func w15bCPUMetric(percent int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To(percent)},
	}}
}

// w15bPodsQuota creates a pods quota that counts only pods of PriorityClass class.
func (e *Env) w15bPodsQuota(ctx context.Context, name, pods, class string) error {
	_, err := e.Client.CoreV1().ResourceQuotas(e.Namespace).Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ResourceQuotaSpec{
			Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse(pods)},
			ScopeSelector: &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{{
				ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: corev1.ScopeSelectorOpIn, Values: []string{class},
			}}},
		},
	}, metav1.CreateOptions{})
	return wrap("ResourceQuota", name, err)
}

// w15bOrphanReplicaSet creates a ReplicaSet with no owner, as `kubectl delete deployment
// --cascade=orphan` leaves one behind (its pod-template-hash label and all).
func (e *Env) w15bOrphanReplicaSet(ctx context.Context, name, hash, image string, replicas int32, lbl, ann map[string]string, portName string, port int32) error {
	sel := map[string]string{"pod-template-hash": hash}
	for k, v := range lbl {
		sel[k] = v
	}
	t := template(name, image, ann)
	t.Labels = sel
	t.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: portName, ContainerPort: port}}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: sel, Annotations: map[string]string{
			"deployment.kubernetes.io/revision": "14", "deployment.kubernetes.io/desired-replicas": fmt.Sprint(replicas),
			"deployment.kubernetes.io/max-replicas": fmt.Sprint(replicas + 1),
		}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(replicas), Selector: &metav1.LabelSelector{MatchLabels: sel}, Template: t},
	}
	_, err := e.Client.AppsV1().ReplicaSets(e.Namespace).Create(ctx, rs, metav1.CreateOptions{})
	return wrap("ReplicaSet", name, err)
}

// w15bSucceeded: the pod ran to completion.
func w15bSucceeded(p *corev1.Pod) error {
	if p.Status.Phase != corev1.PodSucceeded {
		return fmt.Errorf("phase %s", p.Status.Phase)
	}
	return nil
}

// w15bToleration tolerates key=value:NoSchedule.
func w15bToleration(t *corev1.PodTemplateSpec, key, value string) {
	t.Spec.Tolerations = append(t.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpEqual, Value: value, Effect: corev1.TaintEffectNoSchedule})
}
