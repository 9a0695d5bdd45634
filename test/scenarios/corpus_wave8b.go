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
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Wave 8b: broken clusters written by an outside hand from public GitHub issues and incident
// write-ups (named in Source by URL), each laid out as the team in the issue would run it:
// their own labels and port names, healthy neighbours, and the application's error in its
// own log format (Spring Boot, celery, Rails, gunicorn, pino, Elasticsearch/Kibana ECS JSON,
// mongod), often away from the last line. The expected answer is what an SRE reading the
// issue would name, fixed before the engine ran.

const (
	w8bSrcKafkaListeners  = "https://github.com/obsidiandynamics/kafdrop/issues/353 (Connection to node (localhost/127.0.0.1:9092) could not be established, Kafka in Kubernetes)"
	w8bSrcServiceLinks    = "https://github.com/bitnami/bitnami-docker-redis/issues/175 (a Service named redis injects REDIS_PORT=tcp://IP:6379)"
	w8bSrcPgdataLostFound = "https://github.com/sixeyed/kiamol/issues/72 (initdb: data directory is a mount point holding lost+found)"
	w8bSrcAllowedHosts    = "https://vincentbogousslavsky.com/post/managing-allowed-hosts-in-django-for-kubernetes-health-check"
	w8bSrcPgbouncerPrep   = "https://github.com/pgbouncer/pgbouncer/issues/1118 (prepared statements under pool_mode = transaction)"
	w8bSrcSubPathStale    = "https://github.com/kubernetes/kubernetes/issues/50345 (ConfigMaps mounted with subPath do not update)"
	w8bSrcMaxMapCount     = "https://github.com/elastic/cloud-on-k8s/issues/2853 (vm.max_map_count [65530] is too low)"
	w8bSrcSecretNewline   = "https://github.com/kubernetes/kubernetes/issues/23404 (a trailing newline from echo | base64 in a Secret value)"
)

func wave8bScenarios() []*Scenario {
	return append(append(wave8bFirstScenarios(), wave8bMoreScenarios()...), wave8bThirdScenarios()...)
}

