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
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// w9bEnvoyYAML routes api.example.com to accounts (HTTP) and ledger (gRPC) by their Services.
const w9bEnvoyYAML = `static_resources:
  listeners:
  - name: public
    address: {socket_address: {address: 0.0.0.0, port_value: 8080}}
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: public
          route_config:
            virtual_hosts:
            - name: api
              domains: ["api.example.com"]
              routes:
              - {match: {prefix: "/ledger.v1.Ledger/"}, route: {cluster: ledger_grpc}}
              - {match: {prefix: "/v1/accounts"}, route: {cluster: accounts_http}}
          http_filters:
          - name: envoy.filters.http.router
            typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}
  clusters:
  - name: ledger_grpc
    type: STRICT_DNS
    typed_extension_protocol_options:
      envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
        "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
        explicit_http_config: {http2_protocol_options: {}}
    load_assignment:
      cluster_name: ledger_grpc
      endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: ledger, port_value: 9443}}}}]}]
  - name: accounts_http
    type: STRICT_DNS
    load_assignment:
      cluster_name: accounts_http
      endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: accounts, port_value: 8080}}}}]}]
`

func wave9bMoreScenarios() []*Scenario {
	return []*Scenario{
		{
			// The effective init request is the largest of the init containers'; a cache warmer
			// copied from the batch pool's manifests asks for 24Gi on 16Gi nodes.
			Name: "vector-tiles-init-container-request", Covers: "the vector-tiles 4.2 rollout is stuck with a new pod Pending on 'Insufficient memory' although tiles requests 1Gi: its new init container warm-tile-cache requests 24Gi, more than any node's 15Gi allocatable",
			Source: w9bSrcInitContainers, Class: ClassMechanism, Hops: 1,
			Problem: "the vector-tiles 4.2 release has been rolling out for half an hour, one new pod stays Pending",
			Target:  target("Deployment", "vector-tiles"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "vector-tiles"}, Terms: []string{"warm-tile-cache", "24Gi"}},
			Setup: func(ctx context.Context, e *Env) error {
				tiles := w8cLabels("app.kubernetes.io/name", "vector-tiles", "app.kubernetes.io/part-of", "maps", "team", "geo")
				geocoder := w8cLabels("app.kubernetes.io/name", "geocoder", "app.kubernetes.io/part-of", "maps", "team", "geo")
				return steps(
					func() error { return e.ownNode(ctx, "geo") },
					func() error {
						d := w8bDeployment("vector-tiles", "registry.example/geo/vector-tiles:4.1.3", 2, tiles, nil, "http", 8080)
						w8cRequests(&d.Spec.Template, "500m", "1Gi", "", "1Gi")
						e.pin(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("vector-tiles", tiles, "http", 80)) },
					func() error {
						d := w8bDeployment("geocoder", "registry.example/geo/geocoder:2.0.9", 2, geocoder, nil, "http", 8080)
						w8cRequests(&d.Spec.Template, "250m", "2Gi", "", "2Gi")
						e.pin(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: w9bRollout("vector-tiles", 2, func(d *appsv1.Deployment) {
				t := &d.Spec.Template.Spec
				t.Containers[0].Image = "registry.example/geo/vector-tiles:4.2.0"
				t.InitContainers = append(t.InitContainers, corev1.Container{
					Name: "warm-tile-cache", Image: "registry.example/geo/vector-tiles:4.2.0",
					Args: []string{"warm-cache", "--zoom=0-12", "--region=europe", "--target=/cache"},
					Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("24Gi")},
						Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("24Gi")},
					},
				})
			}, w9bAnyPod(map[string]string{"app.kubernetes.io/name": "vector-tiles"}, unschedulable("Insufficient memory"))),
		},
		{
			// pathType Exact on /api matches /api and nothing under it; /api/v1/... falls to the
			// "/" Prefix rule and the UI's nginx answers 404.
			Name: "reports-ingress-api-path-exact", Covers: "the reports dashboard gets 404 on every /api/v1/... call while reports-api is healthy and idle: the Ingress reports routes /api with pathType Exact, so /api/v1/reports/daily goes to the '/' rule (reports-ui), whose nginx logs open() ... failed (2: No such file or directory)",
			Source: w9bSrcIngress, Class: ClassProvider, Hops: 1,
			Problem: "the reports dashboard says 'Failed to load report'; the browser gets 404 on /api/v1/reports/daily, reports-api pods are healthy and see no requests",
			Target:  target("Service", "reports-api"),
			Want:    Want{Culprit: Ref{Kind: "Ingress", Name: "reports"}, Terms: []string{"Exact"}},
			Setup: func(ctx context.Context, e *Env) error {
				ui := w8cLabels("app", "reports-ui", "component", "frontend", "product", "reports")
				api := w8cLabels("app", "reports-api", "component", "backend", "product", "reports")
				return steps(
					func() error {
						return e.createDeployment(ctx, w8bDeployment("reports-ui", "registry.example/reports/ui:2026.11.3", 2, ui, running("w9b-reports-ui-404"), "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("reports-ui", ui, "http", 80)) },
					func() error {
						d := w8bDeployment("reports-api", "registry.example/reports/api:3.7.1", 2, api, nil, "http", 8080)
						w8cReadiness(&d.Spec.Template, "/api/healthz", "http")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("reports-api", api, "http", 8080)) },
					func() error {
						path := func(p string, t networkingv1.PathType, svc string, port int32) networkingv1.HTTPIngressPath {
							return networkingv1.HTTPIngressPath{Path: p, PathType: ptr.To(t), Backend: networkingv1.IngressBackend{
								Service: &networkingv1.IngressServiceBackend{Name: svc, Port: networkingv1.ServiceBackendPort{Number: port}}}}
						}
						ing := &networkingv1.Ingress{
							ObjectMeta: metav1.ObjectMeta{Name: "reports", Labels: w8cLabels("product", "reports"),
								Annotations: map[string]string{"nginx.ingress.kubernetes.io/proxy-read-timeout": "120"}},
							Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{Host: "reports.example.com",
								IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
									path("/api", networkingv1.PathTypeExact, "reports-api", 8080),
									path("/", networkingv1.PathTypePrefix, "reports-ui", 80),
								}}}}}},
						}
						return e.createIngress(ctx, ing)
					},
				)
			},
			Wait: all(readyReplicas("reports-ui", 2), readyReplicas("reports-api", 2)),
		},
		{
			// Someone applied deployment.yaml with kubectl apply -f instead of kubectl apply -k:
			// the generator's name suffix is not substituted, and catalog-env does not exist.
			Name: "catalog-kustomize-configmap-suffix", Covers: "the catalog 6.2.0 rollout is stuck on CreateContainerConfigError 'configmap \"catalog-env\" not found': the Deployment was applied outside kustomize, whose configMapGenerator made catalog-env-5t2dk8hb4f",
			Source: w9bSrcKustomize, Class: ClassReference, Hops: 1,
			Problem: "catalog 6.2.0 never rolled out, the new pods are stuck and the old ones still serve",
			Target:  target("Deployment", "catalog"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "catalog"}, Terms: []string{"catalog-env-5t2dk8hb4f"}},
			Setup: func(ctx context.Context, e *Env) error {
				cat := w8cLabels("app.kubernetes.io/name", "catalog", "app.kubernetes.io/managed-by", "kustomize", "env", "prod")
				search := w8cLabels("app.kubernetes.io/name", "catalog-search", "app.kubernetes.io/managed-by", "kustomize", "env", "prod")
				gen := func(name string, data map[string]string) error {
					_, err := e.Client.CoreV1().ConfigMaps(e.Namespace).Create(ctx, &corev1.ConfigMap{
						ObjectMeta: metav1.ObjectMeta{Name: name, Labels: w8cLabels("app.kubernetes.io/name", "catalog", "app.kubernetes.io/managed-by", "kustomize", "env", "prod")},
						Data:       data}, metav1.CreateOptions{})
					return wrap("ConfigMap", name, err)
				}
				return steps(
					func() error {
						return gen("catalog-env-7k2dmb9g4h", map[string]string{"SEARCH_URL": "http://catalog-search:9200", "CACHE_TTL": "300", "LOG_LEVEL": "info"})
					},
					func() error {
						return gen("catalog-env-5t2dk8hb4f", map[string]string{"SEARCH_URL": "http://catalog-search:9200", "CACHE_TTL": "600", "LOG_LEVEL": "info", "FEATURE_FACETS": "true"})
					},
					func() error {
						d := w8bDeployment("catalog", "registry.example/shop/catalog:6.1.4", 3, cat, nil, "http", 8080)
						envFromConfigMap(&d.Spec.Template, "catalog-env-7k2dmb9g4h")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("catalog", cat, "http", 80)) },
					func() error {
						d := w8bDeployment("catalog-search", "docker.elastic.co/elasticsearch/elasticsearch:8.15.3", 1, search, nil, "http", 9200)
						envFromConfigMap(&d.Spec.Template, "catalog-env-5t2dk8hb4f")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("catalog-search", search, "http", 9200)) },
				)
			},
			Wait: w9bRollout("catalog", 3, func(d *appsv1.Deployment) {
				t := &d.Spec.Template
				t.Annotations = sim("create-config-error")
				t.Spec.Containers[0].Image = "registry.example/shop/catalog:6.2.0"
				t.Spec.Containers[0].EnvFrom = []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "catalog-env"}}}}
			}, w9bAnyPod(map[string]string{"app.kubernetes.io/name": "catalog"}, waiting("CreateContainerConfigError"))),
		},
		{
			// The platform team enforced baseline on every application namespace; the log
			// collector's hostPath volumes are not allowed there and its pods are never created.
			Name: "fluent-bit-psa-baseline-hostpath", Covers: "no node ships logs: the DaemonSet fluent-bit has no pods, the daemonset controller's FailedCreate says 'violates PodSecurity \"baseline:latest\": hostPath volumes (volumes \"varlog\", \"containers\")' since the namespace enforces baseline",
			Source: w9bSrcPodSecurity, Class: ClassMechanism, Hops: 1,
			Problem: "Loki has had no container logs from any node since the namespace hardening rollout; fluent-bit shows 0 pods",
			Target:  target("DaemonSet", "fluent-bit"),
			Want:    Want{Culprit: Ref{Kind: "DaemonSet", Name: "fluent-bit"}, Terms: []string{"baseline", "hostPath"}},
			Setup: func(ctx context.Context, e *Env) error {
				fb := w8cLabels("app.kubernetes.io/name", "fluent-bit", "app.kubernetes.io/instance", "logging")
				gw := w8cLabels("app.kubernetes.io/name", "loki-gateway", "app.kubernetes.io/instance", "logging")
				return steps(
					func() error {
						return e.w8aLabelNamespace(ctx, map[string]string{"pod-security.kubernetes.io/enforce": "baseline",
							"pod-security.kubernetes.io/enforce-version": "latest", "pod-security.kubernetes.io/warn": "restricted", "platform.example.com/hardened": "2026-11"})
					},
					func() error {
						return e.createConfigMap(ctx, "fluent-bit", map[string]string{"fluent-bit.conf": "[INPUT]\n    Name tail\n    Path /var/log/containers/*.log\n    multiline.parser docker, cri\n" +
							"[OUTPUT]\n    Name loki\n    Match *\n    Host loki-gateway\n    Port 80\n"})
					},
					func() error {
						d := w8bDeployment("loki-gateway", "nginxinc/nginx-unprivileged:1.27.2-alpine", 1, gw, nil, "http", 8080)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("loki-gateway", gw, "http", 80)) },
					func() error {
						return e.w8aCreateDaemonSet(ctx, w8aDaemonSet("fluent-bit", "cr.fluentbit.io/fluent/fluent-bit:3.2.2", fb, func(t *corev1.PodTemplateSpec) {
							hostPath := func(name, path string) {
								t.Spec.Volumes = append(t.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: path}}})
								t.Spec.Containers[0].VolumeMounts = append(t.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: name, MountPath: path, ReadOnly: true})
							}
							hostPath("varlog", "/var/log")
							hostPath("containers", "/var/lib/docker/containers")
							mountConfigMap(t, "fluent-bit", "/fluent-bit/etc")
							t.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
						}))
					},
				)
			},
			Wait: all(readyReplicas("loki-gateway", 1), objectEvent("DaemonSet", "fluent-bit", "FailedCreate", "hostPath")),
		},
		{
			// pricing moved from a bare ReplicaSet to a Deployment; the old ReplicaSet was never
			// deleted, and the Service's selector app=pricing still matches its 1.8.3 pods,
			// which have no /v2/quote: one call in three is answered 404.
			Name: "checkout-pricing-leftover-replicaset", Covers: "about a third of checkout's pricing calls get 404 on POST /v2/quote although pricing-api 2.0 is healthy: the Service pricing (selector app=pricing) also sends traffic to the pods of the forgotten bare ReplicaSet pricing running pricing:1.8.3, which log 'No mapping for POST /v2/quote'",
			Source: w9bSrcReplicaSet, Class: ClassProvider, Hops: 2,
			Problem: "about a third of checkouts fail with 'pricing unavailable' since pricing 2.0 went live; the pricing-api pods are all healthy",
			Target:  target("Deployment", "checkout-api"),
			Want:    Want{Culprit: Ref{Kind: "ReplicaSet", Name: "pricing"}, Terms: []string{"1.8.3"}},
			Setup: func(ctx context.Context, e *Env) error {
				legacy := w8cLabels("app", "pricing", "tier", "backend")
				v2 := w8cLabels("app", "pricing", "tier", "backend", "version", "v2")
				checkout := w8cLabels("app", "checkout-api", "tier", "backend", "version", "v7")
				return steps(
					func() error {
						t := template("pricing", "registry.example/shop/pricing:1.8.3", running("w9b-checkout-pricing-v1"))
						t.Labels = legacy
						_, err := e.Client.AppsV1().ReplicaSets(e.Namespace).Create(ctx, &appsv1.ReplicaSet{
							ObjectMeta: metav1.ObjectMeta{Name: "pricing", Labels: legacy},
							Spec:       appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: legacy}, Template: t},
						}, metav1.CreateOptions{})
						return wrap("ReplicaSet", "pricing", err)
					},
					func() error {
						d := w8bDeployment("pricing-api", "registry.example/shop/pricing:2.0.1", 2, v2, nil, "http", 8080)
						d.Spec.Selector = &metav1.LabelSelector{MatchLabels: w8cLabels("app", "pricing", "version", "v2")}
						w8cReadiness(&d.Spec.Template, "/actuator/health/readiness", "http")
						return e.createDeployment(ctx, d)
					},
					func() error {
						s := w8bService("pricing", w8cLabels("app", "pricing"), "http", 80)
						return e.createService(ctx, s)
					},
					func() error {
						d := w8bDeployment("checkout-api", "registry.example/shop/checkout-api:7.4.0", 2, checkout, running("w9b-checkout-api-pricing-404"), "http", 8080)
						w8bEnv(&d.Spec.Template, "PRICING_URL", "http://pricing", "SPRING_PROFILES_ACTIVE", "prod")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("checkout-api", checkout, "http", 80)) },
				)
			},
			Wait: all(readyReplicas("pricing-api", 2), readyReplicas("checkout-api", 2), w9bReplicaSetReady("pricing", 1)),
		},
	}
}

// w9bReplicaSetReady waits until ReplicaSet name has n ready replicas.
func w9bReplicaSetReady(name string, n int32) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		rs, err := e.Client.AppsV1().ReplicaSets(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if rs.Status.ReadyReplicas < n {
			return fmt.Errorf("replicaset %s: %d of %d ready", name, rs.Status.ReadyReplicas, n)
		}
		return nil
	}
}
