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
	"fmt"
)

// Wave 16a: incident tickets as on-call receives them, one common production failure each
// (a config rollout, a renamed Service, a chart upgrade, a resource limit, storage, a network
// policy, RBAC, a rollout, a migration hook), each written from a public issue or doc page.
// The Problem is the ticket: the symptom, often blaming the wrong component. Written blind by
// an outside hand; every Want was fixed from the source before anything ran.

func wave16aScenarios() []*Scenario {
	return append(wave16aFirstScenarios(), wave16aMoreScenarios()...)
}

func wave16aFirstScenarios() []*Scenario {
	worker := w8bLabels("fulfilment-worker", "fulfilment", "app.kubernetes.io/component", "sidekiq")
	web := w8bLabels("fulfilment-web", "fulfilment", "app.kubernetes.io/component", "puma")
	redis := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "jobs-redis")
	catalog := w8bLabels("catalog-api", "catalog")
	ledger := w8cLabels("app", "ledger", "team", "finance")
	orders := w8bLabels("orders-api", "orders")
	pg := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "orders-db")
	shop := w8cLabels("app", "shop-web", "tier", "frontend")
	mysql := w8cLabels("app", "shop-mysql", "tier", "db")
	return []*Scenario{
		{
			// The platform team renamed the Redis Service of the job queue (sidekiq-redis →
			// jobs-redis) and updated the web app's config, but the worker's own ConfigMap
			// still points REDIS_URL at the old name: getaddrinfo fails and Sidekiq exits.
			Name: "fulfilment-queue-keeps-growing", Covers: "fulfilment-worker (Sidekiq) crash-loops on 'RedisClient::CannotConnectError: getaddrinfo: Name or service not known (redis://sidekiq-redis:6379)': REDIS_URL in ConfigMap fulfilment-env names the Redis Service by its old name; the Service is now jobs-redis (fulfilment-web, configured with it, is fine)",
			Source: w16aSrcSidekiqDNS, Class: ClassReference, Hops: 2,
			Problem: "orders are not getting fulfilled and the fulfilment queue keeps growing; Redis itself looks healthy, I can redis-cli into it",
			Target:  target("Deployment", "fulfilment-worker"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "fulfilment-env"}, Terms: []string{"sidekiq-redis"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11bStore(ctx, "jobs-redis", "docker.io/library/redis:7.2.5-alpine", redis, nil, "redis", 6379)
					},
					func() error {
						return e.createConfigMap(ctx, "fulfilment-env", map[string]string{"RAILS_ENV": "production", "REDIS_URL": "redis://sidekiq-redis:6379/0", "RAILS_MAX_THREADS": "10", "SIDEKIQ_CONCURRENCY": "10", "SHIPPING_API_URL": "https://api.shipping.example.com/v2"})
					},
					func() error {
						return e.createConfigMap(ctx, "fulfilment-web-env", map[string]string{"RAILS_ENV": "production", "REDIS_URL": "redis://jobs-redis:6379/0", "WEB_CONCURRENCY": "2", "RAILS_LOG_TO_STDOUT": "1"})
					},
					func() error {
						d := w11bApp("fulfilment-worker", "sidekiq", "registry.example/fulfilment/app:2025.03.2", 2, worker,
							crash("1", "RedisClient::CannotConnectError: getaddrinfo: Name or service not known (redis://sidekiq-redis:6379)", "w16a-sidekiq-redis-dns"), "metrics", 9394)
						w8cArgs(&d.Spec.Template, "bundle", "exec", "sidekiq", "-C", "config/sidekiq.yml")
						envFromConfigMap(&d.Spec.Template, "fulfilment-env")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("fulfilment-web", "puma", "registry.example/fulfilment/app:2025.03.2", 2, web, nil, "http", 3000)
						w8cArgs(&d.Spec.Template, "bundle", "exec", "puma", "-C", "config/puma.rb")
						envFromConfigMap(&d.Spec.Template, "fulfilment-web-env")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(worker, crashLooping(2)), readyReplicas("fulfilment-web", 2), w11aStatefulSetReady("jobs-redis", 1)),
		},
		{
			// .NET reads nested configuration from environment variables with "__" as the
			// separator. The config PR wrote ConnectionStrings_Default (one underscore), so
			// GetConnectionString("Default") is null and UseSqlServer throws at startup.
			Name: "catalog-api-restarts-after-config-pr", Covers: "catalog-api (ASP.NET Core, EF Core) crash-loops with exit 134 'Unhandled exception. System.ArgumentNullException: Value cannot be null. (Parameter 'connectionString')': its ConfigMap catalog-api-env sets ConnectionStrings_Default with one underscore, which .NET does not map to ConnectionStrings:Default (catalog-importer, whose ConfigMap uses ConnectionStrings__Default, connects fine)",
			Source: w16aSrcDotnetEnv, Class: ClassClue, Hops: 1,
			Problem: "catalog API pods keep restarting since this morning's config PR, the SQL Server is up and other services use it fine",
			Target:  target("Deployment", "catalog-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "catalog-api-env"}, Terms: []string{"ConnectionStrings_Default"}},
			Setup: func(ctx context.Context, e *Env) error {
				conn := "Server=catalog-sql,1433;Database=Catalog;User Id=catalog;TrustServerCertificate=True;Encrypt=True"
				return steps(
					func() error {
						return e.w11bStore(ctx, "catalog-sql", "mcr.microsoft.com/mssql/server:2022-CU14-ubuntu-22.04", w8cLabels("app", "catalog-sql"), nil, "tds", 1433, "ACCEPT_EULA", "Y", "MSSQL_PID", "Developer")
					},
					func() error {
						return e.createConfigMap(ctx, "catalog-api-env", map[string]string{"ASPNETCORE_ENVIRONMENT": "Production", "ASPNETCORE_URLS": "http://+:8080", "ConnectionStrings_Default": conn, "Logging__LogLevel__Default": "Information", "Cache__Enabled": "false"})
					},
					func() error {
						return e.createConfigMap(ctx, "catalog-importer-env", map[string]string{"DOTNET_ENVIRONMENT": "Production", "ConnectionStrings__Default": conn, "Import__Schedule": "*/15 * * * *", "Logging__LogLevel__Default": "Information"})
					},
					func() error {
						d := w11bApp("catalog-api", "catalog-api", "registry.example/catalog/catalog-api:3.14.0", 2, catalog,
							crash("134", "Unhandled exception. System.ArgumentNullException: Value cannot be null. (Parameter 'connectionString')", "w16a-catalog-dotnet-connstring"), "http", 8080)
						envFromConfigMap(&d.Spec.Template, "catalog-api-env")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("catalog-importer", "catalog-importer", "registry.example/catalog/catalog-importer:3.14.0", 1, w8bLabels("catalog-importer", "catalog"), nil, "metrics", 9090)
						envFromConfigMap(&d.Spec.Template, "catalog-importer-env")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(catalog, crashLooping(2)), readyReplicas("catalog-importer", 1), w11aStatefulSetReady("catalog-sql", 1)),
		},
		{
			// A config push moved Spring Boot's actuator to its own port (management.server.port
			// 8081). The liveness probe still GETs /actuator/health/liveness on 8080, where the
			// main server answers 404, so the kubelet restarts a perfectly healthy app.
			Name: "ledger-restarts-every-minute-no-errors", Covers: "ledger (Spring Boot) is killed by its liveness probe over and over, 'Liveness probe failed: HTTP probe failed with statuscode: 404', although it logs 'Started LedgerApplication': ConfigMap ledger-config sets management.server.port 8081, so /actuator/health/liveness is no longer served on port 8080 where the probe looks",
			Source: w16aSrcSpringMgmt, Class: ClassMechanism, Hops: 1,
			Problem: "ledger pods restart about every minute, there is no error in the application log, it even says Started; is the node unhealthy?",
			Target:  target("Deployment", "ledger"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "ledger-config"}, Terms: []string{"8081"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11bStore(ctx, "ledger-db", "docker.io/library/postgres:16.3", w8cLabels("app", "ledger-db", "team", "finance"), nil, "postgres", 5432, "POSTGRES_DB", "ledger", "POSTGRES_USER", "ledger")
					},
					func() error {
						return e.createConfigMap(ctx, "ledger-config", map[string]string{"application.yaml": "server:\n  port: 8080\n  shutdown: graceful\nspring:\n  datasource:\n    url: jdbc:postgresql://ledger-db:5432/ledger\n    username: ledger\n  flyway:\n    enabled: true\nmanagement:\n  server:\n    port: 8081\n  endpoints:\n    web:\n      exposure:\n        include: health,info,prometheus\n  endpoint:\n    health:\n      probes:\n        enabled: true\n"})
					},
					func() error {
						d := w11bApp("ledger", "ledger", "registry.example/finance/ledger:5.8.2", 2, ledger,
							w10aOn("ledger", "liveness-fail", "w16a-ledger-spring-mgmt-port", annMessage, "HTTP probe failed with statuscode: 404"), "http", 8080)
						c := &d.Spec.Template.Spec.Containers[0]
						c.LivenessProbe = w14aHTTPProbe("/actuator/health/liveness", "http", 10, 3)
						c.ReadinessProbe = w14aHTTPProbe("/actuator/health/readiness", "http", 10, 3)
						w8bEnv(&d.Spec.Template, "SPRING_PROFILES_ACTIVE", "prod", "SPRING_CONFIG_ADDITIONAL_LOCATION", "/config/", "JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75")
						mountConfigMap(&d.Spec.Template, "ledger-config", "/config")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(ledger, restartedWith("Error", 137)), podEvent("Unhealthy", "404"), w11aStatefulSetReady("ledger-db", 1)),
		},
		{
			// Bitnami's PostgreSQL chart 11 renamed the Secret keys (postgresql-password →
			// password / postgres-password). After the upgrade the database runs, but orders-api
			// still references the old key and its container cannot be created.
			Name: "orders-page-502-after-db-chart-upgrade", Covers: "the orders Ingress has no backend: orders-api pods are in CreateContainerConfigError 'couldn't find key postgresql-password in Secret <ns>/orders-db-postgresql'; the upgraded chart's Secret now has password and postgres-password, and orders-api's secretKeyRef still asks for the old key (orders-worker, using password, runs)",
			Source: w16aSrcBitnamiKeys, Class: ClassReference, Hops: 3,
			Problem: "the orders page returns 502 since we upgraded the postgres helm chart last night, but the database pod is running fine",
			Target:  target("Ingress", "orders"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "orders-api"}, Terms: []string{"postgresql-password"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "orders-db-postgresql", map[string]string{"password": "o8Kd2nVq4TzL", "postgres-password": "Xr7mP1sW9bQe"})
					},
					func() error {
						st := w8bStatefulSet("orders-db-postgresql", "docker.io/bitnami/postgresql:16.2.0-debian-12-r6", "orders-db-postgresql-hl", 1, pg, nil, "tcp-postgresql", 5432)
						w8bEnv(&st.Spec.Template, "POSTGRESQL_DATABASE", "orders", "POSTGRESQL_USERNAME", "orders")
						envKeyFromSecret(&st.Spec.Template, "POSTGRES_PASSWORD", "orders-db-postgresql", "postgres-password")
						envKeyFromSecret(&st.Spec.Template, "POSTGRES_USER_PASSWORD", "orders-db-postgresql", "password")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("orders-db-postgresql-hl", pg, "tcp-postgresql", 5432)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("orders-db-postgresql", pg, "tcp-postgresql", 5432))
					},
					func() error {
						msg := fmt.Sprintf("couldn't find key postgresql-password in Secret %s/orders-db-postgresql", e.Namespace)
						d := w11bApp("orders-api", "orders-api", "registry.example/orders/orders-api:4.2.1", 2, orders, sim("create-config-error", annMessage, msg), "http", 3000)
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "PGHOST", "orders-db-postgresql", "PGDATABASE", "orders", "PGUSER", "orders")
						envKeyFromSecret(&d.Spec.Template, "PGPASSWORD", "orders-db-postgresql", "postgresql-password")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("orders-worker", "orders-worker", "registry.example/orders/orders-worker:4.2.1", 1, w8bLabels("orders-worker", "orders"), nil, "metrics", 9464)
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "PGHOST", "orders-db-postgresql", "PGDATABASE", "orders", "PGUSER", "orders")
						envKeyFromSecret(&d.Spec.Template, "PGPASSWORD", "orders-db-postgresql", "password")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("orders", "orders.shop.example.com", "orders-api", 80))
					},
				)
			},
			Wait: all(podsWith(orders, waiting("CreateContainerConfigError")), readyReplicas("orders-worker", 1), w11aStatefulSetReady("orders-db-postgresql", 1)),
		},
		{
			// The DBA raised innodb_buffer_pool_size to 2G in the MySQL config; the container's
			// memory limit stayed 1Gi, so mysqld is OOMKilled while allocating the buffer pool
			// and the Laravel shop gets "Connection refused" on every request.
			Name: "shop-returns-500-on-every-page", Covers: "shop-web (Laravel, php-fpm) fails readiness and logs 'SQLSTATE[HY000] [2002] Connection refused (Connection: mysql ...)'; shop-mysql-0 is OOMKilled over and over while 'Initializing buffer pool, total size = 2.000000G': ConfigMap shop-mysql-config sets innodb_buffer_pool_size=2G above the container's 1Gi memory limit",
			Source: w16aSrcInnodbOOM, Class: ClassProvider, Hops: 3,
			Problem: "the shop returns HTTP 500 on every page since last night, we think php-fpm is running out of workers",
			Target:  target("Deployment", "shop-web"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "shop-mysql-config"}, Terms: []string{"innodb_buffer_pool_size"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "shop-mysql-config", map[string]string{"my.cnf": "[mysqld]\nskip-name-resolve\ncharacter-set-server=utf8mb4\ncollation-server=utf8mb4_unicode_ci\nmax_connections=300\ninnodb_buffer_pool_size=2G\ninnodb_buffer_pool_instances=8\ninnodb_log_file_size=256M\nslow_query_log=1\nlong_query_time=2\n"})
					},
					func() error {
						st := w8bStatefulSet("shop-mysql", "docker.io/library/mysql:8.0.36", "shop-mysql", 1, mysql, sim("oomkill", annLogs, "w16a-shop-mysql-oom"), "mysql", 3306)
						w8bEnv(&st.Spec.Template, "MYSQL_DATABASE", "shop", "MYSQL_USER", "shop")
						w8cRequests(&st.Spec.Template, "100m", "256Mi", "", "1Gi")
						st.Spec.Template.Spec.Volumes = append(st.Spec.Template.Spec.Volumes, w11bConfigMapVolume("shop-mysql-config"))
						st.Spec.Template.Spec.Containers[0].VolumeMounts = append(st.Spec.Template.Spec.Containers[0].VolumeMounts, w11bMount("shop-mysql-config", "/etc/mysql/conf.d/shop.cnf", "my.cnf"))
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("shop-mysql", mysql, "mysql", 3306))
					},
					func() error {
						return e.w11bStore(ctx, "shop-redis", "docker.io/library/redis:7.2.5-alpine", w8cLabels("app", "shop-redis", "tier", "cache"), nil, "redis", 6379)
					},
					func() error {
						d := w11bApp("shop-web", "php-fpm", "registry.example/shop/shop-web:2025.03.10", 2, shop,
							w11bReadinessFail("php-fpm", "w16a-shop-laravel-mysql", "HTTP probe failed with statuscode: 500"), "http", 8080)
						w8bEnv(&d.Spec.Template, "APP_ENV", "production", "DB_CONNECTION", "mysql", "DB_HOST", "shop-mysql", "DB_PORT", "3306", "DB_DATABASE", "shop", "SESSION_DRIVER", "database", "REDIS_HOST", "shop-redis")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/healthz", "http", 10, 3)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(shop, runningNotReady), podsWith(mysql, restartedWith("OOMKilled", 137)), w11aStatefulSetReady("shop-redis", 1)),
		},
	}
}
