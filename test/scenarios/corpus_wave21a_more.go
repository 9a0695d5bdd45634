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

func wave21aMoreScenarios() []*Scenario {
	shop := w8bLabels("storefront", "shop")
	shopWorker := w8bLabels("storefront-worker", "shop")
	shopRedis := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "storefront-redis")
	limiter := w8bLabels("ratelimiter", "edge")
	quota := w8bLabels("quota-sync", "edge")
	limitRedis := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "ratelimit-redis")
	search := w8bLabels("search-api", "catalog")
	indexer := w8bLabels("catalog-indexer", "catalog")
	es := w8cLabels("app.kubernetes.io/name", "elasticsearch", "app.kubernetes.io/instance", "catalog-es")
	ledgerWeb := w8bLabels("ledger-web", "ledger", "app.kubernetes.io/component", "web")
	ledgerWorker := w8bLabels("ledger-worker", "ledger", "app.kubernetes.io/component", "worker")
	return []*Scenario{
		{
			// Django 4+ checks the Origin header of unsafe requests against CSRF_TRUSTED_ORIGINS
			// (scheme included). The shop moved to checkout.acme-retail.com: the Ingress and
			// ALLOWED_HOSTS were updated, the trusted origins were not, so every POST is refused
			// with 403 while pages and the health check answer 200.
			Name:    "shop-posts-403-after-domain-move",
			Covers:  "storefront (Django 5, gunicorn) pods are Running and Ready but every POST answers 403 and the log repeats 'Forbidden (Origin checking failed - https://checkout.acme-retail.com does not match any trusted origins.)': ConfigMap storefront-settings sets CSRF_TRUSTED_ORIGINS=https://shop.acme-retail.com while Ingress storefront now serves host checkout.acme-retail.com (the HPA's missing-metrics warnings are noise)",
			Source:  w21aSrcCSRF,
			Class:   ClassOutside,
			Hops:    2,
			Problem: "since the shop moved to checkout.acme-retail.com customers can browse, but adding to cart, logging in and checking out all end on a 403 page; every pod is green",
			Target:  target("Deployment", "storefront"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "storefront-settings"}, Terms: []string{"CSRF_TRUSTED_ORIGINS"}},
			Setup: func(ctx context.Context, e *Env) error {
				image := "registry.example/shop/storefront:2026.11.3"
				return steps(
					func() error {
						return e.w11bStore(ctx, "storefront-redis", "docker.io/library/redis:7.4.1-alpine", shopRedis, nil, "redis", 6379)
					},
					func() error {
						return e.createConfigMap(ctx, "storefront-settings", map[string]string{
							"DJANGO_SETTINGS_MODULE": "storefront.settings.production",
							"DJANGO_ALLOWED_HOSTS":   "checkout.acme-retail.com,shop.acme-retail.com",
							"CSRF_TRUSTED_ORIGINS":   "https://shop.acme-retail.com",
							"SESSION_COOKIE_SECURE":  "True", "CSRF_COOKIE_SECURE": "True",
							"SECURE_PROXY_SSL_HEADER": "HTTP_X_FORWARDED_PROTO,https",
							"CELERY_BROKER_URL":       "redis://storefront-redis:6379/0",
							"DATABASE_HOST":           "shop-pg.acme-retail.internal",
						})
					},
					func() error {
						d := w11bApp("storefront", "web", image, 2, shop, running("w21a-storefront-csrf"), "http", 8000)
						w8cArgs(&d.Spec.Template, "gunicorn", "storefront.wsgi:application", "--bind=0.0.0.0:8000", "--workers=3", "--threads=4", "--access-logfile=-")
						envFromConfigMap(&d.Spec.Template, "storefront-settings")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("storefront", "checkout.acme-retail.com", "storefront", 80))
					},
					func() error {
						d := w11bApp("storefront-worker", "worker", image, 1, shopWorker, nil, "", 0)
						w8cArgs(&d.Spec.Template, "celery", "-A", "storefront", "worker", "-l", "INFO", "--concurrency=4")
						envFromConfigMap(&d.Spec.Template, "storefront-settings")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createHPA(ctx, "storefront", "storefront", 2, 6) },
				)
			},
			Wait: all(readyReplicas("storefront", 2), readyReplicas("storefront-worker", 1), w11aStatefulSetReady("storefront-redis", 1)),
		},
		{
			// The service deserialises its settings from the environment with envy (serde): a
			// missing variable is "missing value for field X". The Secret was regenerated from a
			// template that spells the key REDIS_URI; envFrom loads it under that name, REDIS_URL
			// is never set, and the binary exits 1 at boot.
			Name:    "edge-ratelimiter-exits-at-boot",
			Covers:  "ratelimiter (Rust, envy + anyhow) exits 1 with no termination message; its log ends 'Error: loading configuration from environment / Caused by: missing value for field REDIS_URL': envFrom Secret ratelimiter-env carries the Redis URL under the key REDIS_URI (quota-sync's Secret quota-sync-env has REDIS_URL and it runs)",
			Source:  w21aSrcEnvy,
			Class:   ClassClue,
			Hops:    1,
			Problem: "the edge rate limiter restarts over and over since the secrets were regenerated from the new template; Redis itself is up",
			Target:  target("Deployment", "ratelimiter"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "ratelimiter-env"}, Terms: []string{"REDIS_URL"}},
			Setup: func(ctx context.Context, e *Env) error {
				image := "registry.example/edge/ratelimiter:0.9.2"
				return steps(
					func() error {
						return e.w11bStore(ctx, "ratelimit-redis", "docker.io/library/redis:7.4.1-alpine", limitRedis, nil, "redis", 6379)
					},
					func() error {
						return e.createSecret(ctx, "ratelimiter-env", map[string]string{
							"REDIS_URI": "redis://:Tq4vN8mZ2kLw@ratelimit-redis:6379/0", "SIGNING_KEY": "c3f9a1e07b5d4c28a6e1",
						})
					},
					func() error {
						return e.createSecret(ctx, "quota-sync-env", map[string]string{
							"REDIS_URL": "redis://:Tq4vN8mZ2kLw@ratelimit-redis:6379/1", "BILLING_API_TOKEN": "bk_live_5d0e8a71c2",
						})
					},
					func() error {
						return e.createConfigMap(ctx, "ratelimiter-rules", map[string]string{
							"rules.yaml": "domain: edge\ndescriptors:\n  - key: api_key\n    rate_limit: {unit: second, requests_per_unit: 50}\n  - key: remote_address\n    rate_limit: {unit: minute, requests_per_unit: 600}\n",
						})
					},
					func() error {
						d := w11bApp("ratelimiter", "ratelimiter", image, 2, limiter, crash("1", "", "w21a-ratelimiter-envy"), "grpc", 8080)
						envFromSecret(&d.Spec.Template, "ratelimiter-env")
						w8bEnv(&d.Spec.Template, "LISTEN_ADDR", "0.0.0.0:8080", "METRICS_ADDR", "0.0.0.0:9000", "RULES_PATH", "/etc/ratelimiter/rules.yaml", "RUST_LOG", "info,tower_http=warn,hyper=warn", "RUST_BACKTRACE", "1")
						mountConfigMap(&d.Spec.Template, "ratelimiter-rules", "/etc/ratelimiter")
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						d := w11bApp("quota-sync", "quota-sync", "registry.example/edge/quota-sync:1.4.0", 1, quota, nil, "metrics", 9000)
						envFromSecret(&d.Spec.Template, "quota-sync-env")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(limiter, crashLooping(2)), readyReplicas("quota-sync", 1), w11aStatefulSetReady("ratelimit-redis", 1)),
		},
		{
			// The search team bumped SEARCH_INDEX to the v3 index ahead of a reindex that was
			// never run; the indexer still builds catalog-products-v2 behind the alias. The API
			// stays healthy (/healthz does not query Elasticsearch) and answers 500 on every
			// search with the client's index_not_found_exception.
			Name:    "site-search-500s-pods-green",
			Covers:  "search-api (Node, @elastic/elasticsearch) is Running and Ready but answers 500 to every search; its log repeats 'ResponseError: index_not_found_exception ... no such index [catalog-products-v3]': SEARCH_INDEX in ConfigMap search-api-config names catalog-products-v3 while catalog-indexer (ConfigMap catalog-indexer-config) writes catalog-products-v2 behind the alias catalog-products",
			Source:  w21aSrcESIndex,
			Class:   ClassProvider,
			Hops:    2,
			Problem: "site search shows an error page for every query since this morning's deploy, yet all search-api pods and Elasticsearch are green",
			Target:  target("Deployment", "search-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "search-api-config"}, Terms: []string{"catalog-products-v3"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11bStore(ctx, "catalog-es", "docker.elastic.co/elasticsearch/elasticsearch:8.15.3", es, nil, "http", 9200,
							"discovery.type", "single-node", "xpack.security.enabled", "false", "ES_JAVA_OPTS", "-Xms1g -Xmx1g", "cluster.name", "catalog")
					},
					func() error {
						return e.createConfigMap(ctx, "search-api-config", map[string]string{
							"ES_NODE": "http://catalog-es:9200", "SEARCH_INDEX": "catalog-products-v3", "SEARCH_PAGE_SIZE": "24",
							"SEARCH_REQUEST_TIMEOUT_MS": "3000", "LOG_LEVEL": "info", "NODE_ENV": "production",
						})
					},
					func() error {
						return e.createConfigMap(ctx, "catalog-indexer-config", map[string]string{
							"ES_NODE": "http://catalog-es:9200", "INDEX_ALIAS": "catalog-products", "INDEX_NAME": "catalog-products-v2",
							"SYNC_INTERVAL": "5m", "CATALOG_DB_URL": "postgres://catalog-ro@catalog-pg.catalog.internal:5432/catalog",
						})
					},
					func() error {
						d := w11bApp("search-api", "search-api", "registry.example/catalog/search-api:2.14.0", 2, search, running("w21a-search-api-index"), "http", 3000)
						envFromConfigMap(&d.Spec.Template, "search-api-config")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("catalog-indexer", "indexer", "registry.example/catalog/catalog-indexer:1.9.3", 1, indexer, running("w21a-catalog-indexer"), "metrics", 9102)
						envFromConfigMap(&d.Spec.Template, "catalog-indexer-config")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("search-api", 2), readyReplicas("catalog-indexer", 1), w11aStatefulSetReady("catalog-es", 1)),
		},
		{
			// Distributed Erlang admits a node only if both share the cookie. The rotation kept
			// the old value under cookie-previous in Secret ledger-erlang; the worker Deployment
			// still reads that key, so web refuses every worker ("Invalid challenge reply"),
			// libcluster cannot join them and PubSub balance broadcasts reach nobody. Every pod
			// is Running and Ready; a failing PDF renderer is unrelated noise.
			Name:    "ledger-live-balances-frozen",
			Covers:  "ledger-web and ledger-worker (Elixir releases, libcluster) are Running and Ready but never form a cluster: web logs \"** Connection attempt from node 'ledger@10.244.2.31' rejected. Invalid challenge reply. **\", the worker 'unable to connect' and broadcasts to 0 subscribers; ledger-worker takes RELEASE_COOKIE from key cookie-previous of Secret ledger-erlang while ledger-web reads key cookie (ledger-pdf's ImagePullBackOff is unrelated)",
			Source:  w21aSrcCookie,
			Class:   ClassOutside,
			Hops:    2,
			Problem: "live balance updates stopped appearing in the ledger UI after last night's maintenance window; settlements still complete and every ledger pod is Running and Ready",
			Target:  target("Deployment", "ledger-web"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "ledger-worker"}, Terms: []string{"cookie-previous"}},
			Setup: func(ctx context.Context, e *Env) error {
				image := "registry.example/ledger/ledger:2026.11.2"
				release := func(name, component string, lbl, ann map[string]string, cookieKey string, replicas int32) error {
					d := w11bApp(name, component, image, replicas, lbl, ann, "http", 4000)
					d.Spec.Template.Spec.ServiceAccountName = "ledger"
					w10aPort(&d.Spec.Template, "epmd", 4369)
					w21aPodIPEnv(&d.Spec.Template, "POD_IP")
					w8bEnv(&d.Spec.Template, "RELEASE_DISTRIBUTION", "name", "RELEASE_NODE", "ledger@$(POD_IP)", "PHX_HOST", "ledger.acme-bank.example",
						"LIBCLUSTER_SELECTOR", "app.kubernetes.io/part-of=ledger", "OBAN_QUEUES_ENABLED", map[string]string{"web": "false", "worker": "true"}[component])
					envKeyFromSecret(&d.Spec.Template, "RELEASE_COOKIE", "ledger-erlang", cookieKey)
					envKeyFromSecret(&d.Spec.Template, "SECRET_KEY_BASE", "ledger-erlang", "secret-key-base")
					envKeyFromSecret(&d.Spec.Template, "DATABASE_URL", "ledger-db", "url")
					w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
					return e.createDeployment(ctx, d)
				}
				return steps(
					func() error {
						return e.createSecret(ctx, "ledger-erlang", map[string]string{
							"cookie": "QkN3ZzVtR1p4UXJUOWJ2TDJ5S2U", "cookie-previous": "bW9uZXlwZW5ueTIwMjUtMDYtcm90",
							"secret-key-base": "uR0y5bS8dQ1wV3nK6pZ9tL2mX4cH7fJ0aE5gB8iN1oW3qY6sD9vF2hT4kM7xC0zP",
						})
					},
					func() error {
						return e.createSecret(ctx, "ledger-db", map[string]string{"url": "ecto://ledger:Pz83kLq0@ledger-pg.ledger.internal/ledger"})
					},
					func() error { return e.createServiceAccount(ctx, "ledger") },
					func() error {
						return e.createRole(ctx, "ledger-libcluster", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods", "endpoints"}, Verbs: []string{"get", "list", "watch"}})
					},
					func() error {
						return e.createRoleBinding(ctx, "ledger-libcluster", "Role", "ledger-libcluster", "ledger")
					},
					func() error {
						return e.createService(ctx, w8bHeadless("ledger-nodes", w8cLabels("app.kubernetes.io/part-of", "ledger"), "epmd", 4369))
					},
					func() error {
						if err := release("ledger-web", "web", ledgerWeb, running("w21a-ledger-web-cookie"), "cookie", 2); err != nil {
							return err
						}
						return e.createService(ctx, w10aServiceTo("ledger-web", ledgerWeb, "http", 80, "http"))
					},
					func() error {
						return release("ledger-worker", "worker", ledgerWorker, running("w21a-ledger-worker-cookie"), "cookie-previous", 2)
					},
					func() error {
						d := w11bApp("ledger-pdf", "renderer", "registry.example/ledger/pdf-renderer:3.1.0-rc2", 1, w8bLabels("ledger-pdf", "statements"),
							sim("image-pull-notfound"), "http", 3000)
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("ledger-web", 2), readyReplicas("ledger-worker", 2), podsWith(w8bLabels("ledger-pdf", "statements"), waiting("ErrImagePull", "ImagePullBackOff"))),
		},
	}
}
