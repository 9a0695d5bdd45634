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

// Wave 17a: incident tickets as on-call receives them, one common production failure each (a
// config mount, a provider's config file, a rotated credential, an affinity left behind by a
// chart migration, a StorageClass copied from the docs, overlapping disruption budgets, a backup
// CronJob, a replica-set init script, an operator older than the cluster, a probe behind basic
// auth, a chart name too long for its labels, namespace defaults), each written from a public
// issue or doc page. The Problem is the ticket; every Want was fixed from the source before
// anything ran, by an outside hand blind to the engine.

func wave17aScenarios() []*Scenario {
	return append(wave17aFirstScenarios(), wave17aMoreScenarios()...)
}

// w17aDocsNginx is docs-web's nginx.conf; line 14 includes mime.types from /etc/nginx.
const w17aDocsNginx = "user  nginx;\nworker_processes  auto;\n\nerror_log  /var/log/nginx/error.log notice;\npid        /var/run/nginx.pid;\n\nevents {\n    worker_connections  1024;\n}\n\nhttp {\n    log_format  main  '$remote_addr - $remote_user [$time_local] \"$request\" $status $body_bytes_sent';\n    access_log  /var/log/nginx/access.log  main;\n    include       /etc/nginx/mime.types;\n    default_type  application/octet-stream;\n    sendfile        on;\n    keepalive_timeout  65;\n    gzip  on;\n\n    server {\n        listen 8080;\n        root /usr/share/nginx/html;\n        location / { try_files $uri $uri/ /index.html; }\n        location = /healthz { access_log off; return 200 'ok'; }\n    }\n}\n"

// w17aQueueRedisConf is the queue Redis's redis.conf, trimmed from the upstream default file:
// bind commented out to listen on every interface, protected-mode left on, no password.
const w17aQueueRedisConf = "# Based on redis.conf shipped with Redis 7.2 (trimmed)\n# bind 127.0.0.1 -::1\nprotected-mode yes\nport 6379\ntcp-backlog 511\ntimeout 0\ntcp-keepalive 300\ndaemonize no\nloglevel notice\ndatabases 16\nsave 3600 1 300 100 60 10000\ndir /data\nappendonly yes\nappendfsync everysec\nmaxmemory 256mb\nmaxmemory-policy noeviction\n"

