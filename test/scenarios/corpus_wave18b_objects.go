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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Builders for wave 18b: platform components (ingress controllers, external-dns, log shippers,
// Thanos, secret syncers, mesh sidecars, backup jobs, registry mirrors, node-local DNS caches)
// and the application teams that feel their faults.

// Outside sources the wave was written from.
const (
	w18bSrcNodeLocalDNS   = "https://github.com/kubernetes-sigs/kubespray/issues/4376 ([nodelocaldns] the toleration should be wider: kubelet sends all DNS to the node's cache whatever the node's taints); https://github.com/kubernetes/kubernetes/pull/88955"
	w18bSrcSecretSyncRBAC = "https://github.com/external-secrets/external-secrets/pull/294 (unable to patch secret: secrets ... is forbidden: ... cannot patch resource \"secrets\"; the new version needs patch)"
	w18bSrcEnvoyXDS       = "https://github.com/envoyproxy/go-control-plane/issues/1236 (gRPC config stream to xds_cluster closed: 14, upstream connect error ...); k8s-docs/concepts/services-networking/network-policies.md"
	w18bSrcMirror         = "k8s-docs/concepts/services-networking/service.md (type NodePort) and k8s-docs/concepts/scheduling-eviction/assign-pod-node.md (nodeSelector); https://github.com/distribution/distribution/blob/main/docs/content/recipes/mirror.md"
	w18bSrcFluentd        = "https://github.com/uken/fluent-plugin-elasticsearch/issues/625 (buffer overflow action=:block after failed flushes); k8s-docs/concepts/services-networking/network-policies.md"
	w18bSrcThanosSidecar  = "https://github.com/thanos-io/thanos/issues/892 (failed to fetch initial external labels. Is Prometheus running? Retrying)"
	w18bSrcExternalDNS    = "https://github.com/kubernetes-sigs/external-dns/issues/583 (Skipping endpoint ... because owner id does not match; change the TXT owner or --txt-owner-id)"
	w18bSrcDefaultBackend = "https://github.com/kubernetes-retired/contrib/pull/1571 (no service with name default/default-http-backend found when the controller runs in another namespace); https://github.com/samsung-cnct/k2-charts/issues/67"
	w18bSrcBackupAffinity = "k8s-docs/concepts/scheduling-eviction/assign-pod-node.md (Inter-pod affinity: requiredDuringSchedulingIgnoredDuringExecution with a labelSelector no pod matches)"
)

// w18bTolerate adds a toleration of key (Exists when value is "") with effect.
func w18bTolerate(t *corev1.PodTemplateSpec, key, value string, effect corev1.TaintEffect) {
	tol := corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect}
	if value != "" {
		tol.Operator, tol.Value = corev1.TolerationOpEqual, value
	}
	t.Spec.Tolerations = append(t.Spec.Tolerations, tol)
}

// w18bMountInto mounts ConfigMap (or Secret when secret) name at path in container i.
func w18bMountInto(t *corev1.PodTemplateSpec, i int, name, path string, secret bool) {
	src := corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}
	if secret {
		src = corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: name}}
	}
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: src})
	t.Spec.Containers[i].VolumeMounts = append(t.Spec.Containers[i].VolumeMounts, corev1.VolumeMount{Name: name, MountPath: path, ReadOnly: true})
}

// w18bEnvoySidecar adds the mesh's Envoy sidecar (admin and readiness on 9901) reading its
// bootstrap from ConfigMap envoy-bootstrap.
func w18bEnvoySidecar(t *corev1.PodTemplateSpec, cluster string) {
	c := w10aContainer(t, "envoy", "envoyproxy/envoy:v1.31.2", "admin", 9901,
		"-c", "/etc/envoy/envoy.yaml", "--service-cluster", cluster, "--service-node", "$(POD_NAME)", "--log-level", "info")
	c.Env = []corev1.EnvVar{{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: "inbound", ContainerPort: 15006})
	c.ReadinessProbe = w10aProbe("/ready", "admin", 5)
	w18bMountInto(t, len(t.Spec.Containers)-1, "envoy-bootstrap", "/etc/envoy", false)
}

