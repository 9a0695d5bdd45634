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
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

// Builders for wave 21b: the symptom shows on one object (an Ingress, a frontend, a rollout, a
// CronJob's target) and the cause sits two or more objects away along the dependency chain, or
// on an object several workloads share.

// Outside sources the wave was written from (the corpus page first, then the public thread).
const (
	w21bSrcJobLabels  = "k8s-docs/concepts/services-networking/service.md (a selector picks every matching Pod); https://github.com/stakater/application/issues/464 (Service selector label and CronJob labels conflict: the Service randomly selects the job pod)"
	w21bSrcRedisConf  = "runbooks/kubernetes/KubePodCrashLooping.md; https://github.com/redis/redis/pull/6649 (maxmemory-policy accepts only the listed eviction policies)"
	w21bSrcPoolerNP   = "k8s-docs/concepts/services-networking/network-policies.md (egress rules list the allowed destination ports); k8s-docs/tasks/debug/debug-application/debug-service.md"
	w21bSrcNoProxy    = "https://github.com/sentry-kubernetes/charts/issues/2017 (proxy env: short service names still go through the corporate proxy); https://github.com/openshift/cluster-network-operator/pull/295 (add .svc and .cluster.local to noProxy)"
	w21bSrcCronJobSA  = "k8s-docs/tasks/configure-pod-container/configure-service-account.md; https://github.com/lachie83/k8s-kubectl/issues/67 (forbidden: User system:serviceaccount:<ns>:default); https://github.com/nginx/nginx-gateway-fabric/issues/1690 (CronJob rollout restart forbidden)"
	w21bSrcClaimRef   = "k8s-docs/concepts/storage/persistent-volumes.md (Reserving a PersistentVolume: claimRef); runbooks/kubernetes/KubeStatefulSetReplicasMismatch.md"
	w21bSrcAccessPol  = "https://kubernetes.io/docs/tasks/administer-cluster/declare-network-policy/ (only Pods labelled access=\"true\" may reach nginx); k8s-docs/concepts/services-networking/network-policies.md"
	w21bSrcNotReadyEP = "k8s-docs/concepts/services-networking/dns-pod-service.md (publishNotReadyAddresses); k8s-docs/tasks/debug/debug-application/debug-service.md (Are the Pods Ready?)"
)

// w21bPinned pins the Service's ClusterIP (an address in the static band, so the static log
// lines that quote it match the cluster).
func w21bPinned(s *corev1.Service, ip string) *corev1.Service {
	s.Spec.ClusterIP = ip
	return s
}

// w21bDNS is the egress rule every restricted pod needs: DNS to kube-system on port 53.
func w21bDNS() networkingv1.NetworkPolicyEgressRule {
	return networkingv1.NetworkPolicyEgressRule{
		To: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{
			MatchLabels: map[string]string{"kubernetes.io/metadata.name": "kube-system"}}}},
		Ports: w8cPorts("UDP", 53, "TCP", 53),
	}
}

// w21bJob is a Job whose pod template carries lbl and a named container port, as a Job
// copied from a Deployment's pod spec has them.
func w21bJob(name, image string, lbl, ann map[string]string, portName string, portNumber int32, args ...string) *batchv1.Job {
	t := template(name, image, ann)
	t.Labels = lbl
	t.Spec.RestartPolicy = corev1.RestartPolicyNever
	t.Spec.Containers[0].Name = name
	t.Spec.Containers[0].Args = args
	port(&t, portName, portNumber)
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbl},
		Spec:       batchv1.JobSpec{BackoffLimit: ptr.To[int32](0), Template: t},
	}
}

func (e *Env) w21bCreateJob(ctx context.Context, j *batchv1.Job) error {
	_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
	return wrap("Job", j.Name, err)
}

// w21bReservedPV creates an NFS PersistentVolume of class (a full class name) reserved by
// claimRef for claim of the scenario's namespace, as the storage team pre-provisions them.
func (e *Env) w21bReservedPV(ctx context.Context, name, class, claim, size, path string) error {
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			StorageClassName:              class,
			PersistentVolumeSource:        corev1.PersistentVolumeSource{NFS: &corev1.NFSVolumeSource{Server: "nfs.storage.corp.example", Path: path}},
			ClaimRef:                      &corev1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: e.Namespace, Name: claim},
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

// w21bClaimTemplate adds volume claim template name (class, size) to the StatefulSet and
// mounts it at path in the first container.
func w21bClaimTemplate(st *appsv1.StatefulSet, name, class, size, path string) {
	c := pvc(name, class, size, corev1.ReadWriteOnce)
	st.Spec.VolumeClaimTemplates = append(st.Spec.VolumeClaimTemplates, *c)
	ct := &st.Spec.Template.Spec.Containers[0]
	ct.VolumeMounts = append(ct.VolumeMounts, corev1.VolumeMount{Name: name, MountPath: path})
}

// w21bRollOnce waits until Deployment name has n ready replicas, then applies edit to it once
// (the user's release), and succeeds from then on.
func w21bRollOnce(name string, n int32, edit func(d *appsv1.Deployment)) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		if e.State["w21b-rolled-"+name] != "" {
			return nil
		}
		if err := readyReplicas(name, n)(ctx, e); err != nil {
			return err
		}
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			edit(d)
			_, err = e.Client.AppsV1().Deployments(e.Namespace).Update(ctx, d, metav1.UpdateOptions{})
			return err
		})
		if err != nil {
			return fmt.Errorf("rolling %s: %w", name, err)
		}
		e.State["w21b-rolled-"+name] = "yes"
		return nil
	}
}

// w21bImage is a pod check: the first container runs image.
func w21bImage(image string, then func(p *corev1.Pod) error) func(p *corev1.Pod) error {
	return func(p *corev1.Pod) error {
		if p.Spec.Containers[0].Image != image {
			return fmt.Errorf("pod %s runs %s", p.Name, p.Spec.Containers[0].Image)
		}
		return then(p)
	}
}

// w21bFailed is a pod check: the pod ended Failed.
func w21bFailed(p *corev1.Pod) error {
	if p.Status.Phase != corev1.PodFailed {
		return fmt.Errorf("phase %s", p.Status.Phase)
	}
	return nil
}
