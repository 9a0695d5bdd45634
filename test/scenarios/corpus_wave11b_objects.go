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
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Builders for wave 11b: applications of common stacks (Express, Django, Flask, FastAPI,
// Spring, Go, Rails, Laravel, ASP.NET, nginx, Celery, Sidekiq) that fail and say why in their
// own log format, while the cause sits on a Kubernetes object their text points at.

// Outside sources the wave was written from.
const (
	w11bSrcConfigMap    = "k8s-docs/tasks/configure-pod-container/configure-pod-configmap.md"
	w11bSrcSecret       = "k8s-docs/concepts/configuration/secret.md"
	w11bSrcDNS          = "k8s-docs/concepts/services-networking/dns-pod-service.md"
	w11bSrcNetPol       = "k8s-docs/concepts/services-networking/network-policies.md"
	w11bSrcN8nENOTFOUND = "https://github.com/8gears/n8n-helm-chart/issues/203 (Error: getaddrinfo ENOTFOUND when resolving the PostgreSQL service in Kubernetes)"
	w11bSrcAirflowHost  = "https://github.com/mumoshu/kube-airflow/issues/10 (Could not translate host name \"postgres\" to address: Name or service not known)"
	w11bSrcCeleryHost   = "https://github.com/cyborgbackup/cyborgbackup/issues/59 (consumer: Cannot connect to amqp://...: failed to resolve broker hostname)"
	w11bSrcKafka0000    = "https://github.com/apache/kafka/pull/3382 (KAFKA-4260: advertised.listeners cannot use the nonroutable meta-address 0.0.0.0)"
	w11bSrcNewline      = "https://github.com/guerzon/vaultwarden/issues/154 (PostgreSQL secret adds \\n at the end; echo without -n before base64)"
	w11bSrcDNSEgress    = "https://github.com/aws/aws-network-policy-agent/issues/230 (Egress rules: unable to resolve DNS)"
	w11bSrcLaravelRO    = "https://github.com/GoogleCloudPlatform/community/issues/1774 (There is no existing directory at \".../storage/logs\" and it could not be created: Read-only file system)"
)

// w11bApp is a Deployment whose first container is named container (the name a chart gives it).
func w11bApp(name, container, image string, replicas int32, lbl, ann map[string]string, portName string, port int32) *appsv1.Deployment {
	d := w8bDeployment(name, image, replicas, lbl, ann, portName, port)
	d.Spec.Template.Spec.Containers[0].Name = container
	return d
}

// w11bServe creates Deployment d and a Service of the same name on port number, to the
// named container port of d's first container.
func (e *Env) w11bServe(ctx context.Context, d *appsv1.Deployment, number int32) error {
	if err := e.createDeployment(ctx, d); err != nil {
		return err
	}
	p := d.Spec.Template.Spec.Containers[0].Ports[0]
	return e.createService(ctx, w10aServiceTo(d.Name, d.Spec.Template.Labels, p.Name, number, p.Name))
}

// w11bStore creates a one-replica StatefulSet name (a database or broker the team runs
// itself) with its ClusterIP Service of the same name on the named port; env are name, value
// pairs of its first container.
func (e *Env) w11bStore(ctx context.Context, name, image string, lbl, ann map[string]string, portName string, port int32, env ...string) error {
	st := w8bStatefulSet(name, image, name, 1, lbl, ann, portName, port)
	w8bEnv(&st.Spec.Template, env...)
	if err := e.createStatefulSet(ctx, st); err != nil {
		return err
	}
	return e.createService(ctx, w8bService(name, lbl, portName, port))
}

// w11bOptionalSecretEnv sets env var envName from key of Secret s, marked optional (a missing
// key leaves the variable unset instead of failing the container).
func w11bOptionalSecretEnv(t *corev1.PodTemplateSpec, envName, s, key string) {
	c := &t.Spec.Containers[0]
	c.Env = append(c.Env, corev1.EnvVar{Name: envName, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: s}, Key: key, Optional: ptr.To(true)}}})
}

// w11bToPods is an egress rule to the pods labelled sel on TCP ports.
func w11bToPods(sel map[string]string, ports ...int) networkingv1.NetworkPolicyEgressRule {
	var pairs []any
	for _, p := range ports {
		pairs = append(pairs, "TCP", p)
	}
	return networkingv1.NetworkPolicyEgressRule{
		To:    []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: sel}}},
		Ports: w8cPorts(pairs...),
	}
}

// w11bReadinessFail is the annotation set of a pod whose container c runs but fails its
// readiness probe with message, serving logs/<logs>.log.
func w11bReadinessFail(c, logs, message string) map[string]string {
	return w10aOn(c, "readiness-fail", logs, annMessage, message)
}

// w11bEnvFromCM is an envFrom source taking every key of ConfigMap name.
func w11bEnvFromCM(name string) corev1.EnvFromSource {
	return corev1.EnvFromSource{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}
}

// w11bConfigMapVolume is a volume of ConfigMap name, named after it.
func w11bConfigMapVolume(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}}}
}

// w11bMount mounts volume name at path (one key of it when subPath is set).
func w11bMount(name, path, subPath string) corev1.VolumeMount {
	return corev1.VolumeMount{Name: name, MountPath: path, SubPath: subPath}
}
