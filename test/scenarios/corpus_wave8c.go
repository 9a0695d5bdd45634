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
	networkingv1 "k8s.io/api/networking/v1"
)

// Wave 8c: the day's last batch by an outside hand, written from runbooks and docs pages the
// corpus had not used yet and from public GitHub issues and write-ups. This file holds a
// monitoring namespace's failures (Prometheus, its operator, Alertmanager, Grafana), whose
// clue is mostly in the software's own logfmt lines while every pod looks healthy.

const (
	w8cSrcBadConfig       = "runbooks/prometheus/PrometheusBadConfig.md"
	w8cSrcReconcileErrors = "runbooks/prometheus-operator/PrometheusOperatorReconcileErrors.md"
	w8cSrcTSDBCompactions = "runbooks/prometheus/PrometheusTSDBCompactionsFailing.md"
	w8cSrcAMFailedToSend  = "runbooks/alertmanager/AlertmanagerClusterFailedToSendAlerts.md"
	w8cSrcGrafanaSQLite   = "https://github.com/grafana/grafana/issues/16638 (Grafana as a Kubernetes Deployment logs 'Database locked, sleeping then retrying' with sqlite; grafana-operator#798: several replicas on one sqlite file)"
)

func wave8cScenarios() []*Scenario {
	return append(wave8cMonitoringScenarios(), wave8cMoreScenarios()...)
}

// w8cPromChart are the labels of the prometheus-community/prometheus chart's components.
func w8cPromChart(component string) map[string]string {
	return w8cLabels("app.kubernetes.io/name", "prometheus", "app.kubernetes.io/instance", "monitoring", "app.kubernetes.io/component", component)
}

const w8cPromYAML = `global:
  scrape_interval: 30s
  evaluation_interval: 30s
rule_files:
  - /etc/config/recording_rules.yml
  - /etc/config/alerting_rules.yml
alerting:
  alertmanagers:
    - static_configs:
        - targets: ["monitoring-alertmanager:9093"]
scrape_configs:
  - job_name: prometheus
    static_configs:
      - targets: ["localhost:9090"]
  - job_name: kubernetes-pods
    kubernetes_sd_configs:
      - role: pod
    relabel_configs:
      - source_labels: [__meta_kubernetes_pod_annotation_prometheus_io_scrape]
        action: keep
        regex: "true"
  - job_name: payments
    kubernetes_sd_configs:
      - role: endpoints
    relabel_configs:
      - source_labels: [__meta_kubernetes_service_name]
        action: keep
        regex: payments-(api|worker
      - source_labels: [__meta_kubernetes_namespace]
        target_label: namespace
`

