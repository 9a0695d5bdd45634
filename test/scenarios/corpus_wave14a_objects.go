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
	"encoding/base64"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Builders for wave 14a: pull secrets of a registry host, probes with their own scheme, host or
// command, host and CSI volumes, ephemeral storage, and waits on controllers that stay silent.

const (
	w14aSrcCronJobs    = "k8s-docs/concepts/workloads/controllers/cron-jobs.md (startingDeadlineSeconds, concurrencyPolicy)"
	w14aSrcEphemeral   = "k8s-docs/concepts/configuration/manage-resources-containers.md (local ephemeral storage requests and scheduling)"
	w14aSrcProbes      = "k8s-docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes.md (httpGet host and scheme)"
	w14aSrcExecProbe   = "https://github.com/Unleash/helm-charts/issues/194 (Liveness probe: OCI runtime exec failed ... exec: \"/unleash-edge\": no such file or directory, binary moved in the image)"
	w14aSrcPullSecret  = "k8s-docs/tasks/configure-pod-container/pull-image-private-registry.md (.dockerconfigjson auths per registry host)"
	w14aSrcHostPath    = "https://github.com/kubernetes/kubernetes/issues/90263 (MountVolume.SetUp failed: hostPath type check failed: /data is not a directory)"
	w14aSrcCSIDriver   = "https://github.com/Azure/secrets-store-csi-driver-provider-azure/issues/101 (driver name secrets-store.csi.k8s.io not found in the list of registered CSI drivers)"
	w14aSrcRateLimit   = "Docker docs, Docker Hub pull usage and limits (429 Too Many Requests, toomanyrequests: You have reached your pull rate limit; authenticate to raise it)"
	w14aSrcGates       = "Kueue docs, Run plain Pods (the kueue.x-k8s.io/admission scheduling gate is removed by the Kueue controller on admission); Kubernetes docs, Pod Scheduling Readiness"
	w14aSrcTermination = "k8s-docs/tasks/debug/debug-application/determine-reason-pod-failure.md"
	w14aSrcMemory      = "k8s-docs/tasks/configure-pod-container/assign-memory-resource.md (exceed a container's memory limit: OOMKilled)"
	w14aSrcDuplicate   = "kube-apiserver warning 'spec.template.spec.containers[0].env[N]: hides previous definition of \"DATABASE_URL\"' (the last definition of a duplicated env var wins)"
)

// w14aDockerConfig is the .dockerconfigjson of a pull secret holding credentials for host only.
func w14aDockerConfig(host, user, password string) string {
	auth := base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
	return fmt.Sprintf(`{"auths":{%q:{"username":%q,"password":%q,"auth":%q}}}`, host, user, password, auth)
}

// w14aPullSecret creates a kubernetes.io/dockerconfigjson Secret for host.
func (e *Env) w14aPullSecret(ctx context.Context, name, host, user, password string) error {
	_, err := e.Client.CoreV1().Secrets(e.Namespace).Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Type:       corev1.SecretTypeDockerConfigJson,
		Data:       map[string][]byte{corev1.DockerConfigJsonKey: []byte(w14aDockerConfig(host, user, password))},
	}, metav1.CreateOptions{})
	return wrap("Secret", name, err)
}

// w14aPullWith makes the pod template pull with the named Secrets.
func w14aPullWith(t *corev1.PodTemplateSpec, secrets ...string) {
	for _, s := range secrets {
		t.Spec.ImagePullSecrets = append(t.Spec.ImagePullSecrets, corev1.LocalObjectReference{Name: s})
	}
}

// w14aHTTPProbe is an HTTP GET probe of path on the named port.
func w14aHTTPProbe(path, portName string, period, failures int32) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler:  corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString(portName)}},
		PeriodSeconds: period, TimeoutSeconds: 1, FailureThreshold: failures,
	}
}

// w14aExecProbe is an exec probe running command in the container.
func w14aExecProbe(period, failures int32, command ...string) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler:  corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: command}},
		PeriodSeconds: period, TimeoutSeconds: 5, FailureThreshold: failures,
	}
}

// w14aHostPath mounts the node path (of type kind) into the first container at the same path.
func w14aHostPath(t *corev1.PodTemplateSpec, name, path string, kind corev1.HostPathType) {
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
		HostPath: &corev1.HostPathVolumeSource{Path: path, Type: ptr.To(kind)}}})
	t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts,
		corev1.VolumeMount{Name: name, MountPath: path, ReadOnly: true})
}

// w14aCSIVolume mounts an inline CSI volume of driver into the first container at path.
func w14aCSIVolume(t *corev1.PodTemplateSpec, name, driver, path string, attrs map[string]string) {
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
		CSI: &corev1.CSIVolumeSource{Driver: driver, ReadOnly: ptr.To(true), VolumeAttributes: attrs}}})
	t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts,
		corev1.VolumeMount{Name: name, MountPath: path, ReadOnly: true})
}

