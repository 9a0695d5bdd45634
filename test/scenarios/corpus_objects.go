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
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// More annotations of the kwok stage convention (hack/kwok/README.md).
const (
	annLogs      = "sim.kubage.io/logs"
	annContainer = "sim.kubage.io/container"
)

// Builders for the corpus scenarios: the objects a team would deploy, one call each.

// crash is the annotation set of a container that exits with code exit and message msg,
// serving logs/<logs>.log when logs is set.
func crash(exit, msg, logs string) map[string]string {
	a := sim("crashloop", annExitCode, exit)
	if msg != "" {
		a[annMessage] = msg
	}
	if logs != "" {
		a[annLogs] = logs
	}
	return a
}

// running is the annotation set of a healthy-looking container serving logs/<logs>.log.
func running(logs string) map[string]string {
	return map[string]string{annLogs: logs}
}

// env sets plain environment variables (name, value pairs) on the first container.
func env(d *appsv1.Deployment, kv ...string) *appsv1.Deployment {
	c := &d.Spec.Template.Spec.Containers[0]
	for i := 0; i+1 < len(kv); i += 2 {
		c.Env = append(c.Env, corev1.EnvVar{Name: kv[i], Value: kv[i+1]})
	}
	return d
}

// envFromConfigMap makes the first container read every key of ConfigMap name as env.
func envFromConfigMap(t *corev1.PodTemplateSpec, name string) {
	c := &t.Spec.Containers[0]
	c.EnvFrom = append(c.EnvFrom, corev1.EnvFromSource{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}})
}

// envFromSecret makes the first container read every key of Secret name as env.
func envFromSecret(t *corev1.PodTemplateSpec, name string) {
	c := &t.Spec.Containers[0]
	c.EnvFrom = append(c.EnvFrom, corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: name}}})
}

// envKeyFromConfigMap sets env var from key of ConfigMap cm.
func envKeyFromConfigMap(t *corev1.PodTemplateSpec, envName, cm, key string) {
	c := &t.Spec.Containers[0]
	c.Env = append(c.Env, corev1.EnvVar{Name: envName, ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: cm}, Key: key}}})
}

// envKeyFromSecret sets env var from key of Secret s.
func envKeyFromSecret(t *corev1.PodTemplateSpec, envName, s, key string) {
	c := &t.Spec.Containers[0]
	c.Env = append(c.Env, corev1.EnvVar{Name: envName, ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
		LocalObjectReference: corev1.LocalObjectReference{Name: s}, Key: key}}})
}

// mountConfigMap mounts ConfigMap cm at path in the first container.
func mountConfigMap(t *corev1.PodTemplateSpec, cm, path string) {
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: cm, VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm}}}})
	t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: cm, MountPath: path})
}

// mountSecret mounts Secret s at path in the first container.
func mountSecret(t *corev1.PodTemplateSpec, s, path string) {
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: s, VolumeSource: corev1.VolumeSource{
		Secret: &corev1.SecretVolumeSource{SecretName: s}}})
	t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: s, MountPath: path})
}

// port renames and renumbers the first container's port.
func port(t *corev1.PodTemplateSpec, name string, number int32) {
	t.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: name, ContainerPort: number}}
}

func (e *Env) createConfigMap(ctx context.Context, name string, data map[string]string) error {
	_, err := e.Client.CoreV1().ConfigMaps(e.Namespace).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}, metav1.CreateOptions{})
	return wrap("ConfigMap", name, err)
}

func (e *Env) createSecret(ctx context.Context, name string, data map[string]string) error {
	_, err := e.Client.CoreV1().Secrets(e.Namespace).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, StringData: data}, metav1.CreateOptions{})
	return wrap("Secret", name, err)
}

// createServiceOn creates Service name selecting app=selectApp, port → targetPort.
func (e *Env) createServiceOn(ctx context.Context, name, selectApp string, port int32, targetPort intstr.IntOrString) error {
	s := service(name, map[string]string{"app": selectApp}, targetPort)
	s.Spec.Ports[0].Port = port
	return e.createService(ctx, s)
}

// createBackend creates a healthy Deployment name serving containerPort with a Service of the
// same name on port → the named container port "http".
func (e *Env) createBackend(ctx context.Context, name, image string, port, containerPort int32) error {
	d := deployment(name, image, 1, nil)
	d.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort = containerPort
	if err := e.createDeployment(ctx, d); err != nil {
		return err
	}
	return e.createServiceOn(ctx, name, name, port, intstr.FromString("http"))
}

