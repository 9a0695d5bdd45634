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
	"time"

	corev1 "k8s.io/api/core/v1"
)

const w20bPrometheusYML = `global:
  scrape_interval: 30s
  evaluation_interval: 30s
  external_labels:
    cluster: prod-eu1
alerting:
  alertmanagers:
  - static_configs:
    - targets: ["alertmanager:9093"]
rule_files:
- /etc/prometheus/rules/*.rules.yml
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
  - source_labels: [__meta_kubernetes_pod_label_app_kubernetes_io_name]
    target_label: app
`

const w20bAlertmanagerYML = `global:
  resolve_timeout: 5m
  slack_api_url_file: /etc/alertmanager/secrets/slack-webhook
route:
  receiver: platform-slack
  group_by: [alertname, namespace]
  routes:
  - matchers: ['team="payments"']
    receiver: payments-slack
receivers:
- name: platform-slack
  slack_configs:
  - channel: '#platform-alerts'
    send_resolved: true
- name: payments-slack
  slack_configs:
  - channel: '%s'
    send_resolved: true
`

func wave20bMoreScenarios() []*Scenario {
	prom := w8cLabels("app.kubernetes.io/name", "prometheus", "app.kubernetes.io/component", "server", "app.kubernetes.io/instance", "monitoring")
	am := w8cLabels("app.kubernetes.io/name", "alertmanager", "app.kubernetes.io/instance", "monitoring")
	shopWeb := w8bLabels("shop-web", "shop")
	nodeExporter := w8cLabels("app.kubernetes.io/name", "prometheus-node-exporter", "app.kubernetes.io/instance", "monitoring")
	promtail := w8cLabels("app.kubernetes.io/name", "promtail", "app.kubernetes.io/instance", "logging")
	return []*Scenario{
		{
			// rule_files globs that match nothing are not an error: Prometheus starts, loads
			// the other groups and never evaluates the missing ones. The payments team named
			// its key payments.rules.yaml; the server only loads *.rules.yml from the projected
			// rules directory, so PaymentsHighErrorRate does not exist in Prometheus at all.
			Name: "payments-5xx-page-never-came", Covers: "PaymentsHighErrorRate never fires although payments-api logs 502s: prometheus-server (Ready, no error) loads rule_files /etc/prometheus/rules/*.rules.yml; ConfigMap payments-alert-rules, projected into that directory, names its key payments.rules.yaml, which the glob does not match (platform.rules.yml and checkout.rules.yml load)",
			Source: w20bSrcRuleGlob, Class: ClassReference, Hops: 2,
			Problem: "PaymentsHighErrorRate never fired during last night's outage although payments-api answered 502 for 20 minutes; Prometheus is up and the other alerts page us fine",
			Target:  target("Deployment", "prometheus-server"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "payments-alert-rules"}, Terms: []string{"payments.rules.yaml"}},
			Setup: func(ctx context.Context, e *Env) error {
				rules := w8cLabels("prometheus.io/rules", "true")
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "prometheus-server", prom, map[string]string{"prometheus.yml": w20bPrometheusYML})
					},
					func() error {
						return e.w10aConfigMap(ctx, "platform-alert-rules", rules, map[string]string{"platform.rules.yml": "groups:\n- name: platform\n  rules:\n  - alert: KubePodCrashLooping\n    expr: max_over_time(kube_pod_container_status_waiting_reason{reason=\"CrashLoopBackOff\"}[5m]) >= 1\n    for: 15m\n    labels: {severity: warning, team: platform}\n  - alert: TargetDown\n    expr: 100 * (count by (job) (up == 0) / count by (job) (up)) > 10\n    for: 10m\n    labels: {severity: warning, team: platform}\n"})
					},
					func() error {
						return e.w10aConfigMap(ctx, "checkout-alert-rules", rules, map[string]string{"checkout.rules.yml": "groups:\n- name: checkout\n  rules:\n  - alert: CheckoutLatencyHigh\n    expr: histogram_quantile(0.99, sum by (le) (rate(http_server_duration_seconds_bucket{app=\"checkout-web\"}[5m]))) > 1.5\n    for: 10m\n    labels: {severity: warning, team: checkout}\n"})
					},
					func() error {
						return e.w10aConfigMap(ctx, "payments-alert-rules", rules, map[string]string{"payments.rules.yaml": "groups:\n- name: payments\n  rules:\n  - alert: PaymentsHighErrorRate\n    expr: sum(rate(http_requests_total{app=\"payments-api\",code=~\"5..\"}[5m])) / sum(rate(http_requests_total{app=\"payments-api\"}[5m])) > 0.05\n    for: 5m\n    labels: {severity: critical, team: payments}\n    annotations:\n      summary: payments-api answers more than 5% errors\n"})
					},
					func() error {
						d := w11bApp("prometheus-server", "prometheus-server", "quay.io/prometheus/prometheus:v2.54.1", 1, prom, running("w20b-prometheus-rules-glob"), "http", 9090)
						w8cArgs(&d.Spec.Template, "--config.file=/etc/config/prometheus.yml", "--storage.tsdb.path=/data", "--storage.tsdb.retention.time=15d", "--web.enable-lifecycle")
						mountConfigMap(&d.Spec.Template, "prometheus-server", "/etc/config")
						w20bProjected(&d.Spec.Template, "rules", "/etc/prometheus/rules", "platform-alert-rules", "checkout-alert-rules", "payments-alert-rules")
						w9aEmptyDir(&d.Spec.Template, "storage-volume", "/data")
						return e.w11bServe(ctx, d, 9090)
					},
					func() error {
						d := w11bApp("alertmanager", "alertmanager", "quay.io/prometheus/alertmanager:v0.27.0", 1, am, nil, "web", 9093)
						return e.w11bServe(ctx, d, 9093)
					},
					func() error {
						t := map[string]string{annLogs: "w20b-payments-api-502", "prometheus.io/scrape": "true", "prometheus.io/port": "8080"}
						d := w11bApp("payments-api", "payments-api", "registry.example/payments/payments-api:4.2.7", 2, w8bLabels("payments-api", "payments"), t, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(readyReplicas("prometheus-server", 1), readyReplicas("alertmanager", 1), readyReplicas("payments-api", 2)),
		},
		{
			// The alertmanager chart's configmap-reload sidecar posted to the Service port (80)
			// on localhost instead of the container port 9093: every ConfigMap change is seen,
			// the reload webhook is refused, and Alertmanager keeps routing with the old config.
			Name: "payments-alerts-still-in-old-channel", Covers: "after ConfigMap alertmanager-config moved the payments receiver to #payments-incidents, alerts still go to #payments-oncall; the configmap-reload sidecar of alertmanager (Running) logs 'config map updated' then 'error: Post \"http://127.0.0.1:80/-/reload\": dial tcp 127.0.0.1:80: connect: connection refused': its --webhook-url uses the Service port, Alertmanager listens on 9093",
			Source: w20bSrcReloadPort, Class: ClassClue, Hops: 1,
			Problem: "we moved the payments alerts to #payments-incidents in the Alertmanager config this morning, but they still arrive in #payments-oncall",
			Target:  target("Deployment", "alertmanager"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "alertmanager"}, Terms: []string{"127.0.0.1:80"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "alertmanager-config", am, map[string]string{"alertmanager.yml": fmt.Sprintf(w20bAlertmanagerYML, "#payments-oncall")})
					},
					func() error {
						return e.createSecret(ctx, "alertmanager-slack", map[string]string{"slack-webhook": "https://hooks.slack.com/services/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"})
					},
					func() error {
						d := w11bApp("alertmanager", "alertmanager", "quay.io/prometheus/alertmanager:v0.27.0", 1, am, running("w20b-alertmanager-configmap-reload"), "web", 9093)
						w8cArgs(&d.Spec.Template, "--config.file=/etc/alertmanager/alertmanager.yml", "--storage.path=/alertmanager", "--web.listen-address=:9093", "--cluster.listen-address=")
						mountConfigMap(&d.Spec.Template, "alertmanager-config", "/etc/alertmanager")
						mountSecret(&d.Spec.Template, "alertmanager-slack", "/etc/alertmanager/secrets")
						c := w10aContainer(&d.Spec.Template, "alertmanager-configmap-reload", "ghcr.io/jimmidyson/configmap-reload:v0.13.1", "", 0,
							"--volume-dir=/etc/alertmanager", "--webhook-url=http://127.0.0.1:80/-/reload")
						c.VolumeMounts = []corev1.VolumeMount{{Name: "alertmanager-config", MountPath: "/etc/alertmanager", ReadOnly: true}}
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("karma", "karma", "ghcr.io/prymitive/karma:v0.120", 1, w8bLabels("karma", "monitoring"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "ALERTMANAGER_URI", "http://alertmanager:80", "ALERTMANAGER_INTERVAL", "30s")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(
				w20bEditOnce("alertmanager-config", "alertmanager.yml", fmt.Sprintf(w20bAlertmanagerYML, "#payments-incidents"), readyReplicas("alertmanager", 1)),
				readyReplicas("karma", 1)),
		},
		{
			// The renewal job writes the new certificate into Secret shop-tls, but the Ingress
			// still names last year's Secret shop-tls-2024 (created by hand when the domain
			// moved), so the edge keeps serving a certificate that expired two days ago.
			Name: "shop-cert-still-old-after-renewal", Covers: "shop.example.com serves an expired certificate although the renewal CronJob shop-cert-renew keeps Secret shop-tls current: Ingress shop's tls section names Secret shop-tls-2024, whose certificate expired two days ago (Ingress shop-api uses its own valid Secret)",
			Source: w20bSrcIngressTLS, Class: ClassReference, Hops: 1,
			Problem: "browsers say the certificate of shop.example.com expired, but our renewal job ran fine and the shop certificate secret was renewed last week",
			Target:  target("Ingress", "shop"),
			Want:    Want{Culprit: Ref{Kind: "Ingress", Name: "shop"}, Terms: []string{"shop-tls-2024"}},
			Setup: func(ctx context.Context, e *Env) error {
				now := time.Now()
				renewed := map[string]string{"acme.example.com/renewed-by": "cronjob/shop-cert-renew", "acme.example.com/renewed-at": now.Add(-8 * 24 * time.Hour).UTC().Format(time.RFC3339)}
				return steps(
					func() error {
						return e.w20bTLSSecret(ctx, "shop-tls", now.Add(-8*24*time.Hour), now.Add(82*24*time.Hour), renewed, "shop.example.com", "www.shop.example.com")
					},
					func() error {
						return e.w20bTLSSecret(ctx, "shop-tls-2024", now.Add(-92*24*time.Hour), now.Add(-2*24*time.Hour), nil, "shop.example.com", "www.shop.example.com")
					},
					func() error {
						return e.w20bTLSSecret(ctx, "shop-api-tls", now.Add(-30*24*time.Hour), now.Add(60*24*time.Hour), nil, "api.shop.example.com")
					},
					func() error {
						c := w11aCronJob("shop-cert-renew", "registry.example/platform/acme-renew:1.4.2", "17 3 * * *", false, w8bLabels("shop-cert-renew", "shop"),
							"renew", "--domains=shop.example.com,www.shop.example.com", "--secret=shop-tls", "--days-before-expiry=30")
						return e.w11aCreateCronJob(ctx, c)
					},
					func() error {
						return e.w11bServe(ctx, w11bApp("shop-web", "shop-web", "registry.example/shop/shop-web:8.3.1", 2, shopWeb, nil, "http", 8080), 80)
					},
					func() error {
						return e.w11bServe(ctx, w11bApp("shop-api", "shop-api", "registry.example/shop/shop-api:8.3.1", 1, w8bLabels("shop-api", "shop"), nil, "http", 8080), 80)
					},
					func() error {
						return e.createIngress(ctx, w20bTLSIngress("shop", "shop.example.com", "shop-web", 80, "shop-tls-2024"))
					},
					func() error {
						return e.createIngress(ctx, w20bTLSIngress("shop-api", "api.shop.example.com", "shop-api", 80, "shop-api-tls"))
					},
				)
			},
			Wait: all(readyReplicas("shop-web", 2), readyReplicas("shop-api", 1)),
		},
		{
			// A DaemonSet with updateStrategy OnDelete only creates pods of the new template when
			// the old ones are deleted by hand; the chart was installed that way years ago. The
			// CVE bump changed the template and nothing restarted, while promtail (RollingUpdate)
			// rolled its bump at once.
			Name: "node-exporter-cve-bump-not-on-nodes", Covers: "DaemonSet prometheus-node-exporter was moved to v1.8.2 but every pod still runs v1.8.1 and none was replaced (updatedNumberScheduled 0): its updateStrategy is OnDelete; DaemonSet promtail, RollingUpdate, rolled its own bump",
			Source: w20bSrcDaemonSetOnDe, Class: ClassSingle, Hops: 0,
			Problem: "we bumped node-exporter to v1.8.2 for the CVE yesterday, the DaemonSet shows the new image but the scanner still finds v1.8.1 on every node",
			Target:  target("DaemonSet", "prometheus-node-exporter"),
			Want:    Want{Culprit: Ref{Kind: "DaemonSet", Name: "prometheus-node-exporter"}, Terms: []string{"OnDelete"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w8aCreateDaemonSet(ctx, w20bOnDelete(w8aDaemonSet("prometheus-node-exporter", "quay.io/prometheus/node-exporter:v1.8.1", nodeExporter, func(t *corev1.PodTemplateSpec) {
							t.Spec.Containers[0].Name = "node-exporter"
							t.Spec.Containers[0].Args = []string{"--path.procfs=/host/proc", "--path.sysfs=/host/sys", "--path.rootfs=/host/root", "--web.listen-address=[$(HOST_IP)]:9100"}
							t.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "HOST_IP", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "status.hostIP"}}}}
							t.Annotations = map[string]string{"cluster-autoscaler.kubernetes.io/safe-to-evict": "true"}
						})))
					},
					func() error {
						return e.w8aCreateDaemonSet(ctx, w8aDaemonSet("promtail", "docker.io/grafana/promtail:3.1.1", promtail, func(t *corev1.PodTemplateSpec) {
							t.Spec.Containers[0].Name = "promtail"
							t.Spec.Containers[0].Args = []string{"-config.file=/etc/promtail/promtail.yaml"}
							w14aHostPath(t, "pods", "/var/log/pods", corev1.HostPathDirectoryOrCreate)
						}))
					},
				)
			},
			Wait: all(w20bImageBumped("promtail", "docker.io/grafana/promtail:3.1.2", -1),
				w20bImageBumped("prometheus-node-exporter", "quay.io/prometheus/node-exporter:v1.8.2", 0)),
		},
	}
}
