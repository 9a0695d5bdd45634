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
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Builders for wave 23a: services with a second port, ClusterRoleBindings whose subject may
// name another namespace, and an OTel Collector the way its chart deploys it.

const (
	w23aSrcMailpit      = "https://github.com/alexjustesen/speedtest-tracker/issues/854 (Laravel: Connection could not be established with host \"mailhog:1025\": getaddrinfo for mailhog failed) and https://github.com/laradock/laradock/pull/1031 (MAIL_HOST=mailhog in .env)"
	w23aSrcForwarded    = "https://github.com/aspnet/Security/issues/1702 (redirect_uri is http although the app runs on https behind a proxy: UseForwardedHeaders / X-Forwarded-Proto); https://learn.microsoft.com/en-us/aspnet/core/host-and-deploy/proxy-load-balancer (ASPNETCORE_FORWARDEDHEADERS_ENABLED); https://github.com/bitnami/bitnami-docker-keycloak/issues/32 (type=LOGIN_ERROR ... error=invalid_redirect_uri)"
	w23aSrcMemLimiter   = "https://github.com/open-telemetry/opentelemetry-collector/issues/9636 and https://github.com/open-telemetry/opentelemetry-collector/issues/8217 (memory_limiter: 'Memory usage is above soft limit. Refusing data.', clients get 'data refused due to high memory usage')"
	w23aSrcJetStream    = "https://github.com/nats-io/k8s/issues/484 and https://github.com/nats-io/nack/issues/157 (the NATS chart renders no jetstream block unless enabled; clients get 'no responders' / 'jetstream not enabled')"
	w23aSrcTrustProxy   = "https://github.com/express-rate-limit/express-rate-limit/issues/363 (ValidationError: The 'X-Forwarded-For' header is set but the Express 'trust proxy' setting is false (default) ... ERR_ERL_UNEXPECTED_X_FORWARDED_FOR: limits apply to the proxy's address, not per user)"
	w23aSrcGrafanaSMTP  = "https://github.com/mikesvoboda/nemotron-v3-home-security-intelligence/issues/4040 and https://github.com/grafana/grafana/issues/6944 (SMTP not configured, check your grafana.ini config file's [smtp] section; [smtp] enabled, env GF_SMTP_ENABLED)"
	w23aSrcFluentBitK8s = "https://github.com/fluent/fluent-bit/issues/2934 and https://github.com/fluent/fluent-bit/issues/517 (filter kubernetes: HTTP Status 403 pods is forbidden for the ServiceAccount, 'could not get meta for POD', records go out without kubernetes metadata)"
	w23aSrcOTLPPolicy   = "https://github.com/open-telemetry/opentelemetry-python/issues/3417 and https://github.com/open-telemetry/opentelemetry-python/issues/5367 (Transient error StatusCode.UNAVAILABLE encountered while exporting traces to ...:4317; Failed to export traces ... DEADLINE_EXCEEDED); k8s-docs/concepts/services-networking/network-policies.md"
	w23aSrcTraefikMW    = "https://github.com/traefik/traefik/issues/6807 and https://github.com/traefik/traefik/issues/6506 (router.middlewares annotation must name <namespace>-<name>@kubernetescrd, else 'middleware ... does not exist' and 404)"
)

// w23aTwoPorts is a ClusterIP Service name selecting sel on two named ports (each to the
// container port of the same name).
func w23aTwoPorts(name string, sel map[string]string, p1 string, n1 int32, p2 string, n2 int32) *corev1.Service {
	return w10aServicePort(w8bService(name, sel, p1, n1), p2, n2)
}

// w23aApp is a Deployment whose first container is named container and serves the named
// ports (name, number pairs); the first pair is the Service port of w11bServe.
func w23aApp(name, container, image string, replicas int32, lbl, ann map[string]string, ports ...any) *appsv1.Deployment {
	d := w11bApp(name, container, image, replicas, lbl, ann, "", 0)
	w15aPorts(&d.Spec.Template.Spec.Containers[0], ports...)
	return d
}

// w23aClusterRoleBinding binds the scenario's ClusterRole role (ClusterName) to ServiceAccount
// sa of namespace saNamespace ("" for the scenario's own), removed by Cleanup.
func (e *Env) w23aClusterRoleBinding(ctx context.Context, name, role, sa, saNamespace string) error {
	if saNamespace == "" {
		saNamespace = e.Namespace
	}
	b := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace, "app.kubernetes.io/name": name}},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: sa, Namespace: saNamespace}},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: e.ClusterName(role)},
	}
	if _, err := e.Client.RbacV1().ClusterRoleBindings().Create(ctx, b, metav1.CreateOptions{}); err != nil {
		return wrap("ClusterRoleBinding", b.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.RbacV1().ClusterRoleBindings().Delete(ctx, b.Name, metav1.DeleteOptions{}))
	})
	return nil
}

// w23aReadRule lets a ClusterRole get, list and watch resources of group.
func w23aReadRule(group string, resources ...string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: resources, Verbs: []string{"get", "list", "watch"}}
}

// w23aCollector creates the OTel Collector Deployment otel-collector (config from ConfigMap
// cm at /conf) and its Service on OTLP gRPC 4317 and OTLP HTTP 4318.
func (e *Env) w23aCollector(ctx context.Context, cm string, ann map[string]string) error {
	lbl := w22aLabels("opentelemetry-collector", "otel-collector")
	d := w23aApp("otel-collector", "opentelemetry-collector", "otel/opentelemetry-collector-contrib:0.110.0", 1, lbl, ann,
		"otlp-grpc", 4317, "otlp-http", 4318, "health", 13133)
	w8cArgs(&d.Spec.Template, "--config=/conf/config.yaml")
	mountConfigMap(&d.Spec.Template, cm, "/conf")
	d.Spec.Template.Spec.Containers[0].ReadinessProbe = w10aProbe("/", "health", 10)
	return steps(
		func() error { return e.createDeployment(ctx, d) },
		func() error {
			return e.createService(ctx, w23aTwoPorts("otel-collector", lbl, "otlp-grpc", 4317, "otlp-http", 4318))
		},
	)
}

// w23aCollectorConfig is a traces pipeline from OTLP to exporter (an otlp exporter at
// endpoint) through the given processors block and processor names.
func w23aCollectorConfig(processors, names, exporter, endpoint string) string {
	return "receivers:\n  otlp:\n    protocols:\n      grpc:\n        endpoint: 0.0.0.0:4317\n      http:\n        endpoint: 0.0.0.0:4318\n" +
		"processors:\n" + processors +
		"exporters:\n  " + exporter + ":\n    endpoint: " + endpoint + "\n    tls:\n      insecure: true\n" +
		"extensions:\n  health_check:\n    endpoint: 0.0.0.0:13133\n" +
		"service:\n  extensions: [health_check]\n  pipelines:\n    traces:\n      receivers: [otlp]\n      processors: [" + names + "]\n      exporters: [" + exporter + "]\n"
}
