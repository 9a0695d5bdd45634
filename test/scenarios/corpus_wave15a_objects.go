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
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// Sources of wave 15a: the public issues and docs each scenario was written from.
const (
	w15aSrcTraefikRBAC = "https://github.com/traefik/traefik-helm-chart/issues/1515 (Traefik v3: failed to list *v1.EndpointSlice: endpointslices.discovery.k8s.io is forbidden ... at the cluster scope); https://github.com/trueforge-org/truecharts/pull/24262 (fix(traefik): add missing rbacs)"
	w15aSrcOtelPort    = "https://github.com/open-telemetry/opentelemetry-collector/issues/7680 (error reading server preface: http2: frame too large: an OTLP/gRPC exporter talking to an HTTP endpoint); https://github.com/SigNoz/signoz-otel-collector/issues/323 (gRPC: 4317, HTTP: 4318)"
	w15aSrcLaravel     = "https://github.com/roottusk/vapi/issues/41 (Laravel on GKE: Access denied for user 'forge'@'<pod IP>': the DB_* variables Laravel reads were not set); https://github.com/laravel/framework/issues/14146"
	w15aSrcRailsSecret = "k8s-docs/concepts/configuration/secret.md (envFrom: every key becomes an environment variable of exactly that name); Rails: Missing `secret_key_base` for 'production' environment (ArgumentError), read from ENV[\"SECRET_KEY_BASE\"]"
	w15aSrcDotnet8     = "https://github.com/dotnet/docs/issues/35959 ([Breaking change]: Default ASP.NET Core port changed to 8080 in container images); https://github.com/exceptionless/Exceptionless/issues/1473 (Now listening on: http://[::]:8080)"
	w15aSrcSymfony     = "https://github.com/open-datenschutzcenter/open-datenschutzcenter/issues/257 (cron command returns error code 1: a Symfony console command that is not defined); k8s-docs/concepts/workloads/controllers/cron-jobs.md"
	w15aSrcSarama      = "https://github.com/IBM/sarama/issues/2743 (kafka server: Request was for a topic or partition that does not exist on this broker); https://github.com/lixd/kafka-go-example/issues/5 (the topic has to be created first)"
	w15aSrcPG15Public  = "https://github.com/golang-migrate/migrate/issues/826 (postgres 15: permission denied for schema public on the migrations table); https://github.com/sameersbn/docker-gitlab/issues/2859 (GRANT ALL ON SCHEMA public)"
	w15aSrcBullMQ      = "https://github.com/taskforcesh/bullmq/issues/1827 (IMPORTANT! Eviction policy is volatile-lru. It should be \"noeviction\"); https://github.com/taskforcesh/bullmq/issues/1046 (queues lose jobs under an lru policy)"
	w15aSrcHTTPSPort   = "https://github.com/kubernetes/ingress-nginx/issues/1546 (Service port https with targetPort: http); https://github.com/infrahq/infra/issues/3731 (http: server gave HTTP response to HTTPS client)"
	w15aSrcSqlClient   = "https://github.com/dotnet/SqlClient/issues/1402 (Unable to connect to SQL Server with encryption enabled with 4.0: pre-login handshake, The remote certificate was rejected by the provided RemoteCertificateValidationCallback); https://github.com/dotnet/SqlClient/issues/609 (Trust Server Certificate = true)"
	w15aSrcQuota       = "k8s-docs/concepts/policy/resource-quotas.md (object count quota: pods); https://github.com/apache/airflow/issues/36348 (Kubernetes executor: pods ... is forbidden: exceeded quota)"
)

// w15aServiceAccount runs the pods of t as ServiceAccount sa.
func w15aServiceAccount(t *corev1.PodTemplateSpec, sa string) {
	t.Spec.ServiceAccountName = sa
}

// w15aTraefikV2Rules are the ClusterRole rules of a Traefik v2 chart: Endpoints, no
// EndpointSlices (which the v3 Kubernetes providers watch).
func w15aTraefikV2Rules() []rbacv1.PolicyRule {
	read := []string{"get", "list", "watch"}
	return []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"services", "endpoints", "secrets", "nodes"}, Verbs: read},
		{APIGroups: []string{"extensions", "networking.k8s.io"}, Resources: []string{"ingresses", "ingressclasses"}, Verbs: read},
		{APIGroups: []string{"extensions", "networking.k8s.io"}, Resources: []string{"ingresses/status"}, Verbs: []string{"update"}},
		{APIGroups: []string{"traefik.io", "traefik.containo.us"}, Resources: []string{"ingressroutes", "ingressroutetcps", "middlewares", "serverstransports", "tlsoptions", "traefikservices"}, Verbs: read},
	}
}

// w15aPorts appends named container ports (name, number pairs) to container c.
func w15aPorts(c *corev1.Container, kv ...any) {
	for i := 0; i+1 < len(kv); i += 2 {
		c.Ports = append(c.Ports, corev1.ContainerPort{Name: kv[i].(string), ContainerPort: int32(kv[i+1].(int))})
	}
}
