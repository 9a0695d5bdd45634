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

	rbacv1 "k8s.io/api/rbac/v1"
)

func wave18cMoreScenarios() []*Scenario {
	return []*Scenario{w18cPatroniScenario(), w18cSentinelScenario(), w18cNatsScenario(), w18cMongoScenario()}
}

// Patroni on the Kubernetes DCS marks the leader by patching its own pod's role label
// (spilo-role=master), and the primary Service selects that label. A hand-written Role that
// lets the pods read but not patch pods keeps the leader lock working while the label is never
// set: the Service has no endpoints and every client is refused, with Postgres itself healthy.
func w18cPatroniScenario() *Scenario {
	spilo := w8cLabels("application", "spilo", "cluster-name", "orders-pg")
	api := w8bLabels("orders-api", "orders")
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"create", "get", "list", "patch", "update", "watch", "delete"}},
		{APIGroups: []string{""}, Resources: []string{"endpoints"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"create"}},
	}
	return &Scenario{
		Name:   "orders-api-refused-after-pg-ha-move",
		Covers: "orders-api crash-loops on 'dial tcp <orders-pg IP>:5432: connect: connection refused'; Service orders-pg selects spilo-role=master but no pod carries it: the Patroni pods of StatefulSet orders-pg are Ready and log 'Unable to change spilo-role label: (403) ... cannot patch resource \"pods\"', because Role orders-pg grants get/list/watch on pods without patch",
		Source: w18cSrcPatroniRBA, Class: ClassProvider, Hops: 3,
		Problem: "since we moved orders to the HA Postgres cluster, orders-api cannot connect: connection refused, although both database pods are up and ready",
		Target:  target("Deployment", "orders-api"),
		Want:    Want{Culprit: Ref{Kind: "Role", Name: "orders-pg"}, Terms: []string{"patch"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error {
					st := w8bStatefulSet("orders-pg", "ghcr.io/zalando/spilo-16:3.3-p1", "orders-pg-headless", 2, spilo, running("w18c-orders-pg-patroni"), "postgresql", 5432)
					st.Spec.Template.Spec.Containers[0].Name = "postgres"
					w10aPort(&st.Spec.Template, "patroni", 8008)
					w8bEnv(&st.Spec.Template, "SCOPE", "orders-pg", "PGVERSION", "16", "DCS_ENABLE_KUBERNETES_API", "true",
						"KUBERNETES_USE_CONFIGMAPS", "true", "KUBERNETES_LABELS", `{"application": "spilo"}`, "KUBERNETES_SCOPE_LABEL", "cluster-name",
						"KUBERNETES_ROLE_LABEL", "spilo-role", "PGROOT", "/home/postgres/pgdata/pgroot")
					if err := e.w17cAccount(ctx, &st.Spec.Template, "orders-pg", "orders-pg", rules...); err != nil {
						return err
					}
					return e.createStatefulSet(ctx, st)
				},
				func() error {
					return e.createService(ctx, w8bHeadless("orders-pg-headless", spilo, "postgresql", 5432))
				},
				func() error {
					return e.createService(ctx, w8bService("orders-pg", w18cMerge(spilo, map[string]string{"spilo-role": "master"}), "postgresql", 5432))
				},
				func() error {
					return e.createService(ctx, w8bService("orders-pg-repl", w18cMerge(spilo, map[string]string{"spilo-role": "replica"}), "postgresql", 5432))
				},
				func() error {
					msg := fmt.Sprintf("giving up on database: failed to connect to `host=orders-pg user=orders database=orders`: dial error (dial tcp %s:5432: connect: connection refused)", e.clusterIP(ctx, "orders-pg"))
					d := w11bApp("orders-api", "api", "registry.example/orders/orders-api:4.9.2", 2, api, crash("1", msg, "w18c-orders-api-pgx"), "http", 8080)
					w8bEnv(&d.Spec.Template, "DB_HOST", "orders-pg", "DB_PORT", "5432", "DB_NAME", "orders", "DB_USER", "orders", "DB_POOL_MAX_CONNS", "20")
					return e.w11bServe(ctx, d, 80)
				},
				func() error {
					d := w11bApp("orders-web", "web", "registry.example/orders/orders-web:4.9.0", 1, w8bLabels("orders-web", "orders"), nil, "http", 8080)
					w8bEnv(&d.Spec.Template, "API_URL", "http://orders-api")
					return e.w11bServe(ctx, d, 80)
				},
			)
		},
		Wait: all(podsWith(api, crashLooping(2)), w8cStatefulSetReady("orders-pg", 2)),
	}
}

