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
)

// Builders for wave 22a: subPath mounts of one key, init containers that fill a shared
// emptyDir, exec probes, Secrets holding raw bytes under any key name, and a StatefulSet whose
// config file comes from a ConfigMap.

const (
	w22aSrcSubPathDir   = "https://github.com/kubernetes/kubernetes/issues/62156 (subPath in volumeMount creates a directory instead of a file specified in configmap); https://github.com/kubernetes/kubernetes/issues/54514"
	w22aSrcLibPQSSL     = "https://github.com/k1LoW/tbls/issues/152 and https://github.com/jmoiron/sqlx/issues/316 (pq: SSL is not enabled on the server; lib/pq defaults to sslmode=require, add ?sslmode=disable to the DSN)"
	w22aSrcFPMListen    = "https://github.com/matriphe/docker-alpine-php/issues/5 (nginx connect() failed (111: Connection refused) to fastcgi: php-fpm's www.conf says listen = 127.0.0.1:9000)"
	w22aSrcConsumerTime = "https://github.com/celery/celery/issues/6760 (Unrecoverable error: PreconditionFailed(406, 'PRECONDITION_FAILED - delivery acknowledgement on channel 1 timed out. Timeout value used: ... ms'); RabbitMQ consumer_timeout)"
	w22aSrcKafkaMaxMsg  = "https://github.com/mostafa/xk6-kafka/issues/181 and https://github.com/twmb/franz-go/issues/1204 (The request included a message larger than the max message size the server will accept; broker message.max.bytes)"
	w22aSrcGeoIPUpdate  = "https://maxmind.github.io/geoipupdate/doc/docker.html (GEOIPUPDATE_EDITION_IDS: space-separated database edition IDs to download; GEOIPUPDATE_DB_DIR)"
	w22aSrcPGOptions    = "https://github.com/netdata/netdata/pull/4988 and https://github.com/wal-e/wal-e/pull/230 (PGOPTIONS='-c statement_timeout=...' applies to every statement of a libpq client: canceling statement due to statement timeout)"
	w22aSrcFromFile     = "k8s-docs/tasks/configure-pod-container/configure-pod-configmap.md (--from-file keys are file names, --from-env-file makes one key per line; envFrom takes keys as variable names)"
	w22aSrcSentinelName = "https://github.com/redis/redis-py/issues/3021 (redis.sentinel.MasterNotFoundError: No master found for 'mymaster' with REDIS_SENTINEL_MASTER defaulting to mymaster)"
)

// w22aSubPathConfigMap mounts one key (subPath) of ConfigMap cm at path in container i.
func w22aSubPathConfigMap(t *corev1.PodTemplateSpec, i int, cm, subPath, path string) {
	if !w22aHasVolume(t, cm) {
		t.Spec.Volumes = append(t.Spec.Volumes, w11bConfigMapVolume(cm))
	}
	t.Spec.Containers[i].VolumeMounts = append(t.Spec.Containers[i].VolumeMounts, w11bMount(cm, path, subPath))
}

func w22aHasVolume(t *corev1.PodTemplateSpec, name string) bool {
	for _, v := range t.Spec.Volumes {
		if v.Name == name {
			return true
		}
	}
	return false
}

// w22aSharedDir adds an emptyDir name, mounted at path in the first container and every init
// container.
func w22aSharedDir(t *corev1.PodTemplateSpec, name, path string) {
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	m := corev1.VolumeMount{Name: name, MountPath: path}
	t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts, m)
	for i := range t.Spec.InitContainers {
		t.Spec.InitContainers[i].VolumeMounts = append(t.Spec.InitContainers[i].VolumeMounts, m)
	}
}

// w22aGeoIPInit adds MaxMind's geoipupdate as an init container reading its settings from
// ConfigMap cm and its account from Secret account (envFrom both).
func w22aGeoIPInit(t *corev1.PodTemplateSpec, cm, account string) {
	t.Spec.InitContainers = append(t.Spec.InitContainers, corev1.Container{
		Name: "geoipupdate", Image: "ghcr.io/maxmind/geoipupdate:v7.1.0",
		EnvFrom: []corev1.EnvFromSource{
			w11bEnvFromCM(cm),
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: account}}},
		},
	})
}

// w22aExecReady sets an exec readiness probe on container i.
func w22aExecReady(t *corev1.PodTemplateSpec, i int, command ...string) {
	t.Spec.Containers[i].ReadinessProbe = &corev1.Probe{PeriodSeconds: 10, TimeoutSeconds: 3, FailureThreshold: 3,
		ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: command}}}
}

// w22aRawSecret creates an Opaque Secret with data exactly as given (keys as kubectl wrote them).
func (e *Env) w22aRawSecret(ctx context.Context, name string, data map[string]string) error {
	return e.w8bSecretBytes(ctx, name, data)
}

// w22aConfiguredStatefulSet is a one-replica StatefulSet name with governing headless Service
// <name>-headless and client Service name on the named port, its first container running
// command with ConfigMap cm mounted at dir; env are name, value pairs.
func (e *Env) w22aConfiguredStatefulSet(ctx context.Context, name, image string, lbl, ann map[string]string, portName string, port int32, cm, dir string, command []string, env ...string) error {
	st := w8bStatefulSet(name, image, name+"-headless", 1, lbl, ann, portName, port)
	st.Spec.Template.Spec.Containers[0].Command = command
	w8bEnv(&st.Spec.Template, env...)
	mountConfigMap(&st.Spec.Template, cm, dir)
	return steps(
		func() error { return e.createStatefulSet(ctx, st) },
		func() error { return e.createService(ctx, w8bHeadless(name+"-headless", lbl, portName, port)) },
		func() error { return e.createService(ctx, w8bService(name, lbl, portName, port)) },
	)
}

// w22aWithSidecar appends a second container to StatefulSet st's pods (a sentinel beside redis).
func w22aWithSidecar(st *appsv1.StatefulSet, name, image, portName string, port int32, args ...string) {
	w10aContainer(&st.Spec.Template, name, image, portName, port, args...)
}

// w22aLabels are the labels of a chart-style component (name and instance).
func w22aLabels(name, instance string) map[string]string {
	return w8cLabels("app.kubernetes.io/name", name, "app.kubernetes.io/instance", instance)
}
