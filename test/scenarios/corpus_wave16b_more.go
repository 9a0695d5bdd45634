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

	rbacv1 "k8s.io/api/rbac/v1"
)

func wave16bPlatformScenarios() []*Scenario {
	out := append(wave16bTelemetryScenarios(), wave16bControlScenarios()...)
	return append(out, wave16bEdgeScenarios()...)
}

const w16bOtelConfig = "receivers:\n  otlp:\n    protocols:\n      grpc:\n      http:\n        endpoint: 0.0.0.0:4318\n" +
	"processors:\n  memory_limiter:\n    check_interval: 5s\n    limit_mib: 409\n    spike_limit_mib: 128\n  batch:\n    send_batch_size: 8192\n    timeout: 5s\n" +
	"exporters:\n  otlp/tempo:\n    endpoint: tempo-distributor:4317\n    tls:\n      insecure: true\n  debug:\n    verbosity: basic\n" +
	"extensions:\n  health_check:\n    endpoint: 0.0.0.0:13133\n" +
	"service:\n  extensions: [health_check]\n  pipelines:\n    traces:\n      receivers: [otlp]\n      processors: [memory_limiter, batch]\n      exporters: [otlp/tempo, debug]\n"

func wave16bTelemetryScenarios() []*Scenario {
	prom := w8bLabels("prometheus", "shop-monitoring", "app.kubernetes.io/component", "server")
	checkout := w8cLabels("app", "checkout-api", "team", "checkout", "tier", "api")
	cart := w8cLabels("app", "cart-api", "team", "checkout", "tier", "api")
	graf := w8bLabels("grafana", "shop-monitoring", "app.kubernetes.io/component", "ui")
	otel := w8bLabels("otel-collector", "observability", "app.kubernetes.io/component", "gateway")
	tempo := w8bLabels("tempo", "observability", "app.kubernetes.io/component", "distributor")
	return []*Scenario{
		{
			// Prometheus' kubernetes_sd role endpoints lists and watches Endpoints (plus Services
			// and Pods); a namespaced Role that grants only pods and services leaves the
			// discovery empty, so every target of the job vanishes and dashboards go blank. The
			// error only shows as client-go reflector warnings in Prometheus' own log.
			Name: "checkout-dashboards-no-data", Covers: "every Checkout panel in Grafana says No data while checkout-api serves and /metrics answers: the Running prometheus logs 'Failed to watch *v1.Endpoints: failed to list *v1.Endpoints: endpoints is forbidden: User \"system:serviceaccount:...:prometheus\" cannot list resource \"endpoints\"' for its role: endpoints job; Role prometheus grants pods and services only",
			Source: w16bSrcPromRBAC, Class: ClassOutside, Hops: 2,
			Problem: "every panel of the Checkout dashboards in Grafana shows No data since yesterday's change window, yet checkout-api is taking orders and its /metrics page answers",
			Target:  target("Deployment", "checkout-api"),
			Want:    Want{Culprit: Ref{Kind: "Role", Name: "prometheus"}, Terms: []string{"endpoints"}},
			Setup: func(ctx context.Context, e *Env) error {
				app := func(name string, lbl map[string]string) error {
					d := w11bApp(name, name, "registry.example/shop/"+name+":3.4.1", 2, lbl, nil, "http", 8080)
					w10aPort(&d.Spec.Template, "metrics", 9102)
					if err := e.createDeployment(ctx, d); err != nil {
						return err
					}
					s := w10aServicePort(w8bService(name, lbl, "http", 80), "metrics", 9102)
					s.Annotations = map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "9102"}
					return e.createService(ctx, s)
				}
				return steps(
					func() error { return e.createServiceAccount(ctx, "prometheus") },
					func() error {
						return e.createRole(ctx, "prometheus",
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods", "services"}, Verbs: []string{"get", "list", "watch"}},
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}})
					},
					func() error { return e.createRoleBinding(ctx, "prometheus", "Role", "prometheus", "prometheus") },
					func() error {
						return e.createConfigMap(ctx, "prometheus-config", map[string]string{"prometheus.yml": "global:\n  scrape_interval: 30s\n" +
							"scrape_configs:\n- job_name: shop-services\n  kubernetes_sd_configs:\n  - role: endpoints\n    namespaces:\n      own_namespace: true\n" +
							"  relabel_configs:\n  - source_labels: [__meta_kubernetes_service_annotation_prometheus_io_scrape]\n    action: keep\n    regex: \"true\"\n" +
							"  - source_labels: [__meta_kubernetes_endpoint_port_name]\n    action: keep\n    regex: metrics\n" +
							"  - source_labels: [__meta_kubernetes_service_name]\n    target_label: service\n"})
					},
					func() error {
						st := w8bStatefulSet("prometheus", "quay.io/prometheus/prometheus:v2.54.1", "prometheus", 1, prom, running("w16b-prometheus-endpoints-forbidden"), "web", 9090)
						w10aMain(&st.Spec.Template, "prometheus", "--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus", "--storage.tsdb.retention.time=7d")
						w15aServiceAccount(&st.Spec.Template, "prometheus")
						w14bMountCM(&st.Spec.Template, &st.Spec.Template.Spec.Containers[0], "prometheus-config", "/etc/prometheus", "")
						w10aEmptyDir(&st.Spec.Template, "data", "/prometheus", 0)
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("prometheus", prom, "web", 9090))
					},
					func() error { return app("checkout-api", checkout) },
					func() error { return app("cart-api", cart) },
					func() error {
						d := w11bApp("grafana", "grafana", "docker.io/grafana/grafana:11.3.0", 1, graf, nil, "grafana", 3000)
						w8bEnv(&d.Spec.Template, "GF_SERVER_ROOT_URL", "https://grafana.example.com", "GF_DATASOURCE_PROMETHEUS_URL", "http://prometheus:9090")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(w8cStatefulSetReady("prometheus", 1), readyReplicas("checkout-api", 2), readyReplicas("cart-api", 2), readyReplicas("grafana", 1)),
		},
		{
			// Collector 0.104.0 made localhost the default endpoint of every server component: an
			// otlp grpc protocol left empty now listens on localhost:4317 inside the collector pod,
			// so gRPC clients through the Service get connection refused while the http protocol,
			// which names 0.0.0.0:4318 explicitly, keeps working.
			Name: "checkout-traces-gone-from-tempo", Covers: "checkout-api (OTLP gRPC) is Ready but logs 'traces export: ... dial tcp ...:4317: connect: connection refused' while cart-api (OTLP HTTP 4318) exports fine; the Ready otel-collector 0.104.0 logs 'Starting GRPC server ... \"endpoint\": \"localhost:4317\"': the grpc protocol in ConfigMap otel-collector-config has no endpoint and the new default is localhost",
			Source: w16bSrcOtelLocalhost, Class: ClassProvider, Hops: 2,
			Problem: "no checkout-api traces reach Tempo since Monday's collector upgrade; cart-api traces still arrive and every pod is Ready",
			Target:  target("Deployment", "checkout-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "otel-collector-config"}, Terms: []string{"localhost"}},
			Setup: func(ctx context.Context, e *Env) error {
				client := func(name string, lbl map[string]string, logs, endpoint, protocol string) error {
					d := w11bApp(name, name, "registry.example/shop/"+name+":3.4.1", 2, lbl, running(logs), "http", 8080)
					w8bEnv(&d.Spec.Template, "OTEL_SERVICE_NAME", name, "OTEL_EXPORTER_OTLP_ENDPOINT", endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL", protocol,
						"OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=prod,service.namespace=shop")
					return e.w11bServe(ctx, d, 80)
				}
				return steps(
					func() error {
						return e.createConfigMap(ctx, "otel-collector-config", map[string]string{"config.yaml": w16bOtelConfig})
					},
					func() error {
						d := w11bApp("tempo-distributor", "distributor", "docker.io/grafana/tempo:2.6.1", 1, tempo, nil, "otlp-grpc", 4317)
						w10aMain(&d.Spec.Template, "distributor", "-target=distributor", "-config.file=/conf/tempo.yaml")
						return e.w11bServe(ctx, d, 4317)
					},
					func() error {
						d := w11bApp("otel-collector", "otel-collector", "otel/opentelemetry-collector-contrib:0.104.0", 2, otel, running("w16b-otel-collector-0104"), "otlp-grpc", 4317)
						w10aMain(&d.Spec.Template, "otel-collector", "--config=/conf/config.yaml")
						w10aPort(&d.Spec.Template, "otlp-http", 4318)
						w10aPort(&d.Spec.Template, "health", 13133)
						w14bMountCM(&d.Spec.Template, &d.Spec.Template.Spec.Containers[0], "otel-collector-config", "/conf", "")
						w8bReadiness(&d.Spec.Template, "/", "health", 10)
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w10aServicePort(w8bService("otel-collector", otel, "otlp-grpc", 4317), "otlp-http", 4318))
					},
					func() error {
						return client("checkout-api", checkout, "w16b-checkout-otlp-grpc", "http://otel-collector:4317", "grpc")
					},
					func() error {
						return client("cart-api", cart, "w16b-cart-otlp-http", "http://otel-collector:4318", "http/protobuf")
					},
				)
			},
			Wait: all(readyReplicas("otel-collector", 2), readyReplicas("checkout-api", 2), readyReplicas("cart-api", 2), readyReplicas("tempo-distributor", 1)),
		},
	}
}
