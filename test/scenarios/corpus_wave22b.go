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

// Wave 22b: indirect references. The culprit is reached only through a reference a user rarely
// reads (the order of envFrom sources or env entries, an ExternalName alias, a ServiceAccount's
// pull secrets, a RuntimeClass's scheduling, the volumeMode of provisioned volumes, an optional
// ConfigMap key, a headless Service's selector), and the symptom shows on another object.
// Written blind by an outside hand from the Kubernetes docs and public issue threads; every
// Want was fixed from the source before anything ran.

func wave22bScenarios() []*Scenario {
	return append(wave22bFirstScenarios(), wave22bMoreScenarios()...)
}

func wave22bFirstScenarios() []*Scenario {
	checkout := w8bLabels("checkout-api", "shop")
	orders := w8bLabels("orders-api", "orders")
	billing := w8bLabels("billing-worker", "billing")
	exporter := w8bLabels("ledger-exporter", "ledger")
	return []*Scenario{
		{
			// envFrom takes every key of every source; when two sources hold the same key the
			// later one wins. The platform team added REDIS_URL (for its shared rate limiter) to
			// the platform-wide ConfigMap, which checkout-api lists after its own ConfigMap.
			Name: "checkout-api-down-nobody-deployed", Covers: "checkout-api crash-loops on 'getaddrinfo ENOTFOUND redis-master.platform-cache': its envFrom lists ConfigMap checkout-api-env (REDIS_URL=redis://checkout-redis:6379/0) and then ConfigMap platform-env, whose newly added REDIS_URL wins; checkout-worker lists the same two sources the other way round and runs",
			Source: w22bSrcEnvFromOrder, Class: ClassReference, Hops: 2,
			Problem: "checkout-api started crash-looping this morning although nobody deployed checkout, and its Redis is up",
			Target:  target("Deployment", "checkout-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "platform-env"}, Terms: []string{"REDIS_URL"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11bStore(ctx, "checkout-redis", "docker.io/bitnami/redis:7.4.1", w8bLabels("checkout-redis", "shop"), nil, "redis", 6379, "ALLOW_EMPTY_PASSWORD", "yes")
					},
					func() error {
						return e.w11bServe(ctx, w8bDeployment("payments", "registry.example/shop/payments:2.8.0", 1, w8bLabels("payments", "shop"), nil, "http", 8080), 8080)
					},
					func() error {
						return e.w10aConfigMap(ctx, "checkout-api-env", checkout, map[string]string{
							"NODE_ENV": "production", "PORT": "3000", "REDIS_URL": "redis://checkout-redis:6379/0", "PAYMENTS_URL": "http://payments:8080", "CART_TTL_SECONDS": "86400"})
					},
					func() error {
						return e.w10aConfigMap(ctx, "platform-env", map[string]string{"app.kubernetes.io/managed-by": "platform-config-sync", "platform.example.com/scope": "all-namespaces"}, map[string]string{
							"OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel-collector.observability:4317", "LOG_FORMAT": "json", "TZ": "UTC",
							"REDIS_URL": "redis://redis-master.platform-cache:6379/0", "RATE_LIMIT_BACKEND": "redis"})
					},
					func() error {
						d := w11bApp("checkout-api", "checkout-api", "registry.example/shop/checkout-api:5.4.2", 2, checkout,
							crash("1", "Error: getaddrinfo ENOTFOUND redis-master.platform-cache", "w22b-checkout-api-ioredis"), "http", 3000)
						c := &d.Spec.Template.Spec.Containers[0]
						c.EnvFrom = append(c.EnvFrom, w11bEnvFromCM("checkout-api-env"), w11bEnvFromCM("platform-env"))
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("checkout-worker", "checkout-worker", "registry.example/shop/checkout-api:5.4.2", 1, w8bLabels("checkout-worker", "shop"), nil, "metrics", 9464)
						c := &d.Spec.Template.Spec.Containers[0]
						c.Args = []string{"node", "dist/worker.js"}
						c.EnvFrom = append(c.EnvFrom, w11bEnvFromCM("platform-env"), w11bEnvFromCM("checkout-api-env"))
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(checkout, crashLooping(2)), readyReplicas("checkout-worker", 1), readyReplicas("payments", 1)),
		},
		{
			// $(VAR) in an env value is expanded only from variables defined earlier in the list
			// (or by envFrom); DB_PASSWORD comes after DATABASE_URL, so the URL keeps the literal
			// text "$(DB_PASSWORD)" as the password and PostgreSQL rejects the login.
			Name: "orders-api-db-login-rejected", Covers: "orders-api crash-loops on 'password authentication failed for user \"orders\"' while orders-worker logs in with the same Secret: orders-api's DATABASE_URL references $(DB_PASSWORD), which its env list defines only after DATABASE_URL, so the reference is not expanded and the literal text is sent as the password",
			Source: w22bSrcDependentEnv, Class: ClassClue, Hops: 1,
			Problem: "orders-api restarts in a loop since this morning's release with a database login error, the orders worker connects with the same credentials",
			Target:  target("Deployment", "orders-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "orders-api"}, Terms: []string{"DB_PASSWORD"}},
			Setup: func(ctx context.Context, e *Env) error {
				url := "postgres://orders:$(DB_PASSWORD)@orders-postgres:5432/orders?sslmode=disable"
				return steps(
					func() error {
						return e.createSecret(ctx, "orders-db", map[string]string{"password": "Vt4q9LmZ2rXe81Kc"})
					},
					func() error {
						return e.w11bStore(ctx, "orders-postgres", "docker.io/bitnami/postgresql:16.4.0", w8bLabels("orders-postgres", "orders"), running("w22b-orders-postgres"), "tcp-postgresql", 5432,
							"POSTGRESQL_DATABASE", "orders", "POSTGRESQL_USERNAME", "orders")
					},
					func() error {
						d := w11bApp("orders-api", "orders-api", "registry.example/orders/orders-api:7.1.0", 2, orders,
							crash("1", `error: password authentication failed for user "orders"`, "w22b-orders-api-pg-auth"), "http", 8080)
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "DATABASE_URL", url)
						w22bSecretEnv(&d.Spec.Template, "DB_PASSWORD", "orders-db", "password")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("orders-worker", "orders-worker", "registry.example/orders/orders-api:7.1.0", 1, w8bLabels("orders-worker", "orders"), nil, "metrics", 9464)
						d.Spec.Template.Spec.Containers[0].Args = []string{"node", "dist/worker.js"}
						w22bSecretEnv(&d.Spec.Template, "DB_PASSWORD", "orders-db", "password")
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "DATABASE_URL", url)
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(orders, crashLooping(2)), readyReplicas("orders-worker", 1), w11aStatefulSetReady("orders-postgres", 1)),
		},
		{
			// The apps reach PostgreSQL through the alias Service db (type ExternalName). The
			// move from the Bitnami chart to the operator's billing-pg-rw/-ro Services removed
			// billing-postgres, which the alias still names: the CNAME leads nowhere.
			Name: "billing-worker-database-lookup-fails", Covers: "billing-worker crash-loops on 'could not translate host name \"db\" to address: Name or service not known'; Service db is an ExternalName for billing-postgres.<ns>.svc.cluster.local, a Service removed in the database migration (the database now answers as billing-pg-rw, which billing-api uses directly and runs)",
			Source: w22bSrcExternalName, Class: ClassProvider, Hops: 2,
			Problem: "billing-worker keeps crashing since the database migration finished, invoices are not being generated",
			Target:  target("Deployment", "billing-worker"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "db"}, Terms: []string{"billing-postgres"}},
			Setup: func(ctx context.Context, e *Env) error {
				pg := w8cLabels("cnpg.io/cluster", "billing-pg", "app.kubernetes.io/part-of", "billing")
				return steps(
					func() error {
						return e.w11bStore(ctx, "billing-redis", "docker.io/bitnami/redis:7.4.1", w8bLabels("billing-redis", "billing"), nil, "redis", 6379, "ALLOW_EMPTY_PASSWORD", "yes")
					},
					func() error {
						st := w8bStatefulSet("billing-pg", "ghcr.io/cloudnative-pg/postgresql:16.4", "billing-pg-rw", 1, pg, nil, "postgresql", 5432)
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bService("billing-pg-rw", pg, "postgresql", 5432)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("billing-pg-ro", pg, "postgresql", 5432))
					},
					func() error {
						return e.createService(ctx, w22bExternalName("db", fmt.Sprintf("billing-postgres.%s.svc.cluster.local", e.Namespace), 5432))
					},
					func() error {
						d := w11bApp("billing-worker", "worker", "registry.example/billing/billing-worker:3.9.1", 2, billing,
							crash("1", `psycopg2.OperationalError: could not translate host name "db" to address: Name or service not known`, "w22b-billing-worker-db-host"), "", 0)
						w8bEnv(&d.Spec.Template, "DB_HOST", "db", "DB_PORT", "5432", "DB_NAME", "billing", "DB_USER", "billing", "CELERY_BROKER_URL", "redis://billing-redis:6379/0")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("billing-api", "api", "registry.example/billing/billing-api:3.9.1", 1, w8bLabels("billing-api", "billing"), nil, "http", 8000)
						w8bEnv(&d.Spec.Template, "DB_HOST", "billing-pg-rw", "DB_PORT", "5432", "DB_NAME", "billing", "DB_USER", "billing")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(billing, crashLooping(2)), readyReplicas("billing-api", 1), w11aStatefulSetReady("billing-pg", 1)),
		},
		{
			// The ServiceAccount admission plugin copies the ServiceAccount's imagePullSecrets into
			// a pod only when the pod lists none. The exporter's new statsd sidecar needed the
			// mirror's secret, so the pod now lists dockerhub-mirror alone and the registry
			// credentials of ServiceAccount ledger (harbor-robot) are no longer used.
			Name: "ledger-exporter-rollout-unauthorized", Covers: "ledger-exporter is in ImagePullBackOff with '401 Unauthorized' from registry.private.example while ledger-api, same ServiceAccount ledger and same registry, pulls fine: ServiceAccount ledger's imagePullSecrets (harbor-robot) are added only to pods without their own, and ledger-exporter now lists dockerhub-mirror for its sidecar",
			Source: w22bSrcPullSecretSA, Class: ClassReference, Hops: 2,
			Problem: "ledger-exporter 1.4.0 is stuck in ImagePullBackOff with 401 Unauthorized, but ledger-api pulls from the same registry with the same service account",
			Target:  target("Deployment", "ledger-exporter"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "ledger-exporter"}, Terms: []string{"harbor-robot"}},
			Setup: func(ctx context.Context, e *Env) error {
				img := "registry.private.example/ledger/ledger-exporter:1.4.0"
				msg := fmt.Sprintf("rpc error: code = Unknown desc = failed to pull and unpack image %q: failed to resolve reference %q: unexpected status from HEAD request to https://registry.private.example/v2/ledger/ledger-exporter/manifests/1.4.0: 401 Unauthorized", img, img)
				return steps(
					func() error {
						return e.w14aPullSecret(ctx, "harbor-robot", "registry.private.example", "robot$ledger+pull", "q7Yv2NcXr0LmWd5s")
					},
					func() error {
						return e.w14aPullSecret(ctx, "dockerhub-mirror", "docker-mirror.corp.example", "ci-mirror", "Hn3kP8wq1ZsT6yB0")
					},
					func() error { return e.w22bServiceAccount(ctx, "ledger", "harbor-robot") },
					func() error {
						d := w11bApp("ledger-api", "ledger-api", "registry.private.example/ledger/ledger-api:3.2.0", 2, w8bLabels("ledger-api", "ledger"), nil, "http", 8080)
						d.Spec.Template.Spec.ServiceAccountName = "ledger"
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("ledger-exporter", "ledger-exporter", img, 1, exporter, w10aOn("ledger-exporter", "image-pull-auth", "", annMessage, msg), "metrics", 9400)
						d.Spec.Template.Spec.ServiceAccountName = "ledger"
						w8bEnv(&d.Spec.Template, "LEDGER_URL", "http://ledger-api", "STATSD_ADDR", "127.0.0.1:9125")
						w10aContainer(&d.Spec.Template, "statsd-exporter", "docker-mirror.corp.example/prom/statsd-exporter:v0.27.1", "statsd-metrics", 9102)
						w14aPullWith(&d.Spec.Template, "dockerhub-mirror")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(exporter, waiting("ErrImagePull", "ImagePullBackOff")), readyReplicas("ledger-api", 2)),
		},
	}
}
