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
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Builders for wave 18a: incident tickets as on-call receives them, each written from one
// public issue, question or documentation page about a common production failure.

// Outside sources the wave was written from.
const (
	w18aSrcRedisReplica = "https://github.com/helm/charts/issues/21180 (You can't write against a read only replica: the Service the app uses reaches the replicas)"
	w18aSrcGRPCProbe    = "k8s-docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes.md (gRPC probes need grpc.health.v1.Health); https://github.com/kubernetes-retired/blixt/pull/75 ('this server does not implement the grpc health protocol')"
	w18aSrcReloaderRBAC = "https://github.com/stakater/Reloader/issues/113 (pods are not reloaded; the reloader log shows RBAC denials for configmaps)"
	w18aSrcPostgresShm  = "https://github.com/CrunchyData/postgres-operator/issues/2640 (ERROR: could not resize shared memory segment: no Memory emptyDir on /dev/shm, the container's 64M shm)"
	w18aSrcExternalIP   = "k8s-docs/concepts/services-networking/service.md (ExternalName: names that resemble IPv4 addresses are not resolved by DNS servers)"
	w18aSrcMailHealth   = "https://github.com/indigo-iam/iam/issues/656 (deployment became not ready when the mail server is unreachable: readiness on /actuator/health includes the mail indicator)"
	w18aSrcCRLF         = "https://www.codetd.com/en/article/10709043 (bash test.sh: 'line 2: $'\\r': command not found': a shell script written on Windows with CRLF line endings; dos2unix fixes it)"
	w18aSrcPeerAND      = "k8s-docs/concepts/services-networking/network-policies.md (a single from element with namespaceSelector and podSelector admits only pods matching both)"
	w18aSrcNodeNameWFFC = "https://kubernetes.io/docs/concepts/storage/storage-classes/#volume-binding-mode (with WaitForFirstConsumer do not use nodeName: the scheduler is bypassed and the PVC stays pending)"
)

// w18aRedis is one StatefulSet of a Bitnami-style Redis replication release (component master
// or replica), governed by the release's headless Service.
func w18aRedis(name, release, component string, replicas int32, ann map[string]string) *appsv1.StatefulSet {
	lbl := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", release, "app.kubernetes.io/component", component)
	st := w8bStatefulSet(name, "docker.io/bitnami/redis:7.4.1-debian-12-r0", release+"-headless", replicas, lbl, ann, "redis", 6379)
	st.Spec.Template.Spec.Containers[0].Name = "redis"
	w8bEnv(&st.Spec.Template, "REDIS_REPLICATION_MODE", component, "REDIS_MASTER_HOST", release+"-master-0."+release+"-headless", "ALLOW_EMPTY_PASSWORD", "yes")
	return st
}

// w18aGRPCProbe is the kubelet's native gRPC probe on port (service "" asks for the server's
// overall health through grpc.health.v1.Health/Check).
func w18aGRPCProbe(port int32, period int32) *corev1.Probe {
	return &corev1.Probe{PeriodSeconds: period, FailureThreshold: 3, TimeoutSeconds: 1,
		ProbeHandler: corev1.ProbeHandler{GRPC: &corev1.GRPCAction{Port: port}}}
}

// w18aFixedService is Service name to the named container port, on a pinned cluster IP from the
// static band (so that a client's log can quote the address it dialled).
func w18aFixedService(name string, sel map[string]string, portName string, number int32, ip string) *corev1.Service {
	s := w8bService(name, sel, portName, number)
	s.Spec.ClusterIP = ip
	return s
}

// w18aShm mounts a Memory emptyDir of size at /dev/shm in the first container, as the
// postgres charts do to lift the container runtime's 64M default.
func w18aShm(t *corev1.PodTemplateSpec, size string) {
	q := resource.MustParse(size)
	w15bVolume(t, "dshm", "/dev/shm", corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: &q}})
}

