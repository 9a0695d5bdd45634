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

// Wave 9c: broken clusters written by an outside hand, after the rule changes of the day were
// frozen for measurement, from runbooks the corpus had not used and from public GitHub issues
// about the clients teams run against their data stores (pgx, HikariCP/MySQL Connector/J,
// motor/pymongo, ioredis, BullMQ, Spring Kafka). This file holds the data-tier clients; each
// namespace is laid out the way the team in the issue would run it, with healthy neighbours.
// The expected answer is what an SRE reading the source would name, fixed before the engine ran.

const (
	w9cSrcPgHba        = "https://github.com/polyaxon/polyaxon/issues/394 (FATAL: no pg_hba.conf entry for host \"10.244.0.103\" from a pod; the hba file only allows other networks)"
	w9cSrcRedisMisconf = "https://github.com/jeremylvln/Shulker/issues/446 (Redis on Kubernetes: Failed opening the temp RDB file ... /data ... Permission denied; clients get MISCONF)"
	w9cSrcMySQLPubKey  = "https://github.com/spring-petclinic/spring-petclinic-microservices-config/pull/29 (MySQL 8 caching_sha2_password: Public Key Retrieval is not allowed until the JDBC URL sets allowPublicKeyRetrieval=true)"
	w9cSrcMongoAuthSrc = "https://github.com/docker-library/mongo/issues/417 (pymongo OperationFailure: Authentication failed; the root user lives in admin, the URI needs authSource=admin)"
	w9cSrcIORedisLocal = "https://github.com/redis/ioredis/issues/1036 (in k8s: [ioredis] Unhandled error event: Error: connect ECONNREFUSED 127.0.0.1:6379, the client fell back to its default host)"
	w9cSrcKafkaTopic   = "https://github.com/reactor/reactor-kafka/issues/74 (auto.create.topics.enable=false: the consumer logs UNKNOWN_TOPIC_OR_PARTITION and retries forever)"
)

func wave9cScenarios() []*Scenario {
	return append(append(wave9cDataScenarios(), wave9cMoreScenarios()...), wave9cThirdScenarios()...)
}

const w9cLedgerHba = `# TYPE  DATABASE        USER            ADDRESS                 METHOD
local   all             all                                     trust
host    all             all             127.0.0.1/32            trust
host    all             all             ::1/128                 trust
# app network (docker-compose era)
host    all             all             172.16.0.0/12           scram-sha-256
`

