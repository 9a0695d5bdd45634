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
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Builders for wave 10a: teams that run widely used charts and operators (Grafana and
// loki-stack, the OpenTelemetry collector, Thanos, Cassandra, Superset, MinIO, Vault agent,
// NATS JetStream, Keycloak, Airflow, kube-prometheus) with the charts' own names and labels.
// The wave 8 builders (w8bDeployment, w8bStatefulSet, w8bService, w8cLabels ...) do the rest.

// w10aOn is the annotation set of a pod whose container c alone shows behavior, serving
// logs/<logs>.log (the other containers run normally).
func w10aOn(c, behavior, logs string, kv ...string) map[string]string {
	a := sim(behavior, append([]string{annContainer, c}, kv...)...)
	if logs != "" {
		a[annLogs] = logs
	}
	return a
}

// w10aMain names the first container of t and sets its image and args (the helper
// templates call it "app").
func w10aMain(t *corev1.PodTemplateSpec, name string, args ...string) {
	t.Spec.Containers[0].Name = name
	t.Spec.Containers[0].Args = args
}

// w10aContainer appends a container with a named port (none when portName is "").
func w10aContainer(t *corev1.PodTemplateSpec, name, image, portName string, portNumber int32, args ...string) *corev1.Container {
	c := corev1.Container{Name: name, Image: image, Args: args}
	if portName != "" {
		c.Ports = []corev1.ContainerPort{{Name: portName, ContainerPort: portNumber}}
	}
	t.Spec.Containers = append(t.Spec.Containers, c)
	return &t.Spec.Containers[len(t.Spec.Containers)-1]
}

// w10aPort adds a named port to the first container.
func w10aPort(t *corev1.PodTemplateSpec, name string, number int32) {
	t.Spec.Containers[0].Ports = append(t.Spec.Containers[0].Ports, corev1.ContainerPort{Name: name, ContainerPort: number})
}

// w10aProbe is an HTTP probe on path and a named port every period seconds.
func w10aProbe(path, portName string, period int32) *corev1.Probe {
	return &corev1.Probe{PeriodSeconds: period, FailureThreshold: 3,
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString(portName)}}}
}

// w10aServicePort adds a port (name, number → the container port of the same name).
func w10aServicePort(s *corev1.Service, name string, number int32) *corev1.Service {
	s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: name, Port: number, TargetPort: intstr.FromString(name)})
	return s
}

// w10aConfigMap creates ConfigMap name with labels (a chart's sidecar discovery label).
func (e *Env) w10aConfigMap(ctx context.Context, name string, lbl, data map[string]string) error {
	_, err := e.Client.CoreV1().ConfigMaps(e.Namespace).Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbl}, Data: data}, metav1.CreateOptions{})
	return wrap("ConfigMap", name, err)
}

// w10aClaimedStatefulSet gives st a claim template name of size mounted at path and creates one
// static PersistentVolume pre-bound to each replica's claim (<name>-<st>-<i>), so the claims
// bind the way a provisioner's volumes would and no other scenario can take them.
func (e *Env) w10aClaimedStatefulSet(ctx context.Context, st *appsv1.StatefulSet, name, size, path string) error {
	w8bClaimTemplate(st, name, size, path)
	for i := int32(0); i < *st.Spec.Replicas; i++ {
		claim := fmt.Sprintf("%s-%s-%d", name, st.Name, i)
		if err := e.createStaticPV(ctx, claim, claim, size, corev1.ReadWriteOnce); err != nil {
			return err
		}
	}
	return e.createStatefulSet(ctx, st)
}

// w10aStatefulSetPods checks every pod of the StatefulSet's labels with check (at least n).
func w10aStatefulSetPods(lbl map[string]string, n int, check func(p *corev1.Pod) error) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		l, err := e.Client.CoreV1().Pods(e.Namespace).List(ctx, metav1.ListOptions{LabelSelector: metav1.FormatLabelSelector(&metav1.LabelSelector{MatchLabels: lbl})})
		if err != nil {
			return err
		}
		ok := 0
		for i := range l.Items {
			if check(&l.Items[i]) == nil {
				ok++
			}
		}
		if ok < n {
			return fmt.Errorf("%d of %d pods %v pass the check", ok, n, lbl)
		}
		return nil
	}
}

// w10aServiceTo is a ClusterIP Service port name/number to the container port named target.
func w10aServiceTo(name string, sel map[string]string, portName string, number int32, target string) *corev1.Service {
	s := w8bService(name, sel, portName, number)
	s.Spec.Ports[0].TargetPort = intstr.FromString(target)
	return s
}

// w10aPortNum is a numeric NetworkPolicy port.
func w10aPortNum(n int) *intstr.IntOrString {
	p := intstr.FromInt(n)
	return &p
}

// w10aEmptyDir adds an emptyDir volume mounted at path in the containers with the given
// indexes (a volume a sidecar and the main container share).
func w10aEmptyDir(t *corev1.PodTemplateSpec, name, path string, containers ...int) {
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	for _, i := range containers {
		t.Spec.Containers[i].VolumeMounts = append(t.Spec.Containers[i].VolumeMounts, corev1.VolumeMount{Name: name, MountPath: path})
	}
}