// Redis Sentinel clients first ask a sentinel on 26379 which pod is master, then connect
// to it on 6379. An ingress NetworkPolicy for the Redis pods that admits client pods only on
// 6379 silently drops the sentinel queries: ioredis in sentinel mode never connects ("All
// sentinels are unreachable ... connect ETIMEDOUT"), while a client that dials 6379 directly
// works, and the Redis pods themselves are healthy.
func w18cSentinelScenario() *Scenario {
	redis := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "sessions-redis")
	clients := map[string]string{"sessions-redis-client": "true"}
	api := w18cMerge(w8bLabels("session-api", "identity"), clients)
	return &Scenario{
		Name:   "session-api-redis-timeouts-lockdown",
		Covers: "session-api (ioredis in sentinel mode) is Running but never Ready: 'All sentinels are unreachable. Retrying from scratch after 10ms. Last error: connect ETIMEDOUT'; NetworkPolicy sessions-redis-ingress admits pods labelled sessions-redis-client=true only on TCP 6379, not on the sentinel port 26379 (rate-limiter, which dials 6379 directly, works)",
		Source: w18cSrcSentinel, Class: ClassProvider, Hops: 2,
		Problem: "session-api has not become ready since last week's security hardening; it times out talking to Redis, while the rate limiter uses the same Redis without trouble",
		Target:  target("Deployment", "session-api"),
		Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "sessions-redis-ingress"}, Terms: []string{"26379"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error {
					st := w8bStatefulSet("sessions-redis", "docker.io/bitnami/redis:7.2.5", "sessions-redis-headless", 3, redis, nil, "redis", 6379)
					st.Spec.Template.Spec.Containers[0].Name = "redis"
					w8bEnv(&st.Spec.Template, "REDIS_REPLICATION_MODE", "master", "ALLOW_EMPTY_PASSWORD", "yes")
					s := w10aContainer(&st.Spec.Template, "sentinel", "docker.io/bitnami/redis-sentinel:7.2.5", "sentinel", 26379)
					w14bEnv(s, "REDIS_MASTER_SET", "sessions", "REDIS_MASTER_HOST", "sessions-redis-0.sessions-redis-headless", "REDIS_SENTINEL_QUORUM", "2")
					if err := e.w18cStore(ctx, st, false); err != nil {
						return err
					}
					return e.createService(ctx, w10aServicePort(w8bService("sessions-redis", redis, "redis", 6379), "sentinel", 26379))
				},
				func() error {
					return e.createNetworkPolicy(ctx, w18cIngressPolicy("sessions-redis-ingress", redis, w18cFromPods(redis), w18cFromPods(clients, 6379)))
				},
				func() error {
					d := w11bApp("session-api", "api", "registry.example/identity/session-api:3.6.0", 2, api,
						w11bReadinessFail("api", "w18c-session-api-sentinel", "HTTP probe failed with statuscode: 503"), "http", 8080)
					w8bEnv(&d.Spec.Template, "REDIS_SENTINELS", "sessions-redis:26379", "REDIS_SENTINEL_MASTER", "sessions", "REDIS_ROLE", "master", "SESSION_TTL", "8h")
					w8bReadiness(&d.Spec.Template, "/readyz", "http", 10)
					return e.w11bServe(ctx, d, 80)
				},
				func() error {
					d := w11bApp("rate-limiter", "limiter", "registry.example/identity/rate-limiter:1.12.0", 1, w18cMerge(w8bLabels("rate-limiter", "identity"), clients), nil, "http", 8080)
					w8bEnv(&d.Spec.Template, "REDIS_ADDR", "sessions-redis:6379", "LIMIT_PER_MINUTE", "600")
					return e.w11bServe(ctx, d, 80)
				},
			)
		},
		Wait: all(podsWith(api, runningNotReady), w8cStatefulSetReady("sessions-redis", 3), readyReplicas("rate-limiter", 1)),
	}
}