func wave9cDataScenarios() []*Scenario {
	return []*Scenario{
		{
			Name: "ledger-api-pg-hba-pod-network", Covers: "a Go API crash-loops: pgx 'FATAL: no pg_hba.conf entry for host \"10.244.2.41\"'; the postgres StatefulSet reads hba_file from a ConfigMap that only allows 172.16.0.0/12, not the pod network",
			Source: w9cSrcPgHba, Class: ClassClue, Hops: 2,
			Problem: "ledger-api crash-loops since we moved ledger-db into the cluster",
			Target:  target("Deployment", "ledger-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "ledger-db-config"}, Terms: []string{"pg_hba.conf", "172.16.0.0/12"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "ledger-db", "app.kubernetes.io/part-of", "ledger")
				api := w8cLabels("app.kubernetes.io/name", "ledger-api", "app.kubernetes.io/part-of", "ledger", "app.kubernetes.io/version", "2.3.0")
				web := w8cLabels("app.kubernetes.io/name", "ledger-web", "app.kubernetes.io/part-of", "ledger")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "ledger-db-config", map[string]string{"pg_hba.conf": w9cLedgerHba,
							"postgresql.conf": "listen_addresses = '*'\nmax_connections = 200\nshared_buffers = 512MB\npassword_encryption = scram-sha-256\n"})
					},
					func() error {
						return e.createSecret(ctx, "ledger-db-credentials", map[string]string{"POSTGRES_USER": "ledger", "POSTGRES_PASSWORD": "kq8-Vf2r-ledger", "POSTGRES_DB": "ledger"})
					},
					func() error {
						st := w8bStatefulSet("ledger-db", "postgres:16.4", "ledger-db-hl", 1, db, running("w9c-ledger-db-running"), "tcp-postgresql", 5432)
						w8cArgs(&st.Spec.Template, "-c", "config_file=/etc/postgresql/postgresql.conf", "-c", "hba_file=/etc/postgresql/pg_hba.conf")
						envFromSecret(&st.Spec.Template, "ledger-db-credentials")
						mountConfigMap(&st.Spec.Template, "ledger-db-config", "/etc/postgresql")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("ledger-db-hl", db, "tcp-postgresql", 5432)) },
					func() error { return e.createService(ctx, w8bService("ledger-db", db, "tcp-postgresql", 5432)) },
					func() error {
						return e.createSecret(ctx, "ledger-api-db", map[string]string{"DATABASE_URL": "postgres://ledger:kq8-Vf2r-ledger@ledger-db:5432/ledger?sslmode=disable"})
					},
					func() error {
						d := w8bDeployment("ledger-api", "ghcr.io/acme-fin/ledger-api:2.3.0", 2, api, crash("1",
							`{"level":"error","service":"ledger-api","attempt":3,"error":"failed to connect to `+"`user=ledger database=ledger`"+`: 10.96.212.40:5432 (ledger-db): server error: FATAL: no pg_hba.conf entry for host \"10.244.2.41\", user \"ledger\", database \"ledger\", no encryption (SQLSTATE 28000)","message":"database ping failed"}
{"level":"info","service":"ledger-api","message":"shutting down http server"}
{"level":"fatal","service":"ledger-api","message":"cannot start without database"}`, "w9c-ledger-api-pg-hba"), "http", 8080)
						envKeyFromSecret(&d.Spec.Template, "DATABASE_URL", "ledger-api-db", "DATABASE_URL")
						w8bEnv(&d.Spec.Template, "LOG_FORMAT", "json", "HTTP_ADDR", ":8080")
						w9cFallbackToLogs(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("ledger-api", api, "http", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("ledger-web", "ghcr.io/acme-fin/ledger-web:1.9.4", 2, web, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("ledger-web", web, "http", 80)) },
				)
			},
			Wait: all(func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "ledger-db", 1) },
				podsWith(w8cLabels("app.kubernetes.io/name", "ledger-api", "app.kubernetes.io/part-of", "ledger", "app.kubernetes.io/version", "2.3.0"), crashLooping(2))),
		},
		{
			// Every pod is Running and Ready; the API answers 500 on writes and its log quotes
			// MISCONF; redis' own log says why: /data is not writable by uid 1001 (no fsGroup).
			Name: "notify-api-redis-rdb-permission-denied", Covers: "a Ready Express API logs 'ReplyError: MISCONF Redis is configured to save RDB snapshots' on every POST; the redis StatefulSet runs as uid 1001 without fsGroup and logs 'Failed opening the temp RDB file ... (in server root dir /data) for saving: Permission denied'",
			Source: w9cSrcRedisMisconf, Class: ClassOutside, Hops: 2,
			Problem: "POST /v1/notifications returns 500 since this morning, nothing is crashing",
			Target:  target("Deployment", "notify-api"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "notify-redis"}, Terms: []string{"MISCONF", "permission denied"}},
			Setup: func(ctx context.Context, e *Env) error {
				redis := w8cLabels("app", "notify-redis", "team", "messaging", "tier", "cache")
				api := w8cLabels("app", "notify-api", "team", "messaging", "tier", "backend")
				worker := w8cLabels("app", "notify-worker", "team", "messaging", "tier", "backend")
				return steps(
					func() error {
						return e.createStaticPV(ctx, "notify-redis-data", "data-notify-redis-0", "8Gi", corev1.ReadWriteOnce)
					},
					func() error {
						st := w8bStatefulSet("notify-redis", "redis:7.2.5-alpine", "notify-redis-hl", 1, redis, running("w9c-notify-redis-rdb-denied"), "redis", 6379)
						w8cArgs(&st.Spec.Template, "redis-server", "--appendonly", "no", "--save", "300", "100", "--dir", "/data")
						w8bClaimTemplate(st, "data", "8Gi", "/data")
						w9cRunAs(&st.Spec.Template, 1001, 0)
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("notify-redis-hl", redis, "redis", 6379)) },
					func() error { return e.createService(ctx, w8bService("notify-redis", redis, "redis", 6379)) },
					func() error {
						return e.createConfigMap(ctx, "notify-config", map[string]string{"REDIS_URL": "redis://notify-redis:6379/0", "QUEUE_NAME": "emails", "LOG_LEVEL": "info"})
					},
					func() error {
						d := w8bDeployment("notify-api", "registry.acme.io/messaging/notify-api:1.18.2", 2, api, running("w9c-notify-api-misconf"), "http", 3000)
						envFromConfigMap(&d.Spec.Template, "notify-config")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("notify-api", api, "http", 80)) },
					func() error {
						d := w8bDeployment("notify-worker", "registry.acme.io/messaging/notify-api:1.18.2", 2, worker, nil, "", 0)
						w8cArgs(&d.Spec.Template, "node", "dist/worker.js")
						envFromConfigMap(&d.Spec.Template, "notify-config")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "notify-redis", 1) },
				readyReplicas("notify-api", 2), readyReplicas("notify-worker", 2)),
		},
		{
			// The database moved from mysql:5.7 to 8.4 (caching_sha2_password by default); the
			// JDBC URL in the service's ConfigMap has useSSL=false and no allowPublicKeyRetrieval.
			Name: "orders-mysql8-public-key-retrieval", Covers: "a Spring Boot service crash-loops with 'SQLNonTransientConnectionException: Public Key Retrieval is not allowed' after the MySQL StatefulSet moved to 8.4; the ConfigMap's SPRING_DATASOURCE_URL has useSSL=false without allowPublicKeyRetrieval=true",
			Source: w9cSrcMySQLPubKey, Class: ClassClue, Hops: 1,
			Problem: "orders-service won't start after the MySQL 8 upgrade last night",
			Target:  target("Deployment", "orders-service"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "orders-service-config"}, Terms: []string{"Public Key Retrieval", "allowPublicKeyRetrieval"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8bLabels("orders-mysql", "orders", "app.kubernetes.io/component", "primary")
				svc := w8bLabels("orders-service", "orders", "app.kubernetes.io/component", "api")
				ui := w8bLabels("orders-admin-ui", "orders", "app.kubernetes.io/component", "frontend")
				return steps(
					func() error {
						return e.createSecret(ctx, "orders-mysql", map[string]string{"mysql-root-password": "r00t-Orders-9", "mysql-password": "Orders-app-7"})
					},
					func() error {
						st := w8bStatefulSet("orders-mysql", "mysql:8.4.2", "orders-mysql-headless", 1, db, nil, "mysql", 3306)
						envKeyFromSecret(&st.Spec.Template, "MYSQL_ROOT_PASSWORD", "orders-mysql", "mysql-root-password")
						envKeyFromSecret(&st.Spec.Template, "MYSQL_PASSWORD", "orders-mysql", "mysql-password")
						w8bEnv(&st.Spec.Template, "MYSQL_USER", "orders", "MYSQL_DATABASE", "orders")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("orders-mysql-headless", db, "mysql", 3306)) },
					func() error { return e.createService(ctx, w8bService("orders-mysql", db, "mysql", 3306)) },
					func() error {
						return e.createConfigMap(ctx, "orders-service-config", map[string]string{
							"SPRING_PROFILES_ACTIVE":     "kubernetes",
							"SPRING_DATASOURCE_URL":      "jdbc:mysql://orders-mysql:3306/orders?useSSL=false&serverTimezone=UTC",
							"SPRING_DATASOURCE_USERNAME": "orders",
							"JAVA_TOOL_OPTIONS":          "-XX:MaxRAMPercentage=75",
						})
					},
					func() error {
						d := w8bDeployment("orders-service", "registry.acme.io/orders/orders-service:5.2.0", 2, svc, crash("1",
							`Caused by: com.mysql.cj.exceptions.UnableToConnectException: Public Key Retrieval is not allowed
	at com.mysql.cj.protocol.a.authentication.CachingSha2PasswordPlugin.nextAuthenticationStep(CachingSha2PasswordPlugin.java:130) ~[mysql-connector-j-8.3.0.jar!/:8.3.0]
	... 58 common frames omitted
2026-11-27T15:40:54.031Z  WARN 1 --- [orders-service] [main] ConfigServletWebServerApplicationContext : Exception encountered during context initialization - cancelling refresh attempt
2026-11-27T15:40:54.071Z ERROR 1 --- [orders-service] [main] o.s.boot.SpringApplication               : Application run failed`, "w9c-orders-mysql-public-key"), "http", 8080)
						envFromConfigMap(&d.Spec.Template, "orders-service-config")
						envKeyFromSecret(&d.Spec.Template, "SPRING_DATASOURCE_PASSWORD", "orders-mysql", "mysql-password")
						w9cFallbackToLogs(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("orders-service", svc, "http", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("orders-admin-ui", "registry.acme.io/orders/admin-ui:2.0.7", 1, ui, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("orders-admin-ui", ui, "http", 80)) },
				)
			},
			Wait: all(func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "orders-mysql", 1) },
				podsWith(w8bLabels("orders-service", "orders", "app.kubernetes.io/component", "api"), crashLooping(2))),
		},
		{
			// The URI names the catalog database, so pymongo authenticates catalog-root against
			// it; the user exists in admin (MONGO_INITDB_ROOT_USERNAME). authSource=admin is missing.
			Name: "catalog-fastapi-mongo-authsource-missing", Covers: "a FastAPI app fails at startup with 'pymongo.errors.OperationFailure: Authentication failed' (code 18); the Secret's MONGODB_URI names the catalog database without authSource=admin while the user is mongo's root user, created in admin",
			Source: w9cSrcMongoAuthSrc, Class: ClassClue, Hops: 1,
			Problem: "catalog-api pods restart over and over, mongo itself looks fine",
			Target:  target("Deployment", "catalog-api"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "catalog-api-mongo"}, Terms: []string{"authSource", "Authentication failed"}},
			Setup: func(ctx context.Context, e *Env) error {
				mongo := w8cLabels("app", "catalog-mongo", "component", "database", "owner", "catalog-team")
				api := w8cLabels("app", "catalog-api", "component", "api", "owner", "catalog-team")
				img := w8cLabels("app", "catalog-images", "component", "api", "owner", "catalog-team")
				return steps(
					func() error {
						return e.createSecret(ctx, "catalog-mongo-root", map[string]string{"MONGO_INITDB_ROOT_USERNAME": "catalog-root", "MONGO_INITDB_ROOT_PASSWORD": "Zt7-mongo-Root"})
					},
					func() error {
						st := w8bStatefulSet("catalog-mongo", "mongo:7.0.14", "catalog-mongo", 1, mongo, running("w9c-catalog-mongo-running"), "mongodb", 27017)
						envFromSecret(&st.Spec.Template, "catalog-mongo-root")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("catalog-mongo", mongo, "mongodb", 27017)) },
					func() error {
						return e.createSecret(ctx, "catalog-api-mongo", map[string]string{"MONGODB_URI": "mongodb://catalog-root:Zt7-mongo-Root@catalog-mongo:27017/catalog?retryWrites=true&w=majority"})
					},
					func() error {
						d := w8bDeployment("catalog-api", "registry.acme.io/catalog/catalog-api:0.31.0", 2, api, crash("3",
							`pymongo.errors.OperationFailure: Authentication failed., full error: {'ok': 0.0, 'errmsg': 'Authentication failed.', 'code': 18, 'codeName': 'AuthenticationFailed'}

ERROR:    Application startup failed. Exiting.`, "w9c-catalog-fastapi-mongo-auth"), "http", 8000)
						w8cArgs(&d.Spec.Template, "uvicorn", "catalog.main:app", "--host", "0.0.0.0", "--port", "8000", "--proxy-headers")
						envFromSecret(&d.Spec.Template, "catalog-api-mongo")
						w9cFallbackToLogs(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("catalog-api", api, "http", 80)) },
					func() error {
						d := w8bDeployment("catalog-images", "registry.acme.io/catalog/images:1.4.2", 1, img, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "S3_BUCKET", "acme-catalog-images", "CACHE_TTL", "3600")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("catalog-images", img, "http", 80)) },
				)
			},
			Wait: all(func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "catalog-mongo", 1) },
				podsWith(w8cLabels("app", "catalog-api", "component", "api", "owner", "catalog-team"), crashLooping(2))),
		},
		{
			// Release 3.0 moved the redis settings to one REDIS_URL; the ConfigMap still has
			// REDIS_HOST/REDIS_PORT, so ioredis dials its default 127.0.0.1:6379.
			Name: "checkout-ioredis-default-localhost", Covers: "a Node checkout service is Running but not Ready; its log warns 'REDIS_URL is not set, using redis://127.0.0.1:6379' and repeats '[ioredis] Unhandled error event: Error: connect ECONNREFUSED 127.0.0.1:6379'; the ConfigMap gives REDIS_HOST/REDIS_PORT, not REDIS_URL",
			Source: w9cSrcIORedisLocal, Class: ClassClue, Hops: 2,
			Problem: "checkout 3.0.1 never becomes ready, 2.9 was fine with the same config",
			Target:  target("Deployment", "checkout"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "checkout-env"}, Terms: []string{"REDIS_URL", "127.0.0.1:6379"}},
			Setup: func(ctx context.Context, e *Env) error {
				redis := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "checkout-redis", "app.kubernetes.io/component", "master")
				co := w8cLabels("app.kubernetes.io/name", "checkout", "app.kubernetes.io/instance", "checkout", "app.kubernetes.io/version", "3.0.1")
				pay := w8cLabels("app.kubernetes.io/name", "payments", "app.kubernetes.io/instance", "payments")
				return steps(
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("checkout-redis-master", "docker.io/bitnami/redis:7.2.5", "checkout-redis-headless", 1, redis, nil, "tcp-redis", 6379))
					},
					func() error {
						return e.createService(ctx, w8bHeadless("checkout-redis-headless", redis, "tcp-redis", 6379))
					},
					func() error {
						return e.createService(ctx, w8bService("checkout-redis-master", redis, "tcp-redis", 6379))
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("payments", "registry.acme.io/shop/payments:4.7.0", 2, pay, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("payments", pay, "http", 8080)) },
					func() error {
						return e.createConfigMap(ctx, "checkout-env", map[string]string{"NODE_ENV": "production", "PORT": "3000",
							"REDIS_HOST": "checkout-redis-master", "REDIS_PORT": "6379", "PAYMENTS_BASE_URL": "http://payments:8080", "SESSION_TTL_SECONDS": "1800"})
					},
					func() error {
						d := w8bDeployment("checkout", "registry.acme.io/shop/checkout:3.0.1", 3, co,
							sim("readiness-fail", annMessage, "Readiness probe failed: HTTP probe failed with statuscode: 503", annLogs, "w9c-checkout-ioredis-localhost"), "http", 3000)
						envFromConfigMap(&d.Spec.Template, "checkout-env")
						w8bReadiness(&d.Spec.Template, "/healthz/ready", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("checkout", co, "http", 80)) },
				)
			},
			Wait: all(readyReplicas("payments", 2),
				podsWith(w8cLabels("app.kubernetes.io/name", "checkout", "app.kubernetes.io/instance", "checkout", "app.kubernetes.io/version", "3.0.1"), runningNotReady)),
		},
		{
			// The topic is created by the platform's init Job as catalog.product-updates; the
			// consumer's ConfigMap subscribes to catalog.product-updated and the broker does not
			// auto-create topics, so the consumer retries metadata forever while Ready.
			Name: "search-sync-kafka-topic-name-typo", Covers: "a Ready Spring Kafka consumer repeats 'Error while fetching metadata ... {catalog.product-updated=UNKNOWN_TOPIC_OR_PARTITION}'; its ConfigMap names catalog.product-updated, the topics Job created catalog.product-updates, auto.create.topics.enable=false on the broker",
			Source: w9cSrcKafkaTopic, Class: ClassOutside, Hops: 2,
			Problem: "product changes stopped showing up in search, search-sync is green",
			Target:  target("Deployment", "search-sync"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "search-sync-config"}, Terms: []string{"UNKNOWN_TOPIC_OR_PARTITION", "catalog.product-updated"}},
			Setup: func(ctx context.Context, e *Env) error {
				kafka := w8bLabels("kafka", "catalog-events", "app.kubernetes.io/instance", "catalog-kafka", "app.kubernetes.io/component", "broker")
				sync := w8bLabels("search-sync", "search", "app.kubernetes.io/component", "indexer")
				pub := w8bLabels("catalog-publisher", "catalog-events", "app.kubernetes.io/component", "producer")
				return steps(
					func() error {
						st := w8bStatefulSet("catalog-kafka", "docker.io/bitnami/kafka:3.7.1", "catalog-kafka-headless", 1, kafka, nil, "client", 9092)
						w8bEnv(&st.Spec.Template, "KAFKA_CFG_NODE_ID", "0", "KAFKA_CFG_PROCESS_ROLES", "controller,broker",
							"KAFKA_CFG_LISTENERS", "PLAINTEXT://:9092,CONTROLLER://:9093",
							"KAFKA_CFG_ADVERTISED_LISTENERS", "PLAINTEXT://catalog-kafka-0.catalog-kafka-headless:9092",
							"KAFKA_CFG_CONTROLLER_QUORUM_VOTERS", "0@catalog-kafka-0.catalog-kafka-headless:9093",
							"KAFKA_CFG_AUTO_CREATE_TOPICS_ENABLE", "false")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createService(ctx, w8bHeadless("catalog-kafka-headless", kafka, "client", 9092))
					},
					func() error { return e.createService(ctx, w8bService("catalog-kafka", kafka, "client", 9092)) },
					func() error {
						return e.w9cCompletedJob(ctx, "catalog-kafka-topics-init", "docker.io/bitnami/kafka:3.7.1", w8bLabels("catalog-kafka-topics", "catalog-events"),
							"kafka-topics.sh", "--bootstrap-server", "catalog-kafka:9092", "--create", "--if-not-exists",
							"--topic", "catalog.product-updates", "--partitions", "6", "--replication-factor", "1")
					},
					func() error {
						d := w8bDeployment("catalog-publisher", "registry.acme.io/catalog/publisher:2.2.0", 1, pub, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_KAFKA_BOOTSTRAP_SERVERS", "catalog-kafka:9092", "CATALOG_EVENTS_TOPIC", "catalog.product-updates")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createConfigMap(ctx, "search-sync-config", map[string]string{"SPRING_KAFKA_BOOTSTRAP_SERVERS": "catalog-kafka:9092",
							"SPRING_KAFKA_CONSUMER_GROUP_ID": "search-sync", "SEARCH_SYNC_TOPIC": "catalog.product-updated", "OPENSEARCH_URL": "http://search-opensearch:9200"})
					},
					func() error {
						d := w8bDeployment("search-sync", "registry.acme.io/search/search-sync:1.12.3", 1, sync, running("w9c-search-sync-unknown-topic"), "http", 8080)
						envFromConfigMap(&d.Spec.Template, "search-sync-config")
						w8bReadiness(&d.Spec.Template, "/actuator/health/readiness", "http", 10)
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "catalog-kafka", 1) },
				readyReplicas("search-sync", 1), readyReplicas("catalog-publisher", 1)),
		},
	}
}
