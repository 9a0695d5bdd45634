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
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Annotations of the kwok stage convention (hack/kwok/README.md): what the simulated kubelet does.
const (
	annBehavior = "sim.kubage.io/behavior"
	annExitCode = "sim.kubage.io/exit-code"
	annMessage  = "sim.kubage.io/message"
)

// sim is the pod-template annotation set for a kubelet behaviour.
func sim(behavior string, kv ...string) map[string]string {
	m := map[string]string{annBehavior: behavior}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// template is the pod template of app: one container "app" serving HTTP on 8080.
func template(app, image string, annotations map[string]string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}, Annotations: annotations},
		Spec: corev1.PodSpec{
			// Deleted pods go at once, so namespaces of finished scenarios empty quickly.
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			Containers: []corev1.Container{{
				Name: "app", Image: image,
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
			}},
		},
	}
}

func deployment(name, image string, replicas int32, annotations map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": name}},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: template(name, image, annotations),
		},
	}
}

func (e *Env) createDeployment(ctx context.Context, d *appsv1.Deployment) error {
	_, err := e.Client.AppsV1().Deployments(e.Namespace).Create(ctx, d, metav1.CreateOptions{})
	return wrap("Deployment", d.Name, err)
}

func service(name string, selector map[string]string, targetPort intstr.IntOrString) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ServiceSpec{
			Selector: selector,
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: targetPort}},
		},
	}
}

func (e *Env) createService(ctx context.Context, s *corev1.Service) error {
	_, err := e.Client.CoreV1().Services(e.Namespace).Create(ctx, s, metav1.CreateOptions{})
	return wrap("Service", s.Name, err)
}

func ingress(name, service string, port int32) *networkingv1.Ingress {
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{
			Host: name + ".example.com",
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{
				Paths: []networkingv1.HTTPIngressPath{{
					Path: "/", PathType: ptr.To(networkingv1.PathTypePrefix),
					Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
						Name: service, Port: networkingv1.ServiceBackendPort{Number: port},
					}},
				}},
			}},
		}}},
	}
}

func (e *Env) createIngress(ctx context.Context, i *networkingv1.Ingress) error {
	_, err := e.Client.NetworkingV1().Ingresses(e.Namespace).Create(ctx, i, metav1.CreateOptions{})
	return wrap("Ingress", i.Name, err)
}

func job(name string, backoffLimit int32, annotations map[string]string) *batchv1.Job {
	t := template(name, "example/batch:1.0", annotations)
	t.Spec.RestartPolicy = corev1.RestartPolicyNever
	t.Spec.Containers[0].Ports = nil
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       batchv1.JobSpec{BackoffLimit: ptr.To(backoffLimit), Template: t},
	}
}

func pvc(name, class string, size string, modes ...corev1.PersistentVolumeAccessMode) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: modes,
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
		},
	}
	if class != "" {
		c.Spec.StorageClassName = ptr.To(class)
	}
	return c
}

func (e *Env) createPVC(ctx context.Context, c *corev1.PersistentVolumeClaim) error {
	_, err := e.Client.CoreV1().PersistentVolumeClaims(e.Namespace).Create(ctx, c, metav1.CreateOptions{})
	return wrap("PersistentVolumeClaim", c.Name, err)
}

// claimVolume mounts PVC claim into the first container at /data.
func claimVolume(t *corev1.PodTemplateSpec, claim string) {
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
	}})
	t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: "/data"})
}

// createStorageClass creates a cluster-scoped StorageClass named ClusterName(name), removed by Cleanup.
func (e *Env) createStorageClass(ctx context.Context, name, provisioner string, mode storagev1.VolumeBindingMode) error {
	sc := &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
		Provisioner:       provisioner,
		VolumeBindingMode: ptr.To(mode),
	}
	if _, err := e.Client.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
		return wrap("StorageClass", sc.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.StorageV1().StorageClasses().Delete(ctx, sc.Name, metav1.DeleteOptions{}))
	})
	return nil
}

func requests(cpu, memory string) corev1.ResourceRequirements {
	rl := corev1.ResourceList{}
	if cpu != "" {
		rl[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if memory != "" {
		rl[corev1.ResourceMemory] = resource.MustParse(memory)
	}
	return corev1.ResourceRequirements{Requests: rl, Limits: rl}
}

// pods lists the pods of app (label app=<app>).
func (e *Env) pods(ctx context.Context, app string) ([]corev1.Pod, error) {
	l, err := e.Client.CoreV1().Pods(e.Namespace).List(ctx, metav1.ListOptions{LabelSelector: labels.Set{"app": app}.String()})
	if err != nil {
		return nil, err
	}
	if len(l.Items) == 0 {
		return nil, fmt.Errorf("no pods of %s yet", app)
	}
	return l.Items, nil
}

func wrap(kind, name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("create %s %s: %w", kind, name, err)
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
