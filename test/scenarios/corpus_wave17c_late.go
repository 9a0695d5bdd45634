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
	"k8s.io/apimachinery/pkg/util/intstr"
)

// w17cEnvoyConfig is the grpc-web sidecar's bootstrap: its listener was pasted from the
// upstream example onto 8080, the port the orders container itself serves gRPC on.
const w17cEnvoyConfig = `admin:
  address:
    socket_address: {address: 0.0.0.0, port_value: 9901}
static_resources:
  listeners:
  - name: grpc_web
    address:
      socket_address: {address: 0.0.0.0, port_value: 8080}
    filter_chains:
    - filters:
      - name: envoy.filters.network.http_connection_manager
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
          stat_prefix: grpc_web
          route_config:
            virtual_hosts:
            - name: orders
              domains: ["*"]
              routes:
              - match: {prefix: "/"}
                route: {cluster: orders_grpc, timeout: 0s}
              cors: {allow_origin_string_match: [{exact: "https://shop.example.com"}], expose_headers: grpc-status,grpc-message}
          http_filters:
          - name: envoy.filters.http.grpc_web
            typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.grpc_web.v3.GrpcWeb}
          - name: envoy.filters.http.cors
            typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors}
          - name: envoy.filters.http.router
            typed_config: {"@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router}
  clusters:
  - name: orders_grpc
    type: STATIC
    connect_timeout: 0.25s
    typed_extension_protocol_options:
      envoy.extensions.upstreams.http.v3.HttpProtocolOptions:
        "@type": type.googleapis.com/envoy.extensions.upstreams.http.v3.HttpProtocolOptions
        explicit_http_config: {http2_protocol_options: {}}
    load_assignment:
      cluster_name: orders_grpc
      endpoints:
      - lb_endpoints:
        - endpoint: {address: {socket_address: {address: 127.0.0.1, port_value: 8080}}}
`