// w18bEnvoyBootstrap is the sidecar bootstrap: everything dynamic over delta ADS from xds.
func w18bEnvoyBootstrap(xds string, port int) string {
	return fmt.Sprintf(`node:
  cluster: ${SERVICE_CLUSTER}
dynamic_resources:
  ads_config:
    api_type: DELTA_GRPC
    transport_api_version: V3
    grpc_services:
    - envoy_grpc: {cluster_name: xds_cluster}
  cds_config: {ads: {}, resource_api_version: V3}
  lds_config: {ads: {}, resource_api_version: V3}
static_resources:
  clusters:
  - name: xds_cluster
    type: STRICT_DNS
    connect_timeout: 5s
    typed_extension_protocol_options:
      envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
        "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
        explicit_http_config: {http2_protocol_options: {}}
    load_assignment:
      cluster_name: xds_cluster
      endpoints:
      - lb_endpoints:
        - endpoint: {address: {socket_address: {address: %s, port_value: %d}}}
admin:
  address: {socket_address: {address: 0.0.0.0, port_value: 9901}}
`, xds, port)
}

// w18bAnyPeer is an egress rule to any destination on ports (protocol, number pairs).
func w18bAnyPeer(ports ...any) networkingv1.NetworkPolicyEgressRule {
	return networkingv1.NetworkPolicyEgressRule{Ports: w8cPorts(ports...)}
}

// w18bInternet is an egress rule to addresses outside the private 10/8 range on ports.
func w18bInternet(ports ...any) networkingv1.NetworkPolicyEgressRule {
	return networkingv1.NetworkPolicyEgressRule{
		To:    []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0", Except: []string{"10.0.0.0/8"}}}},
		Ports: w8cPorts(ports...),
	}
}

// w18bNodePortService is a NodePort Service on port (to the named container port) with the
// given fixed nodePort, as a registry mirror that node runtimes reach on 127.0.0.1 needs.
func w18bNodePortService(name string, sel map[string]string, portName string, port, nodePort int32) *corev1.Service {
	s := w8bService(name, sel, portName, port)
	s.Spec.Type = corev1.ServiceTypeNodePort
	s.Spec.Ports[0].NodePort = nodePort
	return s
}

// w18bSyncedSecret creates Secret name as the secret syncer left it (managed-by label, the
// Vault path and version it was last written from).
func (e *Env) w18bSyncedSecret(ctx context.Context, name, path, version string, data map[string]string) error {
	_, err := e.Client.CoreV1().Secrets(e.Namespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "secret-sync"},
			Annotations: map[string]string{"secret-sync.platform.example.com/vault-path": path,
				"secret-sync.platform.example.com/vault-version": version, "secret-sync.platform.example.com/last-synced": "2026-02-19T02:00:04Z"}},
		Type: corev1.SecretTypeOpaque, StringData: data,
	}, metav1.CreateOptions{})
	return wrap("Secret", name, err)
}

// w18bCronJobRun creates CronJob cj and one run of it named name (a Job owned by the CronJob
// with the template's spec, as the controller or `kubectl create job --from=cronjob/...` makes).
func (e *Env) w18bCronJobRun(ctx context.Context, cj *batchv1.CronJob, name string) error {
	created, err := e.Client.BatchV1().CronJobs(e.Namespace).Create(ctx, cj, metav1.CreateOptions{})
	if err != nil {
		return wrap("CronJob", cj.Name, err)
	}
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: cj.Spec.JobTemplate.Spec.Template.Labels,
			Annotations: map[string]string{"batch.kubernetes.io/cronjob-scheduled-timestamp": "2026-03-04T02:00:00Z"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: created.Name, UID: created.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}},
		Spec: *cj.Spec.JobTemplate.Spec.DeepCopy(),
	}
	_, err = e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
	return wrap("Job", name, err)
}