func wave8cMonitoringScenarios() []*Scenario {
	return []*Scenario{
		{
			// A scrape job added for the payments team has an unbalanced parenthesis: the
			// reload fails, Prometheus keeps the last good config, the pod stays Ready.
			Name: "prometheus-server-relabel-regex-unclosed", Covers: "PrometheusBadConfig: a Ready prometheus-server logs 'Error reloading config' because a relabel regex in its ConfigMap is missing a closing parenthesis; the payments scrape job never appears",
			Source: w8cSrcBadConfig, Class: ClassClue, Hops: 1,
			Problem: "PrometheusBadConfig is firing for prometheus-server and the new payments scrape job is not in the targets page",
			Target:  target("Deployment", "prometheus-server"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "prometheus-server"}, Terms: []string{"not a valid regex"}},
			Setup: func(ctx context.Context, e *Env) error {
				server := w8cPromChart("server")
				am := w8cPromChart("alertmanager")
				ksm := w8cLabels("app.kubernetes.io/name", "kube-state-metrics", "app.kubernetes.io/instance", "monitoring")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "prometheus-server", map[string]string{"prometheus.yml": w8cPromYAML,
							"recording_rules.yml": "groups: []\n", "alerting_rules.yml": "groups: []\n"})
					},
					func() error {
						d := w8bDeployment("prometheus-server", "quay.io/prometheus/prometheus:v2.54.1", 1, server, running("w8c-prometheus-server-bad-regex"), "http", 9090)
						w8cArgs(&d.Spec.Template, "--config.file=/etc/config/prometheus.yml", "--storage.tsdb.path=/data",
							"--storage.tsdb.retention.time=15d", "--web.enable-lifecycle", "--web.console.libraries=/etc/prometheus/console_libraries")
						mountConfigMap(&d.Spec.Template, "prometheus-server", "/etc/config")
						w8cReadiness(&d.Spec.Template, "/-/ready", "http")
						w8cSidecar(&d.Spec.Template, "prometheus-server-configmap-reload", "quay.io/prometheus-operator/prometheus-config-reloader:v0.76.0",
							"--watched-dir=/etc/config", "--reload-url=http://127.0.0.1:9090/-/reload")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("prometheus-server", server, "http", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("monitoring-alertmanager", "quay.io/prometheus/alertmanager:v0.27.0", 1, am, nil, "http", 9093))
					},
					func() error { return e.createService(ctx, w8bService("monitoring-alertmanager", am, "http", 9093)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("monitoring-kube-state-metrics", "registry.k8s.io/kube-state-metrics/kube-state-metrics:v2.13.0", 1, ksm, nil, "http", 8080))
					},
					func() error {
						return e.createService(ctx, w8bService("monitoring-kube-state-metrics", ksm, "http", 8080))
					},
				)
			},
			Wait: all(readyReplicas("prometheus-server", 1), readyReplicas("monitoring-alertmanager", 1)),
		},
		{
			// The Secret was created with --from-file=additional-scrape-configs.yaml, so its key
			// is not the prometheus-additional.yaml the Prometheus resource names: the operator
			// fails every sync and the StatefulSet keeps its old configuration.
			Name: "prom-operator-additional-scrape-key", Covers: "PrometheusOperatorReconcileErrors: prometheus-k8s runs without the new scrape jobs; the operator's log repeats 'key prometheus-additional.yaml could not be found in secret additional-scrape-configs'; the Secret's only key is additional-scrape-configs.yaml",
			Source: w8cSrcReconcileErrors, Class: ClassClue, Hops: 2,
			Problem: "the blackbox probes we added through additionalScrapeConfigs never show up in prometheus-k8s, and PrometheusOperatorReconcileErrors is firing",
			Target:  target("StatefulSet", "prometheus-k8s"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "additional-scrape-configs"}, Terms: []string{"prometheus-additional.yaml"}},
			Setup: func(ctx context.Context, e *Env) error {
				op := w8cLabels("app.kubernetes.io/name", "prometheus-operator", "app.kubernetes.io/component", "controller", "app.kubernetes.io/part-of", "kube-prometheus")
				prom := w8cLabels("app.kubernetes.io/name", "prometheus", "app.kubernetes.io/instance", "k8s", "prometheus", "k8s", "app.kubernetes.io/part-of", "kube-prometheus")
				bb := w8cLabels("app.kubernetes.io/name", "blackbox-exporter", "app.kubernetes.io/component", "exporter", "app.kubernetes.io/part-of", "kube-prometheus")
				return steps(
					func() error {
						return e.createSecret(ctx, "additional-scrape-configs", map[string]string{"additional-scrape-configs.yaml": "- job_name: blackbox-http\n  metrics_path: /probe\n" +
							"  params:\n    module: [http_2xx]\n  static_configs:\n    - targets: [\"https://shop.example.com/healthz\", \"https://api.example.com/healthz\"]\n" +
							"  relabel_configs:\n    - source_labels: [__address__]\n      target_label: __param_target\n    - target_label: __address__\n      replacement: blackbox-exporter:19115\n"})
					},
					func() error { return e.createServiceAccount(ctx, "prometheus-operator") },
					func() error {
						d := w8bDeployment("prometheus-operator", "quay.io/prometheus-operator/prometheus-operator:v0.76.0", 1, op, running("w8c-prometheus-operator-secret-key"), "https", 8443)
						d.Spec.Template.Spec.ServiceAccountName = "prometheus-operator"
						w8cArgs(&d.Spec.Template, "--kubelet-service=kube-system/kubelet", "--prometheus-config-reloader=quay.io/prometheus-operator/prometheus-config-reloader:v0.76.0")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("prometheus-operator", op, "https", 8443)) },
					func() error {
						st := w8bStatefulSet("prometheus-k8s", "quay.io/prometheus/prometheus:v2.54.1", "prometheus-operated", 2, prom, running("w8c-prometheus-k8s-running"), "web", 9090)
						w8cArgs(&st.Spec.Template, "--config.file=/etc/prometheus/config_out/prometheus.env.yaml", "--storage.tsdb.path=/prometheus",
							"--storage.tsdb.retention.time=24h", "--web.enable-lifecycle", "--web.route-prefix=/")
						w8cSidecar(&st.Spec.Template, "config-reloader", "quay.io/prometheus-operator/prometheus-config-reloader:v0.76.0",
							"--reload-url=http://localhost:9090/-/reload", "--config-file=/etc/prometheus/config/prometheus.yaml.gz",
							"--config-envsubst-file=/etc/prometheus/config_out/prometheus.env.yaml")
						st.Annotations = map[string]string{"prometheus-operator-input-hash": "11815337618253349170"}
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("prometheus-operated", prom, "web", 9090)) },
					func() error { return e.createService(ctx, w8bService("prometheus-k8s", prom, "web", 9090)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("blackbox-exporter", "quay.io/prometheus/blackbox-exporter:v0.25.0", 1, bb, nil, "http", 19115))
					},
					func() error { return e.createService(ctx, w8bService("blackbox-exporter", bb, "http", 19115)) },
				)
			},
			Wait: all(readyReplicas("prometheus-operator", 1), w8cStatefulSetReady("prometheus-k8s", 2)),
		},
		{
			// Thirty days of retention were configured for a volume sized for fifteen: the
			// TSDB can no longer write blocks or WAL segments, the server itself stays up.
			Name: "prometheus-tsdb-volume-full", Covers: "PrometheusTSDBCompactionsFailing: a Ready Prometheus logs 'compaction failed ... no space left on device' and WAL append failures; its 8Gi claim is too small for --storage.tsdb.retention.time=30d",
			Source: w8cSrcTSDBCompactions, Class: ClassClue, Hops: 2,
			Problem: "PrometheusTSDBCompactionsFailing fired overnight and dashboards have gaps since 07:00",
			Target:  target("StatefulSet", "prometheus"),
			Want:    Want{Culprit: Ref{Kind: "PersistentVolumeClaim", Name: "storage-prometheus-0"}, Terms: []string{"no space left on device"}},
			Setup: func(ctx context.Context, e *Env) error {
				prom := w8cLabels("app", "prometheus", "component", "server", "team", "platform")
				pushgw := w8cLabels("app", "pushgateway", "component", "ingest", "team", "platform")
				return steps(
					func() error {
						return e.createStaticPV(ctx, "prometheus-storage-0", "storage-prometheus-0", "8Gi", corev1.ReadWriteOnce)
					},
					func() error {
						return e.createConfigMap(ctx, "prometheus-config", map[string]string{"prometheus.yml": "global:\n  scrape_interval: 15s\nrule_files: [/etc/prometheus/rules/*.yml]\n" +
							"scrape_configs:\n  - job_name: kubernetes-pods\n    kubernetes_sd_configs: [{role: pod}]\n  - job_name: pushgateway\n    honor_labels: true\n    static_configs: [{targets: [\"pushgateway:9091\"]}]\n"})
					},
					func() error {
						st := w8bStatefulSet("prometheus", "quay.io/prometheus/prometheus:v2.53.2", "prometheus", 1, prom, running("w8c-prometheus-tsdb-no-space"), "web", 9090)
						w8cArgs(&st.Spec.Template, "--config.file=/etc/prometheus/prometheus.yml", "--storage.tsdb.path=/prometheus",
							"--storage.tsdb.retention.time=30d", "--web.enable-lifecycle")
						mountConfigMap(&st.Spec.Template, "prometheus-config", "/etc/prometheus")
						w8cReadiness(&st.Spec.Template, "/-/ready", "web")
						w8cRequests(&st.Spec.Template, "500m", "2Gi", "", "4Gi")
						w8bClaimTemplate(st, "storage", "8Gi", "/prometheus")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("prometheus", prom, "web", 9090)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("pushgateway", "quay.io/prometheus/pushgateway:v1.9.0", 1, pushgw, nil, "http", 9091))
					},
					func() error { return e.createService(ctx, w8bService("pushgateway", pushgw, "http", 9091)) },
				)
			},
			Wait: w8cStatefulSetReady("prometheus", 1),
		},
		{
			// The namespace's new egress lockdown allows DNS and in-cluster addresses only:
			// the webhook receiver still works, Slack on the internet times out.
			Name: "alertmanager-slack-egress-lockdown", Covers: "AlertmanagerClusterFailedToSendAlerts: Alertmanager pods are Ready but log 'Notify for alerts failed ... slack-critical ... dial tcp 34.226.36.40:443: i/o timeout' while the in-cluster webhook receiver succeeds; a namespace-wide egress NetworkPolicy allows only port 53 and 10.0.0.0/8",
			Source: w8cSrcAMFailedToSend, Class: ClassProvider, Hops: 2,
			Problem: "no critical alerts have reached #ops-critical in Slack since this morning; AlertmanagerClusterFailedToSendAlerts for integration slack",
			Target:  target("StatefulSet", "alertmanager-main"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "monitoring-egress-lockdown"}, Terms: []string{"443"}},
			Setup: func(ctx context.Context, e *Env) error {
				am := w8cLabels("app.kubernetes.io/name", "alertmanager", "alertmanager", "main", "app.kubernetes.io/part-of", "kube-prometheus")
				bridge := w8cLabels("app.kubernetes.io/name", "alert-webhook-bridge", "app.kubernetes.io/part-of", "ops-tooling")
				return steps(
					func() error {
						return e.createSecret(ctx, "alertmanager-main", map[string]string{"alertmanager.yaml": "global:\n  resolve_timeout: 5m\n" +
							"  slack_api_url: https://hooks.slack.com/services/T01ABCDEF/B07GHIJKL/9xYzQrStUvWx\n" +
							"route:\n  receiver: ops-webhook\n  group_by: [alertname, namespace]\n  routes:\n    - matchers: [severity=\"critical\"]\n      receiver: slack-critical\n      continue: true\n" +
							"receivers:\n  - name: slack-critical\n    slack_configs:\n      - channel: '#ops-critical'\n        send_resolved: true\n" +
							"  - name: ops-webhook\n    webhook_configs:\n      - url: http://alert-webhook-bridge:8080/alerts\n"})
					},
					func() error {
						st := w8bStatefulSet("alertmanager-main", "quay.io/prometheus/alertmanager:v0.27.0", "alertmanager-operated", 2, am, running("w8c-alertmanager-slack-timeout"), "web", 9093)
						st.Spec.Template.Spec.Containers[0].Ports = append(st.Spec.Template.Spec.Containers[0].Ports, corev1.ContainerPort{Name: "mesh-tcp", ContainerPort: 9094})
						w8cArgs(&st.Spec.Template, "--config.file=/etc/alertmanager/config_out/alertmanager.env.yaml", "--storage.path=/alertmanager",
							"--cluster.listen-address=[$(POD_IP)]:9094", "--cluster.peer=alertmanager-main-0.alertmanager-operated:9094", "--cluster.peer=alertmanager-main-1.alertmanager-operated:9094")
						mountSecret(&st.Spec.Template, "alertmanager-main", "/etc/alertmanager/config")
						w8cReadiness(&st.Spec.Template, "/-/ready", "web")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("alertmanager-operated", am, "web", 9093)) },
					func() error { return e.createService(ctx, w8bService("alertmanager-main", am, "web", 9093)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("alert-webhook-bridge", "registry.example/ops/alert-webhook-bridge:1.6.2", 1, bridge, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("alert-webhook-bridge", bridge, "http", 8080)) },
					func() error {
						np := w8cEgressPolicy("monitoring-egress-lockdown", map[string]string{},
							networkingv1.NetworkPolicyEgressRule{Ports: w8cPorts("UDP", 53, "TCP", 53)},
							networkingv1.NetworkPolicyEgressRule{To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8"}}}})
						np.Labels = map[string]string{"policy.example.com/owner": "platform-security", "policy.example.com/ticket": "SEC-2291"}
						return e.createNetworkPolicy(ctx, np)
					},
				)
			},
			Wait: all(w8cStatefulSetReady("alertmanager-main", 2), readyReplicas("alert-webhook-bridge", 1)),
		},
		{
			// Grafana was scaled to two replicas "for HA" on the chart's ReadWriteMany volume,
			// with the default sqlite3 database: both write one file and lock each other out.
			Name: "grafana-two-replicas-one-sqlite", Covers: "Grafana logins and dashboard saves fail with 500; both Ready replicas log 'Database locked, sleeping then retrying' error=\"database is locked\"; the Deployment runs 2 replicas on one ReadWriteMany claim with [database] type = sqlite3",
			Source: w8cSrcGrafanaSQLite, Class: ClassOutside, Hops: 1,
			Problem: "people keep getting logged out of Grafana and saving a dashboard fails with 'database is locked' about half the time",
			Target:  target("Deployment", "grafana"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "grafana"}, Terms: []string{"database is locked", "sqlite"}},
			Setup: func(ctx context.Context, e *Env) error {
				graf := w8cLabels("app.kubernetes.io/name", "grafana", "app.kubernetes.io/instance", "grafana")
				loki := w8cLabels("app.kubernetes.io/name", "loki", "app.kubernetes.io/instance", "loki", "app.kubernetes.io/component", "single-binary")
				return steps(
					func() error { return e.createStaticPV(ctx, "grafana-data", "grafana", "10Gi", corev1.ReadWriteMany) },
					func() error { return e.createPVC(ctx, pvc("grafana", "manual", "10Gi", corev1.ReadWriteMany)) },
					func() error {
						return e.createConfigMap(ctx, "grafana", map[string]string{"grafana.ini": "[analytics]\ncheck_for_updates = false\n[database]\ntype = sqlite3\npath = grafana.db\n" +
							"[paths]\ndata = /var/lib/grafana\nlogs = /var/log/grafana\nplugins = /var/lib/grafana/plugins\n[server]\nroot_url = https://grafana.internal.example.com\n[auth.generic_oauth]\nenabled = true\n"})
					},
					func() error {
						d := w8bDeployment("grafana", "docker.io/grafana/grafana:10.4.3", 2, graf, running("w8c-grafana-sqlite-locked"), "grafana", 3000)
						mountConfigMap(&d.Spec.Template, "grafana", "/etc/grafana")
						claimVolume(&d.Spec.Template, "grafana")
						d.Spec.Template.Spec.Containers[0].VolumeMounts[len(d.Spec.Template.Spec.Containers[0].VolumeMounts)-1].MountPath = "/var/lib/grafana"
						w8cReadiness(&d.Spec.Template, "/api/health", "grafana")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("grafana", graf, "grafana", 80)) },
					func() error { return e.createIngress(ctx, ingress("grafana", "grafana", 80)) },
					func() error {
						st := w8bStatefulSet("loki", "docker.io/grafana/loki:3.1.1", "loki-headless", 1, loki, nil, "http-metrics", 3100)
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("loki-headless", loki, "http-metrics", 3100)) },
					func() error { return e.createService(ctx, w8bService("loki", loki, "http-metrics", 3100)) },
				)
			},
			Wait: readyReplicas("grafana", 2),
		},
	}
}
