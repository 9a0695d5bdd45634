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

// Wave 15a: the decisive clue is a line in an application log of a stack the corpus had little
// of — Go (net/http, sarama, the OpenTelemetry Collector, Traefik, GitLab Runner), Rust (sqlx),
// .NET (Kestrel, EF Core with Microsoft.Data.SqlClient), PHP (Laravel, Symfony), Ruby on Rails
// (Puma) and Node (NestJS with BullMQ). Each line names something in the cluster (a port, a
// topic, a setting, an environment variable, a quota, an API resource) that has to be followed
// to the object to fix: a ClusterRole, a ConfigMap of the consumer or of its provider, a
// Secret, a Service, a CronJob, a ResourceQuota or the workload itself. Written blind from
// public issues and docs; every Want was fixed from the source before anything ran.

func wave15aScenarios() []*Scenario {
	return append(wave15aFirstScenarios(), wave15aMoreScenarios()...)
}

func wave15aFirstScenarios() []*Scenario {
	traefik := w8cLabels("app.kubernetes.io/name", "traefik", "app.kubernetes.io/instance", "traefik-edge")
	collector := w8cLabels("app.kubernetes.io/name", "opentelemetry-collector", "app.kubernetes.io/instance", "otel-collector", "component", "standalone-collector")
	storefront := w8bLabels("storefront", "shop", "app.kubernetes.io/component", "web")
	bookings := w8bLabels("bookings-web", "bookings", "app.kubernetes.io/component", "web")
	invoicing := w8bLabels("invoicing-api", "finance", "app.kubernetes.io/component", "api")
	return []*Scenario{
		{
			// Traefik v3's Kubernetes providers watch EndpointSlices instead of Endpoints. The
			// team upgraded the image but kept the v2 chart's ClusterRole, so the informer is
			// forbidden, the provider never syncs and every router answers 404.
			Name: "traefik-v3-upgrade-routes-404", Covers: "Traefik (Ready) answers '404 page not found' for every Ingress after the v3 upgrade; its log repeats 'failed to list *v1.EndpointSlice: endpointslices.discovery.k8s.io is forbidden ... at the cluster scope': ClusterRole traefik, bound to its ServiceAccount, still has the v2 rules (endpoints, no discovery.k8s.io endpointslices)",
			Source: w15aSrcTraefikRBAC, Class: ClassClue, Hops: 2,
			Problem: "since we upgraded Traefik every site behind it (shop.example.com, blog.example.com) answers '404 page not found', yet all the app pods are Running and Ready",
			Target:  target("Deployment", "traefik"),
			Want:    Want{Culprit: Ref{Kind: "ClusterRole", Name: "traefik", Cluster: true}, Terms: []string{"endpointslices"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "traefik") },
					func() error { return e.createScopedClusterRole(ctx, "traefik", w15aTraefikV2Rules()...) },
					func() error { return e.w9aClusterRoleBinding(ctx, "traefik", "traefik", "traefik") },
					func() error {
						d := w11bApp("traefik", "traefik", "docker.io/traefik:v3.2.1", 2, traefik, running("w15a-traefik-endpointslices"), "web", 8000)
						c := &d.Spec.Template.Spec.Containers[0]
						w15aPorts(c, "websecure", 8443, "traefik", 9000)
						c.Args = []string{"--entryPoints.web.address=:8000/tcp", "--entryPoints.websecure.address=:8443/tcp", "--entryPoints.traefik.address=:9000/tcp",
							"--api.dashboard=true", "--ping=true", "--providers.kubernetescrd", "--providers.kubernetesingress", "--providers.kubernetesingress.ingressendpoint.publishedservice=traefik"}
						w8bReadiness(&d.Spec.Template, "/ping", "traefik", 10)
						w15aServiceAccount(&d.Spec.Template, "traefik")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("shop-web", "registry.example/shop/shop-web:7.3.0", 2, w8bLabels("shop-web", "shop"), nil, "http", 3000)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("blog", "docker.io/library/ghost:5.101.3", 1, w8bLabels("blog", "marketing"), nil, "http", 2368)
						w8bEnv(&d.Spec.Template, "url", "https://blog.example.com", "database__client", "sqlite3")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("shop-web", "shop.example.com", "shop-web", 80))
					},
					func() error { return e.createIngress(ctx, w8cHostIngress("blog", "blog.example.com", "blog", 80)) },
				)
			},
			Wait: all(readyReplicas("traefik", 2), readyReplicas("shop-web", 2), readyReplicas("blog", 1)),
		},
		{
			// The Tempo distributor listens for OTLP/gRPC on 4317 and OTLP/HTTP on 4318. The
			// collector's otlp exporter speaks gRPC, but its endpoint was copied from an
			// otlphttp example: the HTTP/1 answer is read as an HTTP/2 frame ("frame too large").
			Name: "otel-collector-tempo-exporter-wrong-port", Covers: "otel-collector is Ready and receives spans, but its log repeats 'Exporting failed ... name: otlp/tempo ... error reading server preface: http2: frame too large' for tempo-distributor:4318 and drops data: the otlp (gRPC) exporter in ConfigMap otel-collector-config points at the distributor's OTLP/HTTP port 4318 instead of 4317",
			Source: w15aSrcOtelPort, Class: ClassClue, Hops: 1,
			Problem: "Grafana has shown no traces at all since Monday's collector change, although the services export spans without errors",
			Target:  target("Deployment", "otel-collector"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "otel-collector-config"}, Terms: []string{"4318"}},
			Setup: func(ctx context.Context, e *Env) error {
				tempo := w8cLabels("app.kubernetes.io/name", "tempo", "app.kubernetes.io/instance", "tempo", "app.kubernetes.io/component", "distributor")
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "otel-collector-config", collector, map[string]string{"relay": "receivers:\n  otlp:\n    protocols:\n      grpc:\n        endpoint: 0.0.0.0:4317\n      http:\n        endpoint: 0.0.0.0:4318\n" +
							"processors:\n  memory_limiter:\n    check_interval: 1s\n    limit_percentage: 80\n    spike_limit_percentage: 25\n  batch: {}\n" +
							"exporters:\n  otlp/tempo:\n    endpoint: tempo-distributor:4318\n    tls:\n      insecure: true\n  prometheusremotewrite:\n    endpoint: http://prometheus:9090/api/v1/write\n" +
							"extensions:\n  health_check:\n    endpoint: 0.0.0.0:13133\n" +
							"service:\n  extensions: [health_check]\n  pipelines:\n    traces:\n      receivers: [otlp]\n      processors: [memory_limiter, batch]\n      exporters: [otlp/tempo]\n" +
							"    metrics:\n      receivers: [otlp]\n      processors: [memory_limiter, batch]\n      exporters: [prometheusremotewrite]\n"})
					},
					func() error {
						d := w11bApp("otel-collector", "opentelemetry-collector", "otel/opentelemetry-collector-contrib:0.114.0", 1, collector, running("w15a-otel-collector-tempo-port"), "otlp", 4317)
						c := &d.Spec.Template.Spec.Containers[0]
						w15aPorts(c, "otlp-http", 4318, "health", 13133)
						c.Args = []string{"--config=/conf/relay.yaml"}
						w14bMountCM(&d.Spec.Template, c, "otel-collector-config", "/conf/relay.yaml", "relay")
						w8bReadiness(&d.Spec.Template, "/", "health", 10)
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w10aServicePort(w8bService("otel-collector", collector, "otlp", 4317), "otlp-http", 4318))
					},
					func() error {
						d := w11bApp("tempo-distributor", "distributor", "grafana/tempo:2.6.1", 1, tempo, nil, "otlp-grpc", 4317)
						w15aPorts(&d.Spec.Template.Spec.Containers[0], "otlp-http", 4318, "http-metrics", 3100)
						w8cArgs(&d.Spec.Template, "-target=distributor", "-config.file=/conf/tempo.yaml")
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w10aServicePort(w8bService("tempo-distributor", tempo, "otlp-grpc", 4317), "otlp-http", 4318))
					},
					func() error {
						d := w8bDeployment("prometheus", "quay.io/prometheus/prometheus:v2.55.1", 1, w8bLabels("prometheus", "monitoring"), nil, "web", 9090)
						w8cArgs(&d.Spec.Template, "--web.enable-remote-write-receiver", "--storage.tsdb.retention.time=15d")
						return e.w11bServe(ctx, d, 9090)
					},
					func() error {
						d := w8bDeployment("checkout-api", "registry.example/shop/checkout-api:5.8.2", 2, w8bLabels("checkout-api", "shop"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel-collector:4317", "OTEL_EXPORTER_OTLP_PROTOCOL", "grpc", "OTEL_SERVICE_NAME", "checkout-api")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(readyReplicas("otel-collector", 1), readyReplicas("tempo-distributor", 1), readyReplicas("checkout-api", 2)),
		},
		{
			// Laravel 10 reads DB_USERNAME and falls back to 'forge' when it is unset. The
			// ConfigMap written for the new cluster says DB_USER, so every query logs in as
			// forge with the right password and MySQL refuses it.
			Name: "storefront-laravel-mysql-access-denied", Covers: "storefront (Laravel 10, php-fpm) pods are Running but never Ready (/healthz 500); the log repeats \"SQLSTATE[HY000] [1045] Access denied for user 'forge'@'10.244.1.23' (using password: YES)\": ConfigMap storefront-env sets DB_USER=shop, but Laravel reads DB_USERNAME and falls back to its default 'forge' (backoffice-env sets DB_USERNAME and works)",
			Source: w15aSrcLaravel, Class: ClassClue, Hops: 2,
			Problem: "shop.example.com answers HTTP 500 on every page and the storefront pods never become Ready; MySQL is up and the backoffice app works fine",
			Target:  target("Deployment", "storefront"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "storefront-env"}, Terms: []string{"DB_USERNAME"}},
			Setup: func(ctx context.Context, e *Env) error {
				laravel := func(name string, lbl, ann map[string]string, replicas int32) error {
					d := w11bApp(name, name, "registry.example/shop/"+name+":3.4.0", replicas, lbl, ann, "http", 8080)
					envFromConfigMap(&d.Spec.Template, name+"-env")
					envKeyFromSecret(&d.Spec.Template, "DB_PASSWORD", "shop-db", "password")
					w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
					return e.w11bServe(ctx, d, 80)
				}
				return steps(
					func() error { return e.createSecret(ctx, "shop-db", map[string]string{"password": "Rt6vN2qLx8Wz"}) },
					func() error {
						return e.w11bStore(ctx, "shop-mysql", "mysql:8.0.40", w8bLabels("shop-mysql", "shop", "app.kubernetes.io/component", "database"), nil, "mysql", 3306,
							"MYSQL_DATABASE", "shop", "MYSQL_USER", "shop")
					},
					func() error {
						return e.createConfigMap(ctx, "storefront-env", map[string]string{"APP_ENV": "production", "APP_URL": "https://shop.example.com", "LOG_CHANNEL": "stderr",
							"DB_CONNECTION": "mysql", "DB_HOST": "shop-mysql", "DB_PORT": "3306", "DB_DATABASE": "shop", "DB_USER": "shop",
							"SESSION_DRIVER": "database", "CACHE_DRIVER": "database", "QUEUE_CONNECTION": "database"})
					},
					func() error {
						return e.createConfigMap(ctx, "backoffice-env", map[string]string{"APP_ENV": "production", "APP_URL": "https://admin.shop.example.com", "LOG_CHANNEL": "stderr",
							"DB_CONNECTION": "mysql", "DB_HOST": "shop-mysql", "DB_PORT": "3306", "DB_DATABASE": "shop", "DB_USERNAME": "shop", "SESSION_DRIVER": "database"})
					},
					func() error {
						return laravel("storefront", storefront, w11bReadinessFail("storefront", "w15a-storefront-laravel-forge", "HTTP probe failed with statuscode: 500"), 2)
					},
					func() error {
						return laravel("backoffice", w8bLabels("backoffice", "shop", "app.kubernetes.io/component", "web"), nil, 1)
					},
				)
			},
			Wait: all(podsWith(storefront, runningNotReady), readyReplicas("backoffice", 1), w8cStatefulSetReady("shop-mysql", 1)),
		},
		{
			// The Secret was generated from the credentials file's key names, so envFrom gives
			// the container a variable named secret_key_base; Rails only looks at
			// ENV["SECRET_KEY_BASE"] and Puma exits while booting.
			Name: "bookings-web-puma-boot-argumenterror", Covers: "bookings-web (Rails 7.1, Puma) crash-loops on \"Missing `secret_key_base` for 'production' environment, set this string with `bin/rails credentials:edit` (ArgumentError)\": Secret bookings-web-secrets, loaded with envFrom, holds the key as lowercase secret_key_base, so SECRET_KEY_BASE is never set (partners-web's Secret uses SECRET_KEY_BASE and boots)",
			Source: w15aSrcRailsSecret, Class: ClassClue, Hops: 1,
			Problem: "bookings-web restarts in a loop right after boot since we moved its secrets out of the image into Kubernetes",
			Target:  target("Deployment", "bookings-web"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "bookings-web-secrets"}, Terms: []string{"SECRET_KEY_BASE"}},
			Setup: func(ctx context.Context, e *Env) error {
				rails := func(name string, lbl, ann map[string]string) error {
					d := w11bApp(name, "web", "registry.example/bookings/"+name+":2026.11.3", 2, lbl, ann, "http", 3000)
					w8bEnv(&d.Spec.Template, "RAILS_ENV", "production", "RAILS_LOG_TO_STDOUT", "1", "RAILS_SERVE_STATIC_FILES", "1", "PORT", "3000", "WEB_CONCURRENCY", "2")
					envFromSecret(&d.Spec.Template, name+"-secrets")
					return e.w11bServe(ctx, d, 80)
				}
				msg := "Missing `secret_key_base` for 'production' environment, set this string with `bin/rails credentials:edit` (ArgumentError)"
				return steps(
					func() error {
						return e.createSecret(ctx, "bookings-web-secrets", map[string]string{
							"secret_key_base": "5f0c3b9e8a7d6c1b2a4e9f8d7c6b5a4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6",
							"DATABASE_URL":    "postgres://bookings:Kd8sW2nQ5vZx@bookings-db:5432/bookings", "REDIS_URL": "redis://bookings-redis:6379/1"})
					},
					func() error {
						return e.createSecret(ctx, "partners-web-secrets", map[string]string{
							"SECRET_KEY_BASE": "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90",
							"DATABASE_URL":    "postgres://partners:Tz3mQ9wLp6Vb@bookings-db:5432/partners"})
					},
					func() error {
						return e.w11bStore(ctx, "bookings-db", "postgres:16.4", w8bLabels("bookings-db", "bookings", "app.kubernetes.io/component", "database"), nil, "postgres", 5432, "POSTGRES_DB", "bookings")
					},
					func() error { return rails("bookings-web", bookings, crash("1", msg, "w15a-bookings-rails-secret")) },
					func() error {
						return rails("partners-web", w8bLabels("partners-web", "bookings", "app.kubernetes.io/component", "web"), nil)
					},
				)
			},
			Wait: all(podsWith(bookings, crashLooping(2)), readyReplicas("partners-web", 2), w8cStatefulSetReady("bookings-db", 1)),
		},
		{
			// .NET 8 images listen on 8080 (ASPNETCORE_HTTP_PORTS) instead of 80. The Deployment
			// still declares containerPort 80 and probes it, so readiness is refused while
			// Kestrel's own log says where it really listens.
			Name: "invoicing-api-kestrel-new-base-image", Covers: "invoicing-api pods are Running but never Ready, 'Readiness probe failed: ... dial tcp 10.244.1.37:80: connect: connection refused', and the log is clean except 'Now listening on: http://[::]:8080': the .NET 8 base image moved Kestrel to 8080 while the Deployment still names containerPort 80 for its probe and Service (tax-api declares 8080, payments-gateway stays on .NET 6 and port 80)",
			Source: w15aSrcDotnet8, Class: ClassClue, Hops: 0,
			Problem: "invoicing-api has had no ready pods since its image was rebuilt on the new base image, and its logs show no error at all",
			Target:  target("Deployment", "invoicing-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "invoicing-api"}, Terms: []string{"8080"}},
			Setup: func(ctx context.Context, e *Env) error {
				dotnet := func(name, image string, lbl, ann map[string]string, port int32) error {
					d := w11bApp(name, name, image, 2, lbl, ann, "http", port)
					w8bEnv(&d.Spec.Template, "ASPNETCORE_ENVIRONMENT", "Production", "DOTNET_gcServer", "0", "Messaging__Host", "invoicing-rabbitmq")
					w8bReadiness(&d.Spec.Template, "/health/ready", "http", 10)
					return e.w11bServe(ctx, d, 80)
				}
				refused := `Get "http://10.244.1.37:80/health/ready": dial tcp 10.244.1.37:80: connect: connection refused`
				return steps(
					func() error {
						return e.w11bStore(ctx, "invoicing-rabbitmq", "rabbitmq:3.13.7-management", w8bLabels("invoicing-rabbitmq", "finance", "app.kubernetes.io/component", "broker"), nil, "amqp", 5672)
					},
					func() error {
						return dotnet("invoicing-api", "registry.example/finance/invoicing-api:2.14.0", invoicing, w11bReadinessFail("invoicing-api", "w15a-invoicing-kestrel-8080", refused), 80)
					},
					func() error {
						return dotnet("tax-api", "registry.example/finance/tax-api:1.6.2", w8bLabels("tax-api", "finance", "app.kubernetes.io/component", "api"), nil, 8080)
					},
					func() error {
						return dotnet("payments-gateway", "registry.example/finance/payments-gateway:6.0.36-r4", w8bLabels("payments-gateway", "finance", "app.kubernetes.io/component", "api"), nil, 80)
					},
				)
			},
			Wait: all(podsWith(invoicing, runningNotReady), readyReplicas("tax-api", 2), readyReplicas("payments-gateway", 2)),
		},
		w15aSymfonyCron(),
	}
}

