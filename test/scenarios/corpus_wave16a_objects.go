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
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Outside sources of wave 16a: one public incident, issue or doc page per ticket.
const (
	w16aSrcSidekiqDNS   = "https://github.com/T-unity/sentry/issues/34 (RedisClient::CannotConnectError: getaddrinfo: Name or service not known (redis://redis:6379), Sidekiq); https://github.com/kubernetes/kubernetes/issues/14020 (getaddrinfo failed: Name or service not known [tcp://redis-slave:6379])"
	w16aSrcDotnetEnv    = "https://learn.microsoft.com/en-us/dotnet/core/compatibility/extensions/7.0/environment-variable-prefix (for environment variables the : hierarchy delimiter is written __); https://aspire.dev/hub/glossary/connection-string/ (ConnectionStrings__<name>)"
	w16aSrcSpringMgmt   = "https://github.com/spring-projects/spring-boot/issues/41630 (server.port 8080 and management.server.port 9000: /actuator/health/liveness lives on the management port); https://github.com/spring-projects/spring-boot/issues/21648 (probe examples must use the management port)"
	w16aSrcBitnamiKeys  = "https://github.com/bitnami/charts/issues/8900 ([bitnami/postgresql] secret keys change moving from 10.16.2 to 11.0.1: postgres-password / password); https://github.com/tryretool/retool-helm/pull/92 (apps reading the old postgresql-password key)"
	w16aSrcInnodbOOM    = "https://github.com/mariadb-operator/mariadb-operator/issues/1399 (OOMKilled when innodb_buffer_pool_size is bigger than the memory limit); https://github.com/MariaDB/mariadb-docker/issues/279 (innodb_buffer_pool_size vs the pod's memory limit in k8s)"
	w16aSrcPVCapacity   = "k8s-docs/concepts/storage/persistent-volumes.md (Binding: claims remain unbound indefinitely if a matching volume does not exist; 50Gi PVs do not match a PVC requesting 100Gi)"
	w16aSrcEgressTypes  = "k8s-docs/concepts/services-networking/network-policies.md (policyTypes; a policy that lists Egress with no egress rules isolates the pods for all outgoing traffic, DNS included); NetworkPolicySpec API reference (egress: if this field is empty then this NetworkPolicy limits all outgoing traffic)"
	w16aSrcViewSecrets  = "https://kubernetes.io/docs/reference/access-authn-authz/rbac/#user-facing-roles (view: read-only access to most objects in a namespace; it does not allow viewing Secrets)"
	w16aSrcHostPortRoll = "https://github.com/newrelic/nri-kubernetes/issues/356 (upgrade stuck: FailedScheduling 'didn't have free ports for the requested pod ports' for a Deployment with host ports); https://github.com/apache/yunikorn-release/pull/125 (rolling upgrade with host ports cannot start new pods, use Recreate)"
	w16aSrcDjangoEngine = "https://github.com/ansible/awx/issues/2308 (AWX installation on Kubernetes fails in the migrate DB step: settings.DATABASES is improperly configured. Please supply the ENGINE value); https://github.com/Forum-Informationsfreiheit/offenewahlen_api/issues/229 ($DATABASE_URL must be set before migrate)"
)

// w16aJob creates Job j.
func (e *Env) w16aJob(ctx context.Context, j *batchv1.Job) error {
	_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
	return wrap("Job", j.Name, err)
}

// w16aLocalPV creates a local PersistentVolume ClusterName(name) of class (a class of the
// scenario's own), pre-bound to claim, the way an administrator pre-provisions local disks.
func (e *Env) w16aLocalPV(ctx context.Context, name, claim, class, size string) error {
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              class,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/mnt/disks/" + name}},
			ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: e.Namespace, Name: claim},
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

// w16aClaim is a StatefulSet claim template name of size in class.
func w16aClaim(name, class, size string) corev1.PersistentVolumeClaim {
	return corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: ptr.To(class),
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
		},
	}
}

// w16aIngressOnly is a NetworkPolicy for pods sel admitting TCP port from pods from; with
// egressToo it also lists Egress in policyTypes (and no egress rule).
func w16aIngressOnly(name string, sel, from map[string]string, port int, egressToo bool) *networkingv1.NetworkPolicy {
	types := []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
	if egressToo {
		types = append(types, networkingv1.PolicyTypeEgress)
	}
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: sel},
			PolicyTypes: types,
			Ingress: []networkingv1.NetworkPolicyIngressRule{{
				From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: from}}},
				Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt(port))}},
			}},
		},
	}
}

// w16aHostPort makes the first container's first port a host port too (UDP when udp).
func w16aHostPort(t *corev1.PodTemplateSpec, udp bool) {
	p := &t.Spec.Containers[0].Ports[0]
	p.HostPort = p.ContainerPort
	if udp {
		p.Protocol = corev1.ProtocolUDP
	}
}

// w16aRollOut waits until Deployment name has n ready replicas at generation 1, then (once)
// sets its first container's image, the release a team ships; it succeeds once that update is
// observed by the controller.
func w16aRollOut(name, image string, n int32) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		key := "w16a-rolled-" + name
		if e.State[key] == "" {
			if err := readyReplicas(name, n)(ctx, e); err != nil {
				return err
			}
			d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			d.Spec.Template.Spec.Containers[0].Image = image
			if _, err := e.Client.AppsV1().Deployments(e.Namespace).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
				return err
			}
			e.State[key] = image
		}
		d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Status.ObservedGeneration < d.Generation {
			return fmt.Errorf("deployment %s: update not observed yet", name)
		}
		return nil
	}
}