func (e *Env) createNetworkPolicy(ctx context.Context, np *networkingv1.NetworkPolicy) error {
	_, err := e.Client.NetworkingV1().NetworkPolicies(e.Namespace).Create(ctx, np, metav1.CreateOptions{})
	return wrap("NetworkPolicy", np.Name, err)
}

func (e *Env) createQuota(ctx context.Context, name string, hard corev1.ResourceList) error {
	_, err := e.Client.CoreV1().ResourceQuotas(e.Namespace).Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.ResourceQuotaSpec{Hard: hard},
	}, metav1.CreateOptions{})
	return wrap("ResourceQuota", name, err)
}

func (e *Env) createHPA(ctx context.Context, name, deploymentName string, minReplicas, maxReplicas int32) error {
	_, err := e.Client.AutoscalingV2().HorizontalPodAutoscalers(e.Namespace).Create(ctx, &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: deploymentName},
			MinReplicas:    ptr.To(minReplicas), MaxReplicas: maxReplicas,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](70)},
			}}},
		},
	}, metav1.CreateOptions{})
	return wrap("HorizontalPodAutoscaler", name, err)
}

func (e *Env) createDaemonSet(ctx context.Context, name, image string, annotations map[string]string, edit func(*corev1.PodTemplateSpec)) error {
	t := template(name, image, annotations)
	t.Spec.Containers[0].Ports = nil
	if edit != nil {
		edit(&t)
	}
	_, err := e.Client.AppsV1().DaemonSets(e.Namespace).Create(ctx, &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}, Template: t},
	}, metav1.CreateOptions{})
	return wrap("DaemonSet", name, err)
}

// plainStatefulSet is a StatefulSet without volume claims.
func plainStatefulSet(name, image string, replicas int32, annotations map[string]string) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To(replicas), ServiceName: name,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: template(name, image, annotations),
		},
	}
}

// headless is the governing Service of a StatefulSet.
func headless(name string) *corev1.Service {
	s := service(name, map[string]string{"app": name}, intstr.FromString("http"))
	s.Spec.ClusterIP = corev1.ClusterIPNone
	return s
}

func (e *Env) createRole(ctx context.Context, name string, rules ...rbacv1.PolicyRule) error {
	_, err := e.Client.RbacV1().Roles(e.Namespace).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}, metav1.CreateOptions{})
	return wrap("Role", name, err)
}

// createRoleBinding binds role (kind Role or ClusterRole) to ServiceAccount sa of the namespace.
func (e *Env) createRoleBinding(ctx context.Context, name, roleKind, role, sa string) error {
	_, err := e.Client.RbacV1().RoleBindings(e.Namespace).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: e.Namespace}},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: roleKind, Name: role},
	}, metav1.CreateOptions{})
	return wrap("RoleBinding", name, err)
}

func (e *Env) createServiceAccount(ctx context.Context, name string) error {
	_, err := e.Client.CoreV1().ServiceAccounts(e.Namespace).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	return wrap("ServiceAccount", name, err)
}

// limits sets requests and limits of the first container (cpu or memory may be empty).
func limits(t *corev1.PodTemplateSpec, cpu, memory string) {
	t.Spec.Containers[0].Resources = requests(cpu, memory)
}

// memoryOnly sets a memory request and limit of size on container i.
func memoryOnly(t *corev1.PodTemplateSpec, i int, size string) {
	q := resource.MustParse(size)
	t.Spec.Containers[i].Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceMemory: q}, Limits: corev1.ResourceList{corev1.ResourceMemory: q},
	}
}

// steps runs setup steps in order, stopping at the first error.
func steps(fs ...func() error) error {
	for _, f := range fs {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// dnsFail is the resolver error a Go client prints for a name that does not resolve.
func dnsFail(host string) string {
	return fmt.Sprintf("dial tcp: lookup %s on 10.96.0.10:53: no such host", host)
}

// refused is the error of a connection to a Service IP with no endpoint behind it.
func refused(ip string, port int) string {
	return fmt.Sprintf("dial tcp %s:%d: connect: connection refused", ip, port)
}

// clusterIP is the Service's cluster IP, for error texts that quote it as a client would.
func (e *Env) clusterIP(ctx context.Context, name string) string {
	s, err := e.Client.CoreV1().Services(e.Namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil || s.Spec.ClusterIP == "" || s.Spec.ClusterIP == corev1.ClusterIPNone {
		return "10.96.0.1"
	}
	return s.Spec.ClusterIP
}
