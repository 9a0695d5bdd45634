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
	"maps"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Builders for wave 20a: the failures of the Kubernetes debugging pages and the Prometheus
// Operator runbooks (KubePodCrashLooping, KubeDeploymentReplicasMismatch, KubeJobFailed,
// KubeHpaReplicasMismatch, KubePersistentVolumeErrors, KubePodNotReady), each made concrete
// with an application and the error text of a public issue.

// Outside sources the wave was written from: a page of the shared corpus, then the public
// issue whose wording the scenario reproduces.
const (
	w20aSrcLocalPV    = "k8s-docs/concepts/storage/persistent-volumes.md (Node Affinity); runbooks/kubernetes/KubePersistentVolumeErrors.md; https://github.com/rancher/local-path-provisioner/issues/476 ('2 node(s) had volume node affinity conflict' for a local-path volume whose node is gone)"
	w20aSrcPodLimit   = "k8s-docs/concepts/policy/limit-range.md; runbooks/kubernetes/KubeDeploymentReplicasMismatch.md; https://github.com/kubernetes/kubernetes/pull/13724 (type Pod: the total memory of a pod across all its containers); https://github.com/harn3ss/open-infra/issues/9 (pods ... is forbidden: maximum memory usage per ..., ReplicaSet FailedCreate)"
	w20aSrcNamedPort  = "k8s-docs/concepts/services-networking/network-policies.md (a named port refers to the container port of the selected pods); https://github.com/neo4j/helm-charts/issues/156 (Service port tcp-bolt); https://github.com/tomasonjo/blogs/issues/19 (neo4j.exceptions.ServiceUnavailable: Couldn't connect to ...:7687 ... Timed out trying to establish connection)"
	w20aSrcStrapi     = "runbooks/kubernetes/KubePodCrashLooping.md; k8s-docs/tasks/configure-pod-container/configure-pod-configmap.md (envFrom); https://github.com/strapi/strapi/pull/12287 (ADMIN_JWT_SECRET read by config/admin.js, an error is thrown when missing); https://github.com/strapi/strapi/issues/7116"
	w20aSrcKong       = "k8s-docs/tasks/debug/debug-application/debug-service.md (Does the Service have any Endpoints?); https://github.com/Kong/charts/issues/933 and https://github.com/Kong/kong/issues/14650 (init_by_lua error: ... error parsing declarative config file /kong_dbless/kong.yml)"
	w20aSrcHPAGroup   = "k8s-docs/tasks/run-application/horizontal-pod-autoscale.md; runbooks/kubernetes/KubeHpaReplicasMismatch.md; https://github.com/fiaas/fiaas-deploy-daemon/pull/110 and https://github.com/kubernetes-sigs/metrics-server/issues/389 (FailedGetScale: no matches for kind \"Deployment\" in group \"extensions\")"
	w20aSrcPVCSelect  = "k8s-docs/concepts/storage/persistent-volumes.md (Selector: only volumes whose labels match the selector can be bound to the claim); https://github.com/kubernetes/kubernetes/issues/42503 (PVC creation with selectors)"
	w20aSrcCommandArg = "k8s-docs/tasks/debug/debug-application/debug-pods.md; runbooks/kubernetes/KubeJobFailed.md; https://github.com/pires/kubernetes-elasticsearch-cluster/issues/132 (curator CronJob: exec: \"--config\": executable file not found in $PATH); https://github.com/lightspeed-core/lightspeed-stack/issues/226 (StartError, exit code 128)"
)

// w20aPinIP gives Service s a fixed cluster IP of the static band, the address the clients'
// log lines quote.
func w20aPinIP(s *corev1.Service, ip string) *corev1.Service {
	s.Spec.ClusterIP = ip
	return s
}

// w20aClaimTemplate gives a StatefulSet a claim template name in StorageClass class (a
// scenario class: ClusterName) of size, mounted at path in the first container, restricted to
// volumes labelled sel when sel is set.
func w20aClaimTemplate(st *appsv1.StatefulSet, name, class, size, path string, sel map[string]string) {
	pvc := corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       w20aClaimSpec(class, size, sel),
	}
	st.Spec.VolumeClaimTemplates = append(st.Spec.VolumeClaimTemplates, pvc)
	c := &st.Spec.Template.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: name, MountPath: path})
}

func w20aClaimSpec(class, size string, sel map[string]string) corev1.PersistentVolumeClaimSpec {
	s := corev1.PersistentVolumeClaimSpec{
		AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		StorageClassName: ptr.To(class),
		Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
	}
	if len(sel) > 0 {
		s.Selector = &metav1.LabelSelector{MatchLabels: sel}
	}
	return s
}

// w20aPV creates PersistentVolume ClusterName(name) of class (already a ClusterName) and size
// on hostPath path, labelled lbl; pre-bound to claim when claim is set, and pinned to the node
// named hostname when hostname is set (the volumes local-path-provisioner creates).
func (e *Env) w20aPV(ctx context.Context, name, class, size, path, claim, hostname string, lbl map[string]string) error {
	labels := map[string]string{LabelScenario: e.Namespace}
	maps.Copy(labels, lbl)
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: labels},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              class,
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: path, Type: ptr.To(corev1.HostPathDirectoryOrCreate)}},
		},
	}
	if claim != "" {
		pv.Spec.ClaimRef = &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: e.Namespace, Name: claim}
	}
	if hostname != "" {
		pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
			MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{hostname}}},
		}}}}
	}
	if _, err := e.Client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		return wrap("PersistentVolume", pv.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.CoreV1().PersistentVolumes().Delete(ctx, pv.Name, metav1.DeleteOptions{}))
	})
	return nil
}

// w20aMemoryLimit sets a container's memory request and limit.
func w20aMemoryLimit(c *corev1.Container, request, limit string) {
	c.Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(request)},
		Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(limit)},
	}
}

// w20aHPA creates HPA name on CPU utilization whose scaleTargetRef names kind/target in
// apiVersion, exactly as a manifest wrote it.
func (e *Env) w20aHPA(ctx context.Context, name, apiVersion, kind, target string, minReplicas, maxReplicas int32) error {
	_, err := e.Client.AutoscalingV2().HorizontalPodAutoscalers(e.Namespace).Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: apiVersion, Kind: kind, Name: target},
			MinReplicas:    ptr.To(minReplicas), MaxReplicas: maxReplicas,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](65)},
			}}},
		},
	}, metav1.CreateOptions{})
	return wrap("HorizontalPodAutoscaler", name, err)
}

// w20aDenyIngress is a NetworkPolicy selecting every pod of the namespace with no ingress rule.
func w20aDenyIngress(name string) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}},
	}
}

// w20aAllowFrom is a NetworkPolicy admitting the pods labelled from into the pods labelled to
// on port (a number or a port name, as written).
func w20aAllowFrom(name string, to, from map[string]string, port intstr.IntOrString) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: to},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: from}}},
				Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(port)}},
			}},
		},
	}
}

// w20aBoundClaim creates claim name of class and size, labelled lbl, already bound to volume
// ClusterName(pv): the claim a StatefulSet's earlier pod left behind, which its replica adopts.
func (e *Env) w20aBoundClaim(ctx context.Context, name, pv, class, size string, lbl map[string]string) error {
	c := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbl}, Spec: w20aClaimSpec(class, size, nil)}
	c.Spec.VolumeName = e.ClusterName(pv)
	return e.createPVC(ctx, c)
}
