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

// Wave 14b, continued: a provider that refuses by network, sidecars and platform components
// (Envoy, Vector, ingress-nginx, Alertmanager) and Python workers whose own log carries the
// clue.

func wave14bMoreScenarios() []*Scenario {
	analytics := w8cLabels("app", "analytics-api", "team", "data", "tier", "api")
	clickhouse := w8cLabels("app", "clickhouse", "team", "data", "tier", "database")
	catalog := w8bLabels("catalog", "shop", "app.kubernetes.io/component", "api")
	search := w8bLabels("search", "shop", "app.kubernetes.io/component", "api")
	checkout := w8cLabels("app", "checkout", "team", "payments", "version", "4.8.0")
	paymentsWeb := w8cLabels("app", "payments-web", "team", "payments", "version", "2.2.1")
	loki := w8bLabels("loki", "logging", "app.kubernetes.io/component", "single-binary")
	return []*Scenario{
		{
			// The users.d file limits the analytics user to the old VPC range; pods come from
			// 10.244.0.0/16. ClickHouse tells the client only "Authentication failed"; its own
			// log says the address is not allowed.
			Name: "analytics-clickhouse-networks-old-range", Covers: "analytics-api crash-loops on 'code: 516, message: analytics: Authentication failed: password is incorrect, or there is no user with such name.'; the Ready ClickHouse logs 'Connections from ::ffff:10.244.1.52 are not allowed. (IP_ADDRESS_NOT_ALLOWED)': <networks> in ConfigMap clickhouse-users allows only 10.10.0.0/16 and ::1 while the password in Secret analytics-clickhouse matches",
			Source: w14bSrcClickNet, Class: ClassProvider, Hops: 3,
			Problem: "the analytics dashboards are down: analytics-api says the ClickHouse password is wrong, but nobody changed it",
			Target:  target("Deployment", "analytics-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "clickhouse-users"}, Terms: []string{"networks"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "clickhouse-users", map[string]string{"analytics.xml": `<clickhouse>
  <users>
    <analytics>
      <password_sha256_hex>1be20ffd0f6f466fabf1fc56154ff4dd17b8300473802c947f2661f254ae9f8a</password_sha256_hex>
      <networks>
        <ip>10.10.0.0/16</ip>
        <ip>::1</ip>
      </networks>
      <profile>default</profile>
      <quota>default</quota>
      <allow_databases><database>events</database></allow_databases>
    </analytics>
  </users>
</clickhouse>
`})
					},
					func() error {
						return e.createConfigMap(ctx, "clickhouse-config", map[string]string{"listen.xml": "<clickhouse>\n  <listen_host>::</listen_host>\n  <max_connections>4096</max_connections>\n</clickhouse>\n"})
					},
					func() error {
						return e.createSecret(ctx, "analytics-clickhouse", map[string]string{"CLICKHOUSE_USER": "analytics", "CLICKHOUSE_PASSWORD": "Xq7vN2pL9sKd4RtW"})
					},
					func() error {
						return e.w14bStore(ctx, "clickhouse", "clickhouse/clickhouse-server:24.8.4.13", clickhouse, running("w14b-clickhouse-server-networks"), "native", 9000, func(t *corev1.PodTemplateSpec) {
							w10aMain(t, "clickhouse")
							w10aPort(t, "http", 8123)
							w14bMountCM(t, &t.Spec.Containers[0], "clickhouse-users", "/etc/clickhouse-server/users.d", "")
							w14bMountCM(t, &t.Spec.Containers[0], "clickhouse-config", "/etc/clickhouse-server/config.d", "")
						})
					},
					func() error {
						d := w11bApp("analytics-api", "analytics-api", "registry.example/data/analytics-api:2.7.0", 2, analytics, crash("1", "", "w14b-analytics-api-clickhouse-client"), "http", 8080)
						w8bEnv(&d.Spec.Template, "CLICKHOUSE_ADDR", "clickhouse:9000", "CLICKHOUSE_DATABASE", "events", "HTTP_ADDR", ":8080", "LOG_LEVEL", "info")
						envFromSecret(&d.Spec.Template, "analytics-clickhouse")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(analytics, crashLooping(2)), w8cStatefulSetReady("clickhouse", 1)),
		},
		{
			// The Envoy sidecar terminating TLS for catalog exits at boot on an enum typo in its
			// bootstrap; the Service targets the sidecar's port, so callers get no endpoint.
			Name: "catalog-envoy-sidecar-lb-policy-typo", Covers: "catalog's envoy sidecar crash-loops on \"error initializing configuration '/etc/envoy/envoy.yaml': Unable to parse JSON as proto (INVALID_ARGUMENT:(static_resources.clusters[0]) lb_policy: invalid value \\\"ROUND_ROBBIN\\\" for type TYPE_ENUM)\" while the catalog container runs; envoy.yaml in ConfigMap catalog-envoy has the typo (search-envoy says ROUND_ROBIN)",
			Source: w14bSrcEnvoyEnum, Class: ClassClue, Hops: 1,
			Problem: "catalog answers 503 to the storefront since this morning's mesh config change; the catalog container logs look clean",
			Target:  target("Deployment", "catalog"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "catalog-envoy"}, Terms: []string{"ROUND_ROBBIN"}},
			Setup: func(ctx context.Context, e *Env) error {
				envoyConf := func(cluster, policy string) string {
					return "admin:\n  address: {socket_address: {address: 0.0.0.0, port_value: 9901}}\nstatic_resources:\n  listeners:\n  - name: ingress_http\n" +
						"    address: {socket_address: {address: 0.0.0.0, port_value: 8443}}\n    filter_chains:\n    - filters:\n      - name: envoy.filters.network.http_connection_manager\n" +
						"        typed_config:\n          \"@type\": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager\n" +
						"          stat_prefix: ingress_http\n          route_config: {virtual_hosts: [{name: local, domains: [\"*\"], routes: [{match: {prefix: /}, route: {cluster: " + cluster + "}}]}]}\n" +
						"          http_filters: [{name: envoy.filters.http.router, typed_config: {\"@type\": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}}]\n" +
						"  clusters:\n  - name: " + cluster + "\n    connect_timeout: 0.5s\n    type: STATIC\n    lb_policy: " + policy + "\n" +
						"    load_assignment: {cluster_name: " + cluster + ", endpoints: [{lb_endpoints: [{endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8080}}}}]}]}\n"
				}
				withEnvoy := func(name string, lbl, ann map[string]string, cm string) error {
					d := w8bDeployment(name, "registry.example/shop/"+name+":6.4.0", 2, lbl, ann, "http", 8080)
					w10aMain(&d.Spec.Template, name)
					w8bEnv(&d.Spec.Template, "HTTP_ADDR", "127.0.0.1:8080", "DB_HOST", name+"-db", "CACHE_TTL", "300s")
					p := w10aContainer(&d.Spec.Template, "envoy", "envoyproxy/envoy:v1.31.2", "https", 8443, "-c", "/etc/envoy/envoy.yaml", "--log-level", "info")
					w14bMountCM(&d.Spec.Template, p, cm, "/etc/envoy", "")
					if err := e.createDeployment(ctx, d); err != nil {
						return err
					}
					return e.createService(ctx, w10aServiceTo(name, lbl, "https", 443, "https"))
				}
				return steps(
					func() error {
						return e.createConfigMap(ctx, "catalog-envoy", map[string]string{"envoy.yaml": envoyConf("catalog_local", "ROUND_ROBBIN")})
					},
					func() error {
						return e.createConfigMap(ctx, "search-envoy", map[string]string{"envoy.yaml": envoyConf("search_local", "ROUND_ROBIN")})
					},
					func() error {
						return withEnvoy("catalog", catalog, w10aOn("envoy", "crashloop", "w14b-catalog-envoy-bootstrap", annExitCode, "1"), "catalog-envoy")
					},
					func() error { return withEnvoy("search", search, nil, "search-envoy") },
				)
			},
			Wait: all(podsWith(catalog, crashLooping(2)), readyReplicas("search", 2)),
		},
		{
			// The Vector sidecar ships checkout's files to Loki; its sink endpoint names
			// loki-write (the simple-scalable write path) but this Loki runs single-binary behind
			// loki and loki-gateway. Vector keeps running and drops batches.
			Name: "checkout-vector-loki-endpoint-host", Covers: "checkout pods are Running and Ready, but the vector sidecar logs 'dns error: failed to lookup address information: Name or service not known' and 'Events dropped ... count=512' for endpoint http://loki-write:3100; the loki sink endpoint in ConfigMap checkout-vector names a host no Service has (loki, loki-gateway exist; payments-web-vector uses loki-gateway)",
			Source: w14bSrcVectorLoki, Class: ClassOutside, Hops: 1,
			Problem: "checkout logs stopped showing up in Grafana on Tuesday; payments-web logs are still there and nothing is restarting",
			Target:  target("Deployment", "checkout"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "checkout-vector"}, Terms: []string{"loki-write"}},
			Setup: func(ctx context.Context, e *Env) error {
				vectorConf := func(app, endpoint string) string {
					return "data_dir: /var/lib/vector\nsources:\n  app_logs:\n    type: file\n    include: [\"/var/log/" + app + "/*.log\"]\n" +
						"sinks:\n  loki:\n    type: loki\n    inputs: [app_logs]\n    endpoint: " + endpoint + "\n    encoding: {codec: json}\n" +
						"    labels: {app: " + app + ", namespace: \"${POD_NAMESPACE}\"}\n    healthcheck: {enabled: false}\n"
				}
				withVector := func(name string, lbl, ann map[string]string, cm string) error {
					d := w8bDeployment(name, "registry.example/payments/"+name+":4.8.0", 2, lbl, ann, "http", 8080)
					w10aMain(&d.Spec.Template, name)
					w8bEnv(&d.Spec.Template, "LOG_FILE", "/var/log/"+name+"/app.log", "LOG_FORMAT", "json", "PSP_URL", "https://api.psp.example.com")
					v := w10aContainer(&d.Spec.Template, "vector", "timberio/vector:0.42.0-distroless-libc", "", 0, "--config", "/etc/vector/vector.yaml")
					w14bEnv(v, "VECTOR_LOG", "info")
					v.Env = append(v.Env, corev1.EnvVar{Name: "POD_NAMESPACE", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.namespace"}}})
					w14bMountCM(&d.Spec.Template, v, cm, "/etc/vector", "")
					w10aEmptyDir(&d.Spec.Template, "app-logs", "/var/log/"+name, 0, 1)
					return e.w11bServe(ctx, d, 80)
				}
				return steps(
					func() error {
						return e.createConfigMap(ctx, "checkout-vector", map[string]string{"vector.yaml": vectorConf("checkout", "http://loki-write:3100")})
					},
					func() error {
						return e.createConfigMap(ctx, "payments-web-vector", map[string]string{"vector.yaml": vectorConf("payments-web", "http://loki-gateway")})
					},
					func() error {
						return e.w14bStore(ctx, "loki", "grafana/loki:3.2.1", loki, nil, "http-metrics", 3100, func(t *corev1.PodTemplateSpec) {
							w10aMain(t, "loki", "-config.file=/etc/loki/config/config.yaml", "-target=all")
						})
					},
					func() error {
						return e.createService(ctx, w10aServiceTo("loki-gateway", loki, "http", 80, "http-metrics"))
					},
					func() error {
						return withVector("checkout", checkout, running("w14b-checkout-vector-loki"), "checkout-vector")
					},
					func() error { return withVector("payments-web", paymentsWeb, nil, "payments-web-vector") },
				)
			},
			Wait: all(podsWith(checkout, runningReady), readyReplicas("payments-web", 2), w8cStatefulSetReady("loki", 1)),
		},
	}
}

func wave14bPlatformScenarios() []*Scenario {
	grafana := w8bLabels("grafana", "monitoring", "app.kubernetes.io/component", "dashboards")
	am := w8bLabels("alertmanager", "monitoring", "alertmanager", "main")
	worker := w8cLabels("app", "billing-worker", "team", "billing", "tier", "worker")
	scheduler := w8bLabels("airflow", "data-platform", "component", "scheduler")
	return []*Scenario{
		{
			// The Ingress's auth-url names oauth2-proxy in namespace "sso" (copied from the
			// platform team's cluster); here oauth2-proxy runs next to Grafana. Only the
			// ingress-nginx controller's error log says the name does not resolve.
			Name: "grafana-ingress-auth-url-other-namespace", Covers: "grafana.example.com answers 500 for every page while grafana and oauth2-proxy are Ready; the ingress-nginx controller logs 'oauth2-proxy.sso.svc.cluster.local could not be resolved (3: Host not found) ... subrequest: \"/_external-auth-Lw-Prefix\"' and 'auth request unexpected status: 502'; the nginx.ingress.kubernetes.io/auth-url annotation of Ingress grafana names namespace sso, where no oauth2-proxy Service exists",
			Source: w14bSrcNginxAuthURL, Class: ClassClue, Hops: 1,
			Problem: "grafana.example.com returns 500 Internal Server Error before the SSO login page even appears",
			Target:  target("Ingress", "grafana"),
			Want:    Want{Culprit: Ref{Kind: "Ingress", Name: "grafana"}, Terms: []string{"auth-url"}},
			Setup: func(ctx context.Context, e *Env) error {
				proxy := w8bLabels("oauth2-proxy", "monitoring", "app.kubernetes.io/component", "auth")
				ctrl := w8cLabels("app.kubernetes.io/name", "ingress-nginx", "app.kubernetes.io/component", "controller", "app.kubernetes.io/instance", "ingress-nginx")
				return steps(
					func() error {
						d := w11bApp("grafana", "grafana", "grafana/grafana:11.3.0", 1, grafana, nil, "http", 3000)
						w8bEnv(&d.Spec.Template, "GF_SERVER_ROOT_URL", "https://grafana.example.com", "GF_AUTH_PROXY_ENABLED", "true",
							"GF_AUTH_PROXY_HEADER_NAME", "X-Auth-Request-Email", "GF_AUTH_PROXY_AUTO_SIGN_UP", "true")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("oauth2-proxy", "oauth2-proxy", "quay.io/oauth2-proxy/oauth2-proxy:v7.6.0", 1, proxy, nil, "http", 4180)
						w8bEnv(&d.Spec.Template, "OAUTH2_PROXY_PROVIDER", "github", "OAUTH2_PROXY_GITHUB_ORG", "acme", "OAUTH2_PROXY_HTTP_ADDRESS", "0.0.0.0:4180",
							"OAUTH2_PROXY_REVERSE_PROXY", "true", "OAUTH2_PROXY_SET_XAUTHREQUEST", "true", "OAUTH2_PROXY_UPSTREAMS", "static://202")
						return e.w11bServe(ctx, d, 4180)
					},
					func() error {
						d := w11bApp("ingress-nginx-controller", "controller", "registry.k8s.io/ingress-nginx/controller:v1.11.3", 1, ctrl, running("w14b-ingress-nginx-auth-url"), "http", 80)
						w10aPort(&d.Spec.Template, "https", 443)
						w8cArgs(&d.Spec.Template, "/nginx-ingress-controller", "--election-id=ingress-nginx-leader", "--controller-class=k8s.io/ingress-nginx")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createIngress(ctx, w14bIngress("grafana", "grafana.example.com", "grafana", 80, map[string]string{
							"nginx.ingress.kubernetes.io/auth-url":              "http://oauth2-proxy.sso.svc.cluster.local:4180/oauth2/auth",
							"nginx.ingress.kubernetes.io/auth-signin":           "https://grafana.example.com/oauth2/start?rd=$escaped_request_uri",
							"nginx.ingress.kubernetes.io/auth-response-headers": "X-Auth-Request-User,X-Auth-Request-Email",
						}))
					},
					func() error {
						i := w14bIngress("grafana-oauth2", "grafana.example.com", "oauth2-proxy", 4180, nil)
						i.Spec.Rules[0].HTTP.Paths[0].Path = "/oauth2"
						return e.createIngress(ctx, i)
					},
				)
			},
			Wait: all(readyReplicas("ingress-nginx-controller", 1), readyReplicas("grafana", 1), readyReplicas("oauth2-proxy", 1)),
		},
		{
			// The Prometheus Operator style config Secret routes team-payments to a webhook
			// URL whose host is not the relay's Service name; Alertmanager retries, gives up,
			// and stays Ready.
			Name: "alertmanager-webhook-receiver-host-typo", Covers: "alertmanager-main is Running and Ready, but logs 'Notify for alerts failed ... team-payments/webhook[0]: notify retry canceled after 8 attempts: Post \"http://alertmanager-relay:8080/hooks/pagerduty\": dial tcp: lookup alertmanager-relay on 10.96.0.10:53: no such host'; the webhook url in alertmanager.yaml of Secret alertmanager-main names a host no Service has (the relay's Service is alert-relay)",
			Source: w14bSrcAMWebhook, Class: ClassOutside, Hops: 1,
			Problem: "payments on-call got no page during last night's outage although the alerts were firing in Prometheus",
			Target:  target("StatefulSet", "alertmanager-main"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "alertmanager-main"}, Terms: []string{"alertmanager-relay"}},
			Setup: func(ctx context.Context, e *Env) error {
				relay := w8bLabels("alert-relay", "monitoring", "app.kubernetes.io/component", "webhook")
				return steps(
					func() error {
						return e.createSecret(ctx, "alertmanager-main", map[string]string{"alertmanager.yaml": "global:\n  resolve_timeout: 5m\n" +
							"route:\n  receiver: default\n  group_by: [alertname, namespace]\n  routes:\n  - receiver: team-payments\n    matchers: [team=\"payments\"]\n" +
							"  - receiver: team-data\n    matchers: [team=\"data\"]\nreceivers:\n- name: default\n" +
							"- name: team-payments\n  webhook_configs:\n  - url: http://alertmanager-relay:8080/hooks/pagerduty\n    send_resolved: true\n" +
							"- name: team-data\n  email_configs:\n  - to: data-oncall@example.com\n    smarthost: smtp.example.com:587\n"})
					},
					func() error {
						return e.createConfigMap(ctx, "alert-relay-config", map[string]string{"routes.yaml": "pagerduty:\n  path: /hooks/pagerduty\n  service_key_env: PD_ROUTING_KEY\nslack:\n  path: /hooks/slack\n"})
					},
					func() error {
						st := w8bStatefulSet("alertmanager-main", "quay.io/prometheus/alertmanager:v0.27.0", "alertmanager-operated", 1, am, running("w14b-alertmanager-webhook-host"), "web", 9093)
						w10aMain(&st.Spec.Template, "alertmanager", "--config.file=/etc/alertmanager/config/alertmanager.yaml", "--storage.path=/alertmanager", "--cluster.listen-address=[$(POD_IP)]:9094")
						w14bMountSecret(&st.Spec.Template, &st.Spec.Template.Spec.Containers[0], "alertmanager-main", "/etc/alertmanager/config")
						w10aContainer(&st.Spec.Template, "config-reloader", "quay.io/prometheus-operator/prometheus-config-reloader:v0.77.1", "reloader-web", 8080, "--watched-dir=/etc/alertmanager/config")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("alertmanager-operated", am, "web", 9093)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("alertmanager-main", am, "web", 9093))
					},
					func() error {
						d := w11bApp("alert-relay", "relay", "registry.example/platform/alert-relay:1.3.0", 1, relay, nil, "http", 8080)
						mountConfigMap(&d.Spec.Template, "alert-relay-config", "/etc/alert-relay")
						return e.w11bServe(ctx, d, 8080)
					},
				)
			},
			Wait: all(w8cStatefulSetReady("alertmanager-main", 1), readyReplicas("alert-relay", 1)),
		},
		{
			// The worker split moved invoices to a module the worker's CELERY_IMPORTS does not
			// list, so the worker discards every send_invoice_email message. The web tier's
			// ConfigMap lists it.
			Name: "billing-celery-imports-miss-invoices", Covers: "billing-worker (Celery) is Running and Ready but logs \"Received unregistered task of type 'billing.tasks.invoices.send_invoice_email'. The message has been ignored and discarded.\"; CELERY_IMPORTS in ConfigMap billing-worker-env lists billing.tasks.exports and billing.tasks.reports but not billing.tasks.invoices (billing-web-env has all three)",
			Source: w14bSrcCeleryImport, Class: ClassOutside, Hops: 1,
			Problem: "customers stopped receiving invoice emails after Monday's worker release; the worker pods are Running and nothing alerts",
			Target:  target("Deployment", "billing-worker"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "billing-worker-env"}, Terms: []string{"billing.tasks.invoices"}},
			Setup: func(ctx context.Context, e *Env) error {
				web := w8cLabels("app", "billing-web", "team", "billing", "tier", "web")
				redis := w8cLabels("app", "billing-redis", "team", "billing", "tier", "cache")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "billing-worker-env", map[string]string{"CELERY_BROKER_URL": "redis://billing-redis:6379/0", "CELERY_RESULT_BACKEND": "redis://billing-redis:6379/1",
							"CELERY_IMPORTS": "billing.tasks.exports,billing.tasks.reports", "CELERY_TASK_DEFAULT_QUEUE": "billing", "DJANGO_SETTINGS_MODULE": "billing.settings.production"})
					},
					func() error {
						return e.createConfigMap(ctx, "billing-web-env", map[string]string{"CELERY_BROKER_URL": "redis://billing-redis:6379/0",
							"CELERY_IMPORTS": "billing.tasks.exports,billing.tasks.reports,billing.tasks.invoices", "DJANGO_SETTINGS_MODULE": "billing.settings.production", "ALLOWED_HOSTS": "billing.example.com"})
					},
					func() error { return e.w11bStore(ctx, "billing-redis", "redis:7.2.5", redis, nil, "redis", 6379) },
					func() error {
						d := w11bApp("billing-worker", "worker", "registry.example/billing/billing:2026.11.4", 2, worker, running("w14b-billing-celery-unregistered"), "metrics", 9808)
						w8cArgs(&d.Spec.Template, "celery", "-A", "billing", "worker", "-Q", "billing", "--concurrency=4", "--loglevel=INFO")
						envFromConfigMap(&d.Spec.Template, "billing-worker-env")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("billing-web", "web", "registry.example/billing/billing:2026.11.4", 2, web, nil, "http", 8000)
						w8cArgs(&d.Spec.Template, "gunicorn", "billing.wsgi:application", "--bind=0.0.0.0:8000")
						envFromConfigMap(&d.Spec.Template, "billing-web-env")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(worker, runningReady), readyReplicas("billing-web", 2)),
		},
		{
			// AIRFLOW__DATABASE__SQL_ALCHEMY_CON (one N short) is no Airflow option, so the
			// metadata DB falls back to the SQLite default, which the CeleryExecutor refuses.
			Name: "airflow-sql-alchemy-conn-env-key-typo", Covers: "airflow-scheduler and airflow-webserver crash-loop on 'airflow.exceptions.AirflowConfigException: error: cannot use SQLite with the CeleryExecutor'; ConfigMap airflow-env sets AIRFLOW__DATABASE__SQL_ALCHEMY_CON (missing the final N), so the postgres connection is ignored and Airflow falls back to SQLite",
			Source: w14bSrcAirflowLite, Class: ClassClue, Hops: 1,
			Problem: "no DAG has run since the Airflow upgrade: the scheduler pods keep restarting",
			Target:  target("Deployment", "airflow-scheduler"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "airflow-env"}, Terms: []string{"SQL_ALCHEMY_CONN"}},
			Setup: func(ctx context.Context, e *Env) error {
				web := w8bLabels("airflow", "data-platform", "component", "webserver")
				pg := w8bLabels("airflow-postgresql", "data-platform", "component", "database")
				redis := w8bLabels("airflow-redis", "data-platform", "component", "broker")
				airflow := func(name string, lbl map[string]string, port int32, args ...string) error {
					d := w11bApp(name, w14bLast(args), "apache/airflow:2.10.3-python3.12", 1, lbl, crash("1", "", "w14b-airflow-scheduler-sqlite"), "http", port)
					w8cArgs(&d.Spec.Template, args...)
					envFromConfigMap(&d.Spec.Template, "airflow-env")
					envFromSecret(&d.Spec.Template, "airflow-secrets")
					return e.createDeployment(ctx, d)
				}
				return steps(
					func() error {
						return e.createConfigMap(ctx, "airflow-env", map[string]string{"AIRFLOW__CORE__EXECUTOR": "CeleryExecutor", "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
							"AIRFLOW__DATABASE__SQL_ALCHEMY_CON": "postgresql+psycopg2://airflow@airflow-postgresql:5432/airflow",
							"AIRFLOW__CELERY__BROKER_URL":        "redis://airflow-redis:6379/0", "AIRFLOW__WEBSERVER__BASE_URL": "https://airflow.example.com"})
					},
					func() error {
						return e.createSecret(ctx, "airflow-secrets", map[string]string{"AIRFLOW__CORE__FERNET_KEY": "n3Kq9Zr2Lw8Vt5Yb1Xc7Hd4Fj6Gm0Ps3Qa8Ue2Io5Ry=", "PGPASSWORD": "Ab4Cd8Ef2Gh6Ij0K"})
					},
					func() error {
						return e.w11bStore(ctx, "airflow-postgresql", "postgres:16.4", pg, nil, "postgres", 5432, "POSTGRES_DB", "airflow", "POSTGRES_USER", "airflow")
					},
					func() error { return e.w11bStore(ctx, "airflow-redis", "redis:7.2.5", redis, nil, "redis", 6379) },
					func() error { return airflow("airflow-scheduler", scheduler, 8974, "airflow", "scheduler") },
					func() error { return airflow("airflow-webserver", web, 8080, "airflow", "webserver") },
				)
			},
			Wait: all(podsWith(scheduler, crashLooping(2)), w8cStatefulSetReady("airflow-postgresql", 1)),
		},
	}
}