func wave17cLateScenarios() []*Scenario {
	orders := w8bLabels("orders-api", "orders", "app.kubernetes.io/component", "nestjs")
	worker := w8bLabels("orders-worker", "orders", "app.kubernetes.io/component", "bullmq")
	pg := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "orders-postgres")
	ingest := w8bLabels("telemetry-ingest", "telemetry")
	query := w8bLabels("telemetry-query", "telemetry")
	cassandra := w8cLabels("app.kubernetes.io/name", "cassandra", "app.kubernetes.io/instance", "telemetry")
	cartSvc := w8bLabels("cart-service", "shop", "app.kubernetes.io/component", "akka-cluster")
	projection := w8bLabels("cart-projection", "shop")
	grpcWeb := w8bLabels("orders-grpc", "shop")
	return []*Scenario{
		{
			// Prisma's pool size comes from connection_limit in the connection string. The
			// DATABASE_URL Secret was copied from the serverless guide (connection_limit=1), so
			// the long-running API serialises every query on one connection and requests that
			// wait more than pool_timeout fail with P2024 while Postgres sits idle.
			Name: "orders-api-timeouts-under-light-load", Covers: "orders-api (NestJS, Prisma) is Ready but logs P2024 'Timed out fetching a new connection from the connection pool ... (Current connection pool timeout: 10, connection limit: 1)': DATABASE_URL in Secret orders-db ends in ?connection_limit=1 (orders-worker's own URL with 5 is fine)",
			Source: w17cSrcPrismaPool, Class: ClassOutside, Hops: 1,
			Problem: "orders-api answers 500 on a good share of requests even at night with hardly any traffic; Postgres is nearly idle and the pods never restart",
			Target:  target("Deployment", "orders-api"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "orders-db"}, Terms: []string{"connection_limit"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11bStore(ctx, "orders-postgres", "docker.io/library/postgres:16.4-alpine", pg, nil, "postgres", 5432, "POSTGRES_DB", "orders", "POSTGRES_USER", "orders")
					},
					func() error {
						return e.createSecret(ctx, "orders-db", map[string]string{"DATABASE_URL": "postgresql://orders:mT4vQ9xW2pLs@orders-postgres:5432/orders?schema=public&connection_limit=1&pool_timeout=10"})
					},
					func() error {
						return e.createSecret(ctx, "orders-worker-db", map[string]string{"DATABASE_URL": "postgresql://orders:mT4vQ9xW2pLs@orders-postgres:5432/orders?schema=public&connection_limit=5"})
					},
					func() error {
						d := w11bApp("orders-api", "orders-api", "registry.example/orders/orders-api:5.3.0", 2, orders, running("w17c-orders-prisma-pool"), "http", 3000)
						envKeyFromSecret(&d.Spec.Template, "DATABASE_URL", "orders-db", "DATABASE_URL")
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "REDIS_URL", "redis://orders-redis:6379/0")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.w11bStore(ctx, "orders-redis", "docker.io/library/redis:7.2.5-alpine", w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "orders-redis"), nil, "redis", 6379)
					},
					func() error {
						d := w11bApp("orders-worker", "orders-worker", "registry.example/orders/orders-worker:5.3.0", 1, worker, nil, "metrics", 9464)
						envKeyFromSecret(&d.Spec.Template, "DATABASE_URL", "orders-worker-db", "DATABASE_URL")
						w8bEnv(&d.Spec.Template, "REDIS_URL", "redis://orders-redis:6379/0", "QUEUE_CONCURRENCY", "4")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("orders-api", 2), readyReplicas("orders-worker", 1), w11aStatefulSetReady("orders-postgres", 1)),
		},
		{
			// The hardening change put an ingress NetworkPolicy on Cassandra, written from an
			// old runbook that lists the Thrift port 9160; Cassandra 4 clients speak the native
			// protocol on 9042, which the policy no longer admits. gocql's dial to the Service
			// times out and telemetry-ingest exits; telemetry-query, which only reads its own
			// cache until it needs Cassandra, is still up.
			Name: "telemetry-ingest-cannot-start", Covers: "telemetry-ingest (Go, gocql) crash-loops on 'gocql: unable to create session: control: unable to connect to initial hosts: dial tcp <cassandra IP>:9042: i/o timeout' while Cassandra is Ready: NetworkPolicy cassandra-ingress admits clients only on TCP 9160 (Thrift) and peers on 7000/7001, not the native port 9042",
			Source: w17cSrcGocql, Class: ClassProvider, Hops: 2,
			Problem: "telemetry-ingest keeps crash-looping with timeouts to Cassandra, device data is piling up in NATS; Cassandra is up and nodetool status shows the node UN",
			Target:  target("Deployment", "telemetry-ingest"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "cassandra-ingress"}, Terms: []string{"9042"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := w8bStatefulSet("cassandra", "docker.io/library/cassandra:4.1.6", "cassandra-hl", 1, cassandra, nil, "cql", 9042)
						w10aPort(&st.Spec.Template, "intra", 7000)
						w10aPort(&st.Spec.Template, "tls", 7001)
						w10aPort(&st.Spec.Template, "jmx", 7199)
						w8bEnv(&st.Spec.Template, "CASSANDRA_CLUSTER_NAME", "telemetry", "CASSANDRA_DC", "dc1", "CASSANDRA_SEEDS", "cassandra-0.cassandra-hl", "MAX_HEAP_SIZE", "2G", "HEAP_NEWSIZE", "400M")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("cassandra-hl", cassandra, "intra", 7000)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("cassandra", cassandra, "cql", 9042))
					},
					func() error {
						return e.createNetworkPolicy(ctx, w13bIngressPolicy("cassandra-ingress", cassandra,
							w13bFrom(nil, cassandra, "TCP", 7000, "TCP", 7001),
							w13bFrom(nil, map[string]string{"app.kubernetes.io/part-of": "telemetry"}, "TCP", 9160),
							w13bFrom(map[string]string{"kubernetes.io/metadata.name": "monitoring"}, nil, "TCP", 7199)))
					},
					func() error {
						return e.createBackend(ctx, "nats", "docker.io/library/nats:2.10.21-alpine", 4222, 4222)
					},
					func() error {
						msg := fmt.Sprintf("gocql: unable to create session: control: unable to connect to initial hosts: dial tcp %s:9042: i/o timeout", e.clusterIP(ctx, "cassandra"))
						d := w11bApp("telemetry-ingest", "ingest", "registry.example/telemetry/telemetry-ingest:1.22.0", 2, ingest, crash("1", msg, "w17c-telemetry-gocql-timeout"), "metrics", 9102)
						w8bEnv(&d.Spec.Template, "CASSANDRA_HOSTS", "cassandra", "CASSANDRA_PORT", "9042", "CASSANDRA_KEYSPACE", "telemetry", "CASSANDRA_LOCAL_DC", "dc1", "NATS_URL", "nats://nats:4222")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("telemetry-query", "query", "registry.example/telemetry/telemetry-query:1.22.0", 1, query, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "CASSANDRA_HOSTS", "cassandra", "CASSANDRA_PORT", "9042", "CACHE_TTL", "5m")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(ingest, crashLooping(2)), w11aStatefulSetReady("cassandra", 1), readyReplicas("telemetry-query", 1)),
		},
		{
			// Akka Cluster Bootstrap forms a new cluster only once it has confirmed
			// required-contact-point-nr contact points. The Deployment was scaled from 3 to 2
			// replicas to save money but still requires 3, so bootstrap retries forever, no
			// member becomes Up and the cluster-membership readiness check stays red.
			Name: "cart-service-pods-never-ready", Covers: "cart-service (Akka Cluster Bootstrap) pods are Running but never Ready ('GET /ready 500 ... ClusterMembershipCheck not ok'); the log repeats 'Discovered [2] contact points, confirmed [2], which is less than the required [3], retrying': the Deployment runs 2 replicas with REQUIRED_CONTACT_POINT_NR=3",
			Source: w17cSrcAkka, Class: ClassMechanism, Hops: 0,
			Problem: "since we scaled cart-service down to save money its pods stay 0/1 Ready and shoppers cannot load their carts",
			Target:  target("Deployment", "cart-service"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "cart-service"}, Terms: []string{"contact"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := w11bApp("cart-service", "cart-service", "registry.example/shop/cart-service:4.2.1", 2, cartSvc,
					w11bReadinessFail("cart-service", "w17c-cart-akka-contact-points", "HTTP probe failed with statuscode: 500"), "http", 8080)
				w10aPort(&d.Spec.Template, "management", 8558)
				w10aPort(&d.Spec.Template, "remoting", 25520)
				w8bEnv(&d.Spec.Template, "AKKA_CLUSTER_BOOTSTRAP_SERVICE_NAME", "cart-service", "AKKA_DISCOVERY_METHOD", "kubernetes-api",
					"REQUIRED_CONTACT_POINT_NR", "3", "JAVA_OPTS", "-Xms512m -Xmx512m -Dconfig.resource=production.conf")
				d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/ready", "management", 10, 3)
				return steps(
					func() error {
						return e.w17cAccount(ctx, &d.Spec.Template, "cart-service", "pod-reader", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "watch", "list"}})
					},
					func() error { return e.w11bServe(ctx, d, 80) },
					func() error {
						p := w11bApp("cart-projection", "cart-projection", "registry.example/shop/cart-projection:4.2.1", 1, projection, nil, "metrics", 9095)
						w8bEnv(&p.Spec.Template, "KAFKA_BOOTSTRAP", "shop-kafka:9092", "PROJECTION_PARALLELISM", "4")
						return e.createDeployment(ctx, p)
					},
				)
			},
			Wait: all(podsWith(cartSvc, runningNotReady), readyReplicas("cart-projection", 1)),
		},
		{
			// A grpc-web Envoy sidecar shares the pod's network namespace with the app. Its
			// listener was pasted onto 8080, where the orders container already serves gRPC, so
			// Envoy cannot bind and exits; the app container stays up, the pod shows 1/2.
			Name: "orders-grpc-web-sidecar-restarting", Covers: "orders-grpc's envoy container crash-loops: \"error initializing configuration '/etc/envoy/envoy.yaml': cannot bind '0.0.0.0:8080': Address already in use\"; the grpc_web listener in ConfigMap orders-envoy is on 8080, the port the orders container in the same pod listens on",
			Source: w17cSrcEnvoyBind, Class: ClassClue, Hops: 1,
			Problem: "the web shop can no longer call orders over grpc-web since the proxy was added; the orders-grpc pods show 1/2 ready and one container keeps restarting",
			Target:  target("Deployment", "orders-grpc"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "orders-envoy"}, Terms: []string{"8080"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "orders-envoy", map[string]string{"envoy.yaml": w17cEnvoyConfig})
					},
					func() error {
						d := w11bApp("orders-grpc", "orders", "registry.example/shop/orders:4.0.3", 2, grpcWeb,
							w10aOn("envoy", "crashloop", "w17c-orders-envoy-bind", annExitCode, "1", annMessage, "error initializing configuration '/etc/envoy/envoy.yaml': cannot bind '0.0.0.0:8080': Address already in use"), "grpc", 8080)
						w8bEnv(&d.Spec.Template, "GRPC_PORT", "8080", "DATABASE_HOST", "orders-db")
						c := w10aContainer(&d.Spec.Template, "envoy", "docker.io/envoyproxy/envoy:v1.31.2", "admin", 9901, "-c", "/etc/envoy/envoy.yaml", "--log-level", "info")
						c.VolumeMounts = append(c.VolumeMounts, w11bMount("orders-envoy", "/etc/envoy", ""))
						d.Spec.Template.Spec.Volumes = append(d.Spec.Template.Spec.Volumes, w11bConfigMapVolume("orders-envoy"))
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						s := w8bService("orders-grpc", grpcWeb, "grpc-web", 80)
						s.Spec.Ports[0].TargetPort = intstr.FromInt32(8080)
						return e.createService(ctx, s)
					},
					func() error {
						d := w11bApp("shop-web", "shop-web", "registry.example/shop/shop-web:9.1.0", 1, w8bLabels("shop-web", "shop"), nil, "http", 3000)
						w8bEnv(&d.Spec.Template, "ORDERS_GRPC_WEB_URL", "https://shop.example.com/orders.v1.Orders")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(grpcWeb, crashLooping(2)), readyReplicas("shop-web", 1)),
		},
	}
}
