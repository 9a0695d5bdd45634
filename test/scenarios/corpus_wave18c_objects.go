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

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Builders for wave 18c: data stores and queues seen from their clients (PostgreSQL, Redis,
// RabbitMQ, Kafka, ClickHouse, Patroni, NATS, MongoDB). The client shows the symptom; the cause
// sits in the provider's configuration, its Service, its RBAC, its NetworkPolicy or in the
// client's own connection settings.

// Outside sources the wave was written from.
const (
	w18cSrcShm        = "https://github.com/docker-library/postgres/issues/416; https://github.com/CrunchyData/postgres-operator/issues/2640 (ERROR: could not resize shared memory segment \"/PostgreSQL...\": No space left on device, /dev/shm is 64M in a container)"
	w18cSrcReadOnly   = "https://github.com/helm/charts/issues/8988; https://github.com/bitnami/charts/issues/3745 (READONLY You can't write against a read only replica: the Service selects master and replicas)"
	w18cSrcDiskAlarm  = "https://github.com/rabbitmq/rabbitmq-server/issues/1986; https://github.com/rabbitmq/rabbitmq-server/issues/880 (disk_free_limit above the free space: disk resource limit alarm, publishers blocked)"
	w18cSrcMinISR     = "https://github.com/apache/kafka/pull/8225 (KAFKA-4680: min.insync.replicas above the replication factor: NotEnoughReplicasException on acks=all); https://github.com/charithe/kafka-junit/issues/65"
	w18cSrcClickPort  = "https://github.com/ClickHouse/mcp-clickhouse/issues/100; https://github.com/TimonKK/clickhouse/issues/109 (HTTP 400: Port 9000 is for clickhouse-client program. You must use port 8123 for HTTP.)"
	w18cSrcPatroniRBA = "https://github.com/helm/charts/pull/3899 (Unable to change spilo-role label: pods is forbidden ... cannot patch pods); https://github.com/patroni/patroni/pull/616"
	w18cSrcSentinel   = "https://github.com/redis/ioredis/issues/1390 (All sentinels are unreachable. Retrying from scratch after 10ms); k8s-docs/concepts/services-networking/network-policies.md"
	w18cSrcNatsPerm   = "https://github.com/nats-io/nats.net.v1/issues/525; https://github.com/nats-io/nsc/pull/500 (nats: Permissions Violation for Publish to \"...\"; server: Publish Violation - User ..., Subject ...)"
	w18cSrcMongoSet   = "https://github.com/Automattic/mongoose/issues/7167; https://github.com/Automattic/mongoose/issues/7075 (no primary found in replicaset or invalid replica set name: replicaSet in the URI differs from the server's replSetName)"
)

// w18cStore creates StatefulSet st with a headless governing Service (st.Spec.ServiceName,
// publishing not-ready addresses) and, when client is true, a ClusterIP Service named after
// st; both select st's pod labels on its first container's first port.
func (e *Env) w18cStore(ctx context.Context, st *appsv1.StatefulSet, client bool) error {
	p := st.Spec.Template.Spec.Containers[0].Ports[0]
	lbl := st.Spec.Template.Labels
	return steps(
		func() error { return e.createStatefulSet(ctx, st) },
		func() error {
			return e.createService(ctx, w8bHeadless(st.Spec.ServiceName, lbl, p.Name, p.ContainerPort))
		},
		func() error {
			if !client {
				return nil
			}
			return e.createService(ctx, w8bService(st.Name, lbl, p.Name, p.ContainerPort))
		},
	)
}

// w18cShm mounts a memory-backed emptyDir of size at /dev/shm in the first container (what a
// PostgreSQL chart does so parallel queries get more than the runtime's 64M).
func w18cShm(t *corev1.PodTemplateSpec, size string) {
	q := resource.MustParse(size)
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: "dshm", VolumeSource: corev1.VolumeSource{
		EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: &q}}})
	t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "dshm", MountPath: "/dev/shm"})
}

// w18cJob is a Job running image once (restartPolicy Never) with backoffLimit retries, its
// container named container, its pods labelled lbl.
func w18cJob(name, container, image string, backoffLimit int32, lbl, ann map[string]string, args ...string) *batchv1.Job {
	t := template(name, image, ann)
	t.Labels = lbl
	t.Spec.RestartPolicy = corev1.RestartPolicyNever
	t.Spec.Containers[0].Name = container
	t.Spec.Containers[0].Ports = nil
	t.Spec.Containers[0].Args = args
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbl},
		Spec:       batchv1.JobSpec{BackoffLimit: ptr.To(backoffLimit), Template: t},
	}
}

func (e *Env) w18cCreateJob(ctx context.Context, j *batchv1.Job) error {
	_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
	return wrap("Job", j.Name, err)
}

// w18cIngressPolicy is a NetworkPolicy for pods sel that allows ingress only by rules.
func w18cIngressPolicy(name string, sel map[string]string, rules ...networkingv1.NetworkPolicyIngressRule) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: sel},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress:     rules,
		},
	}
}

// w18cFromPods is an ingress rule from the pods labelled sel on TCP ports (every port when
// none is given).
func w18cFromPods(sel map[string]string, ports ...int) networkingv1.NetworkPolicyIngressRule {
	var pairs []any
	for _, p := range ports {
		pairs = append(pairs, "TCP", p)
	}
	return networkingv1.NetworkPolicyIngressRule{
		From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: sel}}},
		Ports: w8cPorts(pairs...),
	}
}

// w18cMerge is a new label set with the pairs of every set given (later ones win).
func w18cMerge(sets ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, s := range sets {
		for k, v := range s {
			out[k] = v
		}
	}
	return out
}
