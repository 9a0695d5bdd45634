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

// Wave 14b: multi-container and platform workloads where the decisive clue is in a container
// log — a sidecar's (oauth2-proxy, cloud-sql-proxy, Envoy, Vector), a provider's (PgBouncer,
// RabbitMQ, ClickHouse, Redis Sentinel, NATS, ZooKeeper) or a platform component's
// (ingress-nginx, Alertmanager, a Celery worker, the Airflow scheduler) — and the fix is a
// Kubernetes object: a ConfigMap key, a Secret key, an annotation. Some crash, some only fail
// readiness, some are Running and Ready while their log repeats the error a user notices as a
// business symptom. Written blind from public issues and docs; every Want was fixed from the
// source before anything ran.

func wave14bScenarios() []*Scenario {
	out := append(wave14bFirstScenarios(), wave14bBrokerScenarios()...)
	return append(append(out, wave14bMoreScenarios()...), wave14bPlatformScenarios()...)
}

func wave14bFirstScenarios() []*Scenario {
	portal := w8bLabels("ops-portal", "ops", "app.kubernetes.io/component", "web")
	runbooks := w8bLabels("runbooks", "ops", "app.kubernetes.io/component", "web")
	invoices := w8cLabels("app", "invoices-api", "team", "billing", "tier", "api")
	payments := w8cLabels("app", "payments-api", "team", "billing", "tier", "api")
	ledgerAPI := w8bLabels("ledger-api", "ledger", "app.kubernetes.io/component", "api")
	bouncer := w8bLabels("pgbouncer", "ledger", "app.kubernetes.io/component", "pooler")
	ledgerPG := w8bLabels("ledger-pg", "ledger", "app.kubernetes.io/component", "database")
	sessionAPI := w8bLabels("session-api", "storefront", "app.kubernetes.io/component", "api")
	sessRedis := w8bLabels("sessions-redis", "storefront", "app.kubernetes.io/component", "cache")
	return []*Scenario{
		{
			// oauth2-proxy v7 wants a 16, 24 or 32 byte cookie secret; the new Secret holds the
			// 44 characters of `openssl rand -base64 32` (with '+' and '/', so it is not taken
			// as URL-safe base64 and decoded).
			Name: "ops-portal-oauth2-cookie-secret-44-bytes", Covers: "ops-portal's oauth2-proxy sidecar crash-loops on 'invalid configuration: cookie_secret must be 16, 24, or 32 bytes to create an AES cipher, but is 44 bytes' while the portal container runs; cookie-secret in Secret ops-portal-oauth2-proxy is a 44-character base64 string (runbooks' Secret has 32 characters)",
			Source: w14bSrcOauth2Cookie, Class: ClassClue, Hops: 1,
			Problem: "ops.example.com answers 503 since SSO was put in front of the portal; the portal container itself looks healthy",
			Target:  target("Deployment", "ops-portal"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "ops-portal-oauth2-proxy"}, Terms: []string{"cookie_secret"}},
			Setup: func(ctx context.Context, e *Env) error {
				withProxy := func(name string, lbl, ann map[string]string, secret string) error {
					d := w8bDeployment(name, "registry.example/ops/"+name+":3.2.0", 2, lbl, ann, "http", 3000)
					w10aMain(&d.Spec.Template, name)
					w8bEnv(&d.Spec.Template, "PORT", "3000", "NODE_ENV", "production", "TRUST_PROXY_HEADERS", "X-Forwarded-Email,X-Forwarded-User")
					p := w10aContainer(&d.Spec.Template, "oauth2-proxy", "quay.io/oauth2-proxy/oauth2-proxy:v7.6.0", "proxy", 4180)
					w14bEnv(p, "OAUTH2_PROXY_PROVIDER", "oidc", "OAUTH2_PROXY_OIDC_ISSUER_URL", "https://sso.example.com/realms/ops",
						"OAUTH2_PROXY_UPSTREAMS", "http://127.0.0.1:3000/", "OAUTH2_PROXY_HTTP_ADDRESS", "0.0.0.0:4180",
						"OAUTH2_PROXY_EMAIL_DOMAINS", "example.com", "OAUTH2_PROXY_COOKIE_SECURE", "true", "OAUTH2_PROXY_SKIP_PROVIDER_BUTTON", "true")
					w14bSecretKeyEnv(p, "OAUTH2_PROXY_CLIENT_ID", secret, "client-id")
					w14bSecretKeyEnv(p, "OAUTH2_PROXY_CLIENT_SECRET", secret, "client-secret")
					w14bSecretKeyEnv(p, "OAUTH2_PROXY_COOKIE_SECRET", secret, "cookie-secret")
					if err := e.createDeployment(ctx, d); err != nil {
						return err
					}
					return e.createService(ctx, w10aServiceTo(name, lbl, "http", 80, "proxy"))
				}
				return steps(
					func() error {
						return e.createSecret(ctx, "ops-portal-oauth2-proxy", map[string]string{"client-id": "ops-portal",
							"client-secret": "Hq8TzW3nVb6Rk1Lm9Yc4Xp2Js7Dg5Fa0", "cookie-secret": "Zk3+R8qL0vWb5yTn2Hc9/Jm4Xa7Pd1Ue6Gs0Fo8Kt2I="})
					},
					func() error {
						return e.createSecret(ctx, "runbooks-oauth2-proxy", map[string]string{"client-id": "runbooks",
							"client-secret": "Pw5Nc8Qr2Tz6Vb1Xm4Ks9Lh3Jd7Fg0Ya", "cookie-secret": "a9F3kQ7zL2mX8vR4tW6yB1nC5pD0sH3j"})
					},
					func() error {
						return withProxy("ops-portal", portal, w10aOn("oauth2-proxy", "crashloop", "w14b-ops-portal-oauth2-cookie", annExitCode, "1"), "ops-portal-oauth2-proxy")
					},
					func() error { return withProxy("runbooks", runbooks, nil, "runbooks-oauth2-proxy") },
					func() error {
						return e.createIngress(ctx, w8cHostIngress("ops-portal", "ops.example.com", "ops-portal", 80))
					},
				)
			},
			Wait: all(podsWith(portal, crashLooping(2)), readyReplicas("runbooks", 2)),
		},
		{
			// cloud-sql-proxy v2 without --port exits when an instance does not exist; the
			// ConfigMap names europe-west1 while the team's instances live in europe-west3.
			Name: "invoices-cloudsql-instance-wrong-region", Covers: "invoices-api's cloud-sql-proxy sidecar crash-loops on 'failed to get instance metadata (connection name = \"acme-prod:europe-west1:invoices-pg\"): googleapi: Error 404: The Cloud SQL instance does not exist., instanceDoesNotExist'; instance-connection-name in ConfigMap invoices-cloudsql has the wrong region (payments-cloudsql uses europe-west3)",
			Source: w14bSrcCloudSQL, Class: ClassClue, Hops: 1,
			Problem: "invoice generation fails: invoices-api logs 'connect: connection refused' to 127.0.0.1:5432 since the database moved to Cloud SQL",
			Target:  target("Deployment", "invoices-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "invoices-cloudsql"}, Terms: []string{"europe-west1"}},
			Setup: func(ctx context.Context, e *Env) error {
				withProxy := func(name string, lbl, ann map[string]string, cm string) error {
					d := w8bDeployment(name, "registry.example/billing/"+name+":2026.11.2", 2, lbl, ann, "http", 8080)
					w10aMain(&d.Spec.Template, name)
					w8bEnv(&d.Spec.Template, "DB_HOST", "127.0.0.1", "DB_PORT", "5432", "DB_NAME", "billing", "DB_USER", name+"@acme-prod.iam", "DB_IAM_AUTH", "true")
					p := w10aContainer(&d.Spec.Template, "cloud-sql-proxy", "gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1", "", 0,
						"--auto-iam-authn", "--address=127.0.0.1", "--health-check", "--http-address=0.0.0.0", "$(INSTANCE_CONNECTION_NAME)")
					w14bConfigMapKeyEnv(p, "INSTANCE_CONNECTION_NAME", cm, "instance-connection-name")
					return e.w11bServe(ctx, d, 80)
				}
				return steps(
					func() error {
						return e.createConfigMap(ctx, "invoices-cloudsql", map[string]string{"instance-connection-name": "acme-prod:europe-west1:invoices-pg", "database": "billing"})
					},
					func() error {
						return e.createConfigMap(ctx, "payments-cloudsql", map[string]string{"instance-connection-name": "acme-prod:europe-west3:payments-pg", "database": "billing"})
					},
					func() error {
						return withProxy("invoices-api", invoices, w10aOn("cloud-sql-proxy", "crashloop", "w14b-invoices-cloudsql-proxy", annExitCode, "1"), "invoices-cloudsql")
					},
					func() error { return withProxy("payments-api", payments, nil, "payments-cloudsql") },
				)
			},
			Wait: all(podsWith(invoices, crashLooping(2)), readyReplicas("payments-api", 2)),
		},
		{
			// PgBouncer resolves the server host per connection attempt; the pooler's ini names
			// ledger-pg-primary, but the Services are ledger-pg and ledger-pg-ro. The client only
			// sees "pgbouncer cannot connect to server".
			Name: "ledger-pgbouncer-server-host-typo", Covers: "ledger-api (Spring, Hikari) crash-loops on PSQLException 'ERROR: pgbouncer cannot connect to server'; the Ready pgbouncer's own log says 'DNS lookup failed: ledger-pg-primary' / 'closing because: server DNS lookup failed': the [databases] entry in ConfigMap pgbouncer-config names a host no Service has (ledger-pg, ledger-pg-ro exist)",
			Source: w14bSrcPgbouncerDNS, Class: ClassProvider, Hops: 3,
			Problem: "ledger-api pods crash at startup with 'pgbouncer cannot connect to server', but the database pod is up and healthy",
			Target:  target("Deployment", "ledger-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "pgbouncer-config"}, Terms: []string{"ledger-pg-primary"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "pgbouncer-config", map[string]string{"pgbouncer.ini": "[databases]\n" +
							"ledger = host=ledger-pg-primary port=5432 dbname=ledger\n" +
							"ledger_reports = host=ledger-pg-ro port=5432 dbname=ledger\n\n" +
							"[pgbouncer]\nlisten_addr = 0.0.0.0\nlisten_port = 6432\nauth_type = scram-sha-256\nauth_file = /etc/pgbouncer/userlist/userlist.txt\n" +
							"pool_mode = transaction\nmax_client_conn = 400\ndefault_pool_size = 20\nserver_tls_sslmode = prefer\nignore_startup_parameters = extra_float_digits\n"})
					},
					func() error {
						return e.createSecret(ctx, "pgbouncer-userlist", map[string]string{"userlist.txt": "\"ledger_app\" \"SCRAM-SHA-256$4096:c2FsdHNhbHQ=$aGFzaGhhc2g=:c2VydmVyc2VydmVy\"\n\"reports_ro\" \"SCRAM-SHA-256$4096:b3RoZXJzYWx0$b3RoZXJoYXNo:b3RoZXJzZXJ2ZXI=\"\n"})
					},
					func() error {
						return e.w14bStore(ctx, "ledger-pg", "postgres:16.4", ledgerPG, nil, "postgres", 5432, func(t *corev1.PodTemplateSpec) {
							w8bEnv(t, "POSTGRES_DB", "ledger", "POSTGRES_USER", "ledger_app", "PGDATA", "/var/lib/postgresql/data/pgdata")
						})
					},
					func() error { return e.createService(ctx, w8bService("ledger-pg-ro", ledgerPG, "postgres", 5432)) },
					func() error {
						d := w11bApp("pgbouncer", "pgbouncer", "bitnami/pgbouncer:1.23.1", 2, bouncer, running("w14b-ledger-pgbouncer"), "pgbouncer", 6432)
						c := &d.Spec.Template.Spec.Containers[0]
						w14bMountCM(&d.Spec.Template, c, "pgbouncer-config", "/etc/pgbouncer/pgbouncer.ini", "pgbouncer.ini")
						w14bMountSecret(&d.Spec.Template, c, "pgbouncer-userlist", "/etc/pgbouncer/userlist")
						return e.w11bServe(ctx, d, 6432)
					},
					func() error {
						d := w11bApp("ledger-api", "ledger-api", "registry.example/ledger/ledger-api:5.1.0", 2, ledgerAPI, crash("1", "", "w14b-ledger-api-pgbouncer-client"), "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_PROFILES_ACTIVE", "prod", "SPRING_DATASOURCE_URL", "jdbc:postgresql://pgbouncer:6432/ledger?prepareThreshold=0",
							"SPRING_DATASOURCE_USERNAME", "ledger_app", "SERVER_PORT", "8080", "JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(ledgerAPI, crashLooping(2)), readyReplicas("pgbouncer", 2), w8cStatefulSetReady("ledger-pg", 1)),
		},
		{
			// redis-py asks Sentinel for the master set "mymaster" (the library and chart
			// default); the team's Sentinel monitors a set named "sessions".
			Name: "session-api-sentinel-default-master-name", Covers: "session-api (gunicorn, redis-py) runs but fails readiness on 'redis.sentinel.MasterNotFoundError: No master found for 'mymaster''; REDIS_SENTINEL_MASTER in ConfigMap session-api-env is the default mymaster while the sentinel sidecar monitors 'sessions' (ConfigMap sessions-redis-sentinel, and cart-api-env uses sessions)",
			Source: w14bSrcSentinel, Class: ClassClue, Hops: 2,
			Problem: "customers cannot log in: session-api pods are Running but never Ready",
			Target:  target("Deployment", "session-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "session-api-env"}, Terms: []string{"mymaster"}},
			Setup: func(ctx context.Context, e *Env) error {
				cart := w8bLabels("cart-api", "storefront", "app.kubernetes.io/component", "api")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "sessions-redis-sentinel", map[string]string{"sentinel.conf": "port 26379\n" +
							"sentinel resolve-hostnames yes\nsentinel announce-hostnames yes\n" +
							"sentinel monitor sessions sessions-redis-0.sessions-redis-headless 6379 2\n" +
							"sentinel down-after-milliseconds sessions 10000\nsentinel failover-timeout sessions 60000\nsentinel parallel-syncs sessions 1\n"})
					},
					func() error {
						return e.createConfigMap(ctx, "session-api-env", map[string]string{"REDIS_SENTINEL_HOSTS": "redis-sentinel:26379", "REDIS_SENTINEL_MASTER": "mymaster",
							"SESSION_REDIS_DB": "2", "SESSION_TTL_SECONDS": "86400", "GUNICORN_CMD_ARGS": "--bind=0.0.0.0:8000 --workers=3"})
					},
					func() error {
						return e.createConfigMap(ctx, "cart-api-env", map[string]string{"REDIS_SENTINEL_HOSTS": "redis-sentinel:26379", "REDIS_SENTINEL_MASTER": "sessions", "CART_REDIS_DB": "3"})
					},
					func() error {
						st := w8bStatefulSet("sessions-redis", "redis:7.2.5", "sessions-redis-headless", 3, sessRedis, running("w14b-sessions-redis-sentinel"), "redis", 6379)
						w10aMain(&st.Spec.Template, "redis", "redis-server", "--appendonly", "yes")
						s := w10aContainer(&st.Spec.Template, "sentinel", "redis:7.2.5", "sentinel", 26379, "redis-sentinel", "/etc/redis-sentinel/sentinel.conf")
						w14bMountCM(&st.Spec.Template, s, "sessions-redis-sentinel", "/etc/redis-sentinel", "")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("sessions-redis-headless", sessRedis, "redis", 6379)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("redis-sentinel", sessRedis, "sentinel", 26379))
					},
					func() error {
						d := w11bApp("session-api", "session-api", "registry.example/storefront/session-api:1.12.0", 2, sessionAPI,
							w11bReadinessFail("session-api", "w14b-session-api-sentinel", "HTTP probe failed with statuscode: 503"), "http", 8000)
						envFromConfigMap(&d.Spec.Template, "session-api-env")
						w8bReadiness(&d.Spec.Template, "/healthz/ready", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("cart-api", "cart-api", "registry.example/storefront/cart-api:2.9.1", 2, cart, nil, "http", 8000)
						envFromConfigMap(&d.Spec.Template, "cart-api-env")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(sessionAPI, runningNotReady), readyReplicas("cart-api", 2)),
		},
	}
}