// w15aSymfonyCron: the reminder command was renamed to the plural in the release; the
// CronJob's args still call the old name, so Symfony's console refuses it on every run
// (and suggests the new one). The schedule, image and database are all fine.
func w15aSymfonyCron() *Scenario {
	cron := w8bLabels("invoice-reminders", "billing", "app.kubernetes.io/component", "cron")
	return &Scenario{
		Name: "billing-cron-console-command-typo", Covers: "every run of CronJob invoice-reminders (Symfony 6.4 console) fails with exit 1: 'Command \"app:send-invoice-reminder\" is not defined. Did you mean this? app:send-invoice-reminders': the CronJob's args call the command by its old singular name (dunning-digest, same image, runs)",
		Source: w15aSrcSymfony, Class: ClassClue, Hops: 0, Slow: true,
		Problem: "customers stopped getting invoice reminder emails after the last billing release; the reminder job fails every time it runs",
		Target:  target("CronJob", "invoice-reminders"),
		Want:    Want{Culprit: Ref{Kind: "CronJob", Name: "invoice-reminders"}, Terms: []string{"app:send-invoice-reminder"}},
		Setup: func(ctx context.Context, e *Env) error {
			image := "registry.example/billing/billing-app:5.2.0"
			env := func(t *corev1.PodTemplateSpec) {
				w8bEnv(t, "APP_ENV", "prod", "DATABASE_URL", "mysql://billing@billing-mysql:3306/billing?serverVersion=8.0", "MAILER_DSN", "smtp://smtp-relay:587")
			}
			return steps(
				func() error {
					return e.w11bStore(ctx, "billing-mysql", "mysql:8.0.40", w8bLabels("billing-mysql", "billing", "app.kubernetes.io/component", "database"), nil, "mysql", 3306, "MYSQL_DATABASE", "billing", "MYSQL_USER", "billing")
				},
				func() error {
					c := w13aCronJob("invoice-reminders", image, cron, sim("fail", annExitCode, "1", annMessage, `Command "app:send-invoice-reminder" is not defined.`, annLogs, "w15a-billing-symfony-command"),
						"php", "bin/console", "app:send-invoice-reminder", "--env=prod", "--no-interaction")
					env(&c.Spec.JobTemplate.Spec.Template)
					return e.w11aCreateCronJob(ctx, c)
				},
				func() error {
					c := w11aCronJob("dunning-digest", image, "* * * * *", false, w8bLabels("dunning-digest", "billing", "app.kubernetes.io/component", "cron"),
						"php", "bin/console", "app:send-dunning-digest", "--env=prod", "--no-interaction")
					env(&c.Spec.JobTemplate.Spec.Template)
					return e.w11aCreateCronJob(ctx, c)
				},
				func() error {
					d := w8bDeployment("billing-web", image, 2, w8bLabels("billing-web", "billing", "app.kubernetes.io/component", "web"), nil, "http", 8080)
					env(&d.Spec.Template)
					return e.w11bServe(ctx, d, 80)
				},
			)
		},
		Wait: all(w13aAnyJobFailed, w11aAnyJobComplete, readyReplicas("billing-web", 2)),
	}
}
