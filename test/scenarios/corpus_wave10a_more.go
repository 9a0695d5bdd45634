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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	w10aSrcVaultRole     = "https://github.com/hashicorp/vault-k8s/issues/32 (pods stuck on the injected vault agent: its log carries the Vault role's permission error; Talend/vault-sidecar-injector#47: the role's bound_service_account_names must list the pod's ServiceAccount)"
	w10aSrcNatsStorage   = "https://github.com/nats-io/k8s/issues/740 (nats on k8s: 'insufficient storage resources available' creating a JetStream stream)"
	w10aSrcKeycloakHost  = "https://github.com/keycloak/keycloak/issues/33539 (ERROR: Strict hostname resolution configured but no hostname setting provided, Keycloak started in production mode)"
	w10aSrcAirflowFernet = "https://github.com/apache/airflow/issues/53091 (connections unreadable after a helm upgrade generated a new fernet key: cryptography.fernet.InvalidToken; airflow-helm/charts#439)"
	w10aSrcNotConnected  = "runbooks/prometheus/PrometheusNotConnectedToAlertmanagers.md"
	w10aSrcAMCrashloop   = "runbooks/alertmanager/AlertmanagerClusterCrashlooping.md"
	w10aSrcEtcdNoLeader  = "runbooks/etcd/etcdNoLeader.md"
)

