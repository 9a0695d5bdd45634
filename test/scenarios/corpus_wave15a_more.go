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

func wave15aMoreScenarios() []*Scenario {
	tracking := w8bLabels("tracking-consumer", "logistics", "app.kubernetes.io/component", "worker")
	loyalty := w8bLabels("loyalty-api", "loyalty", "app.kubernetes.io/component", "api")
	checkout := w8cLabels("app", "checkout", "team", "payments", "tier", "api")
	orders := w8bLabels("orders-api", "orders", "app.kubernetes.io/component", "api")
	return []*Scenario{
		{
			// The broker runs with auto.create.topics.enable=false and topics are created by a
			// provisioning Job. The consumer's ConfigMap spells the topic in the plural, which
			// no Job created, so sarama's consumer group gets UNKNOWN_TOPIC_OR_PARTITION.
			Name: "tracking-consumer-sarama-unknown-topic", Covers: "tracking-consumer (Go, sarama) crash-loops on 'consume [shipments.tracking]: kafka server: Request was for a topic or partition that does not exist on this broker'; KAFKA_TOPIC in ConfigMap tracking-consumer-config says shipments.tracking while the provisioning Job created shipment.tracking, which carrier-webhooks publishes to (auto topic creation is off)",
			Source: w15aSrcSarama, Class: ClassClue, Hops: 2,
			Problem: "parcel tracking pages stopped updating; tracking-consumer restarts every few seconds although Kafka is healthy and carrier-webhooks keeps publishing",
			Target:  target("Deployment", "tracking-consumer"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "tracking-consumer-config"}, Terms: []string{"shipments.tracking"}},
			Setup: func(ctx context.Context, e *Env) error {
				kafka := w8bLabels("kafka", "logistics", "app.kubernetes.io/component", "broker")
				app := func(name string, lbl, ann map[string]string) error {
					d := w11bApp(name, name, "registry.example/logistics/"+name+":2.7.1", 1, lbl, ann, "metrics", 9090)
					envFromConfigMap(&d.Spec.Template, name+"-config")
					return e.createDeployment(ctx, d)
				}
				return steps(
					func() error {
						st := w8bStatefulSet("kafka", "docker.io/bitnami/kafka:3.8.1", "kafka-headless", 1, kafka, nil, "client", 9092)
						w8bEnv(&st.Spec.Template, "KAFKA_CFG_NODE_ID", "0", "KAFKA_CFG_PROCESS_ROLES", "controller,broker", "KAFKA_CFG_CONTROLLER_QUORUM_VOTERS", "0@kafka-0.kafka-headless:9093",
							"KAFKA_CFG_LISTENERS", "CLIENT://:9092,CONTROLLER://:9093", "KAFKA_CFG_ADVERTISED_LISTENERS", "CLIENT://kafka-0.kafka-headless:9092",
							"KAFKA_CFG_LISTENER_SECURITY_PROTOCOL_MAP", "CLIENT:PLAINTEXT,CONTROLLER:PLAINTEXT", "KAFKA_CFG_CONTROLLER_LISTENER_NAMES", "CONTROLLER",
							"KAFKA_CFG_INTER_BROKER_LISTENER_NAME", "CLIENT", "KAFKA_CFG_AUTO_CREATE_TOPICS_ENABLE", "false")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("kafka-headless", kafka, "client", 9092)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("kafka", kafka, "client", 9092))
					},
					func() error {
						return e.w9cCompletedJob(ctx, "kafka-provision-topics", "docker.io/bitnami/kafka:3.8.1", w8bLabels("kafka-provisioning", "logistics"), "/bin/bash", "-ec",
							"for t in shipment.tracking:12 shipment.labels:6 carrier.webhooks.dlq:3; do kafka-topics.sh --bootstrap-server kafka:9092 --create --if-not-exists --topic ${t%%:*} --partitions ${t##*:} --replication-factor 1; done")
					},
					func() error {
						return e.createConfigMap(ctx, "tracking-consumer-config", map[string]string{"KAFKA_BROKERS": "kafka:9092", "KAFKA_TOPIC": "shipments.tracking",
							"KAFKA_GROUP_ID": "tracking-consumer", "KAFKA_VERSION": "3.8.0", "KAFKA_INITIAL_OFFSET": "oldest", "DATABASE_HOST": "tracking-db", "DATABASE_NAME": "tracking"})
					},
					func() error {
						return e.createConfigMap(ctx, "label-printer-config", map[string]string{"KAFKA_BROKERS": "kafka:9092", "KAFKA_TOPIC": "shipment.labels", "KAFKA_GROUP_ID": "label-printer", "KAFKA_VERSION": "3.8.0"})
					},
					func() error {
						return e.createConfigMap(ctx, "carrier-webhooks-config", map[string]string{"KAFKA_BROKERS": "kafka:9092", "KAFKA_TOPIC": "shipment.tracking", "KAFKA_DLQ_TOPIC": "carrier.webhooks.dlq", "KAFKA_VERSION": "3.8.0"})
					},
					func() error {
						msg := "consume [shipments.tracking]: kafka server: Request was for a topic or partition that does not exist on this broker"
						return app("tracking-consumer", tracking, crash("1", msg, "w15a-tracking-consumer-sarama"))
					},
					func() error {
						return app("label-printer", w8bLabels("label-printer", "logistics", "app.kubernetes.io/component", "worker"), nil)
					},
					func() error {
						return app("carrier-webhooks", w8bLabels("carrier-webhooks", "logistics", "app.kubernetes.io/component", "api"), nil)
					},
				)
			},
			Wait: all(podsWith(tracking, crashLooping(2)), readyReplicas("label-printer", 1), readyReplicas("carrier-webhooks", 1), w8cStatefulSetReady("kafka", 1)),
		},
		{
			// Since PostgreSQL 15 only the database owner (pg_database_owner) may create in the
			// public schema. The init script makes rewards the owner of its database but only
			// GRANTs ALL on the loyalty database, which does not include CREATE on public.
			Name: "loyalty-api-sqlx-migrations-new-postgres", Covers: "loyalty-api (Rust, sqlx) crash-loops on 'while executing migrations: error returned from database: permission denied for schema public'; the Ready loyalty-postgres (16.4) logs the refused CREATE TABLE _sqlx_migrations: its init script in ConfigMap loyalty-db-init creates database loyalty owned by postgres and only GRANTs ALL ON DATABASE to loyalty, while rewards gets OWNER rewards (rewards-api migrates fine)",
			Source: w15aSrcPG15Public, Class: ClassProvider, Hops: 2,
			Problem: "loyalty-api crash-loops while running its migrations against the new PostgreSQL instance; rewards-api on the same server is fine",
			Target:  target("Deployment", "loyalty-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "loyalty-db-init"}, Terms: []string{"public"}},
			Setup: func(ctx context.Context, e *Env) error {
				pg := w8bLabels("loyalty-postgres", "loyalty", "app.kubernetes.io/component", "database")
				rust := func(name, db string, lbl, ann map[string]string) error {
					d := w11bApp(name, name, "registry.example/loyalty/"+name+":1.9.0", 2, lbl, ann, "http", 8080)
					w8bEnv(&d.Spec.Template, "RUST_LOG", "info,sqlx=warn", "DATABASE_HOST", "loyalty-postgres", "DATABASE_PORT", "5432", "DATABASE_NAME", db, "DATABASE_USER", db, "DATABASE_MAX_CONNECTIONS", "10")
					envKeyFromSecret(&d.Spec.Template, "DATABASE_PASSWORD", "loyalty-postgres", db+"-password")
					return e.w11bServe(ctx, d, 80)
				}
				return steps(
					func() error {
						return e.createSecret(ctx, "loyalty-postgres", map[string]string{"postgres-password": "Vx9mK2pQ7tRw", "loyalty-password": "Lp4nZ8cW1sYe", "rewards-password": "Hb6tF3xM9qJu"})
					},
					func() error {
						return e.createConfigMap(ctx, "loyalty-db-init", map[string]string{"01-app-databases.sh": "#!/bin/bash\nset -euo pipefail\n" +
							"psql -v ON_ERROR_STOP=1 --username \"$POSTGRES_USER\" <<-EOSQL\n" +
							"  CREATE ROLE rewards LOGIN PASSWORD '${REWARDS_PASSWORD}';\n  CREATE DATABASE rewards OWNER rewards;\n" +
							"  CREATE ROLE loyalty LOGIN PASSWORD '${LOYALTY_PASSWORD}';\n  CREATE DATABASE loyalty;\n  GRANT ALL PRIVILEGES ON DATABASE loyalty TO loyalty;\n" +
							"EOSQL\n"})
					},
					func() error {
						return e.w14bStore(ctx, "loyalty-postgres", "postgres:16.4", pg, running("w15a-loyalty-postgres"), "postgres", 5432, func(t *corev1.PodTemplateSpec) {
							c := &t.Spec.Containers[0]
							w14bSecretKeyEnv(c, "POSTGRES_PASSWORD", "loyalty-postgres", "postgres-password")
							w14bSecretKeyEnv(c, "LOYALTY_PASSWORD", "loyalty-postgres", "loyalty-password")
							w14bSecretKeyEnv(c, "REWARDS_PASSWORD", "loyalty-postgres", "rewards-password")
							w14bEnv(c, "PGDATA", "/var/lib/postgresql/data/pgdata")
							w14bMountCM(t, c, "loyalty-db-init", "/docker-entrypoint-initdb.d", "")
						})
					},
					func() error { return rust("loyalty-api", "loyalty", loyalty, crash("1", "", "w15a-loyalty-api-sqlx")) },
					func() error {
						return rust("rewards-api", "rewards", w8bLabels("rewards-api", "loyalty", "app.kubernetes.io/component", "api"), nil)
					},
				)
			},
			Wait: all(podsWith(loyalty, crashLooping(2)), readyReplicas("rewards-api", 2), w8cStatefulSetReady("loyalty-postgres", 1)),
		},
		w15aBullMQScenario(),
		{
			// ledger serves its API over TLS on 8443 and plain HTTP (health, metrics) on 8080.
			// The new Service maps port 8443 to the container port named http, so a TLS client
			// gets a plain HTTP answer; Go's client says exactly that.
			Name: "checkout-ledger-https-plain-listener", Covers: "checkout (Go net/http) crash-loops at startup on 'Get \"https://ledger:8443/healthz\": http: server gave HTTP response to HTTPS client' while ledger's pods are Ready: Service ledger's port 8443 has targetPort http (the pods' plain 8080 listener) instead of https (fx-rates' Service targets https and works)",
			Source: w15aSrcHTTPSPort, Class: ClassProvider, Hops: 2,
			Problem: "checkout crash-loops at startup on its ledger dependency check since the ledger release, yet every ledger pod is Running and Ready",
			Target:  target("Deployment", "checkout"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "ledger"}, Terms: []string{"targetPort"}},
			Setup: func(ctx context.Context, e *Env) error {
				ledger := w8cLabels("app", "ledger", "team", "payments", "tier", "api")
				fx := w8cLabels("app", "fx-rates", "team", "payments", "tier", "api")
				tlsApp := func(name string, lbl map[string]string) error {
					d := w11bApp(name, name, "registry.example/payments/"+name+":3.2.0", 2, lbl, nil, "https", 8443)
					w15aPorts(&d.Spec.Template.Spec.Containers[0], "http", 8080)
					w8bEnv(&d.Spec.Template, "TLS_CERT_FILE", "/etc/tls/tls.crt", "TLS_KEY_FILE", "/etc/tls/tls.key", "LISTEN_TLS", ":8443", "LISTEN_PLAIN", ":8080")
					mountSecret(&d.Spec.Template, name+"-tls", "/etc/tls")
					w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
					return e.createDeployment(ctx, d)
				}
				return steps(
					func() error { return e.w9aTLSSecret(ctx, "ledger-tls", "ledger") },
					func() error { return e.w9aTLSSecret(ctx, "fx-rates-tls", "fx-rates") },
					func() error { return tlsApp("ledger", ledger) },
					func() error { return e.createService(ctx, w10aServiceTo("ledger", ledger, "https", 8443, "http")) },
					func() error {
						return e.createService(ctx, w10aServiceTo("ledger-metrics", ledger, "http-metrics", 8080, "http"))
					},
					func() error { return tlsApp("fx-rates", fx) },
					func() error { return e.createService(ctx, w10aServiceTo("fx-rates", fx, "https", 8443, "https")) },
					func() error {
						d := w8bDeployment("inventory", "registry.example/payments/inventory:8.1.4", 1, w8cLabels("app", "inventory", "team", "payments", "tier", "api"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						d := w11bApp("checkout", "checkout", "registry.example/payments/checkout:4.12.0", 2, checkout, crash("1", "", "w15a-checkout-ledger-https"), "http", 8080)
						w8bEnv(&d.Spec.Template, "LEDGER_URL", "https://ledger:8443", "FX_RATES_URL", "https://fx-rates:8443", "INVENTORY_URL", "http://inventory:8080",
							"REDIS_ADDR", "checkout-redis:6379", "SSL_CERT_FILE", "/etc/ssl/internal/ca.crt")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(checkout, crashLooping(2)), readyReplicas("ledger", 2), readyReplicas("fx-rates", 2)),
		},
		{
			// Microsoft.Data.SqlClient 4+ (EF Core 7+) encrypts by default and validates the
			// server certificate; the SQL Server container uses a self-signed one. The
			// connection string in the app's Secret predates the upgrade.
			Name: "orders-api-efcore-sqlclient-upgrade", Covers: "orders-api (.NET 8, EF Core 8) crash-loops while migrating: 'Microsoft.Data.SqlClient.SqlException (0x80131904): A connection was successfully established with the server, but then an error occurred during the pre-login handshake ... The remote certificate was rejected by the provided RemoteCertificateValidationCallback' for orders-mssql,1433: ConnectionStrings__OrdersDb in Secret orders-api-db lacks TrustServerCertificate=True now that Encrypt defaults to true (catalog-api-db has it)",
			Source: w15aSrcSqlClient, Class: ClassClue, Hops: 2,
			Problem: "orders-api crash-loops since the upgrade to .NET 8 and EF Core 8; SQL Server is up and catalog-api connects to it fine",
			Target:  target("Deployment", "orders-api"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "orders-api-db"}, Terms: []string{"TrustServerCertificate"}},
			Setup: func(ctx context.Context, e *Env) error {
				api := func(name string, lbl, ann map[string]string) error {
					d := w11bApp(name, name, "registry.example/orders/"+name+":3.4.0", 2, lbl, ann, "http", 8080)
					w8bEnv(&d.Spec.Template, "ASPNETCORE_ENVIRONMENT", "Production", "ASPNETCORE_HTTP_PORTS", "8080", "Database__MigrateOnStartup", "true")
					envFromSecret(&d.Spec.Template, name+"-db")
					return e.w11bServe(ctx, d, 80)
				}
				return steps(
					func() error {
						return e.w11bStore(ctx, "orders-mssql", "mcr.microsoft.com/mssql/server:2022-CU16-ubuntu-22.04", w8bLabels("orders-mssql", "orders", "app.kubernetes.io/component", "database"), nil, "mssql", 1433,
							"ACCEPT_EULA", "Y", "MSSQL_PID", "Developer", "MSSQL_AGENT_ENABLED", "false")
					},
					func() error {
						return e.createSecret(ctx, "orders-api-db", map[string]string{"ConnectionStrings__OrdersDb": "Server=orders-mssql,1433;Database=Orders;User Id=orders_app;Password=Qm7#rV2x!Lp9;MultipleActiveResultSets=true"})
					},
					func() error {
						return e.createSecret(ctx, "catalog-api-db", map[string]string{"ConnectionStrings__CatalogDb": "Server=orders-mssql,1433;Database=Catalog;User Id=catalog_app;Password=Wn4$kT8z!Pe2;TrustServerCertificate=True"})
					},
					func() error { return api("orders-api", orders, crash("134", "", "w15a-orders-api-sqlclient-tls")) },
					func() error {
						return api("catalog-api", w8bLabels("catalog-api", "orders", "app.kubernetes.io/component", "api"), nil)
					},
				)
			},
			Wait: all(podsWith(orders, crashLooping(2)), readyReplicas("catalog-api", 2), w8cStatefulSetReady("orders-mssql", 1)),
		},
		w15aRunnerQuotaScenario(),
	}
}

// w15aBullMQScenario: the queue Redis was cloned from the cache Redis' chart values, including
// maxmemory-policy allkeys-lru. Under memory pressure Redis evicts job hashes and locks;
// BullMQ warns at every connect and then fails jobs whose keys vanished. A cache may evict,
// a queue must not.
func w15aBullMQScenario() *Scenario {
	worker := w8bLabels("notifications-worker", "notifications", "app.kubernetes.io/component", "worker")
	return &Scenario{
		Name: "notifications-emails-lost-bullmq", Covers: "notifications-worker (NestJS, BullMQ) is Ready and never restarts, but logs 'IMPORTANT! Eviction policy is allkeys-lru. It should be \"noeviction\"' and 'Missing key for job 48213. moveToFinished' as jobs disappear: ConfigMap queue-redis-config gives the queue Redis maxmemory 256mb with maxmemory-policy allkeys-lru (right for cache-redis, wrong for a queue)",
		Source: w15aSrcBullMQ, Class: ClassProvider, Hops: 2,
		Problem: "some order confirmation and password reset emails are never sent; the notifications worker is Running and Ready and has not restarted once",
		Target:  target("Deployment", "notifications-worker"),
		Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "queue-redis-config"}, Terms: []string{"noeviction"}},
		Setup: func(ctx context.Context, e *Env) error {
			redis := func(name, conf string) error {
				lbl := w8bLabels(name, "notifications", "app.kubernetes.io/component", "redis")
				if err := e.createConfigMap(ctx, name+"-config", map[string]string{"redis.conf": conf}); err != nil {
					return err
				}
				return e.w14bStore(ctx, name, "redis:7.4.1", lbl, nil, "redis", 6379, func(t *corev1.PodTemplateSpec) {
					c := &t.Spec.Containers[0]
					c.Args = []string{"redis-server", "/usr/local/etc/redis/redis.conf"}
					w14bMountCM(t, c, name+"-config", "/usr/local/etc/redis", "")
				})
			}
			nest := func(name string, lbl, ann map[string]string, env ...string) error {
				d := w11bApp(name, name, "registry.example/notifications/"+name+":1.18.2", 2, lbl, ann, "http", 3000)
				w8bEnv(&d.Spec.Template, append([]string{"NODE_ENV", "production"}, env...)...)
				w8bReadiness(&d.Spec.Template, "/health", "http", 10)
				return e.w11bServe(ctx, d, 80)
			}
			return steps(
				func() error {
					return redis("queue-redis", "bind 0.0.0.0\nport 6379\nmaxmemory 256mb\nmaxmemory-policy allkeys-lru\nappendonly yes\nappendfsync everysec\n")
				},
				func() error {
					return redis("cache-redis", "bind 0.0.0.0\nport 6379\nmaxmemory 512mb\nmaxmemory-policy allkeys-lru\nsave \"\"\nappendonly no\n")
				},
				func() error {
					return nest("notifications-worker", worker, running("w15a-notifications-bullmq"), "QUEUE_REDIS_URL", "redis://queue-redis:6379/0", "SMTP_HOST", "smtp-relay", "SMTP_PORT", "587")
				},
				func() error {
					return nest("notifications-api", w8bLabels("notifications-api", "notifications", "app.kubernetes.io/component", "api"), nil,
						"QUEUE_REDIS_URL", "redis://queue-redis:6379/0", "CACHE_REDIS_URL", "redis://cache-redis:6379/0")
				},
			)
		},
		Wait: all(readyReplicas("notifications-worker", 2), readyReplicas("notifications-api", 2), w8cStatefulSetReady("queue-redis", 1), w8cStatefulSetReady("cache-redis", 1)),
	}
}