// NATS authorizes every publish against the user's permissions in the server config; a
// publish to a subject outside them is dropped, the server logs a "Publish Violation" and the
// client gets an async "Permissions Violation" error, while its connection stays up. checkout
// 9.0 moved to the shared orders.created subject that fulfilment already listens on, but the
// checkout user in the NATS config may still only publish under checkout.>.
func w18cNatsScenario() *Scenario {
	nats := w8cLabels("app.kubernetes.io/name", "nats", "app.kubernetes.io/instance", "nats")
	conf := `port: 4222
http_port: 8222
server_name: $POD_NAME
max_payload: 1MB
lame_duck_duration: 30s

authorization {
  CHECKOUT = {
    publish   = { allow: ["checkout.>", "_INBOX.>"] }
    subscribe = { allow: ["payments.>", "_INBOX.>"] }
  }
  INVENTORY = {
    publish   = { allow: ["inventory.>", "_INBOX.>"] }
    subscribe = { allow: ["orders.>", "_INBOX.>"] }
  }
  FULFILMENT = {
    publish   = { allow: ["fulfilment.>", "_INBOX.>"] }
    subscribe = { allow: ["orders.>", "_INBOX.>"] }
  }
  users = [
    { user: checkout,   password: $CHECKOUT_PASSWORD,   permissions: $CHECKOUT }
    { user: inventory,  password: $INVENTORY_PASSWORD,  permissions: $INVENTORY }
    { user: fulfilment, password: $FULFILMENT_PASSWORD, permissions: $FULFILMENT }
  ]
}
`
	return &Scenario{
		Name:   "checkout-orders-never-reach-fulfilment",
		Covers: "checkout-api 9.0 runs and takes orders but logs 'nats: permissions violation: Permissions Violation for Publish to \"orders.created\"'; nats-0 logs 'Publish Violation - User \"checkout\", Subject \"orders.created\"': the CHECKOUT permissions in ConfigMap nats-config allow publishing only checkout.> and _INBOX.>, while fulfilment-worker and inventory-api subscribe to orders.>",
		Source: w18cSrcNatsPerm, Class: ClassOutside, Hops: 2,
		Problem: "since checkout 9.0 went out, orders are accepted but fulfilment never receives any of them; nothing is crashing",
		Target:  target("Deployment", "checkout-api"),
		Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "nats-config"}, Terms: []string{"orders.created", "publish"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error { return e.w10aConfigMap(ctx, "nats-config", nats, map[string]string{"nats.conf": conf}) },
				func() error {
					return e.createSecret(ctx, "nats-users", map[string]string{"CHECKOUT_PASSWORD": "c9Kx2mQv7LpR", "INVENTORY_PASSWORD": "i4Tn8sWd1ZqE", "FULFILMENT_PASSWORD": "f6Hb3yUa0VkM"})
				},
				func() error {
					st := w8bStatefulSet("nats", "docker.io/library/nats:2.10.18-alpine", "nats-headless", 1, nats, running("w18c-nats-server-violation"), "client", 4222)
					st.Spec.Template.Spec.Containers[0].Name = "nats"
					w10aPort(&st.Spec.Template, "monitor", 8222)
					w8cArgs(&st.Spec.Template, "--config", "/etc/nats-config/nats.conf")
					envFromSecret(&st.Spec.Template, "nats-users")
					mountConfigMap(&st.Spec.Template, "nats-config", "/etc/nats-config")
					return e.w18cStore(ctx, st, true)
				},
				func() error {
					d := w11bApp("checkout-api", "api", "registry.example/shop/checkout-api:9.0.0", 2, w8bLabels("checkout-api", "shop"), running("w18c-checkout-api-nats"), "http", 8080)
					w8bEnv(&d.Spec.Template, "NATS_URL", "nats://nats:4222", "NATS_USER", "checkout", "ORDER_CREATED_SUBJECT", "orders.created", "ORDER_PAID_SUBJECT", "orders.paid")
					envKeyFromSecret(&d.Spec.Template, "NATS_PASSWORD", "nats-users", "CHECKOUT_PASSWORD")
					return e.w11bServe(ctx, d, 80)
				},
				func() error {
					d := w11bApp("fulfilment-worker", "worker", "registry.example/shop/fulfilment-worker:6.2.1", 1, w8bLabels("fulfilment-worker", "shop"), nil, "metrics", 9100)
					w8bEnv(&d.Spec.Template, "NATS_URL", "nats://nats:4222", "NATS_USER", "fulfilment", "SUBSCRIBE_SUBJECTS", "orders.created,orders.cancelled", "QUEUE_GROUP", "fulfilment")
					envKeyFromSecret(&d.Spec.Template, "NATS_PASSWORD", "nats-users", "FULFILMENT_PASSWORD")
					return e.createDeployment(ctx, d)
				},
				func() error {
					d := w11bApp("inventory-api", "api", "registry.example/shop/inventory-api:4.0.7", 1, w8bLabels("inventory-api", "shop"), nil, "http", 8080)
					w8bEnv(&d.Spec.Template, "NATS_URL", "nats://nats:4222", "NATS_USER", "inventory", "SUBSCRIBE_SUBJECTS", "orders.>", "STOCK_CHANGED_SUBJECT", "inventory.stock-changed")
					envKeyFromSecret(&d.Spec.Template, "NATS_PASSWORD", "nats-users", "INVENTORY_PASSWORD")
					return e.w11bServe(ctx, d, 80)
				},
			)
		},
		Wait: all(readyReplicas("checkout-api", 2), w8cStatefulSetReady("nats", 1), readyReplicas("fulfilment-worker", 1), readyReplicas("inventory-api", 1)),
	}
}

