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
	networkingv1 "k8s.io/api/networking/v1"
)

// Builders for wave 14b: multi-container and platform workloads whose decisive clue is in a
// container log (a sidecar's, a proxy's, a broker's or database's own log), while the fix is a
// Kubernetes object. The wave 8 to 11 builders (w8bDeployment, w11bApp, w10aContainer ...) do
// most of the work; these add env, envFrom and mounts on a container other than the first.

// Outside sources the wave was written from.
const (
	w14bSrcOauth2Cookie = "https://github.com/oauth2-proxy/oauth2-proxy/issues/1954 (invalid configuration: cookie_secret must be 16, 24, or 32 bytes to create an AES cipher, but is 46 bytes)"
	w14bSrcCloudSQL     = "https://github.com/GoogleCloudPlatform/cloud-sql-proxy/issues/2244 (errors parsing config: googleapi: Error 404: The Cloud SQL instance does not exist., instanceDoesNotExist)"
	w14bSrcPgbouncerDNS = "https://github.com/pgbouncer/pgbouncer/issues/285 (WARNING lookup failed ... closing because: server dns lookup failed; pooler error: pgbouncer cannot connect to server)"
	w14bSrcSentinel     = "https://github.com/redis/redis-py/issues/3021 (redis.sentinel.MasterNotFoundError: No master found for 'mymaster')"
	w14bSrcRabbitVhost  = "https://github.com/its-a-feature/Mythic/issues/57 (Error on AMQP connection ... state: opening: access to vhost 'mythic_vhost' refused for user); https://github.com/streadway/amqp/issues/177 (Exception (403) Reason: \"no access to this vhost\")"
	w14bSrcNatsPayload  = "NATS docs, Configuration: max_payload (maximum number of bytes in a message payload, default 1MB); nats.go ErrMaxPayload \"nats: maximum payload exceeded\""
	w14bSrcZkCanon      = "https://github.com/confluentinc/confluent-kubernetes-examples/issues/132 (Unable to canonicalize address zookeeper...:2181 because it's not resolvable)"
	w14bSrcClickNet     = "https://github.com/Altinity/clickhouse-operator/issues/1244 (Authentication failed ... Connections from ::ffff:10.244.0.24 are not allowed. (IP_ADDRESS_NOT_ALLOWED))"
	w14bSrcEnvoyEnum    = "https://github.com/envoyproxy/envoy/issues/22671 (error initializing configuration '/etc/envoy/envoy.yaml': Unable to parse JSON as proto (INVALID_ARGUMENT:...))"
	w14bSrcVectorLoki   = "Vector docs, Loki sink (endpoint: the base URL of the Loki instance); k8s-docs/concepts/services-networking/dns-pod-service.md"
	w14bSrcNginxAuthURL = "https://github.com/oauth2-proxy/oauth2-proxy/issues/920 (could not be resolved (3: Host not found) - subrequest: \"/_external-auth-Lw-Prefix\")"
	w14bSrcAMWebhook    = "Prometheus Operator docs, Alerting: the Alertmanager configuration Secret alertmanager-<name> (alertmanager.yaml); Alertmanager dispatcher \"Notify for alerts failed\""
	w14bSrcCeleryImport = "https://github.com/SuperCoopBerlin/tapir/pull/485 (Received unregistered task of type ... The message has been ignored and discarded. Did you remember to import the module containing this task?)"
	w14bSrcAirflowLite  = "https://github.com/airflow-helm/charts/issues/126 (AirflowConfigException: error: cannot use sqlite with the LocalExecutor); Airflow docs, Setting Configuration Options (AIRFLOW__{SECTION}__{KEY})"
)

// w14bEnv appends plain environment variables (name, value pairs) to container c.
func w14bEnv(c *corev1.Container, kv ...string) {
	for i := 0; i+1 < len(kv); i += 2 {
		c.Env = append(c.Env, corev1.EnvVar{Name: kv[i], Value: kv[i+1]})
	}
}

// w14bEnvFromCM makes container c read every key of ConfigMap name as env.
func w14bEnvFromCM(c *corev1.Container, name string) {
	c.EnvFrom = append(c.EnvFrom, w11bEnvFromCM(name))
}

// w14bEnvFromSecret makes container c read every key of Secret name as env.
func w14bEnvFromSecret(c *corev1.Container, name string) {
	c.EnvFrom = append(c.EnvFrom, corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}})
}

// w14bSecretKeyEnv sets env var envName of container c from key of Secret s.
func w14bSecretKeyEnv(c *corev1.Container, envName, s, key string) {
	c.Env = append(c.Env, corev1.EnvVar{Name: envName, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: s}, Key: key}}})
}

// w14bConfigMapKeyEnv sets env var envName of container c from key of ConfigMap cm.
func w14bConfigMapKeyEnv(c *corev1.Container, envName, cm, key string) {
	c.Env = append(c.Env, corev1.EnvVar{Name: envName, ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: cm}, Key: key}}})
}

// w14bMountCM adds a volume of ConfigMap cm to t and mounts it at path in container c (one key
// of it when subPath is set).
func w14bMountCM(t *corev1.PodTemplateSpec, c *corev1.Container, cm, path, subPath string) {
	t.Spec.Volumes = append(t.Spec.Volumes, w11bConfigMapVolume(cm))
	c.VolumeMounts = append(c.VolumeMounts, w11bMount(cm, path, subPath))
}

// w14bMountSecret adds a volume of Secret s to t and mounts it at path in container c.
func w14bMountSecret(t *corev1.PodTemplateSpec, c *corev1.Container, s, path string) {
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: s, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: s}}})
	c.VolumeMounts = append(c.VolumeMounts, w11bMount(s, path, ""))
}

// w14bIngress is an Ingress for host to svc:port with annotations (ingress-nginx settings).
func w14bIngress(name, host, svc string, port int32, ann map[string]string) *networkingv1.Ingress {
	i := w8cHostIngress(name, host, svc, port)
	i.Annotations = ann
	return i
}

// w14bStore creates StatefulSet name (a broker, database or cache the team runs) with a
// ClusterIP Service of the same name, letting edit shape the pod template first.
func (e *Env) w14bStore(ctx context.Context, name, image string, lbl, ann map[string]string, portName string, port int32, edit func(t *corev1.PodTemplateSpec)) error {
	st := w8bStatefulSet(name, image, name, 1, lbl, ann, portName, port)
	if edit != nil {
		edit(&st.Spec.Template)
	}
	if err := e.createStatefulSet(ctx, st); err != nil {
		return err
	}
	return e.createService(ctx, w8bService(name, lbl, portName, port))
}

// w14bLast is the last of args (the component a container is named after).
func w14bLast(args []string) string {
	return args[len(args)-1]
}
