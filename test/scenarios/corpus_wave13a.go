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

// Wave 13a: the decisive clue is in a container's log. Written blind by an outside hand from
// public docs, issues and write-ups: each application prints what the real one prints (a
// banner, info noise, the error among retries, a stack or an exit line), and the fix lives in a
// Kubernetes object the text points at: a ConfigMap or Secret key, an env var, a Service's
// selector, a claim's size, a provider's own configuration. Some crash, some run but are never
// Ready, some are Running and Ready and only repeat the error while a business symptom shows;
// Jobs and CronJobs fail; a few servers say why only in their own log. Every Want was written
// from the source before anything ran.

func wave13aScenarios() []*Scenario {
	return append(append(wave13aFirstScenarios(), wave13aMoreScenarios()...), wave13aLateScenarios()...)
}

func wave13aFirstScenarios() []*Scenario {
	tickets := w8bLabels("tickets-api", "helpdesk", "app.kubernetes.io/component", "api")
	ticketsDB := w8bLabels("tickets-postgres", "helpdesk", "app.kubernetes.io/component", "database")
	board := w8cLabels("app.kubernetes.io/name", "leaderboard-api", "app.kubernetes.io/instance", "games", "app.kubernetes.io/managed-by", "Helm")
	boardRedis := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "leaderboard-redis", "app.kubernetes.io/component", "master")
	wallet := w8bLabels("wallet-api", "wallet")
	esLbl := w8cLabels("app", "logs-es-master", "chart", "elasticsearch", "release", "logs-es")
	exports := w8cLabels("app", "exports-api", "tier", "backend", "team", "data")
	return []*Scenario{
		{
			// The database was created by the image with POSTGRES_USER=tickets; the API's
			// credentials Secret names a service account role that was never created.
			Name: "tickets-go-pgx-role-does-not-exist", Covers: "tickets-api (Go, pgx) crash-loops after three attempts on 'server error: FATAL: role \"tickets_svc\" does not exist (SQLSTATE 28000)'; DB_USER in Secret tickets-api-db names a role the tickets-postgres StatefulSet never created (POSTGRES_USER=tickets)",
			Source: w13aSrcPgRole, Class: ClassClue, Hops: 2,
			Problem: "the helpdesk API keeps restarting after the credentials change, tickets can't be opened",
			Target:  target("Deployment", "tickets-api"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "tickets-api-db"}, Terms: []string{"tickets_svc"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "tickets-postgres", map[string]string{"POSTGRES_PASSWORD": "Tq8vM2xLp5Rw"})
					},
					func() error {
						st := w8bStatefulSet("tickets-postgres", "postgres:16.4", "tickets-postgres", 1, ticketsDB, nil, "postgres", 5432)
						w8bEnv(&st.Spec.Template, "POSTGRES_USER", "tickets", "POSTGRES_DB", "tickets", "PGDATA", "/var/lib/postgresql/data/pgdata")
						envKeyFromSecret(&st.Spec.Template, "POSTGRES_PASSWORD", "tickets-postgres", "POSTGRES_PASSWORD")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("tickets-postgres", ticketsDB, "postgres", 5432))
					},
					func() error {
						return e.createConfigMap(ctx, "tickets-api-config", map[string]string{"HTTP_ADDR": ":8080", "DB_HOST": "tickets-postgres", "DB_PORT": "5432",
							"DB_NAME": "tickets", "DB_SSLMODE": "disable", "DB_POOL_MAX": "10", "LOG_LEVEL": "info", "ATTACHMENTS_BUCKET": "acme-helpdesk-attachments"})
					},
					func() error {
						return e.createSecret(ctx, "tickets-api-db", map[string]string{"DB_USER": "tickets_svc", "DB_PASSWORD": "Tq8vM2xLp5Rw"})
					},
					func() error {
						return e.createSecret(ctx, "tickets-web-session", map[string]string{"SESSION_SECRET": "5d1f9a7c3e8b4a20b6c1d9e7f3a5b8c2"})
					},
					func() error {
						d := w11bApp("tickets-api", "api", "registry.example/helpdesk/tickets-api:3.4.1", 2, tickets, crash("1", "", "w13a-tickets-api-pgx-role"), "http", 8080)
						envFromConfigMap(&d.Spec.Template, "tickets-api-config")
						envFromSecret(&d.Spec.Template, "tickets-api-db")
						w8bReadiness(&d.Spec.Template, "/readyz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("tickets-web", "web", "registry.example/helpdesk/tickets-web:3.4.0", 2, w8bLabels("tickets-web", "helpdesk"), nil, "http", 3000)
						w8bEnv(&d.Spec.Template, "API_URL", "http://tickets-api", "NODE_ENV", "production")
						envFromSecret(&d.Spec.Template, "tickets-web-session")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(tickets, crashLooping(2)), w8cStatefulSetReady("tickets-postgres", 1), readyReplicas("tickets-web", 2)),
		},
		{
			// Redis keeps the default 16 logical databases (0-15); the new leaderboard release
			// moved to its "own" database 16 in its env ConfigMap, so SELECT fails at connect.
			Name: "leaderboard-redis-db-index-out-of-range", Covers: "leaderboard-api (Node, ioredis) crash-loops on an unhandled 'ReplyError: ERR DB index is out of range' for SELECT 16; REDIS_DB=16 in ConfigMap leaderboard-env, while the Redis master keeps the default 16 databases (0-15); matchmaking-api uses db 3 of the same Redis and works",
			Source: w13aSrcRedisSelect, Class: ClassClue, Hops: 2,
			Problem: "the game's leaderboard page is down and leaderboard-api pods keep crashing after today's release",
			Target:  target("Deployment", "leaderboard-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "leaderboard-env"}, Terms: []string{"REDIS_DB"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11bStore(ctx, "leaderboard-redis-master", "docker.io/bitnami/redis:7.2.5", boardRedis, nil, "redis", 6379,
							"REDIS_REPLICATION_MODE", "master", "ALLOW_EMPTY_PASSWORD", "yes", "REDIS_AOF_ENABLED", "no")
					},
					func() error {
						return e.createConfigMap(ctx, "leaderboard-env", map[string]string{"NODE_ENV": "production", "PORT": "3000", "REDIS_HOST": "leaderboard-redis-master",
							"REDIS_PORT": "6379", "REDIS_DB": "16", "LEADERBOARD_TTL_SECONDS": "604800", "LOG_LEVEL": "info"})
					},
					func() error {
						return e.createConfigMap(ctx, "matchmaking-env", map[string]string{"NODE_ENV": "production", "PORT": "3000", "REDIS_HOST": "leaderboard-redis-master",
							"REDIS_PORT": "6379", "REDIS_DB": "3", "QUEUE_TIMEOUT_MS": "15000"})
					},
					func() error {
						d := w11bApp("leaderboard-api", "leaderboard-api", "registry.example/games/leaderboard-api:2.7.0", 2, board, crash("1", "", "w13a-leaderboard-redis-db-index"), "http", 3000)
						envFromConfigMap(&d.Spec.Template, "leaderboard-env")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("matchmaking-api", "matchmaking-api", "registry.example/games/matchmaking-api:1.12.3", 2,
							w8cLabels("app.kubernetes.io/name", "matchmaking-api", "app.kubernetes.io/instance", "games", "app.kubernetes.io/managed-by", "Helm"), nil, "http", 3000)
						envFromConfigMap(&d.Spec.Template, "matchmaking-env")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(board, crashLooping(2)), readyReplicas("matchmaking-api", 2)),
		},
		{
			// Spring Boot 3 reads spring.data.redis.*; the ConfigMap still sets the 2.x names,
			// so Lettuce falls back to localhost:6379 and the readiness group (with redis) is
			// DOWN. wallet-admin, still on Boot 2.7, reads the same keys and is fine.
			Name: "wallet-boot3-spring-redis-host-ignored", Covers: "wallet-api (upgraded to Spring Boot 3.2) runs but is never Ready: readiness answers 503 and the log says 'Unable to connect to localhost/<unresolved>:6379' (redis readiness DOWN); ConfigMap wallet-api-config sets SPRING_REDIS_HOST, a Boot 2 name that Boot 3 ignores (spring.data.redis.host)",
			Source: w13aSrcBoot3Redis, Class: ClassClue, Hops: 2,
			Problem: "after the Spring Boot 3 upgrade wallet-api pods never become ready and the wallet page shows 503",
			Target:  target("Deployment", "wallet-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "wallet-api-config"}, Terms: []string{"REDIS_HOST"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11bStore(ctx, "wallet-redis", "redis:7.2.5", w8bLabels("wallet-redis", "wallet", "app.kubernetes.io/component", "cache"), nil, "redis", 6379)
					},
					func() error {
						return e.w11bStore(ctx, "wallet-postgres", "postgres:16.4", w8bLabels("wallet-postgres", "wallet", "app.kubernetes.io/component", "database"), nil, "postgres", 5432,
							"POSTGRES_DB", "wallet", "POSTGRES_USER", "wallet")
					},
					func() error {
						return e.createConfigMap(ctx, "wallet-api-config", map[string]string{"SPRING_PROFILES_ACTIVE": "prod", "SPRING_REDIS_HOST": "wallet-redis", "SPRING_REDIS_PORT": "6379",
							"SPRING_DATASOURCE_URL": "jdbc:postgresql://wallet-postgres:5432/wallet", "SPRING_DATASOURCE_USERNAME": "wallet",
							"MANAGEMENT_ENDPOINT_HEALTH_GROUP_READINESS_INCLUDE": "readinessState,db,redis", "SERVER_PORT": "8080"})
					},
					func() error {
						return e.createConfigMap(ctx, "wallet-admin-config", map[string]string{"SPRING_PROFILES_ACTIVE": "prod", "SPRING_REDIS_HOST": "wallet-redis", "SPRING_REDIS_PORT": "6379"})
					},
					func() error {
						d := w8bDeployment("wallet-api", "registry.example/wallet/wallet-api:5.0.0", 2, wallet, sim("readiness-fail", annLogs, "w13a-wallet-api-boot3-redis"), "http", 8080)
						envFromConfigMap(&d.Spec.Template, "wallet-api-config")
						w8bReadiness(&d.Spec.Template, "/actuator/health/readiness", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("wallet-admin", "registry.example/wallet/wallet-admin:4.9.2", 1, w8bLabels("wallet-admin", "wallet"), nil, "http", 8080)
						envFromConfigMap(&d.Spec.Template, "wallet-admin-config")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(wallet, runningNotReady), readyReplicas("wallet-admin", 1)),
		},
		{
			// The broker only enables SCRAM-SHA-512; the new confirmations consumer was given
			// PLAIN in its ConfigMap. The consumer container keeps running and retrying.
			Name: "order-events-kafka-sasl-mechanism-plain", Covers: "outside the catalogue: order-events-consumer is Running and Ready but logs every 30 s 'Client SASL mechanism 'PLAIN' not enabled in the server, enabled mechanisms are [SCRAM-SHA-512]'; ConfigMap order-events-consumer-config sets SPRING_KAFKA_PROPERTIES_SASL_MECHANISM=PLAIN while the publisher's config uses SCRAM-SHA-512",
			Source: w13aSrcKafkaSASL, Class: ClassOutside, Hops: 1,
			Problem: "customers stopped getting order confirmation e-mails, yet the order-events-consumer pods are Running and Ready",
			Target:  target("Deployment", "order-events-consumer"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "order-events-consumer-config"}, Terms: []string{"PLAIN"}},
			Setup: func(ctx context.Context, e *Env) error {
				kafka := w8cLabels("app.kubernetes.io/name", "kafka", "app.kubernetes.io/instance", "events-kafka", "app.kubernetes.io/component", "controller-eligible")
				return steps(
					func() error {
						return e.createSecret(ctx, "events-kafka-user-passwords", map[string]string{"client-passwords": "Kc4rT9wQ2zLm", "system-user-password": "Zp7nV1xBq6Ts"})
					},
					func() error {
						st := w8bStatefulSet("events-kafka-controller", "docker.io/bitnami/kafka:3.8.1", "events-kafka-controller-headless", 1, kafka, nil, "client", 9092)
						w10aPort(&st.Spec.Template, "controller", 9093)
						w8bEnv(&st.Spec.Template, "KAFKA_CFG_LISTENERS", "CLIENT://:9092,CONTROLLER://:9093", "KAFKA_CFG_LISTENER_SECURITY_PROTOCOL_MAP", "CLIENT:SASL_PLAINTEXT,CONTROLLER:PLAINTEXT",
							"KAFKA_CFG_SASL_ENABLED_MECHANISMS", "SCRAM-SHA-512", "KAFKA_CLIENT_USERS", "orders", "KAFKA_CFG_PROCESS_ROLES", "controller,broker")
						envKeyFromSecret(&st.Spec.Template, "KAFKA_CLIENT_PASSWORDS", "events-kafka-user-passwords", "client-passwords")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createService(ctx, w8bHeadless("events-kafka-controller-headless", kafka, "client", 9092))
					},
					func() error {
						s := w8bService("events-kafka", kafka, "client", 9092)
						s.Spec.ClusterIP = "10.96.0.233"
						return e.createService(ctx, s)
					},
					func() error {
						return e.createConfigMap(ctx, "order-events-consumer-config", map[string]string{"SPRING_KAFKA_BOOTSTRAP_SERVERS": "events-kafka:9092",
							"SPRING_KAFKA_PROPERTIES_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "SPRING_KAFKA_PROPERTIES_SASL_MECHANISM": "PLAIN",
							"SPRING_KAFKA_CONSUMER_GROUP_ID": "order-confirmations", "KAFKA_USERNAME": "orders", "MAIL_FROM": "orders@example.com"})
					},
					func() error {
						return e.createConfigMap(ctx, "order-events-publisher-config", map[string]string{"SPRING_KAFKA_BOOTSTRAP_SERVERS": "events-kafka:9092",
							"SPRING_KAFKA_PROPERTIES_SECURITY_PROTOCOL": "SASL_PLAINTEXT", "SPRING_KAFKA_PROPERTIES_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_USERNAME": "orders"})
					},
					func() error {
						d := w8bDeployment("order-events-consumer", "registry.example/orders/order-events-consumer:1.12.0", 2, w8bLabels("order-events-consumer", "orders"), running("w13a-order-events-sasl"), "http", 8080)
						envFromConfigMap(&d.Spec.Template, "order-events-consumer-config")
						envKeyFromSecret(&d.Spec.Template, "KAFKA_PASSWORD", "events-kafka-user-passwords", "client-passwords")
						w8bReadiness(&d.Spec.Template, "/actuator/health/readiness", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("order-events-publisher", "registry.example/orders/order-events-publisher:1.12.0", 1, w8bLabels("order-events-publisher", "orders"), nil, "http", 8080)
						envFromConfigMap(&d.Spec.Template, "order-events-publisher-config")
						envKeyFromSecret(&d.Spec.Template, "KAFKA_PASSWORD", "events-kafka-user-passwords", "client-passwords")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("order-events-consumer", 2), w8cStatefulSetReady("events-kafka-controller", 1)),
		},
		{
			// The cluster was reinstalled under the release name logs-es; the values file kept
			// the bootstrap list of the old release, so no node ever matches it and the cluster
			// never forms. The chart's readiness check waits for green and fails.
			Name: "logs-es-initial-master-nodes-old-names", Covers: "the three logs-es-master pods run but are never Ready; their log repeats 'master not discovered yet ... must discover master-eligible nodes [elasticsearch-master-0, elasticsearch-master-1, elasticsearch-master-2] to bootstrap a cluster: have discovered [{logs-es-master-0}...]'; cluster.initial_master_nodes in the StatefulSet's env lists the old release's pod names",
			Source: w13aSrcESBootstrap, Class: ClassClue, Hops: 0,
			Problem: "the new logging Elasticsearch never becomes ready after the reinstall, Kibana says the cluster is unavailable",
			Target:  target("StatefulSet", "logs-es-master"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "logs-es-master"}, Terms: []string{"initial_master_nodes"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := w8bStatefulSet("logs-es-master", "docker.elastic.co/elasticsearch/elasticsearch:8.15.3", "logs-es-master-headless", 3, esLbl,
							sim("readiness-fail", annLogs, "w13a-logs-es-master", annMessage, "Readiness probe failed: Waiting for elasticsearch cluster to become ready (request params: \"wait_for_status=green&timeout=1s\" )\nCluster is not yet ready (request params: \"wait_for_status=green&timeout=1s\" )"), "http", 9200)
						w10aPort(&st.Spec.Template, "transport", 9300)
						w10bFieldEnv(&st.Spec.Template, "node.name", "metadata.name")
						w8bEnv(&st.Spec.Template, "cluster.name", "logs", "discovery.seed_hosts", "logs-es-master-headless",
							"cluster.initial_master_nodes", "elasticsearch-master-0,elasticsearch-master-1,elasticsearch-master-2",
							"node.roles", "master,data,data_content,data_hot,ingest", "ES_JAVA_OPTS", "-Xms2g -Xmx2g", "xpack.security.enabled", "false")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createService(ctx, w10aServicePort(w8bHeadless("logs-es-master-headless", esLbl, "http", 9200), "transport", 9300))
					},
					func() error { return e.createService(ctx, w8bService("logs-es-master", esLbl, "http", 9200)) },
					func() error {
						return e.createConfigMap(ctx, "logs-kibana-config", map[string]string{"kibana.yml": "server.host: 0.0.0.0\nelasticsearch.hosts: [\"http://logs-es-master:9200\"]\nlogging.root.level: warn\n"})
					},
					func() error {
						d := w8bDeployment("logs-kibana", "docker.elastic.co/kibana/kibana:8.15.3", 1, w8cLabels("app", "kibana", "release", "logs-kibana"), nil, "http", 5601)
						mountConfigMap(&d.Spec.Template, "logs-kibana-config", "/usr/share/kibana/config")
						return e.w11bServe(ctx, d, 5601)
					},
				)
			},
			Wait: w10aStatefulSetPods(esLbl, 3, runningNotReady),
		},
		{
			// The spool volume of the exports service is full of files waiting for upload; the
			// actuator's disk space check is in the readiness group, so every pod is taken out
			// of the Service. The claim is 1Gi, far below what a day of exports needs.
			Name: "exports-spring-diskspace-readiness-pvc", Covers: "exports-api runs but is never Ready: readiness answers 503 and the log repeats 'Free disk space at path '/data/.' below threshold. Available: 4194304 bytes' next to 'No space left on device'; the 1Gi PersistentVolumeClaim exports-spool mounted at /data is full",
			Source: w13aSrcDiskSpace, Class: ClassClue, Hops: 2,
			Problem: "exports-api is Running but not Ready since this morning and CSV exports fail",
			Target:  target("Deployment", "exports-api"),
			Want:    Want{Culprit: Ref{Kind: "PersistentVolumeClaim", Name: "exports-spool"}, Terms: []string{"space"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.w13aClaim(ctx, "exports-spool", "1Gi") },
					func() error { return e.w13aClaim(ctx, "reports-cache", "5Gi") },
					func() error {
						d := w8bDeployment("exports-api", "registry.example/data/exports-api:2.3.0", 1, exports, sim("readiness-fail", annLogs, "w13a-exports-api-diskspace"), "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_PROFILES_ACTIVE", "prod", "EXPORTS_SPOOL_DIR", "/data/spool", "EXPORTS_BUCKET", "acme-exports",
							"MANAGEMENT_HEALTH_DISKSPACE_PATH", "/data", "MANAGEMENT_HEALTH_DISKSPACE_THRESHOLD", "500MB",
							"MANAGEMENT_ENDPOINT_HEALTH_GROUP_READINESS_INCLUDE", "readinessState,diskSpace")
						claimVolume(&d.Spec.Template, "exports-spool")
						w8bReadiness(&d.Spec.Template, "/actuator/health/readiness", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("reports-api", "registry.example/data/reports-api:1.9.4", 1, w8cLabels("app", "reports-api", "tier", "backend", "team", "data"), nil, "http", 8080)
						claimVolume(&d.Spec.Template, "reports-cache")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(exports, runningNotReady), readyReplicas("reports-api", 1)),
		},
	}
}