// A MongoDB driver given replicaSet=<name> only accepts members whose hello reply carries that
// set name; members of another set are dropped from the topology and the driver reports "no
// primary found in replicaset or invalid replica set name" after its selection timeout. The
// URI in catalog-api's Secret still says rs0 from the old cluster; the new one is "catalog".
func w18cMongoScenario() *Scenario {
	mongo := w8cLabels("app.kubernetes.io/name", "mongodb", "app.kubernetes.io/instance", "catalog-mongo")
	api := w8bLabels("catalog-api", "catalog")
	hosts := "catalog-mongo-0.catalog-mongo-headless:27017,catalog-mongo-1.catalog-mongo-headless:27017,catalog-mongo-2.catalog-mongo-headless:27017"
	return &Scenario{
		Name:   "catalog-api-mongo-no-primary-new-cluster",
		Covers: "catalog-api crash-loops on 'MongooseServerSelectionError: no primary found in replicaset or invalid replica set name' although catalog-mongo (3 members, PRIMARY elected) is Ready: MONGODB_URI in Secret catalog-api-mongo-uri asks for replicaSet=rs0 while the StatefulSet runs mongod --replSet catalog (reviews-api's URI says replicaSet=catalog and works)",
		Source: w18cSrcMongoSet, Class: ClassProvider, Hops: 2,
		Problem: "catalog-api keeps restarting since we moved it to the new MongoDB cluster; it says it finds no primary, but the database has a primary and reviews-api uses it fine",
		Target:  target("Deployment", "catalog-api"),
		Want:    Want{Culprit: Ref{Kind: "Secret", Name: "catalog-api-mongo-uri"}, Terms: []string{"rs0"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error {
					return e.createSecret(ctx, "catalog-mongo-keyfile", map[string]string{"keyfile": "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG9mcmVk"})
				},
				func() error {
					st := w8bStatefulSet("catalog-mongo", "docker.io/library/mongo:7.0.12", "catalog-mongo-headless", 3, mongo, running("w18c-catalog-mongo"), "mongodb", 27017)
					st.Spec.Template.Spec.Containers[0].Name = "mongod"
					w8cArgs(&st.Spec.Template, "--replSet", "catalog", "--bind_ip_all", "--keyFile", "/etc/mongo-keyfile/keyfile")
					mountSecret(&st.Spec.Template, "catalog-mongo-keyfile", "/etc/mongo-keyfile")
					return e.w18cStore(ctx, st, false)
				},
				func() error {
					return e.createSecret(ctx, "catalog-api-mongo-uri", map[string]string{"MONGODB_URI": "mongodb://catalog:Rk7vQ2nX9pLm@" + hosts + "/catalog?replicaSet=rs0&authSource=admin&retryWrites=true"})
				},
				func() error {
					return e.createSecret(ctx, "reviews-api-mongo-uri", map[string]string{"MONGODB_URI": "mongodb://reviews:Tz4bW8cK1sYh@" + hosts + "/reviews?replicaSet=catalog&authSource=admin&retryWrites=true"})
				},
				func() error {
					d := w11bApp("catalog-api", "api", "registry.example/catalog/catalog-api:8.2.1", 2, api,
						crash("1", "MongooseServerSelectionError: no primary found in replicaset or invalid replica set name", "w18c-catalog-api-mongoose"), "http", 3000)
					envFromSecret(&d.Spec.Template, "catalog-api-mongo-uri")
					w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "PORT", "3000")
					return e.w11bServe(ctx, d, 80)
				},
				func() error {
					d := w11bApp("reviews-api", "api", "registry.example/catalog/reviews-api:3.5.0", 1, w8bLabels("reviews-api", "catalog"), nil, "http", 3000)
					envFromSecret(&d.Spec.Template, "reviews-api-mongo-uri")
					return e.w11bServe(ctx, d, 80)
				},
			)
		},
		Wait: all(podsWith(api, crashLooping(2)), w8cStatefulSetReady("catalog-mongo", 3), readyReplicas("reviews-api", 1)),
	}
}
