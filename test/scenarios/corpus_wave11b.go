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
	"k8s.io/utils/ptr"
)

// Wave 11b: the clue is in the text. Applications of common stacks fail and print what the
// real ones print (banners, info lines, a framework's wrapper, the cause, a stack trace, an
// exit line); the cause is a Kubernetes object the text points at: a host that is a typo of a
// Service name, a port a Service does not expose, a Secret with a stale or mangled password, a
// variable a ConfigMap lacks, a path a volume does not provide, DNS egress a NetworkPolicy
// blocks, a read-only filesystem, a full volume, an expired certificate, a Service whose own
// pods fail. Config reaches the apps by env, envFrom, mounted files, args and connection URLs.
// The expected answers were written from the sources before anything ran.

func wave11bScenarios() []*Scenario {
	return append(append(wave11bFirstScenarios(), wave11bMoreScenarios()...), wave11bLateScenarios()...)
}

func wave11bFirstScenarios() []*Scenario {
	orders := w8bLabels("orders-api", "shop", "app.kubernetes.io/component", "api")
	ordersDB := w8bLabels("orders-postgres", "shop", "app.kubernetes.io/component", "database")
	billing := w8cLabels("app", "billing-web", "tier", "web", "team", "finance")
	billingDB := w8cLabels("app", "billing-postgres", "tier", "db", "team", "finance")
	cart := w8bLabels("cart-api", "shop")
	cartRedis := w8bLabels("cart-redis", "shop", "app.kubernetes.io/component", "cache")
	reports := w8cLabels("app.kubernetes.io/name", "reports-api", "app.kubernetes.io/instance", "reports")
	invoice := w8cLabels("app", "invoice-service", "version", "1.14.0")
	ledgerWorker := w8bLabels("ledger-worker", "ledger", "app.kubernetes.io/component", "sidekiq")
	storefront := w8cLabels("app.kubernetes.io/name", "storefront", "app.kubernetes.io/component", "web")
	inventoryAPI := w8bLabels("inventory-api", "warehouse")
	inventoryDB := w8bLabels("inventory-db", "warehouse", "app.kubernetes.io/component", "database")
	return []*Scenario{
		{
			// The Express API reads its PG* settings with envFrom from a ConfigMap whose
			// PGHOST has a doubled letter; the Service is orders-postgres.
			Name: "orders-express-pghost-typo", Covers: "orders-api (Express, node-postgres) crash-loops on 'getaddrinfo ENOTFOUND orders-postgress'; PGHOST in ConfigMap orders-api-env (envFrom) is a typo of the Service orders-postgres",
			Source: w11bSrcN8nENOTFOUND + "; " + w11bSrcConfigMap, Class: ClassClue, Hops: 2,
			Problem: "POST /api/orders answers 503 and the orders-api pods keep restarting",
			Target:  target("Deployment", "orders-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "orders-api-env"}, Terms: []string{"orders-postgress"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "orders-api-env", map[string]string{"NODE_ENV": "production", "PORT": "3000",
							"PGHOST": "orders-postgress", "PGPORT": "5432", "PGDATABASE": "orders", "PGUSER": "orders_app", "LOG_LEVEL": "info"})
					},
					func() error {
						return e.createSecret(ctx, "orders-api-db", map[string]string{"PGPASSWORD": "b7Qe2mVx9LkP"})
					},
					func() error {
						return e.createConfigMap(ctx, "cart-api-env", map[string]string{"NODE_ENV": "production", "PORT": "3000", "REDIS_URL": "redis://cart-redis:6379/0"})
					},
					func() error {
						return e.w11bStore(ctx, "orders-postgres", "postgres:16.4", ordersDB, nil, "postgres", 5432, "POSTGRES_DB", "orders", "POSTGRES_USER", "orders_app")
					},
					func() error {
						d := w11bApp("orders-api", "orders-api", "registry.example/shop/orders-api:4.2.0", 2, orders, crash("1", "", "w11b-orders-api-enotfound"), "http", 3000)
						envFromConfigMap(&d.Spec.Template, "orders-api-env")
						envFromSecret(&d.Spec.Template, "orders-api-db")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("cart-api", "cart-api", "registry.example/shop/cart-api:2.3.0", 2, cart, nil, "http", 3000)
						envFromConfigMap(&d.Spec.Template, "cart-api-env")
						return e.w11bServe(ctx, d, 80)
					},
					func() error { return e.w11bStore(ctx, "cart-redis", "redis:7.2.5", cartRedis, nil, "redis", 6379) },
				)
			},
			Wait: all(podsWith(orders, crashLooping(2)), readyReplicas("cart-api", 2)),
		},
		{
			// The database password was rotated in the Secret the Postgres StatefulSet reads;
			// the web tier's own copy in billing-web-env still holds the old one.
			Name: "billing-django-stale-db-password", Covers: "billing.example.com 502: billing-web (gunicorn, Django) workers fail to boot on psycopg2 'password authentication failed for user \"billing\"'; DB_PASSWORD in Secret billing-web-env differs from the password in Secret billing-postgres the database runs with",
			Source: w11bSrcSecret, Class: ClassClue, Hops: 3,
			Problem: "billing.example.com returns 502 Bad Gateway for every page",
			Target:  target("Ingress", "billing"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "billing-web-env"}, Terms: []string{"password"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "billing-postgres", map[string]string{"postgres-password": "Vq4nR8wz2TcE", "password": "mK7dP2xLr9Qa"})
					},
					func() error {
						return e.createSecret(ctx, "billing-web-env", map[string]string{"DJANGO_SECRET_KEY": "f3c9a1e07b6d4c2e9a8b5f1d0e7c3a6b", "DB_USER": "billing", "DB_PASSWORD": "Jt5wQ1zHs8Ku"})
					},
					func() error {
						return e.createConfigMap(ctx, "billing-web-config", map[string]string{"DJANGO_SETTINGS_MODULE": "billing.settings.production", "DB_HOST": "billing-postgres",
							"DB_PORT": "5432", "DB_NAME": "billing", "ALLOWED_HOSTS": "billing.example.com", "GUNICORN_CMD_ARGS": "--bind=0.0.0.0:8000 --workers=3 --timeout=60"})
					},
					func() error {
						st := w8bStatefulSet("billing-postgres", "postgres:15.8", "billing-postgres", 1, billingDB, running("w11b-billing-postgres-auth"), "postgres", 5432)
						w8bEnv(&st.Spec.Template, "POSTGRES_USER", "billing", "POSTGRES_DB", "billing")
						envKeyFromSecret(&st.Spec.Template, "POSTGRES_PASSWORD", "billing-postgres", "password")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("billing-postgres", billingDB, "postgres", 5432))
					},
					func() error {
						d := w11bApp("billing-web", "web", "registry.example/finance/billing-web:2026.11.3", 2, billing, crash("3", "", "w11b-billing-gunicorn-auth"), "http", 8000)
						w8cArgs(&d.Spec.Template, "gunicorn", "billing.wsgi:application")
						envFromConfigMap(&d.Spec.Template, "billing-web-config")
						envFromSecret(&d.Spec.Template, "billing-web-env")
						w8bReadiness(&d.Spec.Template, "/healthz/", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("billing-scheduler", "scheduler", "registry.example/finance/billing-scheduler:1.4.2", 1, w8cLabels("app", "billing-scheduler", "tier", "worker", "team", "finance"), nil, "metrics", 9102)
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("billing", "billing.example.com", "billing-web", 80))
					},
				)
			},
			Wait: all(podsWith(billing, crashLooping(2)), w8cStatefulSetReady("billing-postgres", 1)),
		},
		{
			// Redis runs with a TLS port next to the plain one; the Service only exposes 6379, so
			// the 2.8 release that switched the client to TLS on 6380 cannot connect.
			Name: "cart-go-redis-tls-port-unexposed", Covers: "cart-api (Go, go-redis) exits after 'redis ping failed addr=cart-redis:6380 ... i/o timeout'; the Redis pods listen on 6380 (tls-port) but Service cart-redis exposes only 6379",
			Source: "https://kubernetes.io/docs/tutorials/services/connect-applications-service/ (a Service exposes only the ports it lists)", Class: ClassClue, Hops: 2,
			Problem: "cart-api pods crash-loop since the 2.8 release",
			Target:  target("Deployment", "cart-api"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "cart-redis"}, Terms: []string{"6380"}},
			Setup: func(ctx context.Context, e *Env) error {
				session := w8bLabels("session-api", "shop")
				return steps(
					func() error { return e.w10bTLSSecret(ctx, "cart-redis-tls", "cart-redis") },
					func() error {
						st := w8bStatefulSet("cart-redis", "redis:7.2.5", "cart-redis", 1, cartRedis, nil, "redis", 6379)
						w10aPort(&st.Spec.Template, "tls-redis", 6380)
						mountSecret(&st.Spec.Template, "cart-redis-tls", "/tls")
						w8cArgs(&st.Spec.Template, "redis-server", "--port", "6379", "--tls-port", "6380", "--tls-cert-file", "/tls/tls.crt", "--tls-key-file", "/tls/tls.key", "--tls-auth-clients", "no")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("cart-redis", cartRedis, "redis", 6379))
					},
					func() error {
						d := w11bApp("cart-api", "cart-api", "registry.example/shop/cart-api:2.8.1", 2, cart, crash("1", "", "w11b-cart-api-redis-timeout"), "http", 8080)
						w8bEnv(&d.Spec.Template, "REDIS_ADDR", "cart-redis:6380", "REDIS_TLS", "true", "REDIS_DB", "0", "HTTP_ADDR", ":8080")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("session-api", "session-api", "registry.example/shop/session-api:1.9.0", 2, session, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "REDIS_ADDR", "cart-redis:6379", "REDIS_DB", "1")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(cart, crashLooping(2)), readyReplicas("session-api", 2)),
		},
		{
			// The Flask app reads S3_BUCKET at import; the ConfigMap it takes with envFrom has
			// every other setting (the staging one next to it has the bucket).
			Name: "reports-flask-s3-bucket-unset", Covers: "reports-api (gunicorn, Flask) workers fail to boot on KeyError: 'S3_BUCKET' in reports/config.py; ConfigMap reports-env (envFrom) has no S3_BUCKET key, only the unused reports-env-staging has one",
			Source: w11bSrcConfigMap + " (envFrom: keys become variables; a key that is not there is simply not set)", Class: ClassClue, Hops: 2,
			Problem: "the reports-api Service has no endpoints and the dashboard's CSV export fails",
			Target:  target("Service", "reports-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "reports-env"}, Terms: []string{"S3_BUCKET"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "reports-env", map[string]string{"FLASK_ENV": "production", "REPORTS_DB_URL": "postgresql://reports@reports-db:5432/reports",
							"AWS_REGION": "eu-central-1", "EXPORT_PREFIX": "exports/", "GUNICORN_CMD_ARGS": "--bind=0.0.0.0:8000 --workers=2"})
					},
					func() error {
						return e.createConfigMap(ctx, "reports-env-staging", map[string]string{"FLASK_ENV": "staging", "REPORTS_DB_URL": "postgresql://reports@reports-db:5432/reports_staging",
							"AWS_REGION": "eu-central-1", "S3_BUCKET": "acme-reports-staging", "EXPORT_PREFIX": "exports/"})
					},
					func() error {
						return e.w11bStore(ctx, "reports-db", "postgres:16.4", w8cLabels("app.kubernetes.io/name", "reports-db", "app.kubernetes.io/instance", "reports"), nil, "postgres", 5432, "POSTGRES_DB", "reports")
					},
					func() error {
						d := w11bApp("reports-api", "reports-api", "registry.example/analytics/reports-api:3.2.0", 2, reports, crash("3", "", "w11b-reports-flask-keyerror"), "http", 8000)
						envFromConfigMap(&d.Spec.Template, "reports-env")
						w8bReadiness(&d.Spec.Template, "/health", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("reports-dashboard", "dashboard", "registry.example/analytics/reports-dashboard:3.2.0", 1,
							w8cLabels("app.kubernetes.io/name", "reports-dashboard", "app.kubernetes.io/instance", "reports"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "REPORTS_API_URL", "http://reports-api")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(reports, crashLooping(2)), readyReplicas("reports-dashboard", 1)),
		},
		{
			// The prod profile file is asked for by args; the ConfigMap mounted at /config
			// carries it under another key, so the file at the asked path does not exist.
			Name: "invoice-spring-config-location-missing", Covers: "invoice-service (Spring Boot 3) fails with ConfigDataLocationNotFoundException: Config data location 'file:/config/application-prod.yml' does not exist; ConfigMap invoice-service-config mounted at /config has the key application-production.yml",
			Source: w11bSrcConfigMap + " (Add ConfigMap data to a Volume: each key becomes a file)", Class: ClassReference, Hops: 2,
			Problem: "invoice-service does not come up after the move to Kubernetes: pods restart over and over",
			Target:  target("Deployment", "invoice-service"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "invoice-service-config"}, Also: []Ref{{Kind: "Deployment", Name: "invoice-service"}},
				Terms: []string{"application-prod.yml"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "invoice-service-config", map[string]string{"application-production.yml": "spring:\n  datasource:\n    url: jdbc:postgresql://invoice-db:5432/invoices\n    username: invoice\n  jpa:\n    hibernate:\n      ddl-auto: validate\nmanagement:\n  endpoints:\n    web:\n      exposure:\n        include: health,info,prometheus\ninvoice:\n  pdf:\n    renderer-url: http://pdf-renderer:8080\n"})
					},
					func() error {
						return e.w11bStore(ctx, "invoice-db", "postgres:16.4", w8cLabels("app", "invoice-db", "version", "16"), nil, "postgres", 5432, "POSTGRES_DB", "invoices")
					},
					func() error {
						return e.w11bServe(ctx, w11bApp("pdf-renderer", "renderer", "gotenberg/gotenberg:8.12.0", 1, w8cLabels("app", "pdf-renderer", "version", "8.12.0"), nil, "http", 3000), 8080)
					},
					func() error {
						d := w11bApp("invoice-service", "invoice-service", "registry.example/finance/invoice-service:1.14.0", 1, invoice, crash("1", "", "w11b-invoice-spring-config-missing"), "http", 8080)
						w8cArgs(&d.Spec.Template, "--spring.profiles.active=prod", "--spring.config.additional-location=file:/config/application-prod.yml")
						mountConfigMap(&d.Spec.Template, "invoice-service-config", "/config")
						w8bEnv(&d.Spec.Template, "JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(invoice, crashLooping(2)), readyReplicas("pdf-renderer", 1)),
		},
		{
			// A NetworkPolicy locks the Sidekiq workers' egress down to Postgres and Redis and
			// forgets DNS, so every lookup of the Redis Service name fails.
			Name: "ledger-sidekiq-dns-egress-blocked", Covers: "ledger-worker (Sidekiq) is Running but logs 'RedisClient::CannotConnectError: getaddrinfo: Temporary failure in name resolution (redis://ledger-redis:6379)'; NetworkPolicy ledger-worker-egress allows egress only to the postgres and redis pods, not to DNS on port 53",
			Source: w11bSrcDNSEgress + "; " + w11bSrcNetPol, Class: ClassProvider, Hops: 2,
			Problem: "ledger background jobs pile up in Sidekiq and none get processed",
			Target:  target("Deployment", "ledger-worker"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "ledger-worker-egress"}, Terms: []string{"DNS", "egress"}},
			Setup: func(ctx context.Context, e *Env) error {
				web := w8bLabels("ledger-web", "ledger", "app.kubernetes.io/component", "puma")
				pg := w8bLabels("ledger-postgres", "ledger", "app.kubernetes.io/component", "database")
				redis := w8bLabels("ledger-redis", "ledger", "app.kubernetes.io/component", "redis")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "ledger-env", map[string]string{"RAILS_ENV": "production", "RAILS_LOG_TO_STDOUT": "1",
							"REDIS_URL": "redis://ledger-redis:6379/0", "DATABASE_URL": "postgres://ledger@ledger-postgres:5432/ledger_production", "RAILS_MAX_THREADS": "10"})
					},
					func() error {
						return e.w11bStore(ctx, "ledger-postgres", "postgres:16.4", pg, nil, "postgres", 5432, "POSTGRES_DB", "ledger_production")
					},
					func() error { return e.w11bStore(ctx, "ledger-redis", "redis:7.2.5", redis, nil, "redis", 6379) },
					func() error {
						d := w11bApp("ledger-web", "web", "registry.example/ledger/ledger:2026.11.27", 2, web, nil, "http", 3000)
						w8cArgs(&d.Spec.Template, "bundle", "exec", "puma", "-C", "config/puma.rb")
						envFromConfigMap(&d.Spec.Template, "ledger-env")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("ledger-worker", "sidekiq", "registry.example/ledger/ledger:2026.11.27", 2, ledgerWorker, running("w11b-ledger-sidekiq-dns"), "", 0)
						w8cArgs(&d.Spec.Template, "bundle", "exec", "sidekiq", "-C", "config/sidekiq.yml")
						envFromConfigMap(&d.Spec.Template, "ledger-env")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createNetworkPolicy(ctx, w8cEgressPolicy("ledger-worker-egress", ledgerWorker, w11bToPods(pg, 5432), w11bToPods(redis, 6379)))
					},
				)
			},
			Wait: podsWith(ledgerWorker, runningReady),
		},
		{
			// The hardening change set readOnlyRootFilesystem; Laravel writes its compiled views
			// and its log under storage/, which no writable volume covers.
			Name: "storefront-laravel-readonly-storage", Covers: "storefront (Laravel on php-fpm/nginx) answers 500 and fails readiness: 'file_put_contents(/var/www/html/storage/framework/views/...): Failed to open stream: Read-only file system'; Deployment storefront sets readOnlyRootFilesystem: true with no writable volume for storage/",
			Source: w11bSrcLaravelRO, Class: ClassClue, Hops: 3,
			Problem: "shop.example.com answers 503 since this afternoon's deploy",
			Target:  target("Ingress", "storefront"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "storefront"}, Terms: []string{"read-only"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "storefront-env", map[string]string{"APP_ENV": "production", "APP_DEBUG": "false", "APP_URL": "https://shop.example.com",
							"DB_CONNECTION": "mysql", "DB_HOST": "storefront-mysql", "DB_PORT": "3306", "DB_DATABASE": "storefront", "CACHE_DRIVER": "redis", "REDIS_HOST": "storefront-redis", "LOG_CHANNEL": "stack"})
					},
					func() error {
						return e.w11bStore(ctx, "storefront-mysql", "mysql:8.0.39", w8cLabels("app.kubernetes.io/name", "storefront-mysql", "app.kubernetes.io/component", "database"), nil, "mysql", 3306, "MYSQL_DATABASE", "storefront")
					},
					func() error {
						return e.w11bStore(ctx, "storefront-redis", "redis:7.2.5", w8cLabels("app.kubernetes.io/name", "storefront-redis", "app.kubernetes.io/component", "cache"), nil, "redis", 6379)
					},
					func() error {
						d := w11bApp("storefront", "app", "registry.example/shop/storefront:11.4.2", 2, storefront,
							w11bReadinessFail("app", "w11b-storefront-laravel-readonly", "Readiness probe failed: HTTP probe failed with statuscode: 500"), "http", 8080)
						envFromConfigMap(&d.Spec.Template, "storefront-env")
						d.Spec.Template.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](33),
							ReadOnlyRootFilesystem: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false)}
						w9aEmptyDir(&d.Spec.Template, "tmp", "/tmp")
						w8bReadiness(&d.Spec.Template, "/up", "http", 5)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("storefront-queue", "worker", "registry.example/shop/storefront:11.4.2", 1,
							w8cLabels("app.kubernetes.io/name", "storefront", "app.kubernetes.io/component", "queue"), nil, "", 0)
						w8cArgs(&d.Spec.Template, "php", "artisan", "queue:work", "--sleep=3", "--tries=3")
						envFromConfigMap(&d.Spec.Template, "storefront-env")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("storefront", "shop.example.com", "storefront", 80))
					},
				)
			},
			Wait: podsWith(storefront, runningNotReady),
		},
		{
			// The database's 1Gi volume filled up with WAL; Postgres cannot finish recovery and
			// exits, so the API in front of it sees its Service refuse connections.
			Name: "inventory-fastapi-postgres-volume-full", Covers: "inventory-api (FastAPI, SQLAlchemy) is not Ready: 'connection to server at \"inventory-db\" ... port 5432 failed: Connection refused'; inventory-db (Postgres) crash-loops on 'could not write to file \"pg_wal/xlogtemp.29\": No space left on device' on its 1Gi claim data-inventory-db-0",
			Source: "runbooks/kubernetes/KubePersistentVolumeFillingUp.md", Class: ClassProvider, Hops: 3,
			Problem: "the warehouse scanners get 'service unavailable' from inventory-api",
			Target:  target("Deployment", "inventory-api"),
			Want:    Want{Culprit: Ref{Kind: "PersistentVolumeClaim", Name: "data-inventory-db-0"}, Terms: []string{"no space left"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "inventory-db-credentials", map[string]string{"POSTGRES_USER": "inventory", "POSTGRES_PASSWORD": "Zr8vN3kq5WpL"})
					},
					func() error {
						st := w8bStatefulSet("inventory-db", "postgres:15.8", "inventory-db", 1, inventoryDB, crash("1", "", "w11b-inventory-postgres-enospc"), "postgres", 5432)
						envFromSecret(&st.Spec.Template, "inventory-db-credentials")
						w8bEnv(&st.Spec.Template, "PGDATA", "/var/lib/postgresql/data/pgdata", "POSTGRES_DB", "inventory")
						return e.w10aClaimedStatefulSet(ctx, st, "data", "1Gi", "/var/lib/postgresql/data")
					},
					func() error { return e.createService(ctx, w8bService("inventory-db", inventoryDB, "postgres", 5432)) },
					func() error {
						d := w11bApp("inventory-api", "api", "registry.example/warehouse/inventory-api:0.31.0", 2, inventoryAPI,
							w11bReadinessFail("api", "w11b-inventory-api-db-refused", "Readiness probe failed: HTTP probe failed with statuscode: 503"), "http", 8000)
						w8bEnv(&d.Spec.Template, "DATABASE_HOST", "inventory-db", "DATABASE_NAME", "inventory")
						envFromSecret(&d.Spec.Template, "inventory-db-credentials")
						w8bReadiness(&d.Spec.Template, "/health/ready", "http", 5)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("label-printer", "printer", "registry.example/warehouse/label-printer:1.2.0", 1, w8bLabels("label-printer", "warehouse"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(inventoryDB, crashLooping(2)), podsWith(inventoryAPI, runningNotReady)),
		},
	}
}
