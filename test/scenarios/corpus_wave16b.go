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
	rbacv1 "k8s.io/api/rbac/v1"
)

// Wave 16b: platform components and their clients on core objects only — Fluent Bit, Prometheus
// and Alertmanager, Grafana's dashboard sidecar, the OpenTelemetry Collector, a CoreDNS run as
// a Deployment, a mutating webhook, a leader-election Lease, a Vault Agent sidecar,
// cluster-autoscaler and ingress-nginx. The decisive clue sits in the component's log, an event
// or its config while the symptom shows elsewhere (an empty dashboard, silent paging, logs that
// stop, an app that cannot get pods). Written blind from public issues and docs; every Want was fixed from the
// source before anything ran.

func wave16bScenarios() []*Scenario {
	return append(wave16bObservabilityScenarios(), wave16bPlatformScenarios()...)
}

const w16bFluentBitConf = "[SERVICE]\n    Daemon Off\n    Flush 1\n    Log_Level info\n    Parsers_File /fluent-bit/etc/parsers.conf\n" +
	"    HTTP_Server On\n    HTTP_Listen 0.0.0.0\n    HTTP_Port 2020\n    Health_Check On\n\n" +
	"[INPUT]\n    Name tail\n    Path /var/log/containers/*.log\n    multiline.parser docker, cri\n    Tag kube.*\n    Mem_Buf_Limit 5MB\n    Skip_Long_Lines On\n\n" +
	"[FILTER]\n    Name kubernetes\n    Match kube.*\n    Merge_Log On\n    Keep_Log Off\n    K8S-Logging.Parser On\n    K8S-Logging.Exclude On\n\n" +
	"[OUTPUT]\n    Name es\n    Match kube.*\n    Host elasticsearch-master\n    Port 9200\n    HTTP_User fluent-bit\n    HTTP_Passwd ${ES_PASSWORD}\n" +
	"    Logstash_Format On\n    Logstash_Prefix k8s\n    Replace_Dots On\n    Retry_Limit 3\n    Trace_Error On\n"

