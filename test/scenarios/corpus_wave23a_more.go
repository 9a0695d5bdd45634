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

	corev1 "k8s.io/api/core/v1"
)

func wave23aMoreScenarios() []*Scenario {
	grafana := w22aLabels("grafana", "grafana")
	quote := w8bLabels("quote-service", "quotes")
	return []*Scenario{
		{
			// Grafana maps GF_<SECTION>_<KEY> onto grafana.ini and silently ignores names it
			// does not know. The [smtp] key is "enabled", so GF_SMTP_ENABLE leaves SMTP off:
			// host, user and password are read (and logged as overridden), but every email
			// notification fails. The crash-looping image renderer is unrelated noise.
			Name: "grafana-alert-mails-silent", Covers: "outside the catalogue: grafana is Running and Ready but its log repeats 'Notify for alerts failed ... ops-oncall/email[0]: ... SMTP not configured, check your grafana.ini config file's [smtp] section'; ConfigMap grafana-env sets GF_SMTP_ENABLE=true (the key is GF_SMTP_ENABLED), so SMTP stays disabled while GF_SMTP_HOST is read; a crash-looping grafana-image-renderer is unrelated",
			Source: w23aSrcGrafanaSMTP, Class: ClassOutside, Hops: 1,
			Problem: "Grafana alert rules fire and show as Alerting, but the on-call team has received no alert emails at all since we moved Grafana into this namespace",
			Target:  target("Deployment", "grafana"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "grafana-env"}, Terms: []string{"GF_SMTP_ENABLE"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "grafana-env", map[string]string{
							"GF_SERVER_ROOT_URL": "https://grafana.ops.example.com", "GF_UNIFIED_ALERTING_ENABLED": "true", "GF_LOG_MODE": "console",
							"GF_SMTP_ENABLE": "true", "GF_SMTP_HOST": "smtp-relay:587", "GF_SMTP_FROM_ADDRESS": "grafana@ops.example.com", "GF_SMTP_FROM_NAME": "Grafana Alerts",
							"GF_SMTP_STARTTLS_POLICY": "MandatoryStartTLS", "GF_RENDERING_SERVER_URL": "http://grafana-image-renderer:8081/render", "GF_RENDERING_CALLBACK_URL": "http://grafana/",
						})
					},
					func() error {
						return e.createSecret(ctx, "grafana-smtp", map[string]string{"GF_SMTP_USER": "grafana-alerts", "GF_SMTP_PASSWORD": "Rl4y-9tq2-Zx7m"})
					},
					func() error {
						d := w11bApp("grafana", "grafana", "docker.io/grafana/grafana:11.2.2", 1, grafana, running("w23a-grafana"), "grafana", 3000)
						envFromConfigMap(&d.Spec.Template, "grafana-env")
						envFromSecret(&d.Spec.Template, "grafana-smtp")
						w8bReadiness(&d.Spec.Template, "/api/health", "grafana", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("smtp-relay", "postfix", "boky/postfix:v4.3.0", 1, w8bLabels("smtp-relay", "mail"), nil, "smtp", 587)
						w8bEnv(&d.Spec.Template, "ALLOWED_SENDER_DOMAINS", "ops.example.com", "RELAYHOST", "[email-smtp.eu-west-1.amazonaws.com]:587")
						return e.w11bServe(ctx, d, 587)
					},
					func() error {
						msg := "Error: Failed to launch the browser process!\n/usr/lib/chromium/chrome: error while loading shared libraries: libnss3.so: cannot open shared object file: No such file or directory"
						d := w11bApp("grafana-image-renderer", "renderer", "docker.io/grafana/grafana-image-renderer:3.11.5-slim", 1, w23aRenderer(), crash("1", msg, ""), "http", 8081)
						return e.w11bServe(ctx, d, 8081)
					},
				)
			},
			Wait: all(readyReplicas("grafana", 1), readyReplicas("smtp-relay", 1), podsWith(w23aRenderer(), crashLooping(2))),
		},
		{
			// The logging stack was reinstalled from namespace kube-logging into this one;
			// the ClusterRoleBinding kept its subject's old namespace, so the kubernetes filter
			// gets 403 for every pod lookup and ships records to Loki with no namespace, pod or
			// app labels. event-exporter's binding names this namespace and works.
			Name: "loki-streams-missing-pod-labels", Covers: "outside the catalogue: the Ready fluent-bit DaemonSet ships logs to loki, but without Kubernetes labels: it logs '[filter:kubernetes:kubernetes.0] could not get meta for POD'; ClusterRoleBinding fluent-bit binds ClusterRole fluent-bit to ServiceAccount fluent-bit of namespace kube-logging, not of this namespace (event-exporter's binding is right)",
			Source: w23aSrcFluentBitK8s, Class: ClassOutside, Hops: 2,
			Problem: "Logs still reach Loki since the logging stack was reinstalled, but every stream only has job=fluent-bit: no namespace, pod or app labels, so all per-team log panels in Grafana are empty",
			Target:  target("DaemonSet", "fluent-bit"),
			Want:    Want{Culprit: Ref{Kind: "ClusterRoleBinding", Name: "fluent-bit", Cluster: true}, Terms: []string{"kube-logging"}},
			Setup: func(ctx context.Context, e *Env) error {
				conf := "[SERVICE]\n    Flush         5\n    Log_Level     info\n    Daemon        off\n    Parsers_File  /fluent-bit/etc/parsers.conf\n    HTTP_Server   On\n    HTTP_Listen   0.0.0.0\n    HTTP_Port     2020\n\n" +
					"[INPUT]\n    Name              tail\n    Tag               kube.*\n    Path              /var/log/containers/*.log\n    multiline.parser  docker, cri\n    Mem_Buf_Limit     50MB\n    Skip_Long_Lines   On\n\n" +
					"[FILTER]\n    Name                kubernetes\n    Match               kube.*\n    Kube_URL            https://kubernetes.default.svc:443\n    Kube_CA_File        /var/run/secrets/kubernetes.io/serviceaccount/ca.crt\n    Kube_Token_File     /var/run/secrets/kubernetes.io/serviceaccount/token\n    Kube_Tag_Prefix     kube.var.log.containers.\n    Merge_Log           On\n    Labels              On\n    Annotations         Off\n\n" +
					"[OUTPUT]\n    Name        loki\n    Match       kube.*\n    Host        loki\n    Port        3100\n    Labels      job=fluent-bit, namespace=$kubernetes['namespace_name'], pod=$kubernetes['pod_name'], app=$kubernetes['labels']['app.kubernetes.io/name']\n    Line_Format json\n"
				fb := w22aLabels("fluent-bit", "fluent-bit")
				return steps(
					func() error { return e.createServiceAccount(ctx, "fluent-bit") },
					func() error {
						return e.createScopedClusterRole(ctx, "fluent-bit", w23aReadRule("", "pods", "namespaces"))
					},
					func() error {
						return e.w23aClusterRoleBinding(ctx, "fluent-bit", "fluent-bit", "fluent-bit", "kube-logging")
					},
					func() error {
						return e.w10aConfigMap(ctx, "fluent-bit-config", fb, map[string]string{"fluent-bit.conf": conf})
					},
					func() error {
						d := w8aDaemonSet("fluent-bit", "cr.fluentbit.io/fluent/fluent-bit:3.1.9", fb, func(t *corev1.PodTemplateSpec) {
							t.Annotations = running("w23a-fluent-bit")
							t.Spec.Containers[0].Name = "fluent-bit"
							w15aPorts(&t.Spec.Containers[0], "http", 2020)
							w15aServiceAccount(t, "fluent-bit")
							mountConfigMap(t, "fluent-bit-config", "/fluent-bit/etc/conf")
							t.Spec.Containers[0].Args = []string{"--config=/fluent-bit/etc/conf/fluent-bit.conf"}
							w14aHostPath(t, "varlog", "/var/log", corev1.HostPathDirectory)
						})
						return e.w8aCreateDaemonSet(ctx, d)
					},
					func() error {
						d := w11bApp("loki", "loki", "grafana/loki:3.2.0", 1, w22aLabels("loki", "loki"), nil, "http-metrics", 3100)
						w8cArgs(&d.Spec.Template, "-config.file=/etc/loki/local-config.yaml", "-target=all")
						return e.w11bServe(ctx, d, 3100)
					},
					func() error { return e.createServiceAccount(ctx, "event-exporter") },
					func() error {
						return e.createScopedClusterRole(ctx, "event-exporter", w23aReadRule("", "events"), w23aReadRule("events.k8s.io", "events"))
					},
					func() error {
						return e.w23aClusterRoleBinding(ctx, "event-exporter", "event-exporter", "event-exporter", "")
					},
					func() error {
						return e.createConfigMap(ctx, "event-exporter-config", map[string]string{"config.yaml": "logLevel: error\nlogFormat: json\nroute:\n  routes:\n  - match:\n    - receiver: loki\nreceivers:\n- name: loki\n  loki:\n    url: http://loki:3100/loki/api/v1/push\n    streamLabels:\n      source: kubernetes-events\n"})
					},
					func() error {
						d := w11bApp("event-exporter", "event-exporter", "ghcr.io/resmoio/kubernetes-event-exporter:v1.7", 1, w22aLabels("event-exporter", "event-exporter"), nil, "", 0)
						w15aServiceAccount(&d.Spec.Template, "event-exporter")
						w8cArgs(&d.Spec.Template, "-conf=/data/config.yaml")
						mountConfigMap(&d.Spec.Template, "event-exporter-config", "/data")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(w14aDaemonSetReady("fluent-bit"), readyReplicas("loki", 1), readyReplicas("event-exporter", 1)),
		},
		{
			// The egress policy was written when quote-service exported OTLP over HTTP (4318).
			// The new OTel SDK setup exports gRPC to 4317, which the policy does not allow, so
			// every export times out; pricing-service still uses 4318 and gets through.
			Name: "quote-service-traces-stopped", Covers: "outside the catalogue: quote-service (FastAPI, OTLP gRPC) is Ready but logs 'Transient error StatusCode.UNAVAILABLE encountered while exporting traces to otel-collector:4317' and 'Failed to export traces ... DEADLINE_EXCEEDED'; NetworkPolicy quote-service-egress allows otel-collector pods only on TCP 4318 (pricing-service exports OTLP/HTTP to 4318 and arrives)",
			Source: w23aSrcOTLPPolicy, Class: ClassProvider, Hops: 2,
			Problem: "No quote-service traces have reached the tracing backend since Tuesday's change window; the service itself answers quotes fine and pricing-service traces still arrive",
			Target:  target("Deployment", "quote-service"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "quote-service-egress"}, Terms: []string{"4317"}},
			Setup: func(ctx context.Context, e *Env) error {
				collector := w22aLabels("opentelemetry-collector", "otel-collector")
				db := w8bLabels("quotes-db", "quotes")
				pricing := w8bLabels("pricing-service", "quotes")
				return steps(
					func() error {
						batch := "  memory_limiter:\n    check_interval: 1s\n    limit_percentage: 80\n    spike_limit_percentage: 20\n  batch: {}\n"
						return e.createConfigMap(ctx, "otel-collector-config", map[string]string{"config.yaml": w23aCollectorConfig(batch, "memory_limiter, batch", "otlp/tempo", "tempo-distributor:4317")})
					},
					func() error { return e.w23aCollector(ctx, "otel-collector-config", nil) },
					func() error {
						d := w11bApp("tempo-distributor", "distributor", "grafana/tempo:2.6.0", 1, w8cLabels("app.kubernetes.io/name", "tempo", "app.kubernetes.io/component", "distributor"), nil, "otlp-grpc", 4317)
						return e.w11bServe(ctx, d, 4317)
					},
					func() error {
						return e.w11bStore(ctx, "quotes-db", "postgres:16.4", db, nil, "postgresql", 5432, "POSTGRES_DB", "quotes", "POSTGRES_USER", "quotes")
					},
					func() error {
						d := w11bApp("quote-service", "api", "registry.example/quotes/quote-service:2.3.0", 2, quote, running("w23a-quote-service"), "http", 8000)
						w8bEnv(&d.Spec.Template, "OTEL_SERVICE_NAME", "quote-service", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel-collector:4317", "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc",
							"OTEL_EXPORTER_OTLP_INSECURE", "true", "DATABASE_URL", "postgresql+asyncpg://quotes@quotes-db:5432/quotes", "PRICING_URL", "http://pricing-service")
						w8bReadiness(&d.Spec.Template, "/health", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("pricing-service", "api", "registry.example/quotes/pricing-service:1.8.2", 1, pricing, nil, "http", 3000)
						w8bEnv(&d.Spec.Template, "OTEL_SERVICE_NAME", "pricing-service", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel-collector:4318", "OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createNetworkPolicy(ctx, w8cEgressPolicy("quote-service-egress", quote, w21bDNS(), w11bToPods(db, 5432), w11bToPods(pricing, 3000), w11bToPods(collector, 4318)))
					},
					func() error {
						return e.createNetworkPolicy(ctx, w8cEgressPolicy("pricing-service-egress", pricing, w21bDNS(), w11bToPods(collector, 4318)))
					},
				)
			},
			Wait: all(readyReplicas("quote-service", 2), readyReplicas("pricing-service", 1), readyReplicas("otel-collector", 1), w11aStatefulSetReady("quotes-db", 1)),
		},
		{
			// Traefik names a CRD middleware <namespace>-<name>@kubernetescrd. The admin-ui
			// Ingress annotation leaves the namespace out, so Traefik drops the router and
			// answers 404; the status-page Ingress on the same host spells it right.
			Name: "admin-ui-404-behind-traefik", Covers: "outside the catalogue: admin-ui pods are Ready but https://ops.example.com/admin answers 404; the Ready traefik logs 'middleware \"strip-admin@kubernetescrd\" does not exist' for the admin-ui router: the router.middlewares annotation of Ingress admin-ui lacks the namespace prefix (<namespace>-strip-admin@kubernetescrd), which Ingress status-page has",
			Source: w23aSrcTraefikMW, Class: ClassReference, Hops: 2,
			Problem: "https://ops.example.com/admin returns '404 page not found' since the admin UI got its own Ingress; the admin-ui pods are Ready and /status on the same host works",
			Target:  target("Deployment", "admin-ui"),
			Want:    Want{Culprit: Ref{Kind: "Ingress", Name: "admin-ui"}, Terms: []string{"strip-admin"}},
			Setup: func(ctx context.Context, e *Env) error {
				mw := "traefik.ingress.kubernetes.io/router.middlewares"
				ep := "traefik.ingress.kubernetes.io/router.entrypoints"
				site := func(name, path, annotation string) func() error {
					return func() error {
						d := w11bApp(name, name, "registry.example/ops/"+name+":1.12.0", 1, w8bLabels(name, "ops-console"), nil, "http", 8080)
						if err := e.w11bServe(ctx, d, 80); err != nil {
							return err
						}
						i := w9aIngress(name, "", "ops.example.com", path, name, "http", map[string]string{mw: annotation, ep: "websecure"}, "ops-tls")
						i.Spec.IngressClassName = nil
						return e.createIngress(ctx, i)
					}
				}
				return steps(
					func() error { return e.createServiceAccount(ctx, "traefik") },
					func() error {
						return e.createScopedClusterRole(ctx, "traefik", w23aReadRule("", "services", "secrets", "nodes"), w23aReadRule("discovery.k8s.io", "endpointslices"),
							w23aReadRule("networking.k8s.io", "ingresses", "ingressclasses"), w23aReadRule("traefik.io", "middlewares", "ingressroutes", "tlsoptions", "serverstransports"))
					},
					func() error { return e.w23aClusterRoleBinding(ctx, "traefik", "traefik", "traefik", "") },
					func() error {
						lbl := w22aLabels("traefik", "traefik")
						d := w23aApp("traefik", "traefik", "traefik:v3.1.6", 2, lbl, running("w23a-traefik"), "web", 8000, "websecure", 8443, "traefik", 8080)
						w15aServiceAccount(&d.Spec.Template, "traefik")
						w8cArgs(&d.Spec.Template, "--entryPoints.web.address=:8000", "--entryPoints.websecure.address=:8443", "--entryPoints.websecure.http.tls=true",
							"--providers.kubernetesingress", "--providers.kubernetescrd", "--ping=true", "--log.level=INFO", "--accesslog=true")
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w23aTwoPorts("traefik", lbl, "web", 80, "websecure", 443))
					},
					func() error { return e.w10bTLSSecret(ctx, "ops-tls", "ops.example.com") },
					site("admin-ui", "/admin", "strip-admin@kubernetescrd"),
					func() error { return site("status-page", "/status", e.Namespace+"-strip-status@kubernetescrd")() },
				)
			},
			Wait: all(readyReplicas("admin-ui", 1), readyReplicas("status-page", 1), readyReplicas("traefik", 2)),
		},
	}
}

// w23aRenderer are the labels of wave 23a's Grafana image renderer.
func w23aRenderer() map[string]string { return w22aLabels("grafana-image-renderer", "grafana") }