func wave14bBrokerScenarios() []*Scenario {
	consumer := w8bLabels("shipments-consumer", "logistics", "app.kubernetes.io/component", "worker")
	publisher := w8bLabels("orders-publisher", "logistics", "app.kubernetes.io/component", "api")
	rabbit := w8bLabels("rabbitmq", "logistics", "app.kubernetes.io/component", "broker")
	exporter := w8cLabels("app", "exports-publisher", "team", "data", "tier", "api")
	nats := w8cLabels("app", "nats", "team", "platform", "tier", "broker")
	kafka := w8bLabels("kafka", "order-events", "app.kubernetes.io/component", "broker")
	zk := w8bLabels("zookeeper", "order-events", "app.kubernetes.io/component", "coordination")
	return []*Scenario{
		{
			// The definitions file RabbitMQ loads at boot grants shipments-consumer on vhost "/"
			// only; the Go client sees a bare 403 "no access to this vhost", the broker's log
			// names the user and the vhost.
			Name: "shipments-rabbitmq-vhost-permission", Covers: "shipments-consumer (Go, amqp091) crash-loops on 'Exception (403) Reason: \"no access to this vhost\"'; the Ready RabbitMQ logs \"access to vhost 'shipments' refused for user 'shipments-consumer'\": the permissions entry in ConfigMap rabbitmq-definitions (definitions.json) gives that user vhost '/' while orders-publisher has 'shipments'",
			Source: w14bSrcRabbitVhost, Class: ClassProvider, Hops: 3,
			Problem: "shipment status updates stopped; shipments-consumer restarts every few seconds with a 403 from the broker",
			Target:  target("Deployment", "shipments-consumer"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "rabbitmq-definitions"}, Terms: []string{"vhost"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "rabbitmq-definitions", map[string]string{"definitions.json": `{
  "users": [
    {"name": "orders-publisher", "password_hash": "kI3GCqW5JLMJa4iX1lo7X4D6XbYqlLgxIs30+P6tENUV2POR", "hashing_algorithm": "rabbit_password_hashing_sha256", "tags": []},
    {"name": "shipments-consumer", "password_hash": "d2b8nE0wqTjv5eMr3cY1kS9pXzUa7fLh4GoB6NiV8RtQ2HmK", "hashing_algorithm": "rabbit_password_hashing_sha256", "tags": []}
  ],
  "vhosts": [{"name": "/"}, {"name": "shipments"}],
  "permissions": [
    {"user": "orders-publisher", "vhost": "shipments", "configure": "^orders\\..*", "write": ".*", "read": ".*"},
    {"user": "shipments-consumer", "vhost": "/", "configure": "^shipments\\..*", "write": ".*", "read": ".*"}
  ],
  "queues": [
    {"name": "shipments.status", "vhost": "shipments", "durable": true, "auto_delete": false, "arguments": {"x-queue-type": "quorum"}},
    {"name": "shipments.dlq", "vhost": "shipments", "durable": true, "auto_delete": false, "arguments": {}},
    {"name": "orders.created", "vhost": "shipments", "durable": true, "auto_delete": false, "arguments": {"x-queue-type": "quorum"}}
  ]
}
`})
					},
					func() error {
						return e.createConfigMap(ctx, "rabbitmq-config", map[string]string{"rabbitmq.conf": "load_definitions = /etc/rabbitmq/definitions/definitions.json\n" +
							"listeners.tcp.default = 5672\nmanagement.tcp.port = 15672\nvm_memory_high_watermark.relative = 0.6\nlog.console.level = info\n"})
					},
					func() error {
						return e.createSecret(ctx, "shipments-amqp", map[string]string{"AMQP_PASSWORD": "Lr6Tq2Wx9Bz4Nc7V"})
					},
					func() error {
						return e.createSecret(ctx, "orders-amqp", map[string]string{"AMQP_PASSWORD": "Gm3Ys8Pk1Fd5Hj0Q"})
					},
					func() error {
						return e.w14bStore(ctx, "rabbitmq", "rabbitmq:3.13.7-management", rabbit, running("w14b-shipments-rabbitmq"), "amqp", 5672, func(t *corev1.PodTemplateSpec) {
							c := &t.Spec.Containers[0]
							w14bEnv(c, "RABBITMQ_CONFIG_FILES", "/etc/rabbitmq/conf.d")
							w14bMountCM(t, c, "rabbitmq-config", "/etc/rabbitmq/conf.d", "")
							w14bMountCM(t, &t.Spec.Containers[0], "rabbitmq-definitions", "/etc/rabbitmq/definitions", "")
						})
					},
					func() error {
						d := w11bApp("shipments-consumer", "consumer", "registry.example/logistics/shipments-consumer:3.4.2", 2, consumer, crash("1", "", "w14b-shipments-consumer-amqp"), "metrics", 9090)
						w8bEnv(&d.Spec.Template, "AMQP_HOST", "rabbitmq", "AMQP_PORT", "5672", "AMQP_VHOST", "shipments", "AMQP_USER", "shipments-consumer", "QUEUE", "shipments.status", "PREFETCH", "50")
						envFromSecret(&d.Spec.Template, "shipments-amqp")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("orders-publisher", "publisher", "registry.example/logistics/orders-publisher:1.8.0", 2, publisher, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "AMQP_HOST", "rabbitmq", "AMQP_PORT", "5672", "AMQP_VHOST", "shipments", "AMQP_USER", "orders-publisher")
						envFromSecret(&d.Spec.Template, "orders-amqp")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(consumer, crashLooping(2)), w8cStatefulSetReady("rabbitmq", 1), readyReplicas("orders-publisher", 2)),
		},
		{
			// The NATS server config caps payloads at 64 KiB; nats.go checks the size against
			// the server's INFO and refuses big exports client-side. Everything stays Ready.
			Name: "exports-nats-max-payload-64k", Covers: "exports-publisher (Go, nats.go) is Running and Ready but logs 'publish failed ... err=\"nats: maximum payload exceeded\"' for every export over 64 KiB (its connect line shows max_payload=65536); max_payload: 65536 in ConfigMap nats-config (nats.conf) is below the 1 MB default the exports need",
			Source: w14bSrcNatsPayload, Class: ClassOutside, Hops: 3,
			Problem: "our biggest customers never get the 'your export is ready' email; small tenants get theirs. Nothing is crashing",
			Target:  target("Deployment", "exports-publisher"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "nats-config"}, Terms: []string{"max_payload"}},
			Setup: func(ctx context.Context, e *Env) error {
				mailer := w8cLabels("app", "exports-mailer", "team", "data", "tier", "worker")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "nats-config", map[string]string{"nats.conf": "port: 4222\nhttp_port: 8222\nserver_name: $POD_NAME\n" +
							"max_connections: 2000\nmax_payload: 65536\nmax_pending: 67108864\nwrite_deadline: \"10s\"\nlame_duck_duration: \"30s\"\n"})
					},
					func() error {
						return e.w14bStore(ctx, "nats", "nats:2.10.22-alpine", nats, nil, "client", 4222, func(t *corev1.PodTemplateSpec) {
							w10aMain(t, "nats", "--config", "/etc/nats-config/nats.conf")
							w10aPort(t, "monitor", 8222)
							w14bMountCM(t, &t.Spec.Containers[0], "nats-config", "/etc/nats-config", "")
						})
					},
					func() error {
						d := w11bApp("exports-publisher", "publisher", "registry.example/data/exports-publisher:2.3.0", 2, exporter, running("w14b-exports-nats-publisher"), "http", 8080)
						w8bEnv(&d.Spec.Template, "NATS_URL", "nats://nats:4222", "EXPORT_SUBJECT_PREFIX", "exports.ready", "EXPORT_BUCKET", "acme-exports", "LOG_FORMAT", "logfmt")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("exports-mailer", "mailer", "registry.example/data/exports-mailer:2.3.0", 1, mailer, nil, "metrics", 9100)
						w8bEnv(&d.Spec.Template, "NATS_URL", "nats://nats:4222", "SUBSCRIBE", "exports.ready.>", "SMTP_HOST", "smtp.example.com")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(exporter, runningReady), readyReplicas("exports-mailer", 1), w8cStatefulSetReady("nats", 1)),
		},
		{
			// The bitnami Kafka image takes KAFKA_CFG_* as server.properties; the connect string
			// names zk-headless, but ZooKeeper's Services are zookeeper and zookeeper-headless.
			Name: "kafka-zookeeper-connect-host-typo", Covers: "kafka brokers crash-loop on 'Unable to canonicalize address zk-headless:2181 because it's not resolvable' then ZooKeeperClientTimeoutException; KAFKA_CFG_ZOOKEEPER_CONNECT in ConfigMap kafka-env names zk-headless:2181/kafka while the Services are zookeeper and zookeeper-headless",
			Source: w14bSrcZkCanon, Class: ClassClue, Hops: 1,
			Problem: "order-events producers time out and the kafka pods keep restarting",
			Target:  target("StatefulSet", "kafka"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "kafka-env"}, Terms: []string{"zk-headless"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "kafka-env", map[string]string{"KAFKA_CFG_ZOOKEEPER_CONNECT": "zk-headless:2181/kafka",
							"KAFKA_CFG_LISTENERS": "PLAINTEXT://:9092", "KAFKA_CFG_ADVERTISED_LISTENERS": "PLAINTEXT://$(MY_POD_NAME).kafka-headless:9092",
							"KAFKA_CFG_NUM_PARTITIONS": "6", "KAFKA_CFG_DEFAULT_REPLICATION_FACTOR": "3", "KAFKA_CFG_MIN_INSYNC_REPLICAS": "2", "KAFKA_HEAP_OPTS": "-Xmx1g -Xms1g"})
					},
					func() error {
						return e.createConfigMap(ctx, "zookeeper-env", map[string]string{"ZOO_SERVERS": "zookeeper-0.zookeeper-headless:2888:3888,zookeeper-1.zookeeper-headless:2888:3888,zookeeper-2.zookeeper-headless:2888:3888",
							"ZOO_TICK_TIME": "2000", "ALLOW_ANONYMOUS_LOGIN": "yes", "ZOO_4LW_COMMANDS_WHITELIST": "srvr, mntr, ruok"})
					},
					func() error {
						st := w8bStatefulSet("zookeeper", "bitnami/zookeeper:3.9.2", "zookeeper-headless", 3, zk, nil, "client", 2181)
						w10aMain(&st.Spec.Template, "zookeeper")
						envFromConfigMap(&st.Spec.Template, "zookeeper-env")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("zookeeper-headless", zk, "client", 2181)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("zookeeper", zk, "client", 2181))
					},
					func() error {
						st := w8bStatefulSet("kafka", "bitnami/kafka:3.7.1", "kafka-headless", 3, kafka, crash("1", "", "w14b-kafka-zk-unresolvable"), "kafka", 9092)
						w10aMain(&st.Spec.Template, "kafka")
						envFromConfigMap(&st.Spec.Template, "kafka-env")
						w8bEnv(&st.Spec.Template, "KAFKA_ENABLE_KRAFT", "no")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("kafka-headless", kafka, "kafka", 9092)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("kafka", kafka, "kafka", 9092))
					},
				)
			},
			Wait: all(podsWith(kafka, crashLooping(2)), w8cStatefulSetReady("zookeeper", 3)),
		},
	}
}