// w18bCoLocated makes the pods of t require a node that runs a pod labelled lbl (a backup that
// must mount a database's ReadWriteOnce volume on the database's node).
func w18bCoLocated(t *corev1.PodTemplateSpec, lbl map[string]string) {
	t.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: lbl}, TopologyKey: "kubernetes.io/hostname"}}}}
}

// w18bClaimMount mounts claim read-only at path in the first container.
func w18bClaimMount(t *corev1.PodTemplateSpec, volume, claim, path string) {
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim, ReadOnly: true}}})
	c := &t.Spec.Containers[0]
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: volume, MountPath: path, ReadOnly: true})
}

// w18bIngressAddress records hostname as Ingress name's load-balancer address, as the ingress
// controller publishes it.
func (e *Env) w18bIngressAddress(ctx context.Context, name, hostname string) error {
	i, err := e.Client.NetworkingV1().Ingresses(e.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return wrap("Ingress", name, err)
	}
	i.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{Hostname: hostname}}
	_, err = e.Client.NetworkingV1().Ingresses(e.Namespace).UpdateStatus(ctx, i, metav1.UpdateOptions{})
	return wrap("Ingress", name, err)
}

// w18bPrometheus is a Prometheus StatefulSet with a Thanos sidecar that reads Prometheus at
// promURL; the governing headless Service (gRPC StoreAPI) lists only ready pods, as the
// dnssrv discovery of thanos-query expects.
func (e *Env) w18bPrometheus(ctx context.Context, name, promURL string, replicas int32, lbl, ann map[string]string) error {
	st := w8bStatefulSet(name, "quay.io/prometheus/prometheus:v2.54.1", name, replicas, lbl, ann, "web", 9090)
	t := &st.Spec.Template
	w10aMain(t, "prometheus", "--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus",
		"--storage.tsdb.retention.time=24h", "--storage.tsdb.min-block-duration=2h", "--storage.tsdb.max-block-duration=2h",
		"--web.listen-address=0.0.0.0:9090", "--web.enable-lifecycle")
	mountConfigMap(t, name+"-config", "/etc/prometheus")
	w10aEmptyDir(t, "tsdb", "/prometheus", 0)
	c := w10aContainer(t, "thanos-sidecar", "quay.io/thanos/thanos:v0.36.1", "grpc", 10901, "sidecar",
		"--prometheus.url="+promURL, "--tsdb.path=/prometheus", "--grpc-address=0.0.0.0:10901",
		"--http-address=0.0.0.0:10902", "--objstore.config-file=/etc/thanos/objstore.yml")
	c.Ports = append(c.Ports, corev1.ContainerPort{Name: "sidecar-http", ContainerPort: 10902})
	c.ReadinessProbe = w10aProbe("/-/ready", "sidecar-http", 5)
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: "tsdb", MountPath: "/prometheus"})
	w18bMountInto(t, 1, "thanos-objstore", "/etc/thanos", true)
	if err := e.createStatefulSet(ctx, st); err != nil {
		return err
	}
	s := w8bHeadless(name, lbl, "grpc", 10901)
	s.Spec.PublishNotReadyAddresses = false
	return e.createService(ctx, s)
}

// w18bPromConfig is a prometheus.yml with external labels and Kubernetes pod discovery of jobs.
func w18bPromConfig(replicaOf string, jobs ...string) map[string]string {
	cfg := "global:\n  scrape_interval: 30s\n  external_labels:\n    cluster: prod-eu1\n    prometheus: monitoring/" + replicaOf + "\nscrape_configs:\n"
	for _, j := range jobs {
		cfg += fmt.Sprintf("- job_name: %s\n  kubernetes_sd_configs:\n  - role: pod\n  relabel_configs:\n  - source_labels: [__meta_kubernetes_pod_label_app_kubernetes_io_name]\n    regex: %s\n    action: keep\n", j, j)
	}
	return map[string]string{"prometheus.yml": cfg}
}