func wave10aMoreScenarios() []*Scenario {
	billing := w8bLabels("billing-api", "billing")
	nats := w8cLabels("app.kubernetes.io/name", "nats", "app.kubernetes.io/instance", "nats")
	orderEvents := w8bLabels("order-events", "orders")
	keycloak := w8cLabels("app.kubernetes.io/name", "keycloak", "app.kubernetes.io/instance", "sso")
	proxy := w8cLabels("app.kubernetes.io/name", "oauth2-proxy", "app.kubernetes.io/instance", "tools")
	worker := w8cLabels("component", "worker", "release", "airflow", "tier", "airflow")
	am := w8cLabels("app.kubernetes.io/name", "alertmanager", "app.kubernetes.io/instance", "main", "app.kubernetes.io/component", "alert-router", "app.kubernetes.io/part-of", "kube-prometheus")
	promApps := w8cLabels("app.kubernetes.io/name", "prometheus", "app.kubernetes.io/instance", "apps", "app.kubernetes.io/component", "prometheus", "app.kubernetes.io/part-of", "kube-prometheus")
	promK8s := w8cLabels("app.kubernetes.io/name", "prometheus", "app.kubernetes.io/instance", "k8s", "app.kubernetes.io/component", "prometheus", "app.kubernetes.io/part-of", "kube-prometheus")
	return []*Scenario{
		{
			// The billing chart 5.2 creates and uses a ServiceAccount named after the release
			// ("billing"); Vault's kubernetes role billing-api is bound to the ServiceAccount
			// billing-api, so the agent sidecar's login is refused and the app waits for its
			// rendered credentials forever.
			Name: "billing-vault-agent-sa-not-authorized", Covers: "billing-api 5.2 pods run but never get ready; the vault-agent sidecar's hclog repeats 'error authenticating ... Code: 403 ... * service account name not authorized' because the Deployment now runs as ServiceAccount billing while the Vault role is bound to billing-api",
			Source: w10aSrcVaultRole, Class: ClassClue, Hops: 1,
			Problem: "billing-api 5.2 pods never become ready; 5.1 was fine",
			Target:  target("Deployment", "billing-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "billing-api"}, Terms: []string{"not authorized", "ServiceAccount"}},
			Setup: func(ctx context.Context, e *Env) error {
				invoices := w8bLabels("invoices-api", "billing")
				return steps(
					func() error { return e.createServiceAccount(ctx, "billing-api") },
					func() error { return e.createServiceAccount(ctx, "billing") },
					func() error { return e.createServiceAccount(ctx, "invoices-api") },
					func() error {
						return e.createConfigMap(ctx, "billing-api-vault-agent", map[string]string{"agent.hcl": "exit_after_auth = false\npid_file = \"/home/vault/pidfile\"\n\nvault {\n  address = \"http://vault.vault.svc:8200\"\n}\n\nauto_auth {\n  method \"kubernetes\" {\n    mount_path = \"auth/kubernetes\"\n    config = {\n      role = \"billing-api\"\n    }\n  }\n  sink \"file\" {\n    config = {\n      path = \"/home/vault/.vault-token\"\n    }\n  }\n}\n\ntemplate {\n  destination = \"/vault/secrets/db.env\"\n  contents    = <<EOT\n{{ with secret \"database/creds/billing-api\" }}DB_USER={{ .Data.username }}\nDB_PASSWORD={{ .Data.password }}{{ end }}\nEOT\n}\n"})
					},
					func() error {
						d := w8bDeployment("billing-api", "registry.example/billing/billing-api:5.2.0", 2, billing,
							w10aOn("billing-api", "readiness-fail", "w10a-vault-agent-sa-not-authorized"), "http", 8080)
						w10aMain(&d.Spec.Template, "billing-api")
						d.Spec.Template.Spec.ServiceAccountName = "billing"
						w8bReadiness(&d.Spec.Template, "/ready", "http", 10)
						w8bEnv(&d.Spec.Template, "DB_ENV_FILE", "/vault/secrets/db.env", "DB_HOST", "billing-db.databases.svc")
						vol := corev1.Volume{Name: "vault-secrets", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory}}}
						d.Spec.Template.Spec.Volumes = append(d.Spec.Template.Spec.Volumes, vol)
						d.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "vault-secrets", MountPath: "/vault/secrets", ReadOnly: true}}
						agent := w10aContainer(&d.Spec.Template, "vault-agent", "hashicorp/vault:1.17.2", "", 0, "agent", "-config=/etc/vault/agent.hcl")
						agent.VolumeMounts = []corev1.VolumeMount{{Name: "vault-secrets", MountPath: "/vault/secrets"}, {Name: "agent-config", MountPath: "/etc/vault"}}
						d.Spec.Template.Spec.Volumes = append(d.Spec.Template.Spec.Volumes, corev1.Volume{Name: "agent-config", VolumeSource: corev1.VolumeSource{
							ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "billing-api-vault-agent"}}}})
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("billing-api", billing, "http", 80)) },
					func() error {
						d := w8bDeployment("invoices-api", "registry.example/billing/invoices-api:3.0.4", 2, invoices, nil, "http", 8080)
						d.Spec.Template.Spec.ServiceAccountName = "invoices-api"
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("invoices-api", invoices, "http", 80)) },
				)
			},
			Wait: podsWith(billing, runningNotReady),
		},
		{
			// nats.conf caps JetStream file storage at 1GB (the volume is 10Gi); the ORDERS
			// stream asks for 5GiB, so the server refuses it and order-events exits at start.
			Name: "orders-nats-jetstream-max-file-store", Covers: "order-events crash-loops: its zap JSON log has 'cannot create stream' ORDERS with 'nats: insufficient storage resources available' (err_code 10047) before draining; the NATS servers are healthy and print 'Max Storage: 1.00 GB': nats.conf in ConfigMap nats-config sets max_file_store: 1GB while the stream wants 5GiB",
			Source: w10aSrcNatsStorage, Class: ClassClue, Hops: 2,
			Problem: "order-events crash-loops on start; the ORDERS stream never got created in the new NATS cluster",
			Target:  target("Deployment", "order-events"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "nats-config"}, Terms: []string{"max_file_store"}},
			Setup: func(ctx context.Context, e *Env) error {
				api := w8bLabels("orders-api", "orders")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "nats-config", map[string]string{"nats.conf": "server_name: $SERVER_NAME\nlisten: 0.0.0.0:4222\nhttp: 0.0.0.0:8222\nlame_duck_duration: 30s\nlame_duck_grace_period: 10s\n\njetstream {\n  store_dir: /data\n  max_memory_store: 256MB\n  max_file_store: 1GB\n}\n\ncluster {\n  name: nats\n  listen: 0.0.0.0:6222\n  no_advertise: true\n  routes: [\n    nats://nats-0.nats-headless:6222\n    nats://nats-1.nats-headless:6222\n    nats://nats-2.nats-headless:6222\n  ]\n}\n"})
					},
					func() error {
						st := w8bStatefulSet("nats", "nats:2.10.22-alpine", "nats-headless", 3, nats, running("w10a-nats-server-jetstream"), "nats", 4222)
						w10aMain(&st.Spec.Template, "nats", "--config", "/etc/nats-config/nats.conf")
						w10aPort(&st.Spec.Template, "cluster", 6222)
						w10aPort(&st.Spec.Template, "monitor", 8222)
						st.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "SERVER_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
						mountConfigMap(&st.Spec.Template, "nats-config", "/etc/nats-config")
						st.Spec.Template.Spec.Containers[0].ReadinessProbe = w10aProbe("/healthz?js-enabled-only=true", "monitor", 10)
						return e.w10aClaimedStatefulSet(ctx, st, "nats-js", "10Gi", "/data")
					},
					func() error {
						return e.createService(ctx, w10aServicePort(w8bHeadless("nats-headless", nats, "nats", 4222), "cluster", 6222))
					},
					func() error { return e.createService(ctx, w8bService("nats", nats, "nats", 4222)) },
					func() error {
						return e.createConfigMap(ctx, "order-events-config", map[string]string{"NATS_URL": "nats://nats:4222", "ORDERS_STREAM": "ORDERS",
							"ORDERS_STREAM_SUBJECTS": "orders.>", "ORDERS_STREAM_MAX_BYTES": "5GiB", "ORDERS_STREAM_REPLICAS": "3", "ORDERS_STREAM_MAX_AGE": "168h"})
					},
					func() error {
						d := w8bDeployment("order-events", "registry.example/orders/order-events:1.8.0", 2, orderEvents, crash("1", "", "w10a-order-events-jetstream-storage"), "", 0)
						envFromConfigMap(&d.Spec.Template, "order-events-config")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("orders-api", "registry.example/orders/orders-api:4.4.1", 2, api, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "NATS_URL", "nats://nats:4222")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("orders-api", api, "http", 80)) },
				)
			},
			Wait: all(func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "nats", 3) }, podsWith(orderEvents, crashLooping(2))),
		},
		{
			// The Keycloak Deployment was switched from start-dev to start (production mode)
			// without KC_HOSTNAME (or KC_HOSTNAME_STRICT=false), so it exits at startup and
			// oauth2-proxy's OIDC discovery against it is refused.
			Name: "sso-keycloak-start-without-hostname", Covers: "oauth2-proxy crash-loops on 'failed to discover OIDC configuration ... dial tcp ...: connect: connection refused' to keycloak-http; Keycloak 24 crash-loops with 'ERROR: Strict hostname resolution configured but no hostname setting provided' after its args changed from start-dev to start with no KC_HOSTNAME",
			Source: w10aSrcKeycloakHost, Class: ClassRanking, Hops: 2,
			Problem: "every internal tool behind oauth2-proxy answers 502 since this morning's SSO change",
			Target:  target("Deployment", "oauth2-proxy"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "keycloak"}, Terms: []string{"KC_HOSTNAME"}},
			Setup: func(ctx context.Context, e *Env) error {
				pg := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "sso")
				graf := w8cLabels("app.kubernetes.io/name", "grafana", "app.kubernetes.io/instance", "tools")
				return steps(
					func() error {
						return e.createSecret(ctx, "keycloak-db", map[string]string{"username": "keycloak", "password": "qT7vN3xL0pRw"})
					},
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("keycloak-postgresql", "docker.io/bitnami/postgresql:16.4.0", "keycloak-postgresql-hl", 1, pg, nil, "tcp-postgresql", 5432))
					},
					func() error {
						return e.createService(ctx, w8bService("keycloak-postgresql", pg, "tcp-postgresql", 5432))
					},
					func() error {
						return e.createConfigMap(ctx, "keycloak-env", map[string]string{"KC_DB": "postgres", "KC_DB_URL_HOST": "keycloak-postgresql", "KC_DB_URL_DATABASE": "keycloak",
							"KC_HEALTH_ENABLED": "true", "KC_METRICS_ENABLED": "true", "KC_HTTP_ENABLED": "true", "KC_PROXY_HEADERS": "xforwarded", "KC_CACHE_STACK": "kubernetes"})
					},
					func() error {
						d := w8bDeployment("keycloak", "quay.io/keycloak/keycloak:24.0.5", 2, keycloak, crash("1", "", "w10a-keycloak-hostname-strict"), "http", 8080)
						w10aMain(&d.Spec.Template, "keycloak", "start")
						w10aPort(&d.Spec.Template, "jgroups", 7800)
						envFromConfigMap(&d.Spec.Template, "keycloak-env")
						envKeyFromSecret(&d.Spec.Template, "KC_DB_USERNAME", "keycloak-db", "username")
						envKeyFromSecret(&d.Spec.Template, "KC_DB_PASSWORD", "keycloak-db", "password")
						w8bEnv(&d.Spec.Template, "JAVA_OPTS_APPEND", "-Djgroups.dns.query=keycloak-headless")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w10aProbe("/health/ready", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, w10aServiceTo("keycloak-http", keycloak, "http", 80, "http"))
					},
					func() error { return e.createService(ctx, w8bHeadless("keycloak-headless", keycloak, "jgroups", 7800)) },
					func() error {
						d := w8bDeployment("oauth2-proxy", "quay.io/oauth2-proxy/oauth2-proxy:v7.7.1", 2, proxy, crash("1", "", "w10a-oauth2-proxy-oidc-discovery"), "http", 4180)
						w10aMain(&d.Spec.Template, "oauth2-proxy", "--provider=oidc", "--oidc-issuer-url=http://keycloak-http/realms/platform",
							"--client-id=internal-tools", "--http-address=0.0.0.0:4180", "--upstream=http://grafana.internal.example.com/",
							"--cookie-domain=.internal.example.com", "--email-domain=*")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("oauth2-proxy", proxy, "http", 80)) },
					func() error {
						return e.createIngress(ctx, w8cHostIngress("oauth2-proxy", "tools.internal.example.com", "oauth2-proxy", 80))
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("grafana", "docker.io/grafana/grafana:11.3.0", 1, graf, nil, "grafana", 3000))
					},
				)
			},
			Wait: all(podsWith(keycloak, crashLooping(2)), podsWith(proxy, crashLooping(2))),
		},
		{
			// Reinstalling the airflow release generated a new airflow-fernet-key; connections
			// in the metadata database were encrypted with the old key, so every task that reads
			// the warehouse connection fails while all pods stay Ready.
			Name: "airflow-fernet-key-regenerated", Covers: "all Airflow pods are Ready, but the Celery worker's log shows load_orders failing with a traceback ending in cryptography.fernet.InvalidToken while retrieving connection 'warehouse_pg', then UP_FOR_RETRY: the Secret airflow-fernet-key behind AIRFLOW__CORE__FERNET_KEY was regenerated by the reinstall",
			Source: w10aSrcAirflowFernet, Class: ClassOutside, Hops: 1,
			Problem: "warehouse_nightly fails at load_orders on every retry since airflow was reinstalled on Tuesday",
			Target:  target("StatefulSet", "airflow-worker"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "airflow-fernet-key"}, Terms: []string{"fernet"}},
			Setup: func(ctx context.Context, e *Env) error {
				pg := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "airflow")
				redis := w8cLabels("component", "redis", "release", "airflow", "tier", "airflow")
				airflowEnv := func(t *corev1.PodTemplateSpec) {
					w8bEnv(t, "AIRFLOW__CORE__EXECUTOR", "CeleryExecutor", "AIRFLOW__CELERY__BROKER_URL", "redis://:@airflow-redis:6379/0")
					envKeyFromSecret(t, "AIRFLOW__CORE__FERNET_KEY", "airflow-fernet-key", "fernet-key")
					envKeyFromSecret(t, "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", "airflow-metadata", "connection")
					envKeyFromSecret(t, "AIRFLOW__WEBSERVER__SECRET_KEY", "airflow-webserver-secret-key", "webserver-secret-key")
				}
				return steps(
					func() error {
						return e.createSecret(ctx, "airflow-fernet-key", map[string]string{"fernet-key": "Wm9ZbUtxQjNrRDE4N2x2TnBJbXR4Q1pYcFVFSm9XcGc="})
					},
					func() error {
						return e.createSecret(ctx, "airflow-metadata", map[string]string{"connection": "postgresql://postgres:postgres@airflow-postgresql:5432/postgres?sslmode=disable"})
					},
					func() error {
						return e.createSecret(ctx, "airflow-webserver-secret-key", map[string]string{"webserver-secret-key": "9f1c2e7a4b8d40c6a1e3f5b7d9c2e4a6"})
					},
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("airflow-postgresql", "docker.io/bitnami/postgresql:16.1.0", "airflow-postgresql-hl", 1, pg, nil, "tcp-postgresql", 5432))
					},
					func() error {
						return e.createService(ctx, w8bService("airflow-postgresql", pg, "tcp-postgresql", 5432))
					},
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("airflow-redis", "redis:7.2-bookworm", "airflow-redis", 1, redis, nil, "redis-db", 6379))
					},
					func() error { return e.createService(ctx, w8bService("airflow-redis", redis, "redis-db", 6379)) },
					func() error {
						d := w8bDeployment("airflow-scheduler", "apache/airflow:2.10.3", 1, w8cLabels("component", "scheduler", "release", "airflow", "tier", "airflow"), nil, "", 0)
						w10aMain(&d.Spec.Template, "scheduler", "bash", "-c", "exec airflow scheduler")
						airflowEnv(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error {
						web := w8cLabels("component", "webserver", "release", "airflow", "tier", "airflow")
						d := w8bDeployment("airflow-webserver", "apache/airflow:2.10.3", 1, web, nil, "airflow-ui", 8080)
						w10aMain(&d.Spec.Template, "webserver", "bash", "-c", "exec airflow webserver")
						airflowEnv(&d.Spec.Template)
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("airflow-webserver", web, "airflow-ui", 8080))
					},
					func() error {
						st := w8bStatefulSet("airflow-worker", "apache/airflow:2.10.3", "airflow-worker", 2, worker, running("w10a-airflow-worker-fernet"), "worker-logs", 8793)
						w10aMain(&st.Spec.Template, "worker", "bash", "-c", "exec airflow celery worker")
						airflowEnv(&st.Spec.Template)
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("airflow-worker", worker, "worker-logs", 8793)) },
				)
			},
			Wait: func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "airflow-worker", 2) },
		},
		{
			// kube-prometheus' NetworkPolicy for Alertmanager admits port 9093 only from the
			// Prometheus instance k8s; the second Prometheus (instance apps) added for
			// application alerts times out on every POST to alertmanager-main.
			Name: "prometheus-apps-alertmanager-policy", Covers: "the Ready Prometheus prometheus-apps logs 'Error sending alert' ... 'context deadline exceeded' to alertmanager-main:9093 while prometheus-k8s delivers fine; the NetworkPolicy alertmanager-main allows 9093 only from pods with app.kubernetes.io/instance=k8s",
			Source: w10aSrcNotConnected, Class: ClassProvider, Hops: 2,
			Problem: "PrometheusNotConnectedToAlertmanagers fires for prometheus-apps; alerts from application rules never reach Alertmanager",
			Target:  target("StatefulSet", "prometheus-apps"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "alertmanager-main"}, Terms: []string{"9093"}},
			Setup: func(ctx context.Context, e *Env) error {
				tcp := corev1.ProtocolTCP
				udp := corev1.ProtocolUDP
				return steps(
					func() error {
						st := w8bStatefulSet("alertmanager-main", "quay.io/prometheus/alertmanager:v0.27.0", "alertmanager-operated", 3, am, nil, "web", 9093)
						w10aMain(&st.Spec.Template, "alertmanager", "--config.file=/etc/alertmanager/config_out/alertmanager.env.yaml", "--storage.path=/alertmanager",
							"--cluster.listen-address=[$(POD_IP)]:9094", "--web.listen-address=:9093", "--cluster.peer=alertmanager-main-0.alertmanager-operated:9094")
						w10aPort(&st.Spec.Template, "mesh-tcp", 9094)
						mountSecret(&st.Spec.Template, "alertmanager-main-generated", "/etc/alertmanager/config_out")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createSecret(ctx, "alertmanager-main-generated", map[string]string{"alertmanager.env.yaml": "global:\n  resolve_timeout: 5m\nroute:\n  receiver: team-ops\n  group_by: [namespace, alertname]\nreceivers:\n- name: team-ops\n  webhook_configs:\n  - url: http://alert-relay:8080/hooks/ops\n"})
					},
					func() error {
						return e.createService(ctx, w10aServicePort(w8bHeadless("alertmanager-operated", am, "web", 9093), "mesh-tcp", 9094))
					},
					func() error { return e.createService(ctx, w8bService("alertmanager-main", am, "web", 9093)) },
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("prometheus-k8s", "quay.io/prometheus/prometheus:v2.54.1", "prometheus-operated", 2, promK8s, nil, "web", 9090))
					},
					func() error { return e.createService(ctx, w8bService("prometheus-k8s", promK8s, "web", 9090)) },
					func() error {
						return e.createConfigMap(ctx, "prometheus-apps-config", map[string]string{"prometheus.env.yaml": "global:\n  evaluation_interval: 30s\n  scrape_interval: 30s\n  external_labels:\n    prometheus: apps\n    prometheus_replica: $(POD_NAME)\nrule_files:\n- /etc/prometheus/rules/prometheus-apps-rulefiles-0/*.yaml\nalerting:\n  alert_relabel_configs:\n  - action: labeldrop\n    regex: prometheus_replica\n  alertmanagers:\n  - path_prefix: /\n    scheme: http\n    api_version: v2\n    static_configs:\n    - targets: [alertmanager-main:9093]\nscrape_configs:\n- job_name: serviceMonitor/apps/checkout/0\n  kubernetes_sd_configs:\n  - role: endpoints\n"})
					},
					func() error {
						st := w8bStatefulSet("prometheus-apps", "quay.io/prometheus/prometheus:v2.54.1", "prometheus-operated-apps", 1, promApps, running("w10a-prometheus-apps-notifier"), "web", 9090)
						w10aMain(&st.Spec.Template, "prometheus", "--config.file=/etc/prometheus/config_out/prometheus.env.yaml", "--storage.tsdb.retention.time=15d", "--web.enable-lifecycle")
						mountConfigMap(&st.Spec.Template, "prometheus-apps-config", "/etc/prometheus/config_out")
						st.Spec.Template.Spec.Containers[0].ReadinessProbe = w10aProbe("/-/ready", "web", 5)
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bService("prometheus-apps", promApps, "web", 9090)) },
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "alertmanager-main", Labels: map[string]string{"app.kubernetes.io/name": "alertmanager", "app.kubernetes.io/part-of": "kube-prometheus"}},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: w8cLabels("app.kubernetes.io/name", "alertmanager", "app.kubernetes.io/instance", "main", "app.kubernetes.io/component", "alert-router", "app.kubernetes.io/part-of", "kube-prometheus")},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
								Ingress: []networkingv1.NetworkPolicyIngressRule{
									{From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: w8cLabels("app.kubernetes.io/name", "prometheus", "app.kubernetes.io/instance", "k8s")}}},
										Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: w10aPortNum(9093)}, {Protocol: &tcp, Port: w10aPortNum(8080)}}},
									{From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: w8cLabels("app.kubernetes.io/name", "alertmanager")}}},
										Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: w10aPortNum(9094)}, {Protocol: &udp, Port: w10aPortNum(9094)}}},
								},
							},
						})
					},
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "prometheus-k8s"},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: w8cLabels("app.kubernetes.io/name", "prometheus")},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
								Ingress:     []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: w10aPortNum(9090)}}}},
							},
						})
					},
				)
			},
			Wait: all(func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "alertmanager-main", 3) },
				func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "prometheus-apps", 1) }),
		},
		{
			// Alertmanager was published under ops.example.com/alertmanager with
			// --web.route-prefix=/alertmanager; the readiness probe was moved under the prefix,
			// the liveness probe still asks /-/healthy, gets 404 and kills every replica.
			Name: "alertmanager-route-prefix-liveness-404", Covers: "AlertmanagerClusterCrashlooping: every alertmanager-main pod is killed by its liveness probe ('HTTP probe failed with statuscode: 404') and restarts; the log shows a clean start; the StatefulSet serves under --web.route-prefix=/alertmanager but probes /-/healthy",
			Source: w10aSrcAMCrashloop, Class: ClassMechanism, Hops: 1,
			Problem: "AlertmanagerClusterCrashlooping fires: the alertmanager-main pods restart every few seconds since yesterday's change",
			Target:  target("StatefulSet", "alertmanager-main"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "alertmanager-main"}, Terms: []string{"route-prefix", "404"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "alertmanager-main", map[string]string{"alertmanager.yaml": "global:\n  resolve_timeout: 5m\nroute:\n  receiver: team-ops\n  group_by: [namespace, alertname]\n  routes:\n  - matchers: [alertname = Watchdog]\n    receiver: watchdog\nreceivers:\n- name: team-ops\n  webhook_configs:\n  - url: http://alert-relay:8080/hooks/ops\n- name: watchdog\n"})
					},
					func() error {
						st := w8bStatefulSet("alertmanager-main", "quay.io/prometheus/alertmanager:v0.27.0", "alertmanager-operated", 3, am,
							sim("liveness-fail", annMessage, "HTTP probe failed with statuscode: 404", annLogs, "w10a-alertmanager-route-prefix"), "web", 9093)
						w10aMain(&st.Spec.Template, "alertmanager", "--config.file=/etc/alertmanager/config/alertmanager.yaml", "--storage.path=/alertmanager",
							"--web.listen-address=:9093", "--web.external-url=https://ops.example.com/alertmanager", "--web.route-prefix=/alertmanager",
							"--cluster.listen-address=[$(POD_IP)]:9094", "--cluster.peer=alertmanager-main-0.alertmanager-operated:9094",
							"--cluster.peer=alertmanager-main-1.alertmanager-operated:9094", "--cluster.peer=alertmanager-main-2.alertmanager-operated:9094")
						w10aPort(&st.Spec.Template, "mesh-tcp", 9094)
						c := &st.Spec.Template.Spec.Containers[0]
						c.ReadinessProbe = w10aProbe("/alertmanager/-/ready", "web", 5)
						c.LivenessProbe = w10aProbe("/-/healthy", "web", 10)
						mountSecret(&st.Spec.Template, "alertmanager-main", "/etc/alertmanager/config")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createService(ctx, w10aServicePort(w8bHeadless("alertmanager-operated", am, "web", 9093), "mesh-tcp", 9094))
					},
					func() error { return e.createService(ctx, w8bService("alertmanager-main", am, "web", 9093)) },
					func() error {
						i := w8cHostIngress("ops-alertmanager", "ops.example.com", "alertmanager-main", 9093)
						i.Spec.Rules[0].HTTP.Paths[0].Path = "/alertmanager"
						return e.createIngress(ctx, i)
					},
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("prometheus-k8s", "quay.io/prometheus/prometheus:v2.54.1", "prometheus-operated", 2, promK8s, nil, "web", 9090))
					},
					func() error { return e.createService(ctx, w8bService("prometheus-k8s", promK8s, "web", 9090)) },
				)
			},
			Wait: w10aStatefulSetPods(am, 2, restartedWith("Error", 137)),
		},
		{
			// The platform team's NetworkPolicy for APISIX's etcd admits the client port 2379
			// (from APISIX and from the members themselves) but not the peer port 2380, so after
			// a rolling restart no member can reach another, no leader is elected and APISIX
			// cannot read its routes.
			Name: "apisix-etcd-policy-blocks-peer-port", Covers: "apisix is not ready ('/status/ready' 503) and logs 'failed to fetch data from etcd: etcdserver: no leader'; the three apisix-etcd members run but are never ready, their zap log repeats 'prober detected unhealthy status ... dial tcp ...:2380: i/o timeout' and 'serving /health false; no leader': the NetworkPolicy apisix-etcd admits only port 2379",
			Source: w10aSrcEtcdNoLeader, Class: ClassProvider, Hops: 2,
			Problem: "api.example.com routes stopped working after last night's maintenance; apisix is 0/2 ready",
			Target:  target("Deployment", "apisix"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "apisix-etcd"}, Terms: []string{"2380"}},
			Setup: func(ctx context.Context, e *Env) error {
				etcd := w8cLabels("app.kubernetes.io/name", "etcd", "app.kubernetes.io/instance", "apisix")
				apisix := w8cLabels("app.kubernetes.io/name", "apisix", "app.kubernetes.io/instance", "apisix")
				dash := w8cLabels("app.kubernetes.io/name", "apisix-dashboard", "app.kubernetes.io/instance", "apisix")
				tcp := corev1.ProtocolTCP
				return steps(
					func() error {
						st := w8bStatefulSet("apisix-etcd", "docker.io/bitnami/etcd:3.5.16", "apisix-etcd-headless", 3, etcd,
							sim("readiness-fail", annLogs, "w10a-apisix-etcd-peers"), "client", 2379)
						w10aMain(&st.Spec.Template, "etcd")
						w10aPort(&st.Spec.Template, "peer", 2380)
						st.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "MY_POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}}}
						w8bEnv(&st.Spec.Template, "ETCD_NAME", "$(MY_POD_NAME)", "ETCD_DATA_DIR", "/bitnami/etcd/data", "ALLOW_NONE_AUTHENTICATION", "yes",
							"ETCD_LISTEN_CLIENT_URLS", "http://0.0.0.0:2379", "ETCD_LISTEN_PEER_URLS", "http://0.0.0.0:2380",
							"ETCD_ADVERTISE_CLIENT_URLS", "http://$(MY_POD_NAME).apisix-etcd-headless:2379", "ETCD_INITIAL_ADVERTISE_PEER_URLS", "http://$(MY_POD_NAME).apisix-etcd-headless:2380",
							"ETCD_INITIAL_CLUSTER", "apisix-etcd-0=http://apisix-etcd-0.apisix-etcd-headless:2380,apisix-etcd-1=http://apisix-etcd-1.apisix-etcd-headless:2380,apisix-etcd-2=http://apisix-etcd-2.apisix-etcd-headless:2380",
							"ETCD_INITIAL_CLUSTER_STATE", "existing")
						st.Spec.Template.Spec.Containers[0].ReadinessProbe = w10aProbe("/health", "client", 10)
						return e.w10aClaimedStatefulSet(ctx, st, "data", "8Gi", "/bitnami/etcd")
					},
					func() error {
						return e.createService(ctx, w10aServicePort(w8bHeadless("apisix-etcd-headless", etcd, "client", 2379), "peer", 2380))
					},
					func() error { return e.createService(ctx, w8bService("apisix-etcd", etcd, "client", 2379)) },
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "apisix-etcd", Labels: map[string]string{"platform.example.com/baseline": "true"}},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: etcd},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
								Ingress: []networkingv1.NetworkPolicyIngressRule{{
									From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: w8cLabels("app.kubernetes.io/name", "apisix")}},
										{PodSelector: &metav1.LabelSelector{MatchLabels: w8cLabels("app.kubernetes.io/name", "apisix-dashboard")}},
										{PodSelector: &metav1.LabelSelector{MatchLabels: etcd}}},
									Ports: []networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: w10aPortNum(2379)}},
								}},
							},
						})
					},
					func() error {
						return e.createConfigMap(ctx, "apisix", map[string]string{"config.yaml": "apisix:\n  node_listen: 9080\n  enable_admin: true\ndeployment:\n  role: traditional\n  role_traditional:\n    config_provider: etcd\n  etcd:\n    host:\n    - http://apisix-etcd:2379\n    prefix: /apisix\n    timeout: 30\n  admin:\n    allow_admin: [10.244.0.0/16]\nnginx_config:\n  error_log_level: warn\n"})
					},
					func() error {
						d := w8bDeployment("apisix", "apache/apisix:3.10.0-debian", 2, apisix,
							sim("readiness-fail", annLogs, "w10a-apisix-etcd-no-leader"), "http", 9080)
						w10aMain(&d.Spec.Template, "apisix")
						w10aPort(&d.Spec.Template, "status", 7085)
						mountConfigMap(&d.Spec.Template, "apisix", "/usr/local/apisix/conf/config.yaml")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w10aProbe("/status/ready", "status", 10)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("apisix-gateway", apisix, "http", 80)) },
					func() error {
						return e.createIngress(ctx, w8cHostIngress("apisix-gateway", "api.example.com", "apisix-gateway", 80))
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("apisix-dashboard", "apache/apisix-dashboard:3.0.1-alpine", 1, dash, nil, "http", 9000))
					},
				)
			},
			Wait: all(w10aStatefulSetPods(w8cLabels("app.kubernetes.io/name", "etcd", "app.kubernetes.io/instance", "apisix"), 3, runningNotReady),
				podsWith(w8cLabels("app.kubernetes.io/name", "apisix", "app.kubernetes.io/instance", "apisix"), runningNotReady)),
		},
	}
}
