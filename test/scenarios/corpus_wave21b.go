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

// Wave 21b: "symptom far from the cause". The alert fires on an Ingress, a frontend, a
// rollout or a CronJob's target, and the object to fix is two or more hops away along the
// dependency chain (consumer -> Service -> provider pods -> their config, volume or policy), or
// is an object several workloads share that one change broke. Each has one fault causing
// several visible problems and, in most, an unrelated decoy. Written blind by an outside hand;
// every Want was fixed from the source before anything ran.

func wave21bScenarios() []*Scenario {
	return append(wave21bFirstScenarios(), wave21bMoreScenarios()...)
}

func wave21bFirstScenarios() []*Scenario {
	catalog := w8bLabels("catalog", "shop")
	storefront := w8bLabels("storefront", "shop")
	redis := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "cart-redis")
	sessions := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "session-redis")
	cart := w8bLabels("cart-api", "shop")
	web := w8bLabels("storefront-web", "shop")
	pg := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "orders-postgres")
	pgb := w8cLabels("app.kubernetes.io/name", "pgbouncer", "app.kubernetes.io/instance", "orders-pgbouncer")
	orders := w8bLabels("orders-api", "orders", "egress-profile", "orders-db-clients")
	worker := w8bLabels("orders-worker", "orders", "egress-profile", "orders-db-clients")
	checkout := w8bLabels("checkout-api", "shop")
	return []*Scenario{
		{
			// The reindex Job was written by copying the catalog Deployment's pod template,
			// labels and port included. While it runs (hours), it is Ready and matches the
			// catalog Service's selector, so kube-proxy sends a share of product requests to a
			// pod that serves nothing on 8080: connection refused, 502 at the storefront.
			Name: "shop-product-pages-502-one-in-three", Covers: "shop.example.com answers 502 on about a third of product pages; storefront logs 'connect ECONNREFUSED 10.96.0.212:80' to the catalog Service; the catalog pods are healthy, but Service catalog's selector (app.kubernetes.io/name=catalog, part-of=shop) also matches the Ready pod of Job catalog-reindex, which copied the Deployment's labels and port and serves nothing (a newsletter-preview pull failure is unrelated noise)",
			Source: w21bSrcJobLabels, Class: ClassProvider, Hops: 2,
			Problem: "shop.example.com returns 502 on roughly one product page in three since this morning; every catalog pod is Running and Ready",
			Target:  target("Ingress", "storefront"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "catalog"}, Terms: []string{"catalog-reindex"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("catalog", "registry.example/shop/catalog:4.12.0", 2, catalog, nil, "http", 8080)
						d.Spec.Template.Spec.Containers[0].Name = "catalog"
						w8bEnv(&d.Spec.Template, "DATABASE_URL", "postgres://catalog@catalog-db:5432/catalog", "SEARCH_URL", "http://search:9200")
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w21bPinned(w10aServiceTo("catalog", catalog, "http", 80, "http"), "10.96.0.212"))
					},
					func() error {
						j := w21bJob("catalog-reindex", "registry.example/shop/catalog:4.12.0", catalog, sim("run"), "http", 8080,
							"reindex", "--all", "--batch-size=500", "--target=search:9200")
						w8bEnv(&j.Spec.Template, "DATABASE_URL", "postgres://catalog@catalog-db:5432/catalog", "SEARCH_URL", "http://search:9200")
						return e.w21bCreateJob(ctx, j)
					},
					func() error {
						d := w8bDeployment("storefront", "registry.example/shop/storefront:9.3.1", 2, storefront, running("w21b-storefront-catalog"), "http", 3000)
						d.Spec.Template.Spec.Containers[0].Name = "storefront"
						w8bEnv(&d.Spec.Template, "CATALOG_URL", "http://catalog", "CART_URL", "http://cart-api")
						if err := e.w11bServe(ctx, d, 80); err != nil {
							return err
						}
						return e.createIngress(ctx, w14bIngress("storefront", "shop.example.com", "storefront", 80, nil))
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("newsletter-preview", "registry.private.example/marketing/newsletter-preview:0.9.2", 1,
							w8bLabels("newsletter-preview", "marketing"), nil, "http", 8080))
					},
				)
			},
			Wait: all(readyReplicas("catalog", 2), podsWith(map[string]string{"job-name": "catalog-reindex"}, runningReady), readyReplicas("storefront", 2),
				podsWith(w8bLabels("newsletter-preview", "marketing"), waiting("ErrImagePull", "ImagePullBackOff"))),
		},
		{
			// A cache-tuning PR set the eviction policy with an underscore. Redis refuses to
			// start on an unknown enum value, so cart-redis crash-loops, cart-api cannot reach it
			// and crash-loops too, and the storefront's readiness (which checks the cart) fails:
			// three workloads red, one ConfigMap key to fix.
			Name: "checkout-page-errors-after-cache-tuning", Covers: "storefront-web is not ready and the shop Ingress errors; cart-api crash-loops on 'connect ECONNREFUSED 10.96.0.184:6379'; cart-redis crash-loops with exit 1 and only its log says \"FATAL CONFIG FILE ERROR ... 'maxmemory-policy \"allkeys_lru\"' argument(s) must be one of the following\": ConfigMap cart-redis-config has an invalid eviction policy (session-redis, with allkeys-lru, runs)",
			Source: w21bSrcRedisConf, Class: ClassProvider, Hops: 3,
			Problem: "the shop shows errors at checkout and storefront-web has no ready pods since the cache tuning change was merged",
			Target:  target("Deployment", "storefront-web"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "cart-redis-config"}, Terms: []string{"maxmemory-policy"}},
			Setup: func(ctx context.Context, e *Env) error {
				store := func(name string, lbl, ann map[string]string, policy string) error {
					conf := "# managed by platform/redis-values\nbind 0.0.0.0\nprotected-mode no\nappendonly no\nsave \"\"\nmaxmemory 256mb\nmaxmemory-policy " + policy + "\ntimeout 300\ntcp-keepalive 60\n"
					if err := e.w10aConfigMap(ctx, name+"-config", lbl, map[string]string{"redis.conf": conf}); err != nil {
						return err
					}
					st := w8bStatefulSet(name, "docker.io/bitnami/redis:7.2.4-debian-12-r9", name+"-headless", 1, lbl, ann, "redis", 6379)
					st.Spec.Template.Spec.Containers[0].Name = "redis"
					w8bEnv(&st.Spec.Template, "ALLOW_EMPTY_PASSWORD", "yes", "REDIS_AOF_ENABLED", "no")
					mountConfigMap(&st.Spec.Template, name+"-config", "/opt/bitnami/redis/mounted-etc")
					if err := e.createStatefulSet(ctx, st); err != nil {
						return err
					}
					return e.createService(ctx, w8bHeadless(name+"-headless", lbl, "redis", 6379))
				}
				return steps(
					func() error {
						return store("cart-redis", redis, crash("1", "", "w21b-cart-redis-config"), "allkeys_lru")
					},
					func() error {
						return e.createService(ctx, w21bPinned(w8bService("cart-redis", redis, "redis", 6379), "10.96.0.184"))
					},
					func() error { return store("session-redis", sessions, nil, "allkeys-lru") },
					func() error { return e.createService(ctx, w8bService("session-redis", sessions, "redis", 6379)) },
					func() error {
						d := w8bDeployment("cart-api", "registry.example/shop/cart-api:3.14.2", 2, cart,
							crash("1", "Error: connect ECONNREFUSED 10.96.0.184:6379", "w21b-cart-api-redis"), "http", 8080)
						d.Spec.Template.Spec.Containers[0].Name = "cart-api"
						w8bEnv(&d.Spec.Template, "REDIS_URL", "redis://cart-redis:6379/0", "SESSION_REDIS_URL", "redis://session-redis:6379/1", "NODE_ENV", "production")
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						d := w8bDeployment("storefront-web", "registry.example/shop/storefront-web:9.3.1", 2, web,
							w11bReadinessFail("storefront-web", "", "HTTP probe failed with statuscode: 503"), "http", 3000)
						d.Spec.Template.Spec.Containers[0].Name = "storefront-web"
						w8bEnv(&d.Spec.Template, "CART_API_URL", "http://cart-api:8080", "SESSION_REDIS_URL", "redis://session-redis:6379/1")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w10aProbe("/api/ready", "http", 10)
						if err := e.w11bServe(ctx, d, 80); err != nil {
							return err
						}
						return e.createIngress(ctx, w14bIngress("shop", "shop.example.com", "storefront-web", 80, nil))
					},
				)
			},
			Wait: all(podsWith(redis, crashLooping(2)), podsWith(cart, crashLooping(2)), podsWith(web, runningNotReady), w8cStatefulSetReady("session-redis", 1)),
		},
		{
			// The team put PgBouncer in front of Postgres and pointed orders-api at it. The
			// egress policy shared by every orders DB client still only allows Postgres on 5432,
			// so the SYNs to the pooler's 6432 are dropped: timeouts, not refusals. orders-worker,
			// still connecting to Postgres directly under the same policy, is fine.
			Name: "orders-api-timeouts-after-pooler-move", Covers: "orders-api crash-loops on 'failed to connect to user=orders database=orders: 10.96.0.166:6432 (orders-pgbouncer): dial error: timeout'; orders-pgbouncer and orders-postgres are Ready; NetworkPolicy orders-db-clients-egress (egress-profile=orders-db-clients) allows DNS and orders-postgres on 5432 only, not the pooler on 6432 (orders-worker, direct to 5432 under the same policy, runs)",
			Source: w21bSrcPoolerNP, Class: ClassProvider, Hops: 2,
			Problem: "orders-api keeps restarting with database timeouts since we moved it onto the connection pooler; the pooler and the database both look healthy",
			Target:  target("Deployment", "orders-api"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "orders-db-clients-egress"}, Terms: []string{"6432"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := w8bStatefulSet("orders-postgres", "docker.io/bitnami/postgresql:16.4.0", "orders-postgres-hl", 1, pg, nil, "tcp-postgresql", 5432)
						w8bEnv(&st.Spec.Template, "POSTGRESQL_DATABASE", "orders", "POSTGRESQL_USERNAME", "orders", "POSTGRESQL_MAX_CONNECTIONS", "200")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("orders-postgres-hl", pg, "tcp-postgresql", 5432)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("orders-postgres", pg, "tcp-postgresql", 5432))
					},
					func() error {
						d := w8bDeployment("orders-pgbouncer", "docker.io/bitnami/pgbouncer:1.23.1", 2, pgb, nil, "pgbouncer", 6432)
						d.Spec.Template.Spec.Containers[0].Name = "pgbouncer"
						w8bEnv(&d.Spec.Template, "POSTGRESQL_HOST", "orders-postgres", "POSTGRESQL_PORT", "5432", "PGBOUNCER_DATABASE", "orders",
							"PGBOUNCER_PORT", "6432", "PGBOUNCER_POOL_MODE", "transaction", "PGBOUNCER_DEFAULT_POOL_SIZE", "20")
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w21bPinned(w8bService("orders-pgbouncer", pgb, "pgbouncer", 6432), "10.96.0.166"))
					},
					func() error {
						return e.createNetworkPolicy(ctx, w8cEgressPolicy("orders-db-clients-egress", map[string]string{"egress-profile": "orders-db-clients"},
							w21bDNS(), w11bToPods(pg, 5432)))
					},
					func() error {
						msg := "giving up after 3 attempts: failed to connect to `user=orders database=orders`: 10.96.0.166:6432 (orders-pgbouncer): dial error: timeout: context deadline exceeded"
						d := w8bDeployment("orders-api", "registry.example/orders/orders-api:7.4.0", 2, orders, crash("1", msg, "w21b-orders-api-pooler"), "http", 8080)
						d.Spec.Template.Spec.Containers[0].Name = "orders-api"
						w8bEnv(&d.Spec.Template, "DB_HOST", "orders-pgbouncer", "DB_PORT", "6432", "DB_NAME", "orders", "DB_USER", "orders", "DB_STATEMENT_CACHE_MODE", "describe")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("orders-worker", "registry.example/orders/orders-worker:7.4.0", 1, worker, nil, "metrics", 9090)
						d.Spec.Template.Spec.Containers[0].Name = "orders-worker"
						w8bEnv(&d.Spec.Template, "DB_HOST", "orders-postgres", "DB_PORT", "5432", "DB_NAME", "orders", "DB_USER", "orders")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(orders, crashLooping(2)), readyReplicas("orders-pgbouncer", 2), readyReplicas("orders-worker", 1), w8cStatefulSetReady("orders-postgres", 1)),
		},
		{
			// Security rolled out a corporate egress proxy through a ConfigMap every team loads
			// with envFrom. NO_PROXY lists the corporate domain but not the cluster's service
			// names, so Go's net/http sends "http://inventory:8080" to Squid, which cannot
			// resolve it (ERR_DNS_FAIL, 503). The Node.js notifications service ignores the
			// proxy variables and keeps working, which makes the shared object look innocent.
			Name: "checkout-unready-after-platform-change", Covers: "checkout.shop.example.com fails: checkout-api is Running but never Ready and logs 'GET http://inventory:8080/healthz: 503 Service Unavailable (X-Squid-Error: ERR_DNS_FAIL 0; Via: 1.1 egress-proxy.corp.example (squid/5.7))' while inventory is Ready; the ConfigMap corporate-proxy it loads with envFrom sets HTTP_PROXY and a NO_PROXY without .svc/.cluster.local or the short service names (notifications, Node.js, loads it too and is unaffected)",
			Source: w21bSrcNoProxy, Class: ClassClue, Hops: 3,
			Problem: "checkout.shop.example.com fails since yesterday's platform change; checkout-api pods are Running but never Ready, and inventory answers fine when I port-forward to it",
			Target:  target("Ingress", "checkout"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "corporate-proxy"}, Terms: []string{"NO_PROXY"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "corporate-proxy", map[string]string{
							"HTTP_PROXY":  "http://egress-proxy.corp.example:3128",
							"HTTPS_PROXY": "http://egress-proxy.corp.example:3128",
							"NO_PROXY":    "localhost,127.0.0.1,169.254.169.254,.corp.example",
						})
					},
					func() error {
						d := w8bDeployment("inventory", "registry.example/shop/inventory:6.2.0", 2, w8bLabels("inventory", "shop"), nil, "http", 8080)
						d.Spec.Template.Spec.Containers[0].Name = "inventory"
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						d := w8bDeployment("checkout-api", "registry.example/shop/checkout-api:2.19.3", 2, checkout,
							w11bReadinessFail("checkout-api", "w21b-checkout-proxy", "HTTP probe failed with statuscode: 503"), "http", 8080)
						d.Spec.Template.Spec.Containers[0].Name = "checkout-api"
						envFromConfigMap(&d.Spec.Template, "corporate-proxy")
						w8bEnv(&d.Spec.Template, "INVENTORY_URL", "http://inventory:8080", "PAYMENTS_URL", "https://api.psp.example.com/v3", "TAX_URL", "https://tax.corp.example/api")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w10aProbe("/ready", "http", 10)
						if err := e.w11bServe(ctx, d, 80); err != nil {
							return err
						}
						return e.createIngress(ctx, w14bIngress("checkout", "checkout.shop.example.com", "checkout-api", 80, nil))
					},
					func() error {
						d := w8bDeployment("notifications", "registry.example/shop/notifications:1.8.4", 1, w8bLabels("notifications", "shop"), nil, "http", 3000)
						d.Spec.Template.Spec.Containers[0].Name = "notifications"
						envFromConfigMap(&d.Spec.Template, "corporate-proxy")
						w8bEnv(&d.Spec.Template, "ORDERS_URL", "http://orders-api:8080", "SMTP_HOST", "smtp.corp.example")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(checkout, runningNotReady), podEvent("Unhealthy", "statuscode: 503"), readyReplicas("inventory", 2), readyReplicas("notifications", 1)),
		},
	}
}
