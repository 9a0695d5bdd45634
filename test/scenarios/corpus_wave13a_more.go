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
)

func wave13aMoreScenarios() []*Scenario {
	osLbl := w8cLabels("app.kubernetes.io/name", "opensearch", "app.kubernetes.io/instance", "search")
	logstash := w8cLabels("app", "catalog-logstash", "chart", "logstash", "release", "catalog-sync")
	prom := w8cLabels("app.kubernetes.io/name", "prometheus", "app.kubernetes.io/component", "server", "app.kubernetes.io/instance", "prometheus")
	recs := w8cLabels("app.kubernetes.io/name", "recommendations", "app.kubernetes.io/instance", "recs")
	grafana := w8cLabels("app.kubernetes.io/name", "grafana", "app.kubernetes.io/instance", "grafana")
	kafka := w8cLabels("app.kubernetes.io/name", "kafka", "app.kubernetes.io/instance", "events-kafka", "app.kubernetes.io/component", "controller-eligible")
	return []*Scenario{
		{
			// Search moved from the Elastic chart to OpenSearch; the Logstash pipeline that
			// syncs the catalog still sends to the old Service name. Logstash keeps running and
			// retrying, so nothing is red, but the index stops changing.
			Name: "catalog-logstash-output-host-stale", Covers: "outside the catalogue: catalog-logstash is Running and Ready and its JDBC input runs, but every bulk request fails with 'Elasticsearch Unreachable: [http://elasticsearch-master:9200/][Manticore::ResolutionFailure] elasticsearch-master: Name or service not known'; the output hosts in ConfigMap logstash-pipeline name the retired Service, the cluster is now opensearch-cluster-master",
			Source: w13aSrcLogstash, Class: ClassOutside, Hops: 1,
			Problem: "search results are stale: price changes made this morning still don't show up in product search",
			Target:  target("StatefulSet", "catalog-logstash"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "logstash-pipeline"}, Terms: []string{"elasticsearch-master"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := w8bStatefulSet("opensearch-cluster-master", "opensearchproject/opensearch:2.17.1", "opensearch-cluster-master-headless", 1, osLbl, nil, "http", 9200)
						w10aPort(&st.Spec.Template, "transport", 9300)
						w8bEnv(&st.Spec.Template, "cluster.name", "search", "discovery.type", "single-node", "DISABLE_SECURITY_PLUGIN", "true", "OPENSEARCH_JAVA_OPTS", "-Xms1g -Xmx1g")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createService(ctx, w10aServicePort(w8bHeadless("opensearch-cluster-master-headless", osLbl, "http", 9200), "transport", 9300))
					},
					func() error {
						return e.createService(ctx, w8bService("opensearch-cluster-master", osLbl, "http", 9200))
					},
					func() error {
						return e.createConfigMap(ctx, "logstash-config", map[string]string{
							"logstash.yml":  "http.host: 0.0.0.0\npipeline.ecs_compatibility: disabled\nlog.level: info\n",
							"pipelines.yml": "- pipeline.id: catalog-sync\n  path.config: /usr/share/logstash/pipeline/catalog-sync.conf\n"})
					},
					func() error {
						return e.createConfigMap(ctx, "logstash-pipeline", map[string]string{"catalog-sync.conf": "input {\n  jdbc {\n    jdbc_connection_string => \"jdbc:postgresql://catalog-postgres:5432/catalog\"\n    jdbc_user => \"catalog_ro\"\n    jdbc_password => \"${JDBC_PASSWORD}\"\n    jdbc_driver_class => \"org.postgresql.Driver\"\n    schedule => \"* * * * *\"\n    statement => \"SELECT sku, name, price_cents, stock, updated_at FROM products WHERE updated_at > :sql_last_value\"\n    use_column_value => true\n    tracking_column => \"updated_at\"\n    tracking_column_type => \"timestamp\"\n  }\n}\noutput {\n  elasticsearch {\n    hosts => [\"http://elasticsearch-master:9200\"]\n    index => \"products\"\n    document_id => \"%{sku}\"\n  }\n}\n"})
					},
					func() error {
						return e.createSecret(ctx, "logstash-jdbc", map[string]string{"JDBC_PASSWORD": "Rb3nW8qKz1Xv"})
					},
					func() error {
						st := w8bStatefulSet("catalog-logstash", "docker.elastic.co/logstash/logstash:8.15.3", "catalog-logstash-headless", 1, logstash, running("w13a-catalog-logstash"), "http", 9600)
						w8bEnv(&st.Spec.Template, "LS_JAVA_OPTS", "-Xms512m -Xmx512m")
						envFromSecret(&st.Spec.Template, "logstash-jdbc")
						mountConfigMap(&st.Spec.Template, "logstash-config", "/usr/share/logstash/config")
						mountConfigMap(&st.Spec.Template, "logstash-pipeline", "/usr/share/logstash/pipeline")
						w8bReadiness(&st.Spec.Template, "/", "http", 10)
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createService(ctx, w8bHeadless("catalog-logstash-headless", logstash, "http", 9600))
					},
					func() error {
						d := w8bDeployment("search-api", "registry.example/catalog/search-api:3.1.0", 2, w8bLabels("search-api", "catalog"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "OPENSEARCH_URL", "http://opensearch-cluster-master:9200", "SEARCH_INDEX", "products")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(w8cStatefulSetReady("catalog-logstash", 1), w8cStatefulSetReady("opensearch-cluster-master", 1), readyReplicas("search-api", 2)),
		},
		{
			// Mimir runs multi-tenant; Grafana sends X-Scope-OrgID through the gateway, but the
			// new remote_write in the Prometheus ConfigMap pushes straight to the distributor
			// without the header, so every sample batch is refused.
			Name: "prometheus-mimir-remote-write-no-org-id", Covers: "outside the catalogue: prometheus-server is Running and Ready but logs 'non-recoverable error ... err=\"server returned HTTP status 401 Unauthorized: no org id\"' for remote_write to http://mimir-distributor:8080/api/v1/push; the remote_write in ConfigMap prometheus-server sets no X-Scope-OrgID header (Grafana's Mimir datasource sends one)",
			Source: w13aSrcMimirOrgID, Class: ClassOutside, Hops: 1,
			Problem: "Grafana dashboards backed by Mimir show no data for the last two hours, though Prometheus itself is up",
			Target:  target("Deployment", "prometheus-server"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "prometheus-server"}, Terms: []string{"org"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "mimir-config", map[string]string{"mimir.yaml": "multitenancy_enabled: true\ntarget: all\nserver:\n  http_listen_port: 8080\nblocks_storage:\n  backend: s3\n  s3:\n    bucket_name: acme-mimir-blocks\n    endpoint: s3.eu-central-1.amazonaws.com\n"})
					},
					func() error {
						d := w8bDeployment("mimir-distributor", "grafana/mimir:2.14.0", 1, w8cLabels("app.kubernetes.io/name", "mimir", "app.kubernetes.io/component", "distributor"), nil, "http-metrics", 8080)
						w8cArgs(&d.Spec.Template, "-target=distributor", "-config.file=/etc/mimir/mimir.yaml")
						mountConfigMap(&d.Spec.Template, "mimir-config", "/etc/mimir")
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						d := w8bDeployment("mimir-nginx", "nginxinc/nginx-unprivileged:1.27-alpine", 1, w8cLabels("app.kubernetes.io/name", "mimir", "app.kubernetes.io/component", "nginx"), nil, "http-metric", 8080)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createConfigMap(ctx, "prometheus-server", map[string]string{"prometheus.yml": "global:\n  scrape_interval: 30s\n  evaluation_interval: 30s\n  external_labels:\n    cluster: prod-eu-1\nremote_write:\n- name: mimir\n  url: http://mimir-distributor:8080/api/v1/push\n  queue_config:\n    max_samples_per_send: 2000\n    capacity: 10000\nrule_files:\n- /etc/config/recording_rules.yml\n- /etc/config/alerting_rules.yml\nscrape_configs:\n- job_name: prometheus\n  static_configs:\n  - targets: [localhost:9090]\n- job_name: kubernetes-pods\n  kubernetes_sd_configs:\n  - role: pod\n",
							"recording_rules.yml": "{}\n", "alerting_rules.yml": "{}\n"})
					},
					func() error {
						d := w8bDeployment("prometheus-server", "quay.io/prometheus/prometheus:v2.54.1", 1, prom, running("w13a-prometheus-mimir-org"), "http", 9090)
						d.Spec.Template.Spec.Containers[0].Name = "prometheus-server"
						w8cArgs(&d.Spec.Template, "--config.file=/etc/config/prometheus.yml", "--storage.tsdb.path=/data", "--storage.tsdb.retention.time=15d", "--web.enable-lifecycle")
						mountConfigMap(&d.Spec.Template, "prometheus-server", "/etc/config")
						w8cSidecar(&d.Spec.Template, "prometheus-server-configmap-reload", "quay.io/prometheus-operator/prometheus-config-reloader:v0.76.0", "--watched-dir=/etc/config", "--reload-url=http://127.0.0.1:9090/-/reload")
						w8bReadiness(&d.Spec.Template, "/-/ready", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.w10aConfigMap(ctx, "grafana-datasources", w8cLabels("grafana_datasource", "1"), map[string]string{"datasources.yaml": "apiVersion: 1\ndatasources:\n- name: Mimir\n  type: prometheus\n  uid: mimir\n  url: http://mimir-nginx/prometheus\n  isDefault: true\n  jsonData:\n    httpHeaderName1: X-Scope-OrgID\n  secureJsonData:\n    httpHeaderValue1: platform\n"})
					},
					func() error {
						d := w8bDeployment("grafana", "docker.io/grafana/grafana:11.2.2", 1, w8cLabels("app.kubernetes.io/name", "grafana", "app.kubernetes.io/instance", "grafana"), nil, "grafana", 3000)
						mountConfigMap(&d.Spec.Template, "grafana-datasources", "/etc/grafana/provisioning/datasources")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(readyReplicas("prometheus-server", 1), readyReplicas("mimir-distributor", 1), readyReplicas("grafana", 1)),
		},
		{
			// The hand-written Service kept the chart's version label in its selector; the 2.4.0
			// rollout relabelled the pods, so the cluster IP home-api dials has no endpoint and
			// the connection is refused. The metrics Service next to it selects without the
			// version and still has both pods.
			Name: "home-recs-service-selector-pins-version", Covers: "home-api is Running and Ready but logs 'recommendations fetch failed ... connect ECONNREFUSED 10.96.0.137:8080' on every home page; 10.96.0.137 is Service recommendations, whose selector still requires app.kubernetes.io/version=2.3.0 while the pods are 2.4.0, so it has no endpoints (recommendations-metrics selects them fine)",
			Source: w13aSrcSelector, Class: ClassProvider, Hops: 2,
			Problem: "the 'For you' rail disappeared from the home page after the recommendations rollout; home-api itself looks healthy",
			Target:  target("Deployment", "home-api"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "recommendations"}, Terms: []string{"selector"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						lbl := w8cLabels("app.kubernetes.io/name", "recommendations", "app.kubernetes.io/instance", "recs", "app.kubernetes.io/version", "2.4.0")
						d := w8bDeployment("recommendations", "registry.example/discovery/recommendations:2.4.0", 2, lbl, nil, "http", 8080)
						d.Spec.Selector.MatchLabels = recs
						w10aPort(&d.Spec.Template, "metrics", 9102)
						w8bEnv(&d.Spec.Template, "MODEL_URI", "s3://acme-models/recs/2026-11-27/", "FEATURE_STORE_URL", "redis://features-redis:6379/0")
						return e.createDeployment(ctx, d)
					},
					func() error {
						s := w8bService("recommendations", w8cLabels("app.kubernetes.io/name", "recommendations", "app.kubernetes.io/instance", "recs", "app.kubernetes.io/version", "2.3.0"), "http", 8080)
						s.Spec.ClusterIP = "10.96.0.137"
						return e.createService(ctx, s)
					},
					func() error {
						return e.createService(ctx, w8bService("recommendations-metrics", recs, "metrics", 9102))
					},
					func() error {
						d := w8bDeployment("home-api", "registry.example/web/home-api:6.1.0", 2, w8bLabels("home-api", "web"), running("w13a-home-api-recs"), "http", 3000)
						w8bEnv(&d.Spec.Template, "CATALOG_URL", "http://catalog-api", "RECOMMENDATIONS_URL", "http://recommendations:8080", "CMS_URL", "http://cms-api", "RECS_TIMEOUT_MS", "300")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.w11bServe(ctx, w8bDeployment("catalog-api", "registry.example/web/catalog-api:8.0.3", 2, w8bLabels("catalog-api", "web"), nil, "http", 8080), 80)
					},
					func() error {
						return e.w11bServe(ctx, w8bDeployment("cms-api", "registry.example/web/cms-api:2.2.1", 1, w8bLabels("cms-api", "web"), nil, "http", 1337), 80)
					},
				)
			},
			Wait: all(readyReplicas("home-api", 2), readyReplicas("recommendations", 2)),
		},
		{
			// The prometheus chart's Service listens on 80 and forwards to the pod's 9090; the
			// datasource that was written for a port-forward still says :9090, which the cluster
			// IP does not serve, so every query times out. Loki queries work.
			Name: "grafana-datasource-prometheus-port-9090", Covers: "outside the catalogue: grafana is Running and Ready but every Prometheus query logs 'Post \"http://prometheus-server:9090/api/v1/query_range\": dial tcp 10.96.0.149:9090: i/o timeout'; Service prometheus-server (10.96.0.149) exposes port 80 (targetPort 9090), and the url in ConfigMap grafana-datasources uses :9090",
			Source: w13aSrcGrafanaPort, Class: ClassOutside, Hops: 2,
			Problem: "every Prometheus panel in Grafana times out or shows No data, Loki panels work; the Grafana pod is healthy",
			Target:  target("Deployment", "grafana"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "grafana-datasources"}, Terms: []string{"9090"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("prometheus-server", "quay.io/prometheus/prometheus:v2.54.1", 1, prom, nil, "web", 9090)
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						s := w10aServiceTo("prometheus-server", prom, "http", 80, "web")
						s.Spec.ClusterIP = "10.96.0.149"
						return e.createService(ctx, s)
					},
					func() error {
						d := w8bDeployment("loki-gateway", "nginxinc/nginx-unprivileged:1.27-alpine", 1, w8cLabels("app.kubernetes.io/name", "loki", "app.kubernetes.io/component", "gateway"), nil, "http-metrics", 8080)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.w10aConfigMap(ctx, "grafana-datasources", w8cLabels("grafana_datasource", "1"), map[string]string{"datasources.yaml": "apiVersion: 1\ndatasources:\n- name: Prometheus\n  type: prometheus\n  uid: prometheus\n  url: http://prometheus-server:9090\n  access: proxy\n  isDefault: true\n  jsonData:\n    timeInterval: 30s\n- name: Loki\n  type: loki\n  uid: loki\n  url: http://loki-gateway\n  access: proxy\n"})
					},
					func() error {
						return e.createConfigMap(ctx, "grafana", map[string]string{"grafana.ini": "[server]\nroot_url = https://grafana.example.com\n[auth.anonymous]\nenabled = false\n[analytics]\nreporting_enabled = false\n"})
					},
					func() error {
						d := w8bDeployment("grafana", "docker.io/grafana/grafana:11.2.2", 1, grafana, running("w13a-grafana-datasource"), "grafana", 3000)
						mountConfigMap(&d.Spec.Template, "grafana", "/etc/grafana")
						mountConfigMap(&d.Spec.Template, "grafana-datasources", "/etc/grafana/provisioning/datasources")
						w8bReadiness(&d.Spec.Template, "/api/health", "grafana", 10)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(readyReplicas("grafana", 1), readyReplicas("prometheus-server", 1)),
		},
		{
			// Staging runs a single Kafka broker; the topic bootstrap ConfigMap was copied from
			// production with replication factor 3, so the release's create-topics Job fails.
			Name: "kafka-topics-job-replication-factor-3", Covers: "KubeJobFailed: Job create-topics-1-12-0 fails with 'InvalidReplicationFactorException: Replication factor: 3 larger than available brokers: 1.'; DEFAULT_REPLICATION_FACTOR=3 in ConfigMap kafka-topics-config (copied from production) while staging's events-kafka-controller runs one broker",
			Source: w13aSrcKafkaRF, Class: ClassClue, Hops: 2,
			Problem: "KubeJobFailed: the staging release pipeline is blocked at the create-topics job",
			Target:  target("Job", "create-topics-1-12-0"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "kafka-topics-config"}, Terms: []string{"replication"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := w8bStatefulSet("events-kafka-controller", "docker.io/bitnami/kafka:3.8.1", "events-kafka-controller-headless", 1, kafka, nil, "client", 9092)
						w10aPort(&st.Spec.Template, "controller", 9093)
						w8bEnv(&st.Spec.Template, "KAFKA_CFG_PROCESS_ROLES", "controller,broker", "KAFKA_CFG_CONTROLLER_QUORUM_VOTERS", "0@events-kafka-controller-0.events-kafka-controller-headless:9093",
							"KAFKA_CFG_DEFAULT_REPLICATION_FACTOR", "1", "KAFKA_CFG_OFFSETS_TOPIC_REPLICATION_FACTOR", "1")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createService(ctx, w8bHeadless("events-kafka-controller-headless", kafka, "client", 9092))
					},
					func() error { return e.createService(ctx, w8bService("events-kafka", kafka, "client", 9092)) },
					func() error {
						return e.createConfigMap(ctx, "kafka-topics-config", map[string]string{"BOOTSTRAP_SERVER": "events-kafka:9092", "DEFAULT_REPLICATION_FACTOR": "3",
							"MIN_INSYNC_REPLICAS": "2", "TOPICS": "orders.created:12,orders.paid:12,orders.shipped:6,orders.dlq:3"})
					},
					func() error {
						return e.createConfigMap(ctx, "create-topics-script", map[string]string{"create-topics.sh": "#!/bin/bash\nset -euo pipefail\necho \"[create-topics] bootstrap server: ${BOOTSTRAP_SERVER}\"\nIFS=, read -ra topics <<< \"${TOPICS}\"\nfor t in \"${topics[@]}\"; do\n  kafka-topics.sh --bootstrap-server \"${BOOTSTRAP_SERVER}\" --create --if-not-exists --topic \"${t%%:*}\" --partitions \"${t##*:}\" \\\n    --replication-factor \"${DEFAULT_REPLICATION_FACTOR}\" --config min.insync.replicas=\"${MIN_INSYNC_REPLICAS}\"\ndone\n"})
					},
					func() error {
						return e.createConfigMap(ctx, "kafka-ui-config", map[string]string{"KAFKA_CLUSTERS_0_NAME": "staging", "KAFKA_CLUSTERS_0_BOOTSTRAPSERVERS": "events-kafka:9092"})
					},
					func() error {
						d := w8bDeployment("kafka-ui", "provectuslabs/kafka-ui:v0.7.2", 1, w8cLabels("app.kubernetes.io/name", "kafka-ui"), nil, "http", 8080)
						envFromConfigMap(&d.Spec.Template, "kafka-ui-config")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						j := job("create-topics-1-12-0", 1, sim("fail", annExitCode, "1", annLogs, "w13a-kafka-topics-job"))
						j.Spec.Template.Spec.Containers[0].Name = "create-topics"
						j.Spec.Template.Spec.Containers[0].Image = "docker.io/bitnami/kafka:3.8.1"
						j.Spec.Template.Spec.Containers[0].Command = []string{"/bin/bash", "/scripts/create-topics.sh"}
						envFromConfigMap(&j.Spec.Template, "kafka-topics-config")
						mountConfigMap(&j.Spec.Template, "create-topics-script", "/scripts")
						return e.w9aJob(ctx, j)
					},
				)
			},
			Wait: all(w11aJobFailed("create-topics-1-12-0", "BackoffLimitExceeded"), w8cStatefulSetReady("events-kafka-controller", 1)),
		},
	}
}