func wave17aFirstScenarios() []*Scenario {
	docs := w8bLabels("docs-web", "docs")
	status := w8bLabels("status-web", "docs")
	queue := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "queue-redis")
	worker := w8bLabels("notify-worker", "notifications")
	portal := w8bLabels("billing-portal", "billing")
	thumbs := w8bLabels("thumbnailer", "media")
	media := w8bLabels("media-api", "media")
	memcached := w8cLabels("app.kubernetes.io/name", "memcached", "app.kubernetes.io/instance", "thumb-cache")
	search := w8bLabels("catalog-search-api", "catalog")
	opensearch := w8cLabels("app.kubernetes.io/name", "opensearch", "app.kubernetes.io/instance", "catalog-opensearch")
	checkout := w8bLabels("checkout", "shop", "tier", "web")
	return []*Scenario{
		{
			// To get nginx.conf changes without a restart, the team replaced the subPath mount
			// with a mount of the whole ConfigMap at /etc/nginx. That hides everything the image
			// keeps there, so the include of /etc/nginx/mime.types fails and nginx exits.
			Name: "docs-portal-503-after-hot-reload-pr", Covers: "Ingress docs answers 503: every docs-web nginx pod exits with '[emerg] open() \"/etc/nginx/mime.types\" failed (2: No such file or directory)' because the Deployment mounts ConfigMap docs-nginx-conf over the whole /etc/nginx directory (status-web mounts the same kind of ConfigMap with subPath and runs)",
			Source: w17aSrcNginxMime, Class: ClassClue, Hops: 2,
			Problem: "docs.example.com returns 503 since the 'hot reload for nginx config' PR was merged; status.example.com uses the same nginx setup and is fine. Is the ingress controller broken?",
			Target:  target("Ingress", "docs"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "docs-web"}, Terms: []string{"mime.types"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "docs-nginx-conf", map[string]string{"nginx.conf": w17aDocsNginx})
					},
					func() error {
						return e.createConfigMap(ctx, "status-nginx-conf", map[string]string{"nginx.conf": w17aDocsNginx})
					},
					func() error {
						d := w11bApp("docs-web", "nginx", "docker.io/library/nginx:1.27.1-alpine", 2, docs,
							crash("1", "nginx: [emerg] open() \"/etc/nginx/mime.types\" failed (2: No such file or directory) in /etc/nginx/nginx.conf:14", "w17a-docs-nginx-mime"), "http", 8080)
						w9cFallbackToLogs(&d.Spec.Template)
						w17aMountDir(&d.Spec.Template, "docs-nginx-conf", "/etc/nginx")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("status-web", "nginx", "docker.io/library/nginx:1.27.1-alpine", 1, status, nil, "http", 8080)
						w9cFallbackToLogs(&d.Spec.Template)
						w17aMountKey(&d.Spec.Template, 0, "status-nginx-conf", "/etc/nginx/nginx.conf", "nginx.conf")
						return e.w11bServe(ctx, d, 80)
					},
					func() error { return e.createIngress(ctx, w8cHostIngress("docs", "docs.example.com", "docs-web", 80)) },
					func() error {
						return e.createIngress(ctx, w8cHostIngress("status", "status.example.com", "status-web", 80))
					},
				)
			},
			Wait: all(podsWith(docs, crashLooping(2)), readyReplicas("status-web", 1)),
		},
		{
			// The queue Redis moved from the image's defaults to a redis.conf copied from
			// upstream: bind commented out, protected-mode yes, no password. Redis then answers
			// every non-loopback client with DENIED, and the asynq worker exits.
			Name: "push-and-email-stopped-after-queue-move", Covers: "notify-worker (Go, asynq) crash-loops with no termination message; its log has 'DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user' from queue-redis, which is Running and Ready: its redis.conf from ConfigMap queue-redis-config sets protected-mode yes without a bind or password (session-cache, on the image defaults, serves notify-api)",
			Source: w17aSrcRedisProtect, Class: ClassProvider, Hops: 2,
			Problem: "push notifications and emails stopped going out after the infra team moved the queue Redis to 'the standard config file'; Redis is up and Ready, so is the new notify-worker image broken?",
			Target:  target("Deployment", "notify-worker"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "queue-redis-config"}, Terms: []string{"protected"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "queue-redis-config", map[string]string{"redis.conf": w17aQueueRedisConf})
					},
					func() error {
						st := w8bStatefulSet("queue-redis", "docker.io/library/redis:7.2.4-alpine", "queue-redis", 1, queue, running("w17a-queue-redis"), "redis", 6379)
						w8cArgs(&st.Spec.Template, "redis-server", "/usr/local/etc/redis/redis.conf")
						w17aMountKey(&st.Spec.Template, 0, "queue-redis-config", "/usr/local/etc/redis/redis.conf", "redis.conf")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("queue-redis", queue, "redis", 6379))
					},
					func() error {
						return e.w11bStore(ctx, "session-cache", "docker.io/library/redis:7.2.4-alpine", w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "session-cache"), nil, "redis", 6379)
					},
					func() error {
						d := w11bApp("notify-worker", "worker", "registry.example/notifications/notify-worker:3.4.1", 2, worker, crash("1", "", "w17a-notify-worker-asynq"), "metrics", 9091)
						w8bEnv(&d.Spec.Template, "REDIS_ADDR", "queue-redis:6379", "QUEUE_CONCURRENCY", "20", "SMTP_HOST", "smtp-relay.mail.svc.cluster.local")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("notify-api", "api", "registry.example/notifications/notify-api:3.4.1", 1, w8bLabels("notify-api", "notifications"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "SESSION_REDIS_ADDR", "session-cache:6379")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(worker, crashLooping(2)), w11aStatefulSetReady("queue-redis", 1), readyReplicas("notify-api", 1)),
		},
		{
			// The rotation job wrote the new password, which contains '@', into the portal's
			// DATABASE_URL without percent-encoding it. SQLAlchemy splits the URL at the first
			// '@', so psycopg2 is asked to resolve "xL7v!pR2@billing-db" and the worker never boots.
			Name: "billing-portal-down-after-rotation-night", Covers: "billing-portal (Flask under gunicorn) crash-loops with exit 3: 'psycopg2.OperationalError: could not translate host name \"xL7v!pR2@billing-db\" to address'; the new password in Secret billing-portal-db's DATABASE_URL contains an unescaped '@' (billing-worker's Secret has it percent-encoded as %40 and connects)",
			Source: w17aSrcURLPassword, Class: ClassClue, Hops: 1,
			Problem: "billing portal pods crash-loop since last night's scheduled database password rotation; billing-worker got the same new password and works, and billing-db is up",
			Target:  target("Deployment", "billing-portal"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "billing-portal-db"}, Terms: []string{"DATABASE_URL"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11bStore(ctx, "billing-db", "docker.io/library/postgres:16.3", w8cLabels("app", "billing-db"), nil, "postgres", 5432, "POSTGRES_DB", "billing", "POSTGRES_USER", "billing")
					},
					func() error {
						return e.createSecret(ctx, "billing-portal-db", map[string]string{"DATABASE_URL": "postgresql+psycopg2://billing:Tq9@xL7v!pR2@billing-db:5432/billing", "SECRET_KEY": "c5b0f6f1a7e24d0e9b8f3a2d1c4e6f70"})
					},
					func() error {
						return e.createSecret(ctx, "billing-worker-db", map[string]string{"DATABASE_URL": "postgresql://billing:Tq9%40xL7v%21pR2@billing-db:5432/billing"})
					},
					func() error {
						d := w11bApp("billing-portal", "portal", "registry.example/billing/billing-portal:7.3.0", 2, portal, crash("3", "", "w17a-billing-portal-sqlalchemy"), "http", 8000)
						w8cArgs(&d.Spec.Template, "gunicorn", "--bind", "0.0.0.0:8000", "--worker-class", "gthread", "billing_portal.wsgi:app")
						envKeyFromSecret(&d.Spec.Template, "DATABASE_URL", "billing-portal-db", "DATABASE_URL")
						envKeyFromSecret(&d.Spec.Template, "SECRET_KEY", "billing-portal-db", "SECRET_KEY")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("billing-worker", "worker", "registry.example/billing/billing-worker:7.3.0", 1, w8bLabels("billing-worker", "billing"), nil, "metrics", 9808)
						w8cArgs(&d.Spec.Template, "celery", "-A", "billing_worker", "worker", "--concurrency", "4")
						envKeyFromSecret(&d.Spec.Template, "DATABASE_URL", "billing-worker-db", "DATABASE_URL")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(portal, crashLooping(2)), readyReplicas("billing-worker", 1), w11aStatefulSetReady("billing-db", 1)),
		},
		{
			// thumbnailer requires to run next to its cache (pod affinity on
			// app.kubernetes.io/name=thumb-cache). The cache moved to the bitnami memcached chart,
			// whose pods carry name=memcached, instance=thumb-cache: no pod matches, no node fits.
			Name: "media-thumbnails-502-after-cache-move", Covers: "media-api is Running but never Ready and logs 'readiness: dependency thumbnailer unreachable ... ECONNREFUSED'; Service thumbnailer has no endpoints because every thumbnailer pod is Pending with 'didn't match pod affinity rules': the Deployment requires pods labelled app.kubernetes.io/name=thumb-cache on the same node, and the migrated memcached pods are labelled app.kubernetes.io/name=memcached",
			Source: w17aSrcPodAffinity, Class: ClassProvider, Hops: 2,
			Problem: "thumbnails on media.example.com return 502 and media-api never becomes Ready since we migrated the thumbnail cache to the bitnami memcached chart; memcached itself runs fine and the cluster has lots of free CPU",
			Target:  target("Deployment", "media-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "thumbnailer"}, Terms: []string{"affinity"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w11bApp("thumb-cache-memcached", "memcached", "docker.io/bitnami/memcached:1.6.29-debian-12-r3", 1, memcached, nil, "memcache", 11211)
						return e.w11bServe(ctx, d, 11211)
					},
					func() error {
						d := w11bApp("thumbnailer", "thumbnailer", "registry.example/media/thumbnailer:1.12.0", 2, thumbs, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "MEMCACHED_SERVERS", "thumb-cache-memcached:11211", "MAX_SOURCE_MB", "40")
						w17aColocate(&d.Spec.Template, w8cLabels("app.kubernetes.io/name", "thumb-cache"))
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						s := w10aServiceTo("thumbnailer", thumbs, "http", 8080, "http")
						s.Spec.ClusterIP = "10.96.0.219"
						return e.createService(ctx, s)
					},
					func() error {
						d := w11bApp("media-api", "media-api", "registry.example/media/media-api:5.2.0", 2, media,
							w11bReadinessFail("media-api", "w17a-media-api-thumbs", "HTTP probe failed with statuscode: 503"), "http", 3000)
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "THUMBNAILER_URL", "http://thumbnailer:8080", "S3_BUCKET", "media-originals-prod")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/readyz", "http", 5, 3)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("media", "media.example.com", "media-api", 80))
					},
				)
			},
			Wait: all(podsWith(thumbs, unschedulable("pod affinity")), podsWith(media, runningNotReady), readyReplicas("thumb-cache-memcached", 1)),
		},
		{
			// The staging StorageClass was copied from the Kubernetes docs' allowedTopologies
			// example, which restricts provisioning by failure-domain.beta.kubernetes.io/zone.
			// Nodes no longer carry that label, so no node can provision the claim and the
			// OpenSearch pod never schedules.
			Name: "catalog-search-never-ready-in-staging", Covers: "catalog-search-api is Running but not Ready (connection refused to catalog-opensearch:9200); catalog-opensearch-0 stays Pending with its claim waiting for first consumer: StorageClass ssd-zonal's allowedTopologies require failure-domain.beta.kubernetes.io/zone in us-central1-a/b, a label no node carries (nodes have topology.kubernetes.io/zone), while catalog-search-cache on a bound volume runs",
			Source: w17aSrcTopologyKey, Class: ClassProvider, Hops: 3,
			Problem: "catalog search has been 'not ready' ever since we brought the catalog stack up in the new staging cluster; nodes are mostly idle and the search API shows no error event at all",
			Target:  target("Deployment", "catalog-search-api"),
			Want:    Want{Culprit: Ref{Kind: "StorageClass", Name: "ssd-zonal", Cluster: true}, Terms: []string{"failure-domain.beta.kubernetes.io/zone"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w17aZonalClass(ctx, "ssd-zonal", "pd.csi.storage.gke.io", "failure-domain.beta.kubernetes.io/zone", "us-central1-a", "us-central1-b")
					},
					func() error {
						st := w8bStatefulSet("catalog-opensearch", "docker.io/opensearchproject/opensearch:2.15.0", "catalog-opensearch-headless", 1, opensearch, nil, "http", 9200)
						w8bEnv(&st.Spec.Template, "discovery.type", "single-node", "OPENSEARCH_JAVA_OPTS", "-Xms1g -Xmx1g", "DISABLE_SECURITY_PLUGIN", "true")
						w13bClaimTemplate(st, "data", e.ClusterName("ssd-zonal"), "30Gi", "/usr/share/opensearch/data")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("catalog-opensearch-headless", opensearch, "http", 9200)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("catalog-opensearch", opensearch, "http", 9200))
					},
					func() error {
						lbl := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "catalog-search-cache")
						st := w8bStatefulSet("catalog-search-cache", "docker.io/library/redis:7.2.4-alpine", "catalog-search-cache", 1, lbl, nil, "redis", 6379)
						if err := e.w10aClaimedStatefulSet(ctx, st, "cache", "2Gi", "/data"); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("catalog-search-cache", lbl, "redis", 6379))
					},
					func() error {
						d := w11bApp("catalog-search-api", "api", "registry.example/catalog/catalog-search-api:2.4.0", 2, search,
							w11bReadinessFail("api", "w17a-search-api-opensearch", "HTTP probe failed with statuscode: 503"), "http", 8080)
						w8bEnv(&d.Spec.Template, "OPENSEARCH_URL", "http://catalog-opensearch:9200", "CACHE_URL", "redis://catalog-search-cache:6379/0")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/readyz", "http", 10, 3)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(opensearch, w14aPending), pvcPending("data-catalog-opensearch-0"), podsWith(search, runningNotReady), w11aStatefulSetReady("catalog-search-cache", 1)),
		},
		{
			// The chart ships PDB checkout; the platform team then added web-tier-budget over
			// every tier=web pod. checkout's pods now match two budgets, which the eviction API
			// refuses ("more than one PodDisruptionBudget"), so a drain retries them for ever.
			Name: "kernel-patch-drain-loops-on-checkout", Covers: "question after a drain that keeps retrying the checkout pods: they match two PodDisruptionBudgets, the chart's checkout (app.kubernetes.io/name=checkout) and the platform's web-tier-budget (tier=web), so the disruption controller warns MultiplePodDisruptionBudgets and the eviction API refuses them; cart, under web-tier-budget alone, drains",
			Source: w17aSrcMultiPDB, Class: ClassOutside, Hops: 1,
			Problem: "kubectl drain of kwok-node-1 for the kernel patch loops on the checkout pods ('error when evicting pods ... will retry after 5s') while cart and everything else on the node went fine; checkout has 3 healthy replicas, why can't one of them move?",
			Target:  target("Deployment", "checkout"),
			Want:    Want{Culprit: Ref{Kind: "PodDisruptionBudget", Name: "web-tier-budget"}, Also: []Ref{{Kind: "PodDisruptionBudget", Name: "checkout"}}, Terms: []string{"multiple"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11bServe(ctx, w11bApp("checkout", "checkout", "registry.example/shop/checkout:6.1.2", 3, checkout, nil, "http", 8080), 80)
					},
					func() error {
						return e.w11bServe(ctx, w11bApp("cart", "cart", "registry.example/shop/cart:6.1.2", 2, w8bLabels("cart", "shop", "tier", "web"), nil, "http", 8080), 80)
					},
					func() error {
						return e.w17aBudget(ctx, "checkout", "1", w8cLabels("app.kubernetes.io/name", "checkout"))
					},
					func() error { return e.w17aBudget(ctx, "web-tier-budget", "25%", w8cLabels("tier", "web")) },
				)
			},
			Wait: all(readyReplicas("checkout", 3), readyReplicas("cart", 2), podEvent("MultiplePodDisruptionBudgets", "multiple")),
		},
	}
}
