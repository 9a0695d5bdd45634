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
	"k8s.io/utils/ptr"
)

// Wave 17c: applications whose only clue is their own container log, on stacks the corpus had
// few of (Phoenix and libcluster, grpc-go keepalive, pymemcache against memcached, HAProxy,
// the AWS SDK against MinIO, Kafka Connect, Quarkus kubernetes-config, Prisma, gocql, Akka
// Cluster Bootstrap, an Envoy sidecar). The log line names something in the cluster or is the
// library's well-known error whose fix is a setting; the object to edit is rarely the pod that
// logs. Written blind by an outside hand; every Want was fixed from the source first.

func wave17cScenarios() []*Scenario {
	out := wave17cFirstScenarios()
	out = append(out, wave17cMoreScenarios()...)
	return append(out, wave17cLateScenarios()...)
}

func wave17cFirstScenarios() []*Scenario {
	chat := w8bLabels("chat-web", "chat", "app.kubernetes.io/component", "phoenix")
	support := w8bLabels("support-web", "support", "app.kubernetes.io/component", "phoenix")
	quiz := w8bLabels("quiz-live", "quiz")
	loadtest := w8bLabels("quiz-load-test", "quiz", "app.kubernetes.io/component", "k6")
	checkout := w8bLabels("checkout", "shop")
	cart := w8bLabels("cart", "shop")
	pricing := w8bLabels("pricing", "shop", "app.kubernetes.io/component", "grpc")
	web := w8bLabels("catalog-web", "catalog", "app.kubernetes.io/component", "django")
	cache := w8cLabels("app.kubernetes.io/name", "memcached", "app.kubernetes.io/instance", "catalog-memcached")
	sessions := w8cLabels("app.kubernetes.io/name", "memcached", "app.kubernetes.io/instance", "sessions-memcached")
	return []*Scenario{
		{
			// Phoenix checks the Origin of every socket connection against the endpoint's
			// url host (PHX_HOST in the release's runtime.exs). The ConfigMap still carries the
			// staging host, so every LiveView/channel connect from chat.example.com is refused
			// and logged, while plain HTTP pages keep working and the pods stay Ready.
			Name: "chat-messages-need-page-reload", Covers: "chat-web (Phoenix) is Running and Ready but logs '[error] Could not check origin for Phoenix.Socket transport. Origin of the request: https://chat.example.com' for every socket: PHX_HOST in ConfigMap chat-web-env is chat.staging.example.com while the Ingress serves chat.example.com (support-web, configured with its real host, is fine)",
			Source: w17cSrcCheckOrigin, Class: ClassOutside, Hops: 1,
			Problem: "people on chat.example.com only see new messages after reloading the page, live updates never arrive; all chat pods are green",
			Target:  target("Deployment", "chat-web"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "chat-web-env"}, Terms: []string{"PHX_HOST"}},
			Setup: func(ctx context.Context, e *Env) error {
				pg := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "chat-postgres")
				return steps(
					func() error {
						return e.w11bStore(ctx, "chat-postgres", "docker.io/library/postgres:16.4-alpine", pg, nil, "postgres", 5432, "POSTGRES_DB", "chat", "POSTGRES_USER", "chat")
					},
					func() error {
						return e.createConfigMap(ctx, "chat-web-env", map[string]string{"PHX_HOST": "chat.staging.example.com", "PHX_SERVER": "true", "PORT": "4000", "POOL_SIZE": "10", "DNS_CLUSTER_QUERY": "chat-web-headless", "ECTO_IPV6": "false"})
					},
					func() error {
						return e.createSecret(ctx, "chat-web-secrets", map[string]string{"SECRET_KEY_BASE": "kY3p0Zq8u1N7cVd2Lr5sWb9Xh4Ta6Mf0Jg3Ee8Qn2Ui7Oy1Rk5Pz9Cw4Bv6Dx0Sl", "DATABASE_URL": "ecto://chat:Vb71kQm3Lz@chat-postgres/chat"})
					},
					func() error {
						d := w11bApp("chat-web", "chat-web", "registry.example/chat/chat-web:2.4.0", 2, chat, running("w17c-chat-phoenix-check-origin"), "http", 4000)
						envFromConfigMap(&d.Spec.Template, "chat-web-env")
						envFromSecret(&d.Spec.Template, "chat-web-secrets")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						if err := e.w11bServe(ctx, d, 80); err != nil {
							return err
						}
						return e.createIngress(ctx, w14bIngress("chat-web", "chat.example.com", "chat-web", 80, map[string]string{"nginx.ingress.kubernetes.io/proxy-read-timeout": "3600"}))
					},
					func() error {
						return e.createConfigMap(ctx, "support-web-env", map[string]string{"PHX_HOST": "support.example.com", "PHX_SERVER": "true", "PORT": "4000", "POOL_SIZE": "5"})
					},
					func() error {
						d := w11bApp("support-web", "support-web", "registry.example/support/support-web:1.9.3", 1, support, nil, "http", 4000)
						envFromConfigMap(&d.Spec.Template, "support-web-env")
						if err := e.w11bServe(ctx, d, 80); err != nil {
							return err
						}
						return e.createIngress(ctx, w14bIngress("support-web", "support.example.com", "support-web", 80, nil))
					},
				)
			},
			Wait: all(readyReplicas("chat-web", 2), readyReplicas("support-web", 1), w11aStatefulSetReady("chat-postgres", 1)),
		},
		{
			// libcluster's Kubernetes strategy lists the Endpoints of the app's headless
			// Service to find its peers (kubernetes_ip_lookup_mode :endpoints, the default). The
			// Role was written from the :pods example and grants pods only, so every poll is
			// forbidden: each pod runs alone and Phoenix PubSub/Presence never spans pods.
			Name: "quiz-players-see-different-scoreboards", Covers: "quiz-live (Phoenix, libcluster) pods are Ready but each runs alone: '[libcluster:quiz] cannot query kubernetes (unauthorized): endpoints is forbidden: User \"system:serviceaccount:...:quiz-live\" cannot list resource \"endpoints\"'; Role quiz-live grants get/list/watch on pods only (a Pending load-test pod is unrelated noise)",
			Source: w17cSrcLibcluster, Class: ClassOutside, Hops: 2,
			Problem: "in a live quiz, players in the same game see different scoreboards and some never get the next question, depending on which pod they landed on; nothing is red anywhere",
			Target:  target("Deployment", "quiz-live"),
			Want:    Want{Culprit: Ref{Kind: "Role", Name: "quiz-live"}, Terms: []string{"endpoints"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := w11bApp("quiz-live", "quiz-live", "registry.example/quiz/quiz-live:0.18.2", 3, quiz, running("w17c-quiz-libcluster-forbidden"), "http", 4000)
				w10aPort(&d.Spec.Template, "epmd", 4369)
				w8bEnv(&d.Spec.Template, "PHX_HOST", "quiz.example.com", "RELEASE_DISTRIBUTION", "name", "RELEASE_NODE_BASENAME", "quiz",
					"LIBCLUSTER_KUBERNETES_SELECTOR", "app.kubernetes.io/name=quiz-live", "LIBCLUSTER_KUBERNETES_SERVICE", "quiz-live-headless")
				return steps(
					func() error {
						return e.w17cAccount(ctx, &d.Spec.Template, "quiz-live", "quiz-live", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}})
					},
					func() error {
						return e.createSecret(ctx, "quiz-erlang-cookie", map[string]string{"RELEASE_COOKIE": "q8ZpT3vLx1Nw7RkD4mYc"})
					},
					func() error {
						envKeyFromSecret(&d.Spec.Template, "RELEASE_COOKIE", "quiz-erlang-cookie", "RELEASE_COOKIE")
						if err := e.w11bServe(ctx, d, 80); err != nil {
							return err
						}
						return e.createService(ctx, w8bHeadless("quiz-live-headless", quiz, "epmd", 4369))
					},
					func() error {
						d := w11bApp("quiz-load-test", "k6", "grafana/k6:0.54.0", 1, loadtest, nil, "metrics", 6565)
						d.Spec.Template.Spec.NodeSelector = map[string]string{"pool": "loadtest"}
						w8cArgs(&d.Spec.Template, "run", "--vus", "200", "/scripts/quiz.js")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("quiz-live", 3), podsWith(loadtest, unschedulable("didn't match"))),
		},
		{
			// grpc-go servers enforce a minimum client ping interval of 5 minutes by default
			// and answer faster keepalive pings with GOAWAY ENHANCE_YOUR_CALM "too_many_pings",
			// dropping in-flight RPCs. checkout's ConfigMap sets a 10 s client keepalive; cart,
			// calling the same pricing server with 5m, never sees it.
			Name: "checkout-quotes-intermittent-503", Covers: "checkout is Ready but a share of its quotes fail with 'rpc error: code = Unavailable ... received prior goaway: code: ENHANCE_YOUR_CALM, debug data: \"too_many_pings\"': ConfigMap checkout-grpc sets GRPC_KEEPALIVE_TIME=10s with permit-without-stream, below pricing's 5 minute enforcement minimum (cart's 5m works)",
			Source: w17cSrcTooManyPing, Class: ClassClue, Hops: 1,
			Problem: "checkout returns 503 on a few percent of quote requests; every pod looks healthy and the pricing service logs no errors of its own",
			Target:  target("Deployment", "checkout"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "checkout-grpc"}, Terms: []string{"keepalive"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w11bApp("pricing", "pricing", "registry.example/shop/pricing:7.2.0", 2, pricing, nil, "grpc", 9090)
						w8bEnv(&d.Spec.Template, "GRPC_LISTEN_ADDR", ":9090", "PRICE_BOOK", "eu-2026q4")
						return e.w11bServe(ctx, d, 9090)
					},
					func() error {
						return e.createConfigMap(ctx, "checkout-grpc", map[string]string{"PRICING_ADDR": "dns:///pricing:9090", "GRPC_KEEPALIVE_TIME": "10s", "GRPC_KEEPALIVE_TIMEOUT": "3s", "GRPC_KEEPALIVE_PERMIT_WITHOUT_STREAM": "true", "GRPC_LB_POLICY": "round_robin"})
					},
					func() error {
						d := w11bApp("checkout", "checkout", "registry.example/shop/checkout:3.14.2", 2, checkout, running("w17c-checkout-grpc-too-many-pings"), "http", 8080)
						envFromConfigMap(&d.Spec.Template, "checkout-grpc")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createConfigMap(ctx, "cart-grpc", map[string]string{"PRICING_ADDR": "dns:///pricing:9090", "GRPC_KEEPALIVE_TIME": "5m", "GRPC_KEEPALIVE_TIMEOUT": "20s", "GRPC_LB_POLICY": "round_robin"})
					},
					func() error {
						d := w11bApp("cart", "cart", "registry.example/shop/cart:2.8.1", 1, cart, nil, "http", 8080)
						envFromConfigMap(&d.Spec.Template, "cart-grpc")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(readyReplicas("checkout", 2), readyReplicas("pricing", 2), readyReplicas("cart", 1)),
		},
		{
			// memcached refuses items larger than its -I/--max-item-size (default 1m) with
			// SERVER_ERROR object too large for cache. The cache Deployment was started with
			// 512k "to save memory"; the rendered category listings are 1.1–1.4 MB, so every
			// set fails, every request is a miss and pages render from the database each time.
			Name: "category-pages-slow-despite-cache", Covers: "catalog-web (Django, pymemcache) is Ready but logs 'pymemcache.exceptions.MemcacheServerError: b'object too large for cache'' for 1.1-1.4 MB listings: Deployment catalog-memcached runs memcached with --max-item-size=512k (sessions-memcached with the default is fine)",
			Source: w17cSrcMemcached, Class: ClassProvider, Hops: 2,
			Problem: "category pages on the shop take over three seconds on every request, as if there were no cache at all; memcached is up and has plenty of free memory",
			Target:  target("Deployment", "catalog-web"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "catalog-memcached"}, Terms: []string{"max-item-size"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w11bApp("catalog-memcached", "memcached", "docker.io/library/memcached:1.6.29-alpine", 1, cache, running("w17c-catalog-memcached"), "memcache", 11211)
						w8cArgs(&d.Spec.Template, "memcached", "-m", "1024", "--max-item-size=512k", "-c", "2048", "-t", "4", "-v")
						return e.w11bServe(ctx, d, 11211)
					},
					func() error {
						d := w11bApp("sessions-memcached", "memcached", "docker.io/library/memcached:1.6.29-alpine", 1, sessions, nil, "memcache", 11211)
						w8cArgs(&d.Spec.Template, "memcached", "-m", "256", "-c", "1024")
						return e.w11bServe(ctx, d, 11211)
					},
					func() error {
						d := w11bApp("catalog-web", "django", "registry.example/catalog/catalog-web:2026.11.4", 2, web, running("w17c-catalog-pymemcache-too-large"), "http", 8000)
						w8bEnv(&d.Spec.Template, "DJANGO_SETTINGS_MODULE", "catalog.settings.production", "CACHE_LOCATION", "catalog-memcached:11211",
							"SESSION_CACHE_LOCATION", "sessions-memcached:11211", "LISTING_CACHE_TTL", "900", "GUNICORN_CMD_ARGS", "--workers=2 --threads=4")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						d.Spec.RevisionHistoryLimit = ptr.To[int32](5)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(readyReplicas("catalog-web", 2), readyReplicas("catalog-memcached", 1), readyReplicas("sessions-memcached", 1)),
		},
	}
}
