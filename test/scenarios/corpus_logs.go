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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Classes 3 and 6 where the container log is the only clue, written the way different stacks
// log: a Spring Boot start-up with the cause four "Caused by:" deep, a Celery worker's Python
// traceback, zap and pino JSON lines (pino's levels are numbers), nginx's error log between
// access-log lines, Go logfmt followed by a panic, Django tracebacks between gunicorn lines,
// .NET's two-line "fail:" entries, envconfig's usage table after the error, Sidekiq warnings.
// Termination messages are empty: the log has to be read, and the line that carries the error
// is rarely the last one.

const srcConfigMap = "k8s-docs/concepts/configuration/configmap.md"

func logScenarios() []*Scenario {
	return []*Scenario{
		{
			// KubePodCrashLooping: "check the logs of the previous container"; a JVM prints a
			// Spring banner, the driver's exception, then the cause several "Caused by:" down.
			Name: "inventory-spring-caused-by-unknown-host", Covers: "Spring Boot crash; the UnknownHostException is the fourth cause in the stack trace and the JDBC URL is a ConfigMap value",
			Source: srcCrashLoop, Class: ClassClue, Hops: 2,
			Problem: "inventory service is crash looping after the database move",
			Target:  target("Deployment", "inventory"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "inventory-config"}, Terms: []string{"inventory-mysql"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "inventory-db", "mysql:8.3", 3306, 3306) },
					func() error {
						return e.createConfigMap(ctx, "inventory-config", map[string]string{
							"SPRING_DATASOURCE_URL": "jdbc:mysql://inventory-mysql:3306/inventory?useSSL=false", "SPRING_JPA_HIBERNATE_DDL_AUTO": "validate"})
					},
					func() error {
						d := deployment("inventory", "example/inventory:2.4.0", 1, crash("1", "", "inventory-spring-unknown-host"))
						envFromConfigMap(&d.Spec.Template, "inventory-config")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("inventory", crashLooping(1)),
		},
		{
			// debug-pods: "look at the logs of the current container"; a Celery worker retries,
			// prints two chained tracebacks and a shutdown line. The broker URL is a Secret.
			Name: "celery-broker-host-in-secret", Covers: "Celery worker crash after Python tracebacks; the broker host that does not resolve comes from a Secret",
			Source: srcSecret, Class: ClassClue, Hops: 2,
			Problem: "background jobs are not processed",
			Target:  target("Deployment", "celery-worker"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "celery-broker"}, Terms: []string{"cache-redis"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "redis-cache", "redis:7.2", 6379, 6379) },
					func() error {
						return e.createSecret(ctx, "celery-broker", map[string]string{"CELERY_BROKER_URL": "redis://cache-redis:6379/0"})
					},
					func() error {
						d := deployment("celery-worker", "example/shop-worker:5.3", 1, crash("1", "", "celery-worker-redis-traceback"))
						envFromSecret(&d.Spec.Template, "celery-broker")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("celery-worker", crashLooping(1)),
		},
		{
			// debug-running-pod: the pod is Running and Ready (its health check does not touch
			// the database), while zap's JSON lines at level "error" repeat the rejected login.
			Name: "reports-json-password-rejected", Covers: "Running, Ready API whose JSON log repeats 'password authentication failed'; the password is a Secret key",
			Source: srcRunningPod, Class: ClassOutside, Hops: 2,
			Problem: "monthly reports return 503",
			Target:  target("Deployment", "reports-api"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "reports-db-credentials"}, Terms: []string{"password authentication failed"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "reports-db", "postgres:16", 5432, 5432) },
					func() error {
						return e.createSecret(ctx, "reports-db-credentials", map[string]string{"username": "reports", "password": "s3cr3t-before-rotation"})
					},
					func() error {
						d := env(deployment("reports-api", "example/reports-api:3.1.0", 1, running("reports-json-password")), "DB_HOST", "reports-db", "DB_USER", "reports")
						envKeyFromSecret(&d.Spec.Template, "DB_PASSWORD", "reports-db-credentials", "password")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("reports-api", runningReady),
		},
		{
			// debug-service: the gateway is healthy; nginx's error log, between access-log lines,
			// says its upstream times out on a port the Service does not expose.
			Name: "edge-gateway-nginx-upstream-port", Covers: "Running nginx whose error log repeats 'upstream timed out' to orders:8080; the Service listens on 80 and the port is in nginx.conf from a ConfigMap",
			Source: srcDebugService, Class: ClassClue, Hops: 2,
			Problem: "the shop's /api calls return 504",
			Target:  target("Deployment", "edge-gateway"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "edge-gateway-conf"}, Terms: []string{"8080"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					// orders serves on container port 8080 behind Service port 80.
					func() error { return e.createBackend(ctx, "orders", "example/orders:5.2", 80, 8080) },
					func() error {
						return e.createConfigMap(ctx, "edge-gateway-conf", map[string]string{"nginx.conf": "events {}\nhttp {\n  server {\n    listen 8080;\n    server_name shop.example.com;\n" +
							"    location /api/ { proxy_pass http://orders:8080; proxy_connect_timeout 5s; }\n    location / { root /usr/share/nginx/html; }\n  }\n}\n"})
					},
					func() error {
						d := deployment("edge-gateway", "nginx:1.25.4", 1, running("edge-gateway-upstream-timeout"))
						mountConfigMap(&d.Spec.Template, "edge-gateway-conf", "/etc/nginx")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("edge-gateway", runningReady),
		},
		{
			// dns-debugging-resolution: Node's resolver error ENOTFOUND inside pino JSON, whose
			// levels are numbers (50 = error); the pod stays Ready because it answers 202.
			Name: "notifier-pino-enotfound-configmap", Covers: "Running Node.js service whose pino JSON log repeats getaddrinfo ENOTFOUND; the webhook URL is a ConfigMap value, the Service is called notifications",
			Source: srcDNS, Class: ClassOutside, Hops: 2,
			Problem: "customers stopped getting notifications",
			Target:  target("Deployment", "notifier"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "notifier-env"}, Terms: []string{"notification-svc"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "notifications", "example/notifications:1.8", 3000, 3000) },
					func() error {
						return e.createConfigMap(ctx, "notifier-env", map[string]string{"WEBHOOK_URL": "http://notification-svc:3000/hooks", "NODE_ENV": "production"})
					},
					func() error {
						d := deployment("notifier", "example/notifier:2.3.0", 1, running("notifier-pino-enotfound"))
						envFromConfigMap(&d.Spec.Template, "notifier-env")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("notifier", runningReady),
		},
		{
			// determine-reason-pod-failure: the exit is a Go panic with a goroutine dump; the
			// cause is the logfmt error above it, a template file the mounted ConfigMap lacks.
			Name: "mailer-panic-after-missing-template", Covers: "Go panic and goroutine dump after a logfmt error 'open …/welcome.tmpl: no such file'; the ConfigMap mounted there has other keys",
			Source: srcPodFailure, Class: ClassClue, Hops: 2,
			Problem: "mailer pods restart every few seconds",
			Target:  target("Deployment", "mailer"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "mailer-templates"}, Terms: []string{"welcome.tmpl"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "mailer-templates", map[string]string{"welcome.html": "<p>Welcome {{.Name}}</p>", "reset.html": "<p>Reset: {{.Link}}</p>"})
					},
					func() error {
						d := deployment("mailer", "example/mailer:1.9.2", 1, crash("2", "", "mailer-panic-missing-template"))
						mountConfigMap(&d.Spec.Template, "mailer-templates", "/etc/mailer/templates")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("mailer", crashLooping(1)),
		},
		{
			// volumes: a volumeMount marked readOnly; the worker stays Ready and logs Python's
			// errno 30 for every job it takes.
			Name: "thumbnailer-read-only-cache-mount", Covers: "Running worker whose log repeats '[Errno 30] Read-only file system' under /var/cache/thumbs; the mount is readOnly",
			Source: srcVolumes, Class: ClassOutside, Hops: 1,
			Problem: "thumbnails are missing for new uploads",
			Target:  target("Deployment", "thumbnailer"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "thumbnailer"}, Terms: []string{"read-only file system"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := deployment("thumbnailer", "example/thumbnailer:1.4.0", 1, running("thumbnailer-readonly"))
				d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
				d.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "cache", MountPath: "/var/cache/thumbs", ReadOnly: true}}
				return e.createDeployment(ctx, d)
			},
			Wait: anyPod("thumbnailer", runningReady),
		},
		{
			// KubeJobFailed: the web pods are Ready but every request fails on a missing table;
			// the migration Job of the release failed.
			Name: "billing-django-relation-missing", Covers: "Running Django app whose tracebacks repeat 'relation \"billing_invoice\" does not exist'; its migration Job failed",
			Source: srcJobFailed, Class: ClassClue, Hops: 2,
			Problem: "invoices page shows a server error",
			Target:  target("Deployment", "billing-web"),
			Want:    Want{Culprit: Ref{Kind: "Job", Name: "billing-migrate"}, Terms: []string{"billing_invoice"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						j := job("billing-migrate", 0, sim("fail", annExitCode, "1", annMessage,
							"CommandError: Conflicting migrations detected; multiple leaf nodes in the migration graph: (0012_invoice_currency, 0012_invoice_due_date in billing)."))
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
						return wrap("Job", j.Name, err)
					},
					func() error {
						return e.createDeployment(ctx, deployment("billing-web", "example/billing-web:7.0", 1, running("payments-django-relation")))
					},
				)
			},
			Wait: all(anyPod("billing-web", runningReady), func(ctx context.Context, e *Env) error {
				return jobFailed(ctx, e, "billing-migrate", "BackoffLimitExceeded")
			}),
		},
		{
			// debug-running-pod: Ready, health UP, but each request ends in a Spring stack trace
			// whose last cause is MySQL's "Too many connections".
			Name: "pricing-hikari-too-many-connections", Covers: "Running Spring service whose traces end in 'Caused by: …SQLNonTransientConnectionException: Too many connections'",
			Source: srcRunningPod, Class: ClassOutside, Hops: 0,
			Problem: "price quotes time out",
			Target:  target("Deployment", "pricing"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "pricing"}, Terms: []string{"too many connections"}},
			Setup: func(ctx context.Context, e *Env) error {
				return e.createDeployment(ctx, env(deployment("pricing", "example/pricing:4.0", 2, running("pricing-too-many-connections")), "SPRING_DATASOURCE_HIKARI_MAXIMUM_POOL_SIZE", "200"))
			},
			// Both replicas: a second pod still Pending would be a finding of its own.
			Wait: all(anyPod("pricing", runningReady), readyReplicas("pricing", 2)),
		},
		{
			// define-environment-variable-container: envconfig prints the error, then a usage
			// table and "exiting"; the ConfigMap loaded with envFrom has the key under another name.
			Name: "scheduler-envconfig-key-renamed", Covers: "crash whose log says 'required key SCHEDULER_QUEUE_URL missing value' above a usage table; the envFrom ConfigMap calls it SCHEDULER_QUEUE_ADDR",
			Source: srcConfigMap, Class: ClassClue, Hops: 2,
			Problem: "scheduled jobs stopped running",
			Target:  target("Deployment", "scheduler"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "scheduler-env"}, Terms: []string{"SCHEDULER_QUEUE_URL"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "scheduler-env", map[string]string{"SCHEDULER_QUEUE_ADDR": "amqp://rabbitmq:5672/", "SCHEDULER_WORKERS": "8"})
					},
					func() error {
						d := deployment("scheduler", "example/scheduler:0.14.1", 1, crash("1", "", "scheduler-envconfig"))
						envFromConfigMap(&d.Spec.Template, "scheduler-env")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("scheduler", crashLooping(1)),
		},
		{
			// distribute-credentials-secure: Sidekiq only WARNs, with its own stack lines, that
			// Redis rejects the password it reads from a Secret.
			Name: "sidekiq-redis-wrongpass", Covers: "Running Sidekiq whose WARN lines repeat 'WRONGPASS invalid username-password pair'; the password is a Secret key",
			Source: srcSecret, Class: ClassOutside, Hops: 2,
			Problem: "emails and exports are stuck in the queue",
			Target:  target("Deployment", "sidekiq"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "sidekiq-redis"}, Terms: []string{"WRONGPASS"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "jobs-redis", "redis:7.2", 6379, 6379) },
					func() error {
						return e.createSecret(ctx, "sidekiq-redis", map[string]string{"REDIS_PASSWORD": "rotated"})
					},
					func() error {
						d := env(deployment("sidekiq", "example/shop-sidekiq:7.2", 1, running("sidekiq-wrongpass")), "REDIS_URL", "redis://jobs-redis:6379/0")
						envKeyFromSecret(&d.Spec.Template, "REDIS_PASSWORD", "sidekiq-redis", "REDIS_PASSWORD")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("sidekiq", runningReady),
		},
		{
			// debug-pods: .NET writes each entry on two lines ("fail: Category[id]" then the
			// text); the server name is quoted, and it lives in appsettings.json from a ConfigMap.
			Name: "catalog-dotnet-sql-server-name", Covers: ".NET crash: 'fail:' entries say the connection to server 'catalog-sql' failed; the name is in appsettings.json from a ConfigMap, the Service is catalog-mssql",
			Source: srcDebugPods, Class: ClassClue, Hops: 2,
			Problem: "catalog API does not start",
			Target:  target("Deployment", "catalog-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "catalog-appsettings"}, Terms: []string{"catalog-sql"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createBackend(ctx, "catalog-mssql", "mcr.microsoft.com/mssql/server:2022", 1433, 1433)
					},
					func() error {
						return e.createConfigMap(ctx, "catalog-appsettings", map[string]string{"appsettings.json": `{"ConnectionStrings":{"Catalog":"Server=catalog-sql,1433;Database=catalog;User Id=catalog;TrustServerCertificate=True"},"Logging":{"LogLevel":{"Default":"Information"}}}`})
					},
					func() error {
						d := deployment("catalog-api", "example/catalog-api:8.0", 1, crash("139", "", "catalog-dotnet-sql-host"))
						mountConfigMap(&d.Spec.Template, "catalog-appsettings", "/app/config")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("catalog-api", crashLooping(1)),
		},
	}
}

// readyReplicas waits until Deployment name reports n ready replicas.
func readyReplicas(name string, n int32) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if d.Status.ReadyReplicas < n {
			return fmt.Errorf("deployment %s: %d of %d replicas ready", name, d.Status.ReadyReplicas, n)
		}
		return nil
	}
}
