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

// Wave 10a: broken clusters written by an outside hand from public GitHub issues of widely
// deployed charts and operators (named in Source by URL) and from Prometheus Operator
// runbooks no scenario used yet. Each namespace is laid out the way the team in the issue
// runs it (the chart's names and labels, healthy neighbours), and the error sits in the
// software's own log format, often away from the last line and on another object than the
// symptom. The expected answer was fixed from the source before the engine ran.

const (
	w10aSrcGrafanaDefault = "https://github.com/llm-d/llm-d/issues/494 (Grafana CrashLoopBackOff: Datasource provisioning error, only one datasource per organization can be marked as default; grafana/grafana#12229)"
	w10aSrcOtelJaeger     = "https://github.com/open-telemetry/opentelemetry-collector-contrib/issues/15291 (error decoding 'exporters': unknown type: \"jaeger\" for id: \"jaeger\", the exporter removed in v0.86)"
	w10aSrcThanosLabels   = "https://github.com/thanos-io/thanos/issues/266 (Thanos sidecar needs uniquely identifying external labels on the Prometheus server)"
	w10aSrcCassandraDC    = "https://github.com/docker-library/cassandra/issues/57 (Cannot start node if snitch's data center differs from previous data center, CASSANDRA_DC on Kubernetes)"
	w10aSrcSupersetKey    = "https://github.com/apache/superset/issues/24201 (Refusing to start due to insecure SECRET_KEY after upgrading Superset)"
	w10aSrcMinioHeadless  = "https://github.com/minio/operator/pull/61 (Enable publishNotReadyAddresses for the MinIO headless service, peers must resolve before they are ready)"
)

func wave10aScenarios() []*Scenario {
	return append(wave10aFirstScenarios(), wave10aMoreScenarios()...)
}