// w14aEphemeral sets the first container's ephemeral-storage request and limit to size.
func w14aEphemeral(t *corev1.PodTemplateSpec, size string) {
	q := resource.MustParse(size)
	c := &t.Spec.Containers[0]
	c.Resources.Requests = corev1.ResourceList{corev1.ResourceEphemeralStorage: q}
	c.Resources.Limits = corev1.ResourceList{corev1.ResourceEphemeralStorage: q}
}

// w14aCronJobIdle succeeds once CronJob name is older than age and has never scheduled a run,
// while CronJob neighbour (same schedule) has: the controller works, this one stays silent.
func w14aCronJobIdle(name, neighbour string, age time.Duration) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		n, err := e.Client.BatchV1().CronJobs(e.Namespace).Get(ctx, neighbour, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if n.Status.LastScheduleTime == nil {
			return fmt.Errorf("cronjob %s has not run yet", neighbour)
		}
		c, err := e.Client.BatchV1().CronJobs(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if c.Status.LastScheduleTime != nil {
			return fmt.Errorf("cronjob %s ran at %s", name, c.Status.LastScheduleTime)
		}
		if time.Since(c.CreationTimestamp.Time) < age {
			return fmt.Errorf("cronjob %s is younger than %s", name, age)
		}
		return nil
	}
}

// w14aDaemonSetScheduled succeeds once the DaemonSet controller has observed name and wants
// exactly n pods of it.
func w14aDaemonSetScheduled(name string, n int32) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		d, err := e.Client.AppsV1().DaemonSets(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Status.ObservedGeneration < d.Generation || d.Status.DesiredNumberScheduled != n {
			return fmt.Errorf("daemonset %s: %d desired (generation %d observed), want %d", name, d.Status.DesiredNumberScheduled, d.Status.ObservedGeneration, n)
		}
		return nil
	}
}

// w14aDaemonSetReady succeeds once DaemonSet name has a ready pod (nodes of other scenarios may
// hold pods that never get ready, so not all of them are waited for).
func w14aDaemonSetReady(name string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		d, err := e.Client.AppsV1().DaemonSets(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Status.NumberReady == 0 {
			return fmt.Errorf("daemonset %s: %d of %d ready", name, d.Status.NumberReady, d.Status.DesiredNumberScheduled)
		}
		return nil
	}
}

// w14aPending: the pod has not started (no container running yet).
func w14aPending(p *corev1.Pod) error {
	if p.Status.Phase != corev1.PodPending {
		return fmt.Errorf("phase %s", p.Status.Phase)
	}
	return nil
}

// w14aGatedPod is a bare pod the way Kueue's pod integration leaves it before admission: the
// queue label and the admission scheduling gate.
func w14aGatedPod(name, image, queue string, lbl map[string]string, args ...string) *corev1.Pod {
	l := map[string]string{"kueue.x-k8s.io/queue-name": queue}
	for k, v := range lbl {
		l[k] = v
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l},
		Spec: corev1.PodSpec{
			TerminationGracePeriodSeconds: ptr.To[int64](0),
			RestartPolicy:                 corev1.RestartPolicyNever,
			SchedulingGates:               []corev1.PodSchedulingGate{{Name: "kueue.x-k8s.io/admission"}},
			Containers:                    []corev1.Container{{Name: "embed", Image: image, Args: args}},
		},
	}
}

// w14aCreatePods creates bare pods.
func (e *Env) w14aCreatePods(ctx context.Context, pods ...*corev1.Pod) error {
	var errs []error
	for _, p := range pods {
		_, err := e.Client.CoreV1().Pods(e.Namespace).Create(ctx, p, metav1.CreateOptions{})
		errs = append(errs, wrap("Pod", p.Name, err))
	}
	return errors.Join(errs...)
}

// w14aLimitRange creates a LimitRange with container defaults (the namespace baseline).
func (e *Env) w14aLimitRange(ctx context.Context, name, defaultMemory, defaultRequestMemory, defaultRequestCPU string) error {
	_, err := e.Client.CoreV1().LimitRanges(e.Namespace).Create(ctx, &corev1.LimitRange{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
			Type:    corev1.LimitTypeContainer,
			Default: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(defaultMemory)},
			DefaultRequest: corev1.ResourceList{
				corev1.ResourceMemory: resource.MustParse(defaultRequestMemory),
				corev1.ResourceCPU:    resource.MustParse(defaultRequestCPU),
			},
		}}},
	}, metav1.CreateOptions{})
	return wrap("LimitRange", name, err)
}