func wave8bFirstScenarios() []*Scenario {
	return []*Scenario{
		{
			// The broker answers bootstrap on kafka:9092 but advertises localhost:9092, so every
			// client then dials itself: the consumer's readiness (Kafka health) fails.
			Name: "order-events-kafka-advertises-localhost", Covers: "a Spring Kafka consumer is not ready and logs 'Connection to node 0 (localhost/127.0.0.1:9092) could not be established'; the broker StatefulSet advertises PLAINTEXT://localhost:9092",
			Source: w8bSrcKafkaListeners, Class: ClassClue, Hops: 2,
			Problem: "order-events-consumer never becomes ready, lag on orders.placed keeps growing",
			Target:  target("Deployment", "order-events-consumer"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "kafka"}, Terms: []string{"ADVERTISED_LISTENERS", "localhost"}},
			Setup: func(ctx context.Context, e *Env) error {
				broker := w8bLabels("kafka", "orders", "app.kubernetes.io/component", "broker")
				consumer := w8bLabels("order-events-consumer", "orders")
				api := w8bLabels("order-api", "orders")
				return steps(
					func() error {
						st := w8bStatefulSet("kafka", "docker.io/bitnami/kafka:3.7.0", "kafka-headless", 1, broker, running("w8b-kafka-broker-startup"), "client", 9092)
						w8bEnv(&st.Spec.Template, "KAFKA_CFG_NODE_ID", "0", "KAFKA_CFG_PROCESS_ROLES", "controller,broker",
							"KAFKA_CFG_LISTENERS", "PLAINTEXT://:9092,CONTROLLER://:9093",
							"KAFKA_CFG_ADVERTISED_LISTENERS", "PLAINTEXT://localhost:9092",
							"KAFKA_CFG_CONTROLLER_LISTENER_NAMES", "CONTROLLER",
							"KAFKA_CFG_CONTROLLER_QUORUM_VOTERS", "0@kafka-0.kafka-headless:9093")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("kafka-headless", broker, "client", 9092)) },
					func() error { return e.createService(ctx, w8bService("kafka", broker, "client", 9092)) },
					func() error {
						d := w8bDeployment("order-api", "registry.example/orders/order-api:4.1.0", 2, api, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_KAFKA_BOOTSTRAP_SERVERS", "kafka:9092", "SPRING_PROFILES_ACTIVE", "prod")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("order-api", api, "http", 80)) },
					func() error {
						d := w8bDeployment("order-events-consumer", "registry.example/orders/order-events-consumer:2.8.1", 2, consumer,
							sim("readiness-fail", annMessage, "Readiness probe failed: HTTP probe failed with statuscode: 503", annLogs, "w8b-order-events-kafka-localhost"), "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_KAFKA_BOOTSTRAP_SERVERS", "kafka:9092", "SPRING_KAFKA_CONSUMER_GROUP_ID", "order-events", "SPRING_PROFILES_ACTIVE", "prod")
						w8bReadiness(&d.Spec.Template, "/actuator/health/readiness", "http", 10)
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "kafka", 1) },
				podsWith(w8bLabels("order-events-consumer", "orders"), runningNotReady)),
		},
		{
			// A Service named "redis" was added as a short alias; pods started since then get
			// REDIS_PORT=tcp://10.96.x.x:6379 from service links, which settings.py parses as int.
			Name: "storefront-worker-redis-service-link", Covers: "a celery worker crashes at import with ValueError: invalid literal for int() ... 'tcp://10.96.143.27:6379' for REDIS_PORT, which no spec sets: the new Service named redis injects it (enableServiceLinks)",
			Source: w8bSrcServiceLinks, Class: ClassClue, Hops: 1,
			Problem: "storefront-worker 5.14.3 crash-loops right after start, 5.14.2 web pods are fine",
			Target:  target("Deployment", "storefront-worker"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "storefront-worker"}, Also: []Ref{{Kind: "Service", Name: "redis"}},
				Terms: []string{"REDIS_PORT", "enableServiceLinks"}},
			Setup: func(ctx context.Context, e *Env) error {
				redis := map[string]string{"app.kubernetes.io/name": "redis", "app.kubernetes.io/instance": "storefront", "app.kubernetes.io/component": "master"}
				web := w8bLabels("storefront-web", "storefront")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "storefront-env", map[string]string{"DJANGO_SETTINGS_MODULE": "storefront.settings.production",
							"REDIS_HOST": "redis-master", "DATABASE_HOST": "storefront-db", "CELERY_TASK_DEFAULT_QUEUE": "emails"})
					},
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("redis-master", "docker.io/bitnami/redis:7.2.5", "redis-headless", 1, redis, nil, "tcp-redis", 6379))
					},
					func() error { return e.createService(ctx, w8bHeadless("redis-headless", redis, "tcp-redis", 6379)) },
					func() error { return e.createService(ctx, w8bService("redis-master", redis, "tcp-redis", 6379)) },
					func() error {
						db := w8bLabels("storefront-db", "storefront", "app.kubernetes.io/component", "database")
						if err := e.createStatefulSet(ctx, w8bStatefulSet("storefront-db", "postgres:16.4", "storefront-db", 1, db, nil, "postgres", 5432)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("storefront-db", db, "postgres", 5432))
					},
					func() error {
						d := w8bDeployment("storefront-web", "registry.example/storefront/app:5.14.2", 2, web, nil, "http", 8000)
						d.Spec.Template.Spec.Containers[0].Args = []string{"gunicorn", "storefront.wsgi", "-b", "0.0.0.0:8000", "-w", "4"}
						envFromConfigMap(&d.Spec.Template, "storefront-env")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("storefront-web", web, "http", 80)) },
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				worker := w8bLabels("storefront-worker", "storefront")
				if e.State["alias"] == "" {
					if err := readyReplicas("storefront-web", 2)(ctx, e); err != nil {
						return err
					}
					// Yesterday's change: a short alias for new code, then the worker's release.
					redis := map[string]string{"app.kubernetes.io/name": "redis", "app.kubernetes.io/instance": "storefront", "app.kubernetes.io/component": "master"}
					if err := e.createService(ctx, w8bService("redis", redis, "tcp-redis", 6379)); err != nil {
						return err
					}
					d := w8bDeployment("storefront-worker", "registry.example/storefront/app:5.14.3", 2, worker, crash("1", "", "w8b-storefront-worker-redis-port"), "", 0)
					d.Spec.Template.Spec.Containers[0].Args = []string{"celery", "-A", "storefront", "worker", "-l", "INFO", "-Q", "emails,thumbnails", "--concurrency", "4"}
					envFromConfigMap(&d.Spec.Template, "storefront-env")
					if err := e.createDeployment(ctx, d); err != nil {
						return err
					}
					e.State["alias"] = "yes"
				}
				return podsWith(worker, crashLooping(3))(ctx, e)
			},
		},
		{
			// The new volume is ext4: lost+found sits in the mount point that is also PGDATA,
			// so initdb refuses it; the API in front reports connection refused.
			Name: "tasks-db-pgdata-on-mount-point", Covers: "a Rails API is not ready (ActiveRecord::ConnectionNotEstablished, connection refused to tasks-db:5432); the postgres StatefulSet crash-loops: initdb finds lost+found because the volume is mounted at the data directory itself",
			Source: w8bSrcPgdataLostFound, Class: ClassRanking, Hops: 2,
			Problem: "tasks-api has been 0/2 ready since we moved the database to its own volume",
			Target:  target("Deployment", "tasks-api"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "tasks-db"}, Terms: []string{"lost+found"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8bLabels("tasks-db", "tasks", "app.kubernetes.io/component", "database")
				api := w8bLabels("tasks-api", "tasks")
				web := w8bLabels("tasks-web", "tasks")
				return steps(
					func() error {
						return e.createStaticPV(ctx, "tasks-db-data", "data-tasks-db-0", "20Gi", corev1.ReadWriteOnce)
					},
					func() error {
						return e.createSecret(ctx, "tasks-db-auth", map[string]string{"POSTGRES_USER": "tasks", "POSTGRES_PASSWORD": "c2VjcmV0LXRhc2tz", "POSTGRES_DB": "tasks_production"})
					},
					func() error {
						st := w8bStatefulSet("tasks-db", "postgres:16.4", "tasks-db-headless", 1, db, crash("1", "", "w8b-tasks-db-initdb-lost-found"), "postgres", 5432)
						envFromSecret(&st.Spec.Template, "tasks-db-auth")
						w8bClaimTemplate(st, "data", "20Gi", "/var/lib/postgresql/data")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("tasks-db-headless", db, "postgres", 5432)) },
					func() error { return e.createService(ctx, w8bService("tasks-db", db, "postgres", 5432)) },
					func() error {
						return e.createConfigMap(ctx, "tasks-api-env", map[string]string{"RAILS_ENV": "production", "DATABASE_HOST": "tasks-db", "DATABASE_NAME": "tasks_production", "RAILS_MAX_THREADS": "5"})
					},
					func() error {
						d := w8bDeployment("tasks-api", "registry.example/tasks/api:3.9.0", 2, api,
							sim("readiness-fail", annMessage, "Readiness probe failed: HTTP probe failed with statuscode: 503", annLogs, "w8b-tasks-api-pg-refused"), "http", 3000)
						envFromConfigMap(&d.Spec.Template, "tasks-api-env")
						w8bReadiness(&d.Spec.Template, "/up", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("tasks-api", api, "http", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("tasks-web", "nginxinc/nginx-unprivileged:1.27-alpine", 2, web, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("tasks-web", web, "http", 80)) },
				)
			},
			Wait: all(podsWith(w8bLabels("tasks-db", "tasks", "app.kubernetes.io/component", "database"), crashLooping(2)),
				podsWith(w8bLabels("tasks-api", "tasks"), runningNotReady)),
		},
		{
			// The settings refactor made ALLOWED_HOSTS come from a ConfigMap that lists only the
			// public and Service names; the kubelet's probe uses the pod IP, Django answers 400.
			Name: "billing-web-probe-disallowed-host", Covers: "an Ingress answers 503: its Service has no ready endpoint because every billing-web pod fails readiness with 400; Django logs DisallowedHost for the pod IP, ALLOWED_HOSTS comes from a ConfigMap",
			Source: w8bSrcAllowedHosts, Class: ClassClue, Hops: 3,
			Problem: "billing.example.com returns 503 since this morning's settings refactor",
			Target:  target("Ingress", "billing"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "billing-web-env"}, Terms: []string{"ALLOWED_HOSTS"}},
			Setup: func(ctx context.Context, e *Env) error {
				web := w8bLabels("billing-web", "billing", "app.kubernetes.io/component", "web")
				worker := w8bLabels("billing-worker", "billing", "app.kubernetes.io/component", "worker")
				db := w8bLabels("billing-db", "billing", "app.kubernetes.io/component", "database")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "billing-web-env", map[string]string{
							"DJANGO_SETTINGS_MODULE": "billing.settings.production",
							"DJANGO_ALLOWED_HOSTS":   "billing.example.com,billing-web,billing-web.billing.svc.cluster.local",
							"DATABASE_HOST":          "billing-db",
							"CELERY_BROKER_URL":      "redis://billing-redis:6379/0",
							"GUNICORN_CMD_ARGS":      "--workers 2 --threads 4",
						})
					},
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("billing-db", "postgres:16.4", "billing-db", 1, db, nil, "postgres", 5432))
					},
					func() error { return e.createService(ctx, w8bService("billing-db", db, "postgres", 5432)) },
					func() error {
						redis := w8bLabels("billing-redis", "billing", "app.kubernetes.io/component", "broker")
						if err := e.createDeployment(ctx, w8bDeployment("billing-redis", "redis:7.2.5-alpine", 1, redis, nil, "redis", 6379)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("billing-redis", redis, "redis", 6379))
					},
					func() error {
						d := w8bDeployment("billing-worker", "registry.example/billing/app:2024.11.3", 1, worker, nil, "", 0)
						d.Spec.Template.Spec.Containers[0].Args = []string{"celery", "-A", "billing", "worker", "-l", "INFO"}
						envFromConfigMap(&d.Spec.Template, "billing-web-env")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("billing-web", "registry.example/billing/app:2024.11.3", 2, web,
							sim("readiness-fail", annMessage, "Readiness probe failed: HTTP probe failed with statuscode: 400", annLogs, "w8b-billing-web-disallowed-host"), "http", 8000)
						d.Spec.Template.Spec.Containers[0].Args = []string{"gunicorn", "billing.wsgi", "-b", "0.0.0.0:8000"}
						envFromConfigMap(&d.Spec.Template, "billing-web-env")
						w8bReadiness(&d.Spec.Template, "/healthz/", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("billing-web", web, "http", 80)) },
					func() error { return e.createIngress(ctx, ingress("billing", "billing-web", 80)) },
				)
			},
			Wait: all(podsWith(w8bLabels("billing-web", "billing", "app.kubernetes.io/component", "web"), runningNotReady), podEvent("Unhealthy", "400")),
		},
		{
			// PgBouncer was put in front of the database with pool_mode = transaction; the JDBC
			// driver's server-side prepared statements then land on other clients' connections.
			Name: "ledger-pgbouncer-transaction-pooling", Covers: "a Ready Spring service logs PSQLException 'prepared statement \"S_1\" already exists' / 'S_4 does not exist' on about half the requests; it reaches postgres through a PgBouncer whose ConfigMap sets pool_mode = transaction",
			Source: w8bSrcPgbouncerPrep, Class: ClassOutside, Hops: 3,
			Problem: "ledger-service returns 500 on roughly every other request since pgbouncer went in",
			Target:  target("Deployment", "ledger-service"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "pgbouncer-config"}, Terms: []string{"pool_mode", "prepared statement"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8bLabels("ledger-db", "ledger", "app.kubernetes.io/component", "database")
				bouncer := w8bLabels("pgbouncer", "ledger", "app.kubernetes.io/component", "pooler")
				svc := w8bLabels("ledger-service", "ledger")
				ui := w8bLabels("ledger-ui", "ledger")
				return steps(
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("ledger-db", "postgres:16.4", "ledger-db", 1, db, nil, "postgres", 5432))
					},
					func() error { return e.createService(ctx, w8bService("ledger-db", db, "postgres", 5432)) },
					func() error {
						return e.createConfigMap(ctx, "pgbouncer-config", map[string]string{"pgbouncer.ini": "[databases]\nledger = host=ledger-db port=5432 dbname=ledger\n\n" +
							"[pgbouncer]\nlisten_addr = 0.0.0.0\nlisten_port = 6432\nauth_type = scram-sha-256\nauth_file = /etc/pgbouncer/userlist.txt\n" +
							"pool_mode = transaction\nmax_client_conn = 500\ndefault_pool_size = 20\nserver_reset_query = DISCARD ALL\nignore_startup_parameters = extra_float_digits\n"})
					},
					func() error {
						d := w8bDeployment("pgbouncer", "docker.io/bitnami/pgbouncer:1.19.1", 2, bouncer, running("w8b-pgbouncer-running"), "pgbouncer", 6432)
						mountConfigMap(&d.Spec.Template, "pgbouncer-config", "/etc/pgbouncer")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("pgbouncer", bouncer, "pgbouncer", 6432)) },
					func() error {
						d := w8bDeployment("ledger-service", "registry.example/ledger/ledger-service:6.2.0", 3, svc, running("w8b-ledger-service-prepared-statement"), "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_DATASOURCE_URL", "jdbc:postgresql://pgbouncer:6432/ledger", "SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE", "10")
						w8bReadiness(&d.Spec.Template, "/actuator/health/readiness", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("ledger-service", svc, "http", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("ledger-ui", "registry.example/ledger/ui:6.2.0", 1, ui, nil, "http", 8080))
					},
				)
			},
			Wait: all(readyReplicas("pgbouncer", 2), readyReplicas("ledger-service", 3)),
		},
		{
			// The database moved to reports-db and the ConfigMap says so, but the API mounts
			// production.json with subPath: its running pods still read the old host.
			Name: "report-api-subpath-config-stale", Covers: "report-api pods are not ready and log 'getaddrinfo ENOTFOUND reports-db-legacy'; the ConfigMap already names reports-db, but it is mounted with subPath, so running pods never see the update",
			Source: w8bSrcSubPathStale, Class: ClassClue, Hops: 1,
			Problem: "report-api went unready when we retired reports-db-legacy, although its config points at the new database",
			Target:  target("Deployment", "report-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "report-api"}, Terms: []string{"subPath"}},
			Setup: func(ctx context.Context, e *Env) error {
				api := w8bLabels("report-api", "reports")
				return steps(
					func() error { return w8bReportsDB(ctx, e, "reports-db-legacy", "postgres:13.16") },
					func() error { return w8bReportsDB(ctx, e, "reports-db", "postgres:16.4") },
					func() error {
						return e.createConfigMap(ctx, "report-api-config", map[string]string{"production.json": w8bReportConfig("reports-db-legacy")})
					},
					func() error {
						d := w8bDeployment("report-api", "registry.example/reports/report-api:1.18.2", 2, api,
							sim("readiness-fail", annMessage, "Readiness probe failed: HTTP probe failed with statuscode: 503", annLogs, "w8b-report-api-stale-db-host"), "http", 3000)
						t := &d.Spec.Template
						t.Spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: "report-api-config"}}}}}
						t.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: "/app/config/production.json", SubPath: "production.json"}}
						w8bEnv(t, "NODE_ENV", "production", "NODE_CONFIG_DIR", "/app/config")
						w8bReadiness(t, "/ready", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("report-api", api, "http", 80)) },
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["migrated"] == "" {
					if err := podsWith(w8bLabels("report-api", "reports"), runningNotReady)(ctx, e); err != nil {
						return err
					}
					// The cut-over: config first, then the old database goes.
					cm, err := e.Client.CoreV1().ConfigMaps(e.Namespace).Get(ctx, "report-api-config", metav1.GetOptions{})
					if err != nil {
						return err
					}
					cm.Data["production.json"] = w8bReportConfig("reports-db")
					if _, err := e.Client.CoreV1().ConfigMaps(e.Namespace).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
						return err
					}
					if err := ignoreNotFound(e.Client.AppsV1().StatefulSets(e.Namespace).Delete(ctx, "reports-db-legacy", metav1.DeleteOptions{})); err != nil {
						return err
					}
					if err := ignoreNotFound(e.Client.CoreV1().Services(e.Namespace).Delete(ctx, "reports-db-legacy", metav1.DeleteOptions{})); err != nil {
						return err
					}
					e.State["migrated"] = "yes"
				}
				if _, err := e.Client.CoreV1().Services(e.Namespace).Get(ctx, "reports-db-legacy", metav1.GetOptions{}); err == nil {
					return fmt.Errorf("service reports-db-legacy still exists")
				}
				return podsWith(w8bLabels("report-api", "reports"), runningNotReady)(ctx, e)
			},
		},
		{
			// The node pool was replaced; the chart's privileged sysctl init container had been
			// turned off, so every master fails the bootstrap check and Kibana waits forever.
			Name: "kibana-waits-es-max-map-count", Covers: "Kibana is not ready ('Unable to retrieve version information from Elasticsearch nodes. connect ECONNREFUSED'); every elasticsearch-master pod exits 78 on the vm.max_map_count bootstrap check",
			Source: w8bSrcMaxMapCount, Class: ClassRanking, Hops: 2,
			Problem: "Kibana says 'Kibana server is not ready yet' since the node pool upgrade",
			Target:  target("Deployment", "kibana"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "elasticsearch-master"}, Terms: []string{"vm.max_map_count"}},
			Setup: func(ctx context.Context, e *Env) error {
				es := map[string]string{"app": "elasticsearch-master", "chart": "elasticsearch", "release": "logging"}
				kb := map[string]string{"app": "kibana", "release": "logging-kibana"}
				ls := map[string]string{"app": "logstash", "release": "logging-logstash"}
				return steps(
					func() error {
						st := w8bStatefulSet("elasticsearch-master", "docker.elastic.co/elasticsearch/elasticsearch:8.15.3", "elasticsearch-master-headless", 3, es,
							crash("78", "", "w8b-es-max-map-count"), "http", 9200)
						st.Spec.Template.Spec.Containers[0].Ports = append(st.Spec.Template.Spec.Containers[0].Ports, corev1.ContainerPort{Name: "transport", ContainerPort: 9300})
						w8bEnv(&st.Spec.Template, "cluster.name", "logging", "node.roles", "master,data,ingest",
							"discovery.seed_hosts", "elasticsearch-master-headless", "ES_JAVA_OPTS", "-Xms2g -Xmx2g",
							"cluster.initial_master_nodes", "elasticsearch-master-0,elasticsearch-master-1,elasticsearch-master-2")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createService(ctx, w8bHeadless("elasticsearch-master-headless", es, "http", 9200))
					},
					func() error { return e.createService(ctx, w8bService("elasticsearch-master", es, "http", 9200)) },
					func() error {
						d := w8bDeployment("kibana", "docker.elastic.co/kibana/kibana:8.15.3", 1, kb,
							sim("readiness-fail", annMessage, "Readiness probe failed: Error: Got HTTP code 503 but expected a 200", annLogs, "w8b-kibana-es-refused"), "http", 5601)
						w8bEnv(&d.Spec.Template, "ELASTICSEARCH_HOSTS", "https://elasticsearch-master:9200", "SERVER_HOST", "0.0.0.0")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 10, ProbeHandler: corev1.ProbeHandler{
							Exec: &corev1.ExecAction{Command: []string{"bash", "-c", "#!/usr/bin/env bash -e\nhttp () { curl -s -o /dev/null -w '%{http_code}' http://localhost:5601${1}; }\n[[ $(http /app/kibana) == 200 ]] || { echo \"Error: Got HTTP code $(http /app/kibana) but expected a 200\"; exit 1; }"}}}}
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("kibana", kb, "http", 5601)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("logstash", "docker.elastic.co/logstash/logstash:8.15.3", 1, ls, nil, "beats", 5044))
					},
				)
			},
			Wait: all(podsWith(map[string]string{"app": "elasticsearch-master"}, crashLooping(2)), podsWith(map[string]string{"app": "kibana"}, runningNotReady)),
		},
		{
			// The ingest credentials were re-created by hand with `echo $PW | base64`: the
			// password in the Secret ends in a newline, so SCRAM fails; the read-only user is fine.
			Name: "analytics-ingest-secret-trailing-newline", Covers: "an ingest API crashes at startup on pymongo OperationFailure 'Authentication failed' (code 18); mongod logs storedKey mismatch for that user only; the Secret's password value ends in a newline",
			Source: w8bSrcSecretNewline, Class: ClassClue, Hops: 1,
			Problem: "analytics-ingest crash-loops after we rotated its MongoDB password; the dashboard still works",
			Target:  target("Deployment", "analytics-ingest"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "analytics-mongo-ingest"}, Terms: []string{"newline"}},
			Setup: func(ctx context.Context, e *Env) error {
				mongo := map[string]string{"app.kubernetes.io/name": "mongodb", "app.kubernetes.io/instance": "analytics", "app.kubernetes.io/component": "mongodb"}
				ingest := w8bLabels("analytics-ingest", "analytics")
				dash := w8bLabels("analytics-dashboard", "analytics")
				return steps(
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("mongodb", "docker.io/bitnami/mongodb:7.0.14", "mongodb-headless", 1, mongo, running("w8b-mongodb-auth-failed"), "mongodb", 27017))
					},
					func() error { return e.createService(ctx, w8bService("mongodb", mongo, "mongodb", 27017)) },
					func() error {
						return e.w8bSecretBytes(ctx, "analytics-mongo-ingest", map[string]string{"username": "analytics_ingest", "password": "f7Hq2LmR9vXcT4pw\n"})
					},
					func() error {
						return e.createSecret(ctx, "analytics-mongo-readonly", map[string]string{"username": "dashboard_ro", "password": "Vb8nQe3sLk0Zr6ty"})
					},
					func() error {
						d := w8bDeployment("analytics-dashboard", "registry.example/analytics/dashboard:3.4.0", 1, dash, nil, "http", 8050)
						w8bEnv(&d.Spec.Template, "MONGO_HOST", "mongodb", "MONGO_DB", "analytics")
						envKeyFromSecret(&d.Spec.Template, "MONGO_USER", "analytics-mongo-readonly", "username")
						envKeyFromSecret(&d.Spec.Template, "MONGO_PASSWORD", "analytics-mongo-readonly", "password")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("analytics-ingest", "registry.example/analytics/ingest:3.4.0", 2, ingest, crash("3", "", "w8b-analytics-ingest-mongo-auth"), "http", 8000)
						w8bEnv(&d.Spec.Template, "MONGO_HOST", "mongodb", "MONGO_DB", "analytics", "MONGO_AUTH_SOURCE", "analytics")
						envKeyFromSecret(&d.Spec.Template, "MONGO_USER", "analytics-mongo-ingest", "username")
						envKeyFromSecret(&d.Spec.Template, "MONGO_PASSWORD", "analytics-mongo-ingest", "password")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("analytics-ingest", ingest, "http", 80)) },
				)
			},
			Wait: podsWith(w8bLabels("analytics-ingest", "analytics"), crashLooping(3)),
		},
	}
}

// w8bReportsDB creates a one-replica postgres StatefulSet name with its Service.
func w8bReportsDB(ctx context.Context, e *Env, name, image string) error {
	lbl := w8bLabels(name, "reports", "app.kubernetes.io/component", "database")
	if err := e.createStatefulSet(ctx, w8bStatefulSet(name, image, name, 1, lbl, nil, "postgres", 5432)); err != nil {
		return err
	}
	return e.createService(ctx, w8bService(name, lbl, "postgres", 5432))
}

// w8bReportConfig is report-api's production.json pointing at database host.
func w8bReportConfig(host string) string {
	b, _ := json.MarshalIndent(map[string]any{
		"server": map[string]any{"port": 3000, "trustProxy": true},
		"db":     map[string]any{"host": host, "port": 5432, "database": "reports", "user": "report_api", "pool": 10},
		"cache":  map[string]any{"ttlSeconds": 300},
	}, "", "  ")
	return string(b)
}
