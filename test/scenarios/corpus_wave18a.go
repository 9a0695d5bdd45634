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

	rbacv1 "k8s.io/api/rbac/v1"
)

// Wave 18a: incident tickets as an on-call engineer receives them, one common production
// failure each, written blind by an outside hand from a public issue, question or
// documentation page. The Problem is the ticket's symptom; every Want was fixed from the
// source before anything ran.

func wave18aScenarios() []*Scenario {
	return append(wave18aFirstScenarios(), wave18aMoreScenarios()...)
}

func wave18aFirstScenarios() []*Scenario {
	web := w8bLabels("accounts-web", "accounts", "app.kubernetes.io/component", "web")
	mailer := w8bLabels("accounts-mailer", "accounts", "app.kubernetes.io/component", "worker")
	redisAll := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "accounts-redis")
	redisMaster := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "accounts-redis", "app.kubernetes.io/component", "master")
	pricing := w8bLabels("pricing-engine", "quotes")
	tax := w8bLabels("tax-engine", "quotes")
	quote := w8bLabels("quote-api", "quotes")
	storefront := w8bLabels("storefront", "shop")
	reindex := w8bLabels("search-reindexer", "shop")
	reloader := w8cLabels("app", "reloader-reloader", "release", "reloader")
	revenue := w8bLabels("monthly-revenue-report", "finance")
	sync := w8bLabels("fulfilment-sync", "fulfilment")
	return []*Scenario{
		{
			// The team moved session storage to the Bitnami chart's replication architecture
			// (one master, two read-only replicas) and kept its own hand-written Service
			// accounts-redis, which selects the release by name and instance only: it now
			// balances writes over the replicas too, and every write landing there is refused.
			Name: "accounts-logins-bounce-after-redis-ha", Covers: "accounts-web (Django, django-redis sessions) is Ready but a share of logins answer 500 with 'redis.exceptions.ReadOnlyError: You can't write against a read only replica.'; Service accounts-redis selects app.kubernetes.io/name=redis,instance=accounts-redis without component=master, so its endpoints include the two accounts-redis-replicas pods (accounts-mailer uses accounts-redis-master and works)",
			Source: w18aSrcRedisReplica, Class: ClassProvider, Hops: 2,
			Problem: "since the weekend about a third of customer logins fail with a 500 and users land back on the login page; accounts-web looks healthy and nothing restarts",
			Target:  target("Deployment", "accounts-web"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "accounts-redis"}, Terms: []string{"replica", "selector"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createStatefulSet(ctx, w18aRedis("accounts-redis-master", "accounts-redis", "master", 1, nil))
					},
					func() error {
						return e.createStatefulSet(ctx, w18aRedis("accounts-redis-replicas", "accounts-redis", "replica", 2, running("w18a-accounts-redis-replica")))
					},
					func() error {
						return e.createService(ctx, w8bHeadless("accounts-redis-headless", redisAll, "redis", 6379))
					},
					func() error {
						return e.createService(ctx, w8bService("accounts-redis-master", redisMaster, "redis", 6379))
					},
					func() error { return e.createService(ctx, w8bService("accounts-redis", redisAll, "redis", 6379)) },
					func() error {
						d := w11bApp("accounts-web", "web", "registry.example/accounts/accounts-web:2026.03.1", 2, web, running("w18a-accounts-web-readonly"), "http", 8000)
						w8bEnv(&d.Spec.Template, "DJANGO_SETTINGS_MODULE", "accounts.settings.production", "SESSION_REDIS_URL", "redis://accounts-redis:6379/1",
							"GUNICORN_CMD_ARGS", "--workers 2 --threads 4")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("accounts-mailer", "celery", "registry.example/accounts/accounts-web:2026.03.1", 1, mailer, nil, "", 0)
						w8cArgs(&d.Spec.Template, "celery", "-A", "accounts", "worker", "-Q", "mail", "--concurrency", "2")
						w8bEnv(&d.Spec.Template, "CELERY_BROKER_URL", "redis://accounts-redis-master:6379/2", "DJANGO_SETTINGS_MODULE", "accounts.settings.production")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("accounts-web", 2), readyReplicas("accounts-mailer", 1), w8cStatefulSetReady("accounts-redis-replicas", 2), w8cStatefulSetReady("accounts-redis-master", 1)),
		},
		{
			// A platform clean-up replaced the grpc_health_probe exec probes with the kubelet's
			// native gRPC probe everywhere. The kubelet calls grpc.health.v1.Health/Check; the
			// Rust pricing-engine never registered that service (tax-engine, in Go, does), so
			// its pods are never Ready, the Service has no endpoints and quote-api's start-up
			// check is refused.
			Name: "quote-api-down-after-probe-cleanup", Covers: "quote-api (Python grpcio) crash-loops on StatusCode.UNAVAILABLE 'Failed to connect to remote host: Connection refused' to pricing-engine:50051; pricing-engine (Rust, tonic) runs but is never Ready: 'Readiness probe failed: this server does not implement the grpc health protocol (grpc.health.v1.Health)', its Deployment's gRPC readiness probe asks for a service the server does not register (tax-engine, same probe, is Ready)",
			Source: w18aSrcGRPCProbe, Class: ClassProvider, Hops: 2,
			Problem: "quote-api keeps restarting since this morning's platform clean-up release and the quote page is down; nobody touched quote-api itself",
			Target:  target("Deployment", "quote-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "pricing-engine"}, Terms: []string{"grpc.health.v1"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w11bApp("pricing-engine", "pricing-engine", "ghcr.io/example-retail/pricing-engine:4.2.0", 2, pricing,
							w11bReadinessFail("pricing-engine", "w18a-pricing-tonic", "this server does not implement the grpc health protocol (grpc.health.v1.Health): unknown service grpc.health.v1.Health"), "grpc", 50051)
						w10aPort(&d.Spec.Template, "metrics", 9102)
						w8bEnv(&d.Spec.Template, "RUST_LOG", "info,h2=debug", "PRICING_CONFIG", "/etc/pricing/pricing.toml")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w18aGRPCProbe(50051, 5)
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w18aFixedService("pricing-engine", pricing, "grpc", 50051, "10.96.0.171"))
					},
					func() error {
						d := w11bApp("tax-engine", "tax-engine", "ghcr.io/example-retail/tax-engine:1.9.4", 1, tax, nil, "grpc", 50051)
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w18aGRPCProbe(50051, 5)
						return e.w11bServe(ctx, d, 50051)
					},
					func() error {
						msg := "startup checks failed: pricing-engine:50051 StatusCode.UNAVAILABLE: failed to connect to all addresses; last error: UNKNOWN: ipv4:10.96.0.171:50051: Failed to connect to remote host: Connection refused"
						d := w11bApp("quote-api", "quote-api", "registry.example/quotes/quote-api:3.7.0", 2, quote, crash("3", msg, "w18a-quote-api-unavailable"), "http", 8000)
						w8bEnv(&d.Spec.Template, "PRICING_ADDR", "pricing-engine:50051", "TAX_ADDR", "tax-engine:50051", "GRPC_DEADLINE_SECONDS", "3")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(quote, crashLooping(2)), podsWith(pricing, runningNotReady), podEvent("Unhealthy", "grpc health protocol"), readyReplicas("tax-engine", 1)),
		},
		{
			// Reloader restarts workloads when a ConfigMap they use changes, from an informer
			// watch. A least-privilege review trimmed its Role to get/list on configmaps and
			// secrets: the initial list still works, every watch is forbidden, so it never sees
			// a change and the storefront keeps its old environment.
			Name: "storefront-flags-change-never-rolls-out", Covers: "outside the catalogue: storefront (reloader.stakater.com/auto) keeps its old flags after ConfigMap storefront-flags changed; the Running reloader repeats 'failed to watch *v1.ConfigMap: configmaps is forbidden: ... cannot watch resource \"configmaps\"'; Role reloader-reloader-role grants get and list on configmaps and secrets but not watch (a Pending search-reindexer is unrelated noise)",
			Source: w18aSrcReloaderRBAC, Class: ClassOutside, Hops: 2,
			Problem: "we switched FEATURE_CHECKOUT_V2 on in the storefront flags an hour ago and customers still get the old checkout; the storefront pods were never restarted",
			Target:  target("Deployment", "storefront"),
			Want:    Want{Culprit: Ref{Kind: "Role", Name: "reloader-reloader-role"}, Terms: []string{"watch"}},
			Setup: func(ctx context.Context, e *Env) error {
				read := []string{"get", "list"}
				return steps(
					func() error { return e.createServiceAccount(ctx, "reloader-reloader") },
					func() error {
						return e.createRole(ctx, "reloader-reloader-role",
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: read},
							rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments", "daemonsets", "statefulsets"}, Verbs: []string{"get", "list", "update", "patch"}},
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}})
					},
					func() error {
						return e.createRoleBinding(ctx, "reloader-reloader-role-binding", "Role", "reloader-reloader-role", "reloader-reloader")
					},
					func() error {
						d := w11bApp("reloader-reloader", "reloader-reloader", "ghcr.io/stakater/reloader:v1.2.1", 1, reloader, running("w18a-reloader-watch-forbidden"), "http", 9090)
						d.Spec.Template.Spec.ServiceAccountName = "reloader-reloader"
						w8cArgs(&d.Spec.Template, "--reload-strategy=annotations", "--log-level=info")
						w10bFieldEnv(&d.Spec.Template, "KUBERNETES_NAMESPACE", "metadata.namespace")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.w10aConfigMap(ctx, "storefront-flags", storefront, map[string]string{
							"FEATURE_CHECKOUT_V2": "true", "FEATURE_WISHLIST": "true", "FEATURE_BNPL": "false", "FLAGS_REVISION": "2026-03-05.2"})
					},
					func() error {
						d := w11bApp("storefront", "storefront", "registry.example/shop/storefront:8.4.2", 2, storefront, nil, "http", 3000)
						d.Annotations = map[string]string{"reloader.stakater.com/auto": "true"}
						envFromConfigMap(&d.Spec.Template, "storefront-flags")
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "PORT", "3000")
						w8bReadiness(&d.Spec.Template, "/api/health", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("search-reindexer", "reindexer", "registry.example/shop/search-reindexer:2.0.1", 1, reindex, nil, "", 0)
						d.Spec.Template.Spec.NodeSelector = map[string]string{"node.kubernetes.io/instance-type": "m6i.2xlarge"}
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("storefront", 2), readyReplicas("reloader-reloader", 1), podsWith(reindex, unschedulable("didn't match"))),
		},
		{
			// Container runtimes give a container a 64M /dev/shm; PostgreSQL's parallel query
			// workers allocate their shared memory there (dynamic_shared_memory_type posix).
			// The analytics database runs four workers per gather with 64MB work_mem and no
			// Memory emptyDir on /dev/shm, so the month-end aggregation fails with a "disk
			// full" error that has nothing to do with its volume.
			Name: "revenue-report-fails-on-big-month", Covers: "Job monthly-revenue-report fails (BackoffLimitExceeded): 'psycopg2.errors.DiskFull: could not resize shared memory segment \"/PostgreSQL.2308734523\" to 67128672 bytes: No space left on device' in a parallel worker; StatefulSet analytics-postgres runs max_parallel_workers_per_gather=4 and work_mem=64MB without a Memory emptyDir on /dev/shm (orders-postgres mounts one, and its daily report completes)",
			Source: w18aSrcPostgresShm, Class: ClassClue, Hops: 2,
			Problem: "the February revenue report job failed overnight with a 'No space left on device' database error, but the analytics database volume is only 30% full",
			Target:  target("Job", "monthly-revenue-report"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "analytics-postgres"}, Terms: []string{"/dev/shm"}},
			Setup: func(ctx context.Context, e *Env) error {
				msg := "psycopg2.errors.DiskFull: could not resize shared memory segment \"/PostgreSQL.2308734523\" to 67128672 bytes: No space left on device\nCONTEXT:  parallel worker\n\n2026-03-01 02:00:14,131 ERROR revenue_report: report 2026-02 not written, exiting with status 1"
				return steps(
					func() error {
						return e.w18aPostgres(ctx, "analytics-postgres", w8bLabels("analytics-postgres", "finance"), running("w18a-analytics-postgres-shm"), false)
					},
					func() error {
						return e.w18aPostgres(ctx, "orders-postgres", w8bLabels("orders-postgres", "orders"), nil, true)
					},
					func() error {
						j := w15cJob("monthly-revenue-report", "registry.example/finance/revenue-report:1.8.3", "", 1, revenue,
							sim("fail", annExitCode, "1", annMessage, msg, annLogs, "w18a-revenue-report-shm"), "--month", "2026-02")
						w8bEnv(&j.Spec.Template, "PGHOST", "analytics-postgres", "PGDATABASE", "analytics", "PGUSER", "postgres", "REPORT_BUCKET", "s3://finance-reports-prod/revenue")
						envKeyFromSecret(&j.Spec.Template, "PGPASSWORD", "analytics-postgres-auth", "password")
						w9cFallbackToLogs(&j.Spec.Template)
						return e.w16aJob(ctx, j)
					},
					func() error {
						j := w15cJob("daily-orders-report", "registry.example/finance/revenue-report:1.8.3", "", 1, w8bLabels("daily-orders-report", "finance"), nil, "--daily", "2026-02-28")
						w8bEnv(&j.Spec.Template, "PGHOST", "orders-postgres", "PGDATABASE", "orders", "PGUSER", "postgres")
						envKeyFromSecret(&j.Spec.Template, "PGPASSWORD", "orders-postgres-auth", "password")
						return e.w16aJob(ctx, j)
					},
				)
			},
			Wait: all(w11aJobFailed("monthly-revenue-report", "BackoffLimitExceeded"), w9aJobComplete("daily-orders-report"), w8cStatefulSetReady("analytics-postgres", 1)),
		},
		{
			// The on-prem WMS moved behind a new VPN and someone pointed the ExternalName
			// Service at its IP. An ExternalName is answered as a DNS CNAME; a name that looks
			// like an IPv4 address is not resolved as one, so the lookup of wms-legacy fails
			// (carrier-api, an ExternalName to a real host name, works).
			Name: "fulfilment-sync-wms-unresolvable", Covers: "fulfilment-sync (.NET 8 worker) crash-loops on 'HttpRequestException: Name or service not known (wms-legacy:8443)'; Service wms-legacy is type ExternalName with externalName 10.40.12.7, an IP address, which cluster DNS returns as a CNAME to a name that does not resolve (label-printer's ExternalName to api.carrier-eu.example.com works)",
			Source: w18aSrcExternalIP, Class: ClassMechanism, Hops: 1,
			Problem: "fulfilment-sync has been restarting non-stop since the warehouse system moved behind the new VPN; networking says the WMS answers fine at its new address from the jump host",
			Target:  target("Deployment", "fulfilment-sync"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "wms-legacy"}, Terms: []string{"ExternalName", "10.40.12.7"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createService(ctx, w18aExternalName("wms-legacy", "10.40.12.7", 8443)) },
					func() error {
						return e.createService(ctx, w18aExternalName("carrier-api", "api.carrier-eu.example.com", 443))
					},
					func() error {
						d := w11bApp("fulfilment-sync", "fulfilment-sync", "registry.example/fulfilment/fulfilment-sync:2.14.0", 1, sync, crash("1", "", "w18a-fulfilment-sync-externalname"), "", 0)
						w8bEnv(&d.Spec.Template, "DOTNET_ENVIRONMENT", "Production", "Wms__BaseUrl", "https://wms-legacy:8443/api/v2", "Wms__BatchSize", "200")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("label-printer", "label-printer", "registry.example/fulfilment/label-printer:1.6.2", 1, w8bLabels("label-printer", "fulfilment"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "DOTNET_ENVIRONMENT", "Production", "Carrier__BaseUrl", "https://carrier-api/v1")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(sync, crashLooping(2)), readyReplicas("label-printer", 1)),
		},
	}
}