// w18aPostgres is a one-replica postgres StatefulSet with a 50Gi data claim and its Service,
// tuned for reporting queries (parallel workers, large work_mem); shm gives it a 1Gi /dev/shm.
func (e *Env) w18aPostgres(ctx context.Context, name string, lbl, ann map[string]string, shm bool) error {
	st := w8bStatefulSet(name, "docker.io/library/postgres:16.4", name, 1, lbl, ann, "postgresql", 5432)
	st.Spec.Template.Spec.Containers[0].Name = "postgres"
	w8cArgs(&st.Spec.Template, "-c", "max_parallel_workers_per_gather=4", "-c", "work_mem=64MB", "-c", "shared_buffers=1GB")
	w8bEnv(&st.Spec.Template, "POSTGRES_DB", strings.TrimSuffix(name, "-postgres"), "PGDATA", "/var/lib/postgresql/data/pgdata")
	envKeyFromSecret(&st.Spec.Template, "POSTGRES_PASSWORD", name+"-auth", "password")
	if shm {
		w18aShm(&st.Spec.Template, "1Gi")
	}
	return steps(
		func() error {
			return e.createSecret(ctx, name+"-auth", map[string]string{"password": "Tq7vR2mLx9Pk4sWn"})
		},
		func() error { return e.w10aClaimedStatefulSet(ctx, st, "data", "50Gi", "/var/lib/postgresql/data") },
		func() error { return e.createService(ctx, w8bService(name, lbl, "postgresql", 5432)) },
	)
}

// w18aExternalName is a Service of type ExternalName aliasing external on port.
func w18aExternalName(name, external string, port int32) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: external,
			Ports: []corev1.ServicePort{{Name: "https", Port: port, TargetPort: intstr.FromInt32(port)}}},
	}
}

// w18aCRLF turns a script's line endings into CRLF, as an editor on Windows saves it.
func w18aCRLF(script string) string {
	return strings.ReplaceAll(script, "\n", "\r\n")
}

// w18aScriptCronJob is a CronJob (every minute, Forbid, runs kept) that runs bash on key of
// ConfigMap cm, mounted at /opt/scripts.
func w18aScriptCronJob(name, image, cm, key string, lbl, ann map[string]string) *batchv1.CronJob {
	c := w11aCronJob(name, image, "* * * * *", false, lbl)
	t := &c.Spec.JobTemplate.Spec.Template
	t.Annotations = ann
	t.Spec.RestartPolicy = corev1.RestartPolicyNever
	c.Spec.JobTemplate.Spec.BackoffLimit = ptr.To[int32](0)
	t.Spec.Containers[0].Command = []string{"bash", "/opt/scripts/" + key}
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: "scripts", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}, DefaultMode: ptr.To[int32](0o755)}}})
	t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "scripts", MountPath: "/opt/scripts", ReadOnly: true})
	return c
}

// w18aIngressFrom is a NetworkPolicy admitting TCP port to pods sel from each peer in its own
// from element (one element per peer: any of them may connect).
func w18aIngressFrom(name string, sel map[string]string, port int, peers ...networkingv1.NetworkPolicyPeer) *networkingv1.NetworkPolicy {
	return w13bIngressPolicy(name, sel, networkingv1.NetworkPolicyIngressRule{From: peers, Ports: w8cPorts("TCP", port)})
}

// w18aPods is a NetworkPolicy peer of the pods labelled lbl in this namespace.
func w18aPods(lbl map[string]string) networkingv1.NetworkPolicyPeer {
	return networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{MatchLabels: lbl}}
}

// w18aNamespace is a NetworkPolicy peer of every pod of namespace ns.
func w18aNamespace(ns string) networkingv1.NetworkPolicyPeer {
	return networkingv1.NetworkPolicyPeer{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}}}
}

// w18aFailedWith: the pod ended Failed with a container that exited with code exit.
func w18aFailedWith(exit int32) func(p *corev1.Pod) error {
	return func(p *corev1.Pod) error {
		if p.Status.Phase != corev1.PodFailed {
			return fmt.Errorf("phase %s", p.Status.Phase)
		}
		for _, cs := range p.Status.ContainerStatuses {
			if t := cs.State.Terminated; t != nil && t.ExitCode == exit {
				return nil
			}
		}
		return fmt.Errorf("no container terminated with exit code %d", exit)
	}
}