func wave16bObservabilityScenarios() []*Scenario {
	fluent := w8bLabels("fluent-bit", "logging", "app.kubernetes.io/instance", "fluent-bit")
	es := w8bLabels("elasticsearch-master", "logging", "app.kubernetes.io/component", "master")
	kibana := w8bLabels("kibana", "logging", "app.kubernetes.io/component", "ui")
	apm := w8bLabels("apm-server", "logging", "app.kubernetes.io/component", "apm")
	prom := w8bLabels("prometheus", "monitoring", "app.kubernetes.io/component", "server")
	am := w8bLabels("alertmanager", "monitoring", "app.kubernetes.io/component", "alertmanager")
	relay := w8bLabels("alert-relay", "monitoring", "app.kubernetes.io/component", "webhook")
	grafana := w8bLabels("grafana", "monitoring", "app.kubernetes.io/instance", "grafana")
	return []*Scenario{
		{
			// Elasticsearch 8 removed mapping types; Fluent Bit's es output still sends _type in
			// every bulk action unless Suppress_Type_Name is On, so each flush is refused with 400
			// and chunks are dropped after their retries while the DaemonSet looks healthy.
			Name: "kibana-empty-since-search-upgrade", Covers: "Kibana shows no new logs after Elasticsearch went to 8.15: the Running fluent-bit DaemonSet logs '[output:es:es.0] HTTP status=400 URI=/_bulk ... Action/metadata line [1] contains an unknown parameter [_type]' and drops chunks; the [OUTPUT] es section of ConfigMap fluent-bit-config lacks Suppress_Type_Name On (a crash-looping apm-server with a mistyped tag is the loud decoy)",
			Source: w16bSrcFluentBitES8, Class: ClassProvider, Hops: 2,
			Problem: "Kibana shows no new log lines since this morning's Elasticsearch upgrade; the cluster health is green and all fluent-bit pods are Running",
			Target:  target("Deployment", "kibana"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "fluent-bit-config"}, Terms: []string{"Suppress_Type_Name"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "fluent-bit-config", map[string]string{"fluent-bit.conf": w16bFluentBitConf,
							"parsers.conf": "[PARSER]\n    Name docker_no_time\n    Format json\n    Time_Keep Off\n    Time_Key time\n    Time_Format %Y-%m-%dT%H:%M:%S.%L\n"})
					},
					func() error {
						return e.createSecret(ctx, "fluent-bit-es", map[string]string{"ES_PASSWORD": "q8Vt2LmZr4Xw9NcB"})
					},
					func() error {
						return e.w14bStore(ctx, "elasticsearch-master", "docker.elastic.co/elasticsearch/elasticsearch:8.15.3", es, running("w16b-elasticsearch-8"), "http", 9200, func(t *corev1.PodTemplateSpec) {
							w8bEnv(t, "discovery.type", "single-node", "cluster.name", "logs", "ES_JAVA_OPTS", "-Xms1g -Xmx1g", "xpack.security.enabled", "true")
						})
					},
					func() error {
						ds := w8aDaemonSet("fluent-bit", "cr.fluentbit.io/fluent/fluent-bit:3.1.9", fluent, func(t *corev1.PodTemplateSpec) {
							t.Annotations = running("w16b-fluent-bit-es8")
							c := &t.Spec.Containers[0]
							c.Name = "fluent-bit"
							c.Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 2020}}
							c.EnvFrom = append(c.EnvFrom, corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "fluent-bit-es"}}})
							w14bMountCM(t, c, "fluent-bit-config", "/fluent-bit/etc/conf", "")
							w14aHostPath(t, "varlog", "/var/log", corev1.HostPathDirectory)
							limits(t, "20m", "48Mi")
						})
						return e.w8aCreateDaemonSet(ctx, ds)
					},
					func() error {
						d := w11bApp("kibana", "kibana", "docker.elastic.co/kibana/kibana:8.15.3", 1, kibana, nil, "http", 5601)
						w8bEnv(&d.Spec.Template, "ELASTICSEARCH_HOSTS", "http://elasticsearch-master:9200", "SERVER_PUBLICBASEURL", "https://logs.example.com")
						return e.w11bServe(ctx, d, 5601)
					},
					func() error {
						d := w11bApp("apm-server", "apm-server", "docker.elastic.co/apm/apm-server:8.15.30", 1, apm, sim("image-pull-notfound"), "apm", 8200)
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(w14aDaemonSetReady("fluent-bit"), w8cStatefulSetReady("elasticsearch-master", 1), readyReplicas("kibana", 1),
				podsWith(apm, waiting("ErrImagePull", "ImagePullBackOff"))),
		},
		{
			// Alertmanager 0.28 removed API v1 and answers 410 Gone; a Prometheus whose
			// alertmanagers block still pins api_version v1 keeps evaluating rules but every
			// notification batch fails, so alerts fire in the Prometheus UI and nobody is paged.
			Name: "paging-silent-while-rules-fire", Covers: "HighErrorRate is firing in Prometheus but Alertmanager (0.28.1, Ready) lists no alert and nobody is paged: prometheus-server logs 'component=notifier alertmanager=http://alertmanager:9093/api/v1/alerts ... msg=\"Error sending alert\" err=\"bad response status 410 Gone\"' and Alertmanager 'v1 API received a request on a removed endpoint'; ConfigMap prometheus-server sets api_version: v1 in alerting.alertmanagers",
			Source: w16bSrcAMv1Gone, Class: ClassClue, Hops: 2,
			Problem: "HighErrorRate has been firing in the Prometheus UI for 20 minutes but nobody was paged, and the Alertmanager UI shows no alerts at all",
			Target:  target("StatefulSet", "alertmanager"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "prometheus-server"}, Terms: []string{"api_version"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "prometheus-server", map[string]string{
							"prometheus.yml": "global:\n  scrape_interval: 30s\n  evaluation_interval: 30s\n  external_labels:\n    cluster: prod-eu1\n" +
								"alerting:\n  alertmanagers:\n  - api_version: v1\n    scheme: http\n    static_configs:\n    - targets:\n      - alertmanager:9093\n" +
								"rule_files:\n- /etc/config/alerting_rules.yml\n" +
								"scrape_configs:\n- job_name: prometheus\n  static_configs:\n  - targets: [localhost:9090]\n" +
								"- job_name: kubernetes-pods\n  kubernetes_sd_configs:\n  - role: pod\n    namespaces:\n      own_namespace: true\n" +
								"  relabel_configs:\n  - source_labels: [__meta_kubernetes_pod_annotation_prometheus_io_scrape]\n    action: keep\n    regex: \"true\"\n",
							"alerting_rules.yml": "groups:\n- name: checkout\n  rules:\n  - alert: HighErrorRate\n" +
								"    expr: sum(rate(http_requests_total{job=\"kubernetes-pods\",code=~\"5..\"}[5m])) / sum(rate(http_requests_total{job=\"kubernetes-pods\"}[5m])) > 0.05\n" +
								"    for: 5m\n    labels:\n      severity: page\n    annotations:\n      summary: More than 5% of requests fail\n"})
					},
					func() error {
						return e.createConfigMap(ctx, "alertmanager", map[string]string{"alertmanager.yml": "global:\n  resolve_timeout: 5m\n" +
							"route:\n  receiver: oncall-relay\n  group_by: [alertname, cluster]\n  group_wait: 30s\n  group_interval: 5m\n  repeat_interval: 4h\n" +
							"receivers:\n- name: oncall-relay\n  webhook_configs:\n  - url: http://alert-relay:8080/alertmanager\n    send_resolved: true\n"})
					},
					func() error {
						st := w8bStatefulSet("prometheus-server", "quay.io/prometheus/prometheus:v2.53.2", "prometheus-server", 1, prom, running("w16b-prometheus-notifier-v1"), "web", 9090)
						w10aMain(&st.Spec.Template, "prometheus-server", "--config.file=/etc/config/prometheus.yml", "--storage.tsdb.path=/data", "--storage.tsdb.retention.time=15d", "--web.enable-lifecycle")
						w14bMountCM(&st.Spec.Template, &st.Spec.Template.Spec.Containers[0], "prometheus-server", "/etc/config", "")
						w10aEmptyDir(&st.Spec.Template, "storage-volume", "/data", 0)
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("prometheus-server", prom, "web", 9090))
					},
					func() error {
						st := w8bStatefulSet("alertmanager", "quay.io/prometheus/alertmanager:v0.28.1", "alertmanager-headless", 1, am, running("w16b-alertmanager-028"), "http", 9093)
						w10aMain(&st.Spec.Template, "alertmanager", "--config.file=/etc/alertmanager/alertmanager.yml", "--storage.path=/alertmanager")
						w14bMountCM(&st.Spec.Template, &st.Spec.Template.Spec.Containers[0], "alertmanager", "/etc/alertmanager", "")
						w8bReadiness(&st.Spec.Template, "/-/ready", "http", 10)
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("alertmanager-headless", am, "http", 9093)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("alertmanager", am, "http", 9093))
					},
					func() error {
						d := w11bApp("alert-relay", "relay", "registry.example/platform/alert-relay:1.4.2", 1, relay, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "PAGERDUTY_ROUTING_KEY_FILE", "/etc/relay/routing-key", "LISTEN_ADDR", ":8080")
						return e.w11bServe(ctx, d, 8080)
					},
				)
			},
			Wait: all(w8cStatefulSetReady("prometheus-server", 1), w8cStatefulSetReady("alertmanager", 1), readyReplicas("alert-relay", 1)),
		},
		{
			// Grafana's k8s-sidecar collects only ConfigMaps whose label LABEL has the value
			// LABEL_VALUE ("1" in the chart); a dashboard ConfigMap labelled grafana_dashboard:
			// "true" is silently skipped, and the sidecar logs only the ones it wrote.
			Name: "checkout-slo-board-not-in-grafana", Covers: "the new Checkout SLO dashboard never appears in Grafana while three others do: the Ready grafana-sc-dashboard sidecar (LABEL grafana_dashboard, LABEL_VALUE 1) logs 'Writing /tmp/dashboards/...json' for the other ConfigMaps only; ConfigMap checkout-slo-dashboard is labelled grafana_dashboard: \"true\"",
			Source: w16bSrcGrafanaSidecar, Class: ClassReference, Hops: 1,
			Problem: "the Checkout SLO dashboard shipped with checkout 3.4 does not show up in Grafana, even after restarting it; last week's cart dashboard is there",
			Target:  target("Deployment", "grafana"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "checkout-slo-dashboard"}, Terms: []string{"grafana_dashboard"}},
			Setup: func(ctx context.Context, e *Env) error {
				board := func(name, uid, title, value string) func() error {
					return func() error {
						return e.w10aConfigMap(ctx, name, map[string]string{"grafana_dashboard": value, "app.kubernetes.io/part-of": "monitoring"},
							map[string]string{uid + ".json": `{"uid":"` + uid + `","title":"` + title + `","schemaVersion":39,"tags":["generated"],"panels":[{"type":"timeseries","title":"Requests","targets":[{"expr":"sum(rate(http_requests_total[5m]))"}]}]}`})
					}
				}
				return steps(
					func() error { return e.createServiceAccount(ctx, "grafana") },
					func() error {
						return e.createRole(ctx, "grafana-sidecar", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: []string{"get", "list", "watch"}})
					},
					func() error { return e.createRoleBinding(ctx, "grafana-sidecar", "Role", "grafana-sidecar", "grafana") },
					board("node-exporter-dashboard", "node-exporter-full", "Node Exporter Full", "1"),
					board("k8s-resources-namespace-dashboard", "k8s-resources-namespace", "Kubernetes / Compute Resources / Namespace", "1"),
					board("cart-api-dashboard", "cart-api-overview", "Cart API", "1"),
					board("checkout-slo-dashboard", "checkout-slo", "Checkout SLO", "true"),
					func() error {
						d := w11bApp("grafana", "grafana", "docker.io/grafana/grafana:11.3.0", 1, grafana, running("w16b-grafana-dashboard-sidecar"), "grafana", 3000)
						w15aServiceAccount(&d.Spec.Template, "grafana")
						w8bReadiness(&d.Spec.Template, "/api/health", "grafana", 10)
						s := w10aContainer(&d.Spec.Template, "grafana-sc-dashboard", "quay.io/kiwigrid/k8s-sidecar:1.28.0", "", 0)
						w14bEnv(s, "METHOD", "WATCH", "LABEL", "grafana_dashboard", "LABEL_VALUE", "1", "FOLDER", "/tmp/dashboards", "RESOURCE", "configmap")
						w10aEmptyDir(&d.Spec.Template, "sc-dashboard-volume", "/tmp/dashboards", 0, 1)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: readyReplicas("grafana", 1),
		},
	}
}