// w15aRunnerQuotaScenario: the CI namespace got an object-count quota of 6 pods, sized for
// the runner's long-running helpers only. The Kubernetes executor creates one build pod per
// job in the same namespace; admission refuses each one and the runner reports a system
// failure before any script runs.
func w15aRunnerQuotaScenario() *Scenario {
	return &Scenario{
		Name: "ci-runner-build-pods-system-failure", Covers: "every GitLab CI job fails at once with 'ERROR: Job failed (system failure): prepare environment: setting up build pod: pods \"runner-...\" is forbidden: exceeded quota: ci-builds, requested: pods=1, used: pods=6, limited: pods=6' in the Ready gitlab-runner's log: ResourceQuota ci-builds caps the namespace at 6 pods, all taken by the runner, buildkitd, registry-mirror and sccache",
		Source: w15aSrcQuota, Class: ClassClue, Hops: 1,
		Problem: "every CI pipeline fails immediately with 'system failure' before any job script runs; the gitlab-runner pod is healthy and registered",
		Target:  target("Deployment", "gitlab-runner"),
		Want:    Want{Culprit: Ref{Kind: "ResourceQuota", Name: "ci-builds"}, Terms: []string{"quota"}},
		Setup: func(ctx context.Context, e *Env) error {
			helper := func(name, image string, replicas int32, portName string, port int32) error {
				d := w8bDeployment(name, image, replicas, w8bLabels(name, "ci"), nil, portName, port)
				return e.w11bServe(ctx, d, port)
			}
			return steps(
				func() error { return e.w11aQuota(ctx, "ci-builds", "pods", "6") },
				func() error { return e.createServiceAccount(ctx, "gitlab-runner") },
				func() error {
					return e.createRole(ctx, "gitlab-runner", w13bRule("", "pods", "get", "list", "watch", "create", "delete"), w13bRule("", "pods/exec", "create", "get"),
						w13bRule("", "pods/attach", "create", "get"), w13bRule("", "pods/log", "get"), w13bRule("", "secrets", "get", "create", "update", "delete"), w13bRule("", "configmaps", "get", "create", "update", "delete"))
				},
				func() error {
					return e.createRoleBinding(ctx, "gitlab-runner", "Role", "gitlab-runner", "gitlab-runner")
				},
				func() error {
					return e.createConfigMap(ctx, "gitlab-runner", map[string]string{"config.toml": "concurrent = 4\ncheck_interval = 3\n\n[[runners]]\n  name = \"k8s-ci\"\n  url = \"https://gitlab.example.com/\"\n  executor = \"kubernetes\"\n" +
						"  [runners.kubernetes]\n    image = \"registry.example/ci/build-base:2026.11\"\n    privileged = false\n    poll_timeout = 600\n    helper_image_flavor = \"alpine\"\n"})
				},
				func() error {
					d := w11bApp("gitlab-runner", "gitlab-runner", "gitlab/gitlab-runner:alpine-v17.5.3", 1, w8bLabels("gitlab-runner", "ci"), running("w15a-gitlab-runner-quota"), "metrics", 9252)
					c := &d.Spec.Template.Spec.Containers[0]
					w14bMountCM(&d.Spec.Template, c, "gitlab-runner", "/home/gitlab-runner/.gitlab-runner/config.toml", "config.toml")
					w15aServiceAccount(&d.Spec.Template, "gitlab-runner")
					return e.createDeployment(ctx, d)
				},
				func() error { return helper("buildkitd", "moby/buildkit:v0.16.0-rootless", 2, "grpc", 1234) },
				func() error { return helper("registry-mirror", "docker.io/library/registry:2.8.3", 1, "http", 5000) },
				func() error { return helper("sccache", "registry.example/ci/sccache-dist:0.8.2", 2, "http", 10600) },
			)
		},
		Wait: all(readyReplicas("gitlab-runner", 1), readyReplicas("buildkitd", 2), readyReplicas("registry-mirror", 1), readyReplicas("sccache", 2)),
	}
}
