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
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Outside sources of wave 17a: one public issue, pull request or doc page per ticket.
const (
	w17aSrcNginxMime     = "https://github.com/giantswarm/happa/pull/185 (kubernetes mounts a whole directory for the configmap: things like mime.types get lost from /etc/nginx); https://github.com/grafana/mimir/pull/4954 (nginx-config ConfigMap mounted as a folder masks everything else in /etc/nginx)"
	w17aSrcRedisProtect  = "https://github.com/pennlabs/infrastructure/pull/194 (Disable Redis Protected Mode: redis base image has protected mode enabled, fixed the redis config map); https://github.com/redis/docker-library-redis/issues/58 (DENIED Redis is running in protected mode once a config or args are given)"
	w17aSrcURLPassword   = "https://github.com/sqlalchemy/sqlalchemy/issues/11262 (URL corrupted if '@' character present in password: Name or service not known); https://github.com/ShlomiPorush/mailcow-logs-viewer/issues/1 (could not translate host name \"2oHGo@db\" to address)"
	w17aSrcPodAffinity   = "https://github.com/infrahq/infra/issues/479 (registry stuck in Pending due to Pod Affinity: it looks for app=infra-registry, replaced by app.kubernetes.io/instance); https://github.com/hashicorp/vault-helm/pull/74 (affinity rules not updated when the labels moved to app.kubernetes.io)"
	w17aSrcTopologyKey   = "k8s-docs/concepts/storage/storage-classes.md (the allowedTopologies example restricts provisioning with key failure-domain.beta.kubernetes.io/zone); k8s-docs/concepts/scheduling-eviction/assign-pod-node.md (failure-domain.beta.kubernetes.io/zone is the deprecated zone label)"
	w17aSrcMultiPDB      = "https://github.com/kubernetes/kubernetes/issues/75957 (Cannot drain node with pod with more than one Pod Disruption Budget); https://github.com/zendesk/samson/pull/3006 (MultiplePodDisruptionBudgets: Pod matches multiple PodDisruptionBudgets. Chose arbitrarily)"
	w17aSrcPgDumpVersion = "https://github.com/schickling/dockerfiles/issues/163 (postgres-backup-s3: server version 16.2; pg_dump version 14.4, aborting because of server version mismatch); https://github.com/SierraSoftworks/minback-postgres/issues/5 (the same from a Kubernetes backup CronJob pod)"
	w17aSrcMongoLocal    = "https://github.com/supercharge/mongodb-github-action/pull/3 (rs.initiate with members host 'localhost': the replica set advertises the member by that host); https://github.com/docker-library/mongo/issues/249 (cannot connect to the Mongo instance after initialising the replica set)"
	w17aSrcKeelBeta      = "https://github.com/keel-hq/keel/issues/698 (keel 0.16.1: Failed to list *v1beta1.CronJob: the server could not find the requested resource); https://github.com/keel-hq/keel/issues/727 (after k3s 1.26, fixed in 0.18.0)"
	w17aSrcProbeAuth     = "https://github.com/prometheus-community/helm-charts/issues/3701 (liveness probe fails with http status code 401 when configured with http basic auth); https://github.com/gomods/athens-charts/issues/26 (basic auth on: probes fail with 401, pod goes to crash loop)"
	w17aSrcStsName       = "https://github.com/kubernetes/kubernetes/issues/64023 (StatefulSet with long name can not create pods: controller-revision-hash label must be no more than 63 characters); https://github.com/argoproj-labs/argocd-operator/issues/2181 (a 53-character StatefulSet name fails the same way)"
	w17aSrcLimitDefault  = "https://kubernetes.io/docs/concepts/policy/limit-range/ (LimitRange does not check the consistency of the defaults it applies: a default limit lower than the request a container sets makes the Pod invalid)"
)

// w17aZonalClass creates StorageClass ClusterName(name) for provisioner, binding on first
// consumer and restricted by allowedTopologies to nodes whose key is one of values.
func (e *Env) w17aZonalClass(ctx context.Context, name, provisioner, key string, values ...string) error {
	sc := &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
		Provisioner:       provisioner,
		Parameters:        map[string]string{"type": "pd-ssd"},
		ReclaimPolicy:     ptr.To(corev1.PersistentVolumeReclaimRetain),
		VolumeBindingMode: ptr.To(storagev1.VolumeBindingWaitForFirstConsumer),
		AllowedTopologies: []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: key, Values: values}}}},
	}
	if _, err := e.Client.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
		return wrap("StorageClass", sc.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.StorageV1().StorageClasses().Delete(ctx, sc.Name, metav1.DeleteOptions{}))
	})
	return nil
}

// w17aBudget creates PodDisruptionBudget name over pods lbl with maxUnavailable (a number or
// a percentage).
func (e *Env) w17aBudget(ctx context.Context, name, maxUnavailable string, lbl map[string]string) error {
	_, err := e.Client.PolicyV1().PodDisruptionBudgets(e.Namespace).Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr.To(intstr.Parse(maxUnavailable)),
			Selector: &metav1.LabelSelector{MatchLabels: lbl}},
	}, metav1.CreateOptions{})
	return wrap("PodDisruptionBudget", name, err)
}

// w17aColocate requires t's pods on the node of a pod labelled lbl (a cache next to its user).
func w17aColocate(t *corev1.PodTemplateSpec, lbl map[string]string) {
	t.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: lbl}, TopologyKey: "kubernetes.io/hostname",
		}},
	}}
}

// w17aMountDir mounts ConfigMap cm as a whole directory at path in t's first container.
func w17aMountDir(t *corev1.PodTemplateSpec, cm, path string) {
	t.Spec.Volumes = append(t.Spec.Volumes, w11bConfigMapVolume(cm))
	c := &t.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, w11bMount(cm, path, ""))
}

// w17aMountKey mounts key of ConfigMap cm as the single file path in container c of t.
func w17aMountKey(t *corev1.PodTemplateSpec, c int, cm, path, key string) {
	t.Spec.Volumes = append(t.Spec.Volumes, w11bConfigMapVolume(cm))
	t.Spec.Containers[c].VolumeMounts = append(t.Spec.Containers[c].VolumeMounts, w11bMount(cm, path, key))
}

// w17aMemoryOnly sets container c's memory request (and limit, when given), nothing for CPU.
func w17aMemoryOnly(t *corev1.PodTemplateSpec, c int, memory, memLimit string) {
	r := corev1.ResourceRequirements{Requests: w13bList("memory", memory)}
	if memLimit != "" {
		r.Limits = w13bList("memory", memLimit)
	}
	t.Spec.Containers[c].Resources = r
}

// w17aMemoryDefaults creates LimitRange name giving containers a default memory limit and
// request (a platform team's namespace baseline, memory only).
func (e *Env) w17aMemoryDefaults(ctx context.Context, name, limit, request string) error {
	_, err := e.Client.CoreV1().LimitRanges(e.Namespace).Create(ctx, &corev1.LimitRange{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
			Type: corev1.LimitTypeContainer, Default: w13bList("memory", limit), DefaultRequest: w13bList("memory", request),
		}}},
	}, metav1.CreateOptions{})
	return wrap("LimitRange", name, err)
}