func wave10aFirstScenarios() []*Scenario {
	grafana := w8cLabels("app.kubernetes.io/name", "grafana", "app.kubernetes.io/instance", "kube-prometheus-stack")
	collector := w8cLabels("app.kubernetes.io/name", "opentelemetry-collector", "app.kubernetes.io/instance", "otel", "component", "standalone-collector")
	checkout := w8bLabels("checkout-api", "shop")
	promServer := w8cLabels("app.kubernetes.io/name", "prometheus", "app.kubernetes.io/instance", "prometheus", "app.kubernetes.io/component", "server")
	cassandra := w8cLabels("app.kubernetes.io/name", "cassandra", "app.kubernetes.io/instance", "catalog")
	catalog := w8bLabels("catalog-service", "catalog")
	superset := w8cLabels("app", "superset", "release", "superset")
	minio := w8cLabels("app", "minio", "release", "minio")
	artifacts := w8bLabels("artifacts-api", "ci-artifacts")
	return []*Scenario{
		{
			// loki-stack's chart provisions its Loki datasource with isDefault: true; the
			// kube-prometheus-stack Prometheus datasource is already the default, so the
			// datasource sidecar hands Grafana two defaults and provisioning fails at start.
			Name: "grafana-loki-stack-second-default", Covers: "grafana.example.com answers 503: Grafana crash-loops with 'Datasource provisioning error: datasource.yaml config is invalid. Only one datasource per organization can be marked as default' in its logfmt log; the loki-stack datasource ConfigMap picked up by the sidecar also sets isDefault: true",
			Source: w10aSrcGrafanaDefault, Class: ClassClue, Hops: 3,
			Problem: "grafana.example.com answers 503 since yesterday afternoon",
			Target:  target("Ingress", "kube-prometheus-stack-grafana"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "loki-loki-stack"}, Terms: []string{"isDefault"}},
			Setup: func(ctx context.Context, e *Env) error {
				prom := w8cLabels("app.kubernetes.io/name", "prometheus", "prometheus", "kube-prometheus-stack-prometheus")
				loki := w8cLabels("app", "loki", "release", "loki")
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "kube-prometheus-stack-grafana-datasource",
							w8cLabels("grafana_datasource", "1", "app", "kube-prometheus-stack-grafana", "release", "kube-prometheus-stack"),
							map[string]string{"datasource.yaml": "apiVersion: 1\ndatasources:\n- name: Prometheus\n  type: prometheus\n  uid: prometheus\n  url: http://kube-prometheus-stack-prometheus:9090/\n  access: proxy\n  isDefault: true\n  jsonData:\n    httpMethod: POST\n    timeInterval: 30s\n- name: Alertmanager\n  type: alertmanager\n  uid: alertmanager\n  url: http://kube-prometheus-stack-alertmanager:9093/\n  access: proxy\n  jsonData:\n    handleGrafanaManagedAlerts: false\n    implementation: prometheus\n"})
					},
					func() error {
						return e.w10aConfigMap(ctx, "loki-loki-stack", w8cLabels("grafana_datasource", "1", "app", "loki-stack", "release", "loki"),
							map[string]string{"loki-stack-datasource.yaml": "apiVersion: 1\ndatasources:\n- name: Loki\n  type: loki\n  access: proxy\n  url: \"http://loki:3100\"\n  version: 1\n  isDefault: true\n  jsonData:\n    {}\n"})
					},
					func() error {
						return e.createConfigMap(ctx, "kube-prometheus-stack-grafana", map[string]string{"grafana.ini": "[analytics]\ncheck_for_updates = true\n[grafana_net]\nurl = https://grafana.net\n[log]\nmode = console\n[paths]\ndata = /var/lib/grafana/\nlogs = /var/log/grafana\nplugins = /var/lib/grafana/plugins\nprovisioning = /etc/grafana/provisioning\n[server]\ndomain = grafana.example.com\nroot_url = https://grafana.example.com\n"})
					},
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("prometheus-kube-prometheus-stack-prometheus", "quay.io/prometheus/prometheus:v2.54.1", "prometheus-operated", 1, prom, nil, "http-web", 9090))
					},
					func() error {
						return e.createService(ctx, w8bService("kube-prometheus-stack-prometheus", prom, "http-web", 9090))
					},
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("loki", "grafana/loki:2.9.3", "loki-headless", 1, loki, nil, "http-metrics", 3100))
					},
					func() error { return e.createService(ctx, w8bService("loki", loki, "http-metrics", 3100)) },
					func() error {
						d := w8bDeployment("kube-prometheus-stack-grafana", "docker.io/grafana/grafana:11.3.0", 1, grafana,
							w10aOn("grafana", "crashloop", "w10a-grafana-datasource-default", annExitCode, "1"), "grafana", 3000)
						w10aMain(&d.Spec.Template, "grafana")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w10aProbe("/api/health", "grafana", 10)
						w8bEnv(&d.Spec.Template, "GF_PATHS_DATA", "/var/lib/grafana/", "GF_PATHS_PROVISIONING", "/etc/grafana/provisioning")
						mountConfigMap(&d.Spec.Template, "kube-prometheus-stack-grafana", "/etc/grafana/grafana.ini")
						d.Spec.Template.Spec.Containers[0].VolumeMounts[0].SubPath = "grafana.ini"
						w10aEmptyDir(&d.Spec.Template, "sc-datasources-volume", "/etc/grafana/provisioning/datasources", 0)
						sc := w10aContainer(&d.Spec.Template, "grafana-sc-datasources", "quay.io/kiwigrid/k8s-sidecar:1.28.0", "", 0)
						sc.VolumeMounts = []corev1.VolumeMount{{Name: "sc-datasources-volume", MountPath: "/etc/grafana/provisioning/datasources"}}
						sc.Env = []corev1.EnvVar{{Name: "METHOD", Value: "WATCH"}, {Name: "LABEL", Value: "grafana_datasource"}, {Name: "LABEL_VALUE", Value: "1"},
							{Name: "FOLDER", Value: "/etc/grafana/provisioning/datasources"}, {Name: "RESOURCE", Value: "both"},
							{Name: "REQ_URL", Value: "http://localhost:3000/api/admin/provisioning/datasources/reload"}}
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, w10aServiceTo("kube-prometheus-stack-grafana", grafana, "http-web", 80, "grafana"))
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("kube-prometheus-stack-grafana", "grafana.example.com", "kube-prometheus-stack-grafana", 80))
					},
				)
			},
			Wait: all(podsWith(grafana, crashLooping(2)),
				func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "loki", 1) }),
		},
		{
			// The collector image moved past v0.86, which dropped the jaeger exporter; the
			// ConfigMap still exports to Jaeger's gRPC port with it, so the collector exits on
			// its config and every service's OTLP export is refused.
			Name: "otel-collector-jaeger-exporter-removed", Covers: "checkout-api is Ready but logs 'traces export: ... dial tcp ...:4317: connect: connection refused'; the otel-collector (contrib 0.104.0) crash-loops on 'error decoding 'exporters': unknown type: \"jaeger\"' because its ConfigMap still uses the jaeger exporter removed in v0.86",
			Source: w10aSrcOtelJaeger, Class: ClassProvider, Hops: 2,
			Problem: "checkout spans have been missing in Jaeger since this morning",
			Target:  target("Deployment", "checkout-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "otel-collector-conf"}, Terms: []string{"jaeger", "exporter"}},
			Setup: func(ctx context.Context, e *Env) error {
				jaeger := w8cLabels("app.kubernetes.io/name", "jaeger", "app.kubernetes.io/component", "all-in-one")
				db := w8bLabels("checkout-db", "shop", "app.kubernetes.io/component", "database")
				cart := w8bLabels("cart-api", "shop")
				return steps(
					func() error {
						d := w8bDeployment("jaeger", "jaegertracing/all-in-one:1.62.0", 1, jaeger, nil, "http-query", 16686)
						w10aPort(&d.Spec.Template, "grpc-otlp", 4317)
						w10aPort(&d.Spec.Template, "grpc", 14250)
						w8bEnv(&d.Spec.Template, "COLLECTOR_OTLP_ENABLED", "true", "SPAN_STORAGE_TYPE", "badger")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, w10aServicePort(w8bService("jaeger-collector", jaeger, "grpc-otlp", 4317), "grpc", 14250))
					},
					func() error { return e.createService(ctx, w8bService("jaeger-query", jaeger, "http-query", 16686)) },
					func() error {
						return e.createConfigMap(ctx, "otel-collector-conf", map[string]string{"otel-collector-config.yaml": "receivers:\n  otlp:\n    protocols:\n      grpc:\n        endpoint: 0.0.0.0:4317\n      http:\n        endpoint: 0.0.0.0:4318\nprocessors:\n  memory_limiter:\n    check_interval: 1s\n    limit_percentage: 80\n  batch: {}\nexporters:\n  jaeger:\n    endpoint: jaeger-collector:14250\n    tls:\n      insecure: true\nextensions:\n  health_check: {}\nservice:\n  extensions: [health_check]\n  pipelines:\n    traces:\n      receivers: [otlp]\n      processors: [memory_limiter, batch]\n      exporters: [jaeger]\n"})
					},
					func() error {
						d := w8bDeployment("otel-collector", "otel/opentelemetry-collector-contrib:0.104.0", 1, collector, crash("1", "", "w10a-otel-collector-jaeger-exporter"), "otlp-grpc", 4317)
						w10aMain(&d.Spec.Template, "opentelemetry-collector", "--config=/conf/otel-collector-config.yaml")
						w10aPort(&d.Spec.Template, "otlp-http", 4318)
						mountConfigMap(&d.Spec.Template, "otel-collector-conf", "/conf")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, w10aServicePort(w8bService("otel-collector", collector, "otlp-grpc", 4317), "otlp-http", 4318))
					},
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("checkout-db", "postgres:16.4", "checkout-db", 1, db, nil, "postgres", 5432))
					},
					func() error { return e.createService(ctx, w8bService("checkout-db", db, "postgres", 5432)) },
					func() error {
						d := w8bDeployment("checkout-api", "registry.example/shop/checkout-api:3.14.2", 2, checkout, running("w10a-checkout-api-otlp-export"), "http", 8080)
						w8bEnv(&d.Spec.Template, "OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel-collector:4317", "OTEL_SERVICE_NAME", "checkout-api", "DATABASE_HOST", "checkout-db")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("checkout-api", checkout, "http", 80)) },
					func() error {
						d := w8bDeployment("cart-api", "registry.example/shop/cart-api:2.3.0", 2, cart, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel-collector:4317", "OTEL_SERVICE_NAME", "cart-api")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("cart-api", cart, "http", 80)) },
				)
			},
			Wait: all(podsWith(collector, crashLooping(2)), readyReplicas("checkout-api", 2)),
		},
		{
			// The team moved from kube-prometheus-stack (whose operator sets external labels) to
			// the plain prometheus chart with a Thanos sidecar; prometheus.yml has no
			// global.external_labels, so the sidecar refuses to start and thanos-query has no store.
			Name: "thanos-sidecar-external-labels-missing", Covers: "thanos-query is Ready but logs 'update of endpoint failed ... connection refused' and 'No store matched for this query'; the thanos-sidecar container of every prometheus-server pod crash-loops on 'no external labels configured on Prometheus server' because the ConfigMap's prometheus.yml has no global.external_labels",
			Source: w10aSrcThanosLabels, Class: ClassClue, Hops: 2,
			Problem: "Grafana panels backed by thanos-query are empty ('No store matched for this query') since Prometheus moved to the prometheus-community chart",
			Target:  target("Deployment", "thanos-query"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "prometheus-server"}, Terms: []string{"external_labels"}},
			Setup: func(ctx context.Context, e *Env) error {
				query := w8cLabels("app.kubernetes.io/name", "thanos", "app.kubernetes.io/component", "query")
				graf := w8cLabels("app.kubernetes.io/name", "grafana", "app.kubernetes.io/instance", "grafana")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "prometheus-server", map[string]string{
							"prometheus.yml":      "global:\n  scrape_interval: 30s\n  scrape_timeout: 10s\n  evaluation_interval: 1m\nrule_files:\n- /etc/config/recording_rules.yml\n- /etc/config/alerting_rules.yml\nscrape_configs:\n- job_name: prometheus\n  static_configs:\n  - targets: [localhost:9090]\n- job_name: kubernetes-pods\n  kubernetes_sd_configs:\n  - role: pod\n  relabel_configs:\n  - action: keep\n    regex: true\n    source_labels: [__meta_kubernetes_pod_annotation_prometheus_io_scrape]\n",
							"recording_rules.yml": "{}\n", "alerting_rules.yml": "{}\n"})
					},
					func() error {
						return e.createSecret(ctx, "thanos-objstore-config", map[string]string{"objstore.yml": "type: S3\nconfig:\n  bucket: metrics-long-term\n  endpoint: s3.eu-west-1.amazonaws.com\n  region: eu-west-1\n"})
					},
					func() error {
						st := w8bStatefulSet("prometheus-server", "quay.io/prometheus/prometheus:v2.54.1", "prometheus-server-headless", 2, promServer,
							w10aOn("thanos-sidecar", "crashloop", "w10a-thanos-sidecar-external-labels", annExitCode, "1"), "web", 9090)
						w10aMain(&st.Spec.Template, "prometheus-server", "--config.file=/etc/config/prometheus.yml", "--storage.tsdb.path=/data",
							"--storage.tsdb.min-block-duration=2h", "--storage.tsdb.max-block-duration=2h", "--web.enable-lifecycle")
						mountConfigMap(&st.Spec.Template, "prometheus-server", "/etc/config")
						sc := w10aContainer(&st.Spec.Template, "thanos-sidecar", "quay.io/thanos/thanos:v0.36.1", "grpc", 10901, "sidecar",
							"--prometheus.url=http://localhost:9090", "--tsdb.path=/data", "--objstore.config-file=/etc/thanos/objstore.yml", "--grpc-address=0.0.0.0:10901")
						sc.Ports = append(sc.Ports, corev1.ContainerPort{Name: "http-sidecar", ContainerPort: 10902})
						w10aEmptyDir(&st.Spec.Template, "storage-volume", "/data", 0, 1)
						st.Spec.Template.Spec.Volumes = append(st.Spec.Template.Spec.Volumes, corev1.Volume{Name: "objstore-config",
							VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "thanos-objstore-config"}}})
						st.Spec.Template.Spec.Containers[1].VolumeMounts = append(st.Spec.Template.Spec.Containers[1].VolumeMounts,
							corev1.VolumeMount{Name: "objstore-config", MountPath: "/etc/thanos"})
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createService(ctx, w8bHeadless("prometheus-server-headless", promServer, "web", 9090))
					},
					func() error { return e.createService(ctx, w8bService("prometheus-server", promServer, "web", 80)) },
					func() error {
						s := w8bHeadless("prometheus-thanos-discovery", promServer, "grpc", 10901)
						s.Spec.PublishNotReadyAddresses = false
						return e.createService(ctx, s)
					},
					func() error {
						d := w8bDeployment("thanos-query", "quay.io/thanos/thanos:v0.36.1", 1, query, running("w10a-thanos-query-store-failed"), "http", 10902)
						w10aMain(&d.Spec.Template, "query", "query", "--grpc-address=0.0.0.0:10901", "--http-address=0.0.0.0:10902",
							"--endpoint=dnssrv+_grpc._tcp.prometheus-thanos-discovery", "--query.replica-label=replica")
						w10aPort(&d.Spec.Template, "grpc", 10901)
						w8bReadiness(&d.Spec.Template, "/-/ready", "http", 5)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("thanos-query", query, "http", 9090)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("grafana", "docker.io/grafana/grafana:11.3.0", 1, graf, nil, "grafana", 3000))
					},
				)
			},
			Wait: all(w10aStatefulSetPods(promServer, 2, crashLooping(2)), readyReplicas("thanos-query", 1)),
		},
		{
			// CASSANDRA_DC was changed from the default datacenter1 to eu-west when the team
			// prepared a second region; the nodes' data says datacenter1, so every node refuses
			// to start and catalog-service cannot reach any contact point.
			Name: "cassandra-dc-renamed-snitch-mismatch", Covers: "catalog-service (Spring Boot, DataStax driver) crash-loops on AllNodesFailedException to cassandra:9042; the cassandra StatefulSet crash-loops too, its log says 'Cannot start node if snitch's data center (eu-west) differs from previous data center (datacenter1)' after CASSANDRA_DC was set to eu-west",
			Source: w10aSrcCassandraDC, Class: ClassRanking, Hops: 2,
			Problem: "catalog-service crash-loops since this morning's change to the data tier",
			Target:  target("Deployment", "catalog-service"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "cassandra"}, Terms: []string{"CASSANDRA_DC", "datacenter1"}},
			Setup: func(ctx context.Context, e *Env) error {
				web := w8bLabels("catalog-web", "catalog")
				return steps(
					func() error {
						st := w8bStatefulSet("cassandra", "cassandra:4.1.7", "cassandra", 3, cassandra, crash("1", "", "w10a-cassandra-dc-mismatch"), "cql", 9042)
						w10aMain(&st.Spec.Template, "cassandra")
						w10aPort(&st.Spec.Template, "intra-node", 7000)
						w8bEnv(&st.Spec.Template, "CASSANDRA_CLUSTER_NAME", "catalog", "CASSANDRA_SEEDS", "cassandra-0.cassandra",
							"CASSANDRA_ENDPOINT_SNITCH", "GossipingPropertyFileSnitch", "CASSANDRA_DC", "eu-west", "CASSANDRA_RACK", "rack1",
							"MAX_HEAP_SIZE", "1024M", "HEAP_NEWSIZE", "256M")
						return e.w10aClaimedStatefulSet(ctx, st, "data", "50Gi", "/var/lib/cassandra")
					},
					func() error { return e.createService(ctx, w8bHeadless("cassandra", cassandra, "cql", 9042)) },
					func() error {
						d := w8bDeployment("catalog-service", "registry.example/catalog/catalog-service:7.2.0", 2, catalog, crash("1", "", "w10a-catalog-service-cassandra"), "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_PROFILES_ACTIVE", "prod", "SPRING_CASSANDRA_CONTACT_POINTS", "cassandra:9042",
							"SPRING_CASSANDRA_LOCAL_DATACENTER", "datacenter1", "SPRING_CASSANDRA_KEYSPACE_NAME", "catalog")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("catalog-service", catalog, "http", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("catalog-web", "registry.example/catalog/catalog-web:7.2.0", 2, web, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("catalog-web", web, "http", 80)) },
				)
			},
			Wait: all(podsWith(cassandra, crashLooping(2)), podsWith(catalog, crashLooping(2))),
		},
		{
			// Superset 3 refuses to start with the built-in SECRET_KEY; the chart's
			// superset_config.py never set one (2.1 only warned), so the upgrade takes the web
			// and worker Deployments down.
			Name: "superset-3-default-secret-key", Covers: "superset.example.com answers 503 after the upgrade to Superset 3.1: gunicorn's worker prints 'A Default SECRET_KEY was detected' and 'Refusing to start due to insecure SECRET_KEY' before 'Reason: Worker failed to boot.'; the superset_config.py in Secret superset-config sets no SECRET_KEY",
			Source: w10aSrcSupersetKey, Class: ClassClue, Hops: 3,
			Problem: "superset.example.com answers 503 since the chart upgrade to Superset 3.1",
			Target:  target("Ingress", "superset"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "superset-config"}, Terms: []string{"SECRET_KEY"}},
			Setup: func(ctx context.Context, e *Env) error {
				pg := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "superset")
				redis := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "superset", "app.kubernetes.io/component", "master")
				worker := w8cLabels("app", "superset-worker", "release", "superset")
				return steps(
					func() error {
						return e.createSecret(ctx, "superset-env", map[string]string{"DB_HOST": "superset-postgresql", "DB_PORT": "5432", "DB_USER": "superset",
							"DB_PASS": "6dQx2pVw9LrT", "DB_NAME": "superset", "REDIS_HOST": "superset-redis-headless", "REDIS_PORT": "6379"})
					},
					func() error {
						return e.createSecret(ctx, "superset-config", map[string]string{"superset_config.py": "import os\nfrom flask_caching.backends.rediscache import RedisCache\n\ndef env(key, default=None):\n    return os.getenv(key, default)\n\nMAPBOX_API_KEY = env('MAPBOX_API_KEY', '')\nCACHE_CONFIG = {\n    'CACHE_TYPE': 'RedisCache',\n    'CACHE_DEFAULT_TIMEOUT': 300,\n    'CACHE_KEY_PREFIX': 'superset_',\n    'CACHE_REDIS_HOST': env('REDIS_HOST'),\n    'CACHE_REDIS_PORT': env('REDIS_PORT'),\n    'CACHE_REDIS_DB': 1,\n}\nDATA_CACHE_CONFIG = CACHE_CONFIG\n\nSQLALCHEMY_DATABASE_URI = f\"postgresql+psycopg2://{env('DB_USER')}:{env('DB_PASS')}@{env('DB_HOST')}:{env('DB_PORT')}/{env('DB_NAME')}\"\nSQLALCHEMY_TRACK_MODIFICATIONS = True\n\nclass CeleryConfig:\n    imports = ('superset.sql_lab',)\n    broker_url = f\"redis://{env('REDIS_HOST')}:{env('REDIS_PORT')}/0\"\n    result_backend = f\"redis://{env('REDIS_HOST')}:{env('REDIS_PORT')}/0\"\n\nCELERY_CONFIG = CeleryConfig\nRESULTS_BACKEND = RedisCache(host=env('REDIS_HOST'), port=env('REDIS_PORT'), key_prefix='superset_results')\n",
							"superset_bootstrap.sh": "#!/bin/bash\nif [ ! -f ~/bootstrap ]; then echo \"Running Superset with uid 0\" > ~/bootstrap; fi\n",
							"superset_init.sh":      "#!/bin/sh\nset -eu\necho \"Upgrading DB schema...\"\nsuperset db upgrade\necho \"Initializing roles...\"\nsuperset init\n"})
					},
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("superset-postgresql", "docker.io/bitnami/postgresql:14.10.0", "superset-postgresql-hl", 1, pg, nil, "tcp-postgresql", 5432))
					},
					func() error {
						return e.createService(ctx, w8bService("superset-postgresql", pg, "tcp-postgresql", 5432))
					},
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("superset-redis-master", "docker.io/bitnami/redis:7.2.4", "superset-redis-headless", 1, redis, nil, "redis", 6379))
					},
					func() error {
						return e.createService(ctx, w8bHeadless("superset-redis-headless", redis, "redis", 6379))
					},
					func() error {
						d := w8bDeployment("superset", "apachesuperset.docker.scarf.sh/apache/superset:3.1.3", 1, superset, crash("1", "", "w10a-superset-default-secret-key"), "http", 8088)
						w10aMain(&d.Spec.Template, "superset")
						d.Spec.Template.Spec.Containers[0].Command = []string{"/bin/sh", "-c", ". /app/pythonpath/superset_bootstrap.sh; /usr/bin/run-server.sh"}
						w8bEnv(&d.Spec.Template, "SUPERSET_PORT", "8088")
						envFromSecret(&d.Spec.Template, "superset-env")
						mountSecret(&d.Spec.Template, "superset-config", "/app/pythonpath")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("superset", superset, "http", 8088)) },
					func() error {
						d := w8bDeployment("superset-worker", "apachesuperset.docker.scarf.sh/apache/superset:3.1.3", 1, worker, crash("1", "", "w10a-superset-default-secret-key"), "", 0)
						w10aMain(&d.Spec.Template, "superset", "celery", "--app=superset.tasks.celery_app:app", "worker")
						envFromSecret(&d.Spec.Template, "superset-env")
						mountSecret(&d.Spec.Template, "superset-config", "/app/pythonpath")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("superset", "superset.example.com", "superset", 8088))
					},
				)
			},
			Wait: all(podsWith(superset, crashLooping(2)), podsWith(w8cLabels("app", "superset-worker", "release", "superset"), crashLooping(1))),
		},
		{
			// The team replaced the chart with their own manifests; the headless Service that
			// governs the StatefulSet lost publishNotReadyAddresses, so no peer gets a DNS
			// record before it is ready, and MinIO never gets ready before it sees its peers.
			Name: "minio-headless-not-publishing-not-ready", Covers: "artifacts-api is not ready, its bucket check gets connection refused from minio:9000; the 4 MinIO pods run but are never ready, logging 'Waiting for all other servers to be online to format the drives' and 'lookup minio-0.minio-hl ... no such host': the headless Service minio-hl does not publish not-ready addresses",
			Source: w10aSrcMinioHeadless, Class: ClassMechanism, Hops: 2,
			Problem: "artifacts-api has not been ready since we rebuilt the MinIO cluster from our own manifests",
			Target:  target("Deployment", "artifacts-api"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "minio-hl"}, Terms: []string{"publishNotReadyAddresses"}},
			Setup: func(ctx context.Context, e *Env) error {
				web := w8bLabels("artifacts-web", "ci-artifacts")
				return steps(
					func() error {
						return e.createSecret(ctx, "minio", map[string]string{"rootUser": "artifacts-admin", "rootPassword": "Zx8rN2qLw5TbV1sK"})
					},
					func() error {
						st := w8bStatefulSet("minio", "quay.io/minio/minio:RELEASE.2024-10-13T13-34-11Z", "minio-hl", 4, minio,
							sim("readiness-fail", annLogs, "w10a-minio-waiting-peers"), "api", 9000)
						w10aMain(&st.Spec.Template, "minio", "server", "http://minio-{0...3}.minio-hl:9000/export", "--console-address", ":9001")
						w10aPort(&st.Spec.Template, "console", 9001)
						st.Spec.Template.Spec.Containers[0].ReadinessProbe = w10aProbe("/minio/health/ready", "api", 5)
						envKeyFromSecret(&st.Spec.Template, "MINIO_ROOT_USER", "minio", "rootUser")
						envKeyFromSecret(&st.Spec.Template, "MINIO_ROOT_PASSWORD", "minio", "rootPassword")
						return e.w10aClaimedStatefulSet(ctx, st, "export", "100Gi", "/export")
					},
					func() error {
						s := w8bHeadless("minio-hl", minio, "api", 9000)
						s.Spec.PublishNotReadyAddresses = false
						return e.createService(ctx, s)
					},
					func() error { return e.createService(ctx, w8bService("minio", minio, "api", 9000)) },
					func() error { return e.createService(ctx, w8bService("minio-console", minio, "console", 9001)) },
					func() error {
						d := w8bDeployment("artifacts-api", "registry.example/ci/artifacts-api:2.6.1", 2, artifacts,
							sim("readiness-fail", annLogs, "w10a-artifacts-api-minio"), "http", 8080)
						w8bEnv(&d.Spec.Template, "S3_ENDPOINT", "minio:9000", "S3_BUCKET", "build-artifacts", "S3_SECURE", "false")
						envKeyFromSecret(&d.Spec.Template, "S3_ACCESS_KEY", "minio", "rootUser")
						envKeyFromSecret(&d.Spec.Template, "S3_SECRET_KEY", "minio", "rootPassword")
						w8bReadiness(&d.Spec.Template, "/readyz", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("artifacts-api", artifacts, "http", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("artifacts-web", "registry.example/ci/artifacts-web:2.6.1", 1, web, nil, "http", 8080))
					},
				)
			},
			Wait: all(w10aStatefulSetPods(minio, 4, runningNotReady), podsWith(artifacts, runningNotReady)),
		},
	}
}
