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
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// Sources of wave 17c: the public issue threads each scenario's log wording and fix come from.
const (
	w17cSrcCheckOrigin = "https://github.com/phoenixframework/phoenix/issues/2232 (Could not check origin for Phoenix.Socket transport: update [url: [host: ...]] to your actual host)"
	w17cSrcLibcluster  = "https://github.com/bitwalker/libcluster/issues/54 ([libcluster:app_name] cannot query kubernetes (unauthorized): endpoints is forbidden)"
	w17cSrcTooManyPing = "https://github.com/llm-d/llm-d-kv-cache/issues/359 (Client received GoAway with error code ENHANCE_YOUR_CALM and debug data equal to ASCII \"too_many_pings\": client keepalive Time 10s vs the server's 5 minute minimum)"
	w17cSrcMemcached   = "https://github.com/memcached/memcached/issues/831 (pymemcache.exceptions.MemcacheServerError: b'object too large for cache'; -I, --max-item-size on the server)"
	w17cSrcHAProxy     = "https://github.com/vfarcic/docker-flow-proxy/issues/224 (HAProxy does not start if it can't resolve DNS of one of services: 'server ...' : could not resolve address; Failed to initialize server(s) addr.)"
	w17cSrcPathStyle   = "https://github.com/minio/minio/issues/6071 (UnknownEndpoint: Inaccessible host: `screenshots.minio': the AWS SDK needs s3ForcePathStyle for MinIO)"
	w17cSrcConnectPath = "https://github.com/thomaskwscott/kafka-connect-http/issues/11 (Failed to find any class that implements Connector and which name matches ...: the plugin directory is not under plugin.path)"
	w17cSrcQuarkusRBAC = "https://github.com/quarkusio/quarkus/issues/19452 (kubernetes-config: Failure executing: GET .../configmaps/my-config. configmaps \"my-config\" is forbidden ... cannot get resource \"configmaps\")"
	w17cSrcPrismaPool  = "https://github.com/prisma/prisma-engines/pull/2403 (P2024 Timed out fetching a new connection from the connection pool (Current connection pool timeout: 1, connection limit: 1))"
	w17cSrcGocql       = "https://github.com/apache/cassandra-gocql-driver/issues/1147 (gocql: unable to dial ... dial tcp ...:9042: i/o timeout) and k8s-docs/concepts/services-networking/network-policies.md"
	w17cSrcAkka        = "https://github.com/akka/akka-management/issues/263 (LowestAddressJoinDecider: Discovered [3] contact points, confirmed [1], which is less than the required [2], retrying)"
	w17cSrcEnvoyBind   = "https://github.com/istio/istio/issues/38824 (envoy main error initializing configuration ...: cannot bind '...': Address already in use)"
)

// w17cInit adds an init container that shares the emptyDir volume name, mounted at path in
// the first container too (a plugin or asset installer).
func w17cInit(t *corev1.PodTemplateSpec, name, image, volume, path string, args ...string) {
	t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}})
	m := corev1.VolumeMount{Name: volume, MountPath: path}
	t.Spec.InitContainers = append(t.Spec.InitContainers, corev1.Container{Name: name, Image: image, Args: args, VolumeMounts: []corev1.VolumeMount{m}})
	t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts, m)
}

// w17cAccount creates ServiceAccount sa, Role role with rules and a RoleBinding of the same
// name binding them, and runs the pod template as sa.
func (e *Env) w17cAccount(ctx context.Context, t *corev1.PodTemplateSpec, sa, role string, rules ...rbacv1.PolicyRule) error {
	t.Spec.ServiceAccountName = sa
	return steps(
		func() error { return e.createServiceAccount(ctx, sa) },
		func() error { return e.createRole(ctx, role, rules...) },
		func() error { return e.createRoleBinding(ctx, role, "Role", role, sa) },
	)
}

// w17cLine is the 1-based number of the first line of text containing needle (0 if none),
// so a parser's error can quote the line of the file the scenario mounts.
func w17cLine(text, needle string) int {
	for i, l := range strings.Split(text, "\n") {
		if strings.Contains(l, needle) {
			return i + 1
		}
	}
	return 0
}
