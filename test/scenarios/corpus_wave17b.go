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
	"encoding/base64"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// Wave 17b: failure modes the Kubernetes documentation describes itself — the debug pages,
// the concept pages of LimitRange, StatefulSet, taints, Secrets, volumes, eviction and the
// downward API — reproduced as production incidents. Written blind by an outside hand; every
// Want was fixed from the cited page before anything ran.

func wave17bScenarios() []*Scenario {
	return append(wave17bFirstScenarios(), wave17bMoreScenarios()...)
}

func wave17bFirstScenarios() []*Scenario {
	statsd := w8bLabels("statsd-exporter", "observability")
	checkout := w8bLabels("checkout-api", "shop")
	loadgen := w8bLabels("k6-load", "perf")
	renderer := w8cLabels("app.kubernetes.io/name", "gotenberg", "app.kubernetes.io/instance", "pdf-renderer")
	portal := w8bLabels("docs-portal", "docs")
	kafka := w8cLabels("app.kubernetes.io/name", "kafka", "app.kubernetes.io/instance", "events-kafka")
	ingest := w8bLabels("ingest-worker", "clickstream")
	return []*Scenario{
		{
			// statsd clients send UDP; the exporter listens for UDP only (TCP switched off), but
			// the hand-written Service leaves its ports' protocol at the default TCP. kube-proxy
			// programs no UDP rule for the cluster IP, so every datagram is silently dropped.
			Name: "checkout-dashboards-empty-statsd-service", Covers: "checkout-api (statsd client, transport udp to statsd-exporter:9125) and statsd-exporter (Accepting StatsD Traffic udp=:9125 tcp=) both run and log no error, yet no checkout metric arrives: Service statsd-exporter exposes 9125 with the default protocol TCP while the exporter's container port 9125 is UDP",
			Source: w17bSrcDebugService, Class: ClassProvider, Hops: 1,
			Problem: "checkout's Grafana dashboards have been empty since we moved our StatsD exporter into the cluster; checkout-api and the exporter pods both look healthy",
			Target:  target("Deployment", "checkout-api"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "statsd-exporter"}, Terms: []string{"UDP"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "statsd-mapping", statsd, map[string]string{"mapping.yml": "mappings:\n- match: \"checkout.http.*.*\"\n  name: \"checkout_http_requests\"\n  labels:\n    route: \"$1\"\n    code: \"$2\"\n- match: \"checkout.orders.placed\"\n  name: \"checkout_orders_placed_total\"\n"})
					},
					func() error {
						d := w8bDeployment("statsd-exporter", "prom/statsd-exporter:v0.27.1", 1, statsd, running("w17b-statsd-exporter"), "metrics", 9102)
						w17bUDPPort(&d.Spec.Template, "statsd-udp", 9125)
						w10aMain(&d.Spec.Template, "statsd-exporter", "--statsd.listen-udp=:9125", "--statsd.listen-tcp=", "--statsd.mapping-config=/etc/statsd/mapping.yml", "--web.listen-address=:9102")
						mountConfigMap(&d.Spec.Template, "statsd-mapping", "/etc/statsd")
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w17bNumericService("statsd-exporter", statsd, "statsd", 9125, "metrics", 9102))
					},
					func() error {
						d := w8bDeployment("checkout-api", "registry.example/shop/checkout-api:3.14.2", 2, checkout, running("w17b-checkout-statsd"), "http", 8080)
						w8bEnv(&d.Spec.Template, "STATSD_ADDR", "statsd-exporter:9125", "STATSD_TRANSPORT", "udp", "STATSD_PREFIX", "checkout.", "DB_HOST", "checkout-db", "PAYMENTS_URL", "http://payments-api:8000")
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						return e.w10aConfigMap(ctx, "prometheus-config", w8bLabels("prometheus", "observability"), map[string]string{"prometheus.yml": "global:\n  scrape_interval: 15s\nscrape_configs:\n- job_name: statsd-exporter\n  static_configs:\n  - targets: ['statsd-exporter:9102']\n"})
					},
					func() error {
						d := w8bDeployment("prometheus", "quay.io/prometheus/prometheus:v2.54.1", 1, w8bLabels("prometheus", "observability"), nil, "web", 9090)
						mountConfigMap(&d.Spec.Template, "prometheus-config", "/etc/prometheus")
						return e.w11bServe(ctx, d, 9090)
					},
					func() error {
						d := w8bDeployment("k6-load", "grafana/k6:0.54.0", 1, loadgen, nil, "", 0)
						d.Spec.Template.Spec.NodeSelector = map[string]string{"node-pool": "loadtest"}
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("checkout-api", 2), readyReplicas("statsd-exporter", 1), readyReplicas("prometheus", 1), podsWith(loadgen, unschedulable("didn't match"))),
		},
		{
			// The platform team's LimitRange gives containers without a limit a default CPU
			// limit of 500m. Gotenberg's chart sets only requests (cpu 1), so admission fills in
			// limits.cpu=500m below the request and every pod is invalid: the ReplicaSet creates
			// nothing, the Service has no endpoints, the portal's exports get connection refused.
			Name: "docs-portal-pdf-export-502", Covers: "docs-portal (Ready) answers 502 on every PDF export, its log says 'HTTPConnectionPool(host='pdf-renderer', port=3000) ... [Errno 111] Connection refused'; Service pdf-renderer has no endpoints because Deployment pdf-renderer has no pods: its ReplicaSet's FailedCreate says 'spec.containers[0].resources.requests: Invalid value: \"1\": must be less than or equal to cpu limit of 500m', the default limit LimitRange container-defaults gives a container that requests 1 CPU and sets no limit",
			Source: w17bSrcLimitRange, Class: ClassRanking, Hops: 3,
			Problem: "every 'Export as PDF' in the docs portal returns 502, the pages themselves load fine",
			Target:  target("Deployment", "docs-portal"),
			Want:    Want{Culprit: Ref{Kind: "LimitRange", Name: "container-defaults"}, Terms: []string{"500m"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.ownNode(ctx, "docs") },
					func() error {
						return e.w13bLimitRange(ctx, "container-defaults", corev1.LimitRangeItem{Type: corev1.LimitTypeContainer,
							Default: w13bList("cpu", "500m", "memory", "512Mi"), DefaultRequest: w13bList("cpu", "100m", "memory", "128Mi")})
					},
					func() error {
						d := w11bApp("pdf-renderer", "gotenberg", "gotenberg/gotenberg:8.12.0", 2, renderer, nil, "api", 3000)
						w10aMain(&d.Spec.Template, "gotenberg", "gotenberg", "--api-port=3000", "--chromium-max-queue-size=20", "--api-timeout=60s")
						d.Spec.Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{Requests: w13bList("cpu", "1", "memory", "512Mi")}
						e.pin(&d.Spec.Template)
						return e.w11bServe(ctx, d, 3000)
					},
					func() error {
						d := w8bDeployment("docs-portal", "registry.example/internal/docs-portal:2.3.0", 1, portal, running("w17b-docs-portal-pdf"), "http", 8000)
						w8bEnv(&d.Spec.Template, "PDF_BACKEND_URL", "http://pdf-renderer:3000", "SEARCH_URL", "http://docs-search:9200", "DJANGO_SETTINGS_MODULE", "portal.settings.production")
						e.pin(&d.Spec.Template)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("docs-search", "opensearchproject/opensearch:2.17.1", 1, w8bLabels("docs-search", "docs"), nil, "http", 9200)
						w8bEnv(&d.Spec.Template, "discovery.type", "single-node", "DISABLE_SECURITY_PLUGIN", "true")
						e.pin(&d.Spec.Template)
						return e.w11bServe(ctx, d, 9200)
					},
				)
			},
			Wait: all(readyReplicas("docs-portal", 1), readyReplicas("docs-search", 1), w11aEvent("ReplicaSet", "FailedCreate", "must be less than or equal to cpu limit")),
		},
		{
			// A broker image bump named a tag that does not exist; the team reverted the
			// StatefulSet at once. Under OrderedReady the controller waits for the broken pod to
			// become Ready before it replaces anything, so the pod stays on the bad revision until
			// someone deletes it (the documented "forced rollback").
			Name: "events-kafka-broker-down-after-undo", Covers: "StatefulSet events-kafka is back on docker.io/bitnami/kafka:3.9.0 after a revert, but pod events-kafka-2 is still in ImagePullBackOff on kafka:3.90 (the bad revision): with podManagementPolicy OrderedReady the controller waits for that pod to be Running and Ready before it updates it, so it must be deleted by hand",
			Source: w17bSrcForcedRollbk, Class: ClassOutside, Hops: 1,
			Problem: "we undid the Kafka image bump right after it failed and the StatefulSet spec is back on 3.9.0, but one broker is still down and the rollout never finishes",
			Target:  target("StatefulSet", "events-kafka"),
			Want:    Want{Culprit: Ref{Kind: "Pod", Name: "events-kafka-2"}, Terms: []string{"3.90"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := w17bOrderedStatefulSet("events-kafka", "docker.io/bitnami/kafka:3.9.0", "events-kafka-headless", 3, kafka, "client", 9092)
						w10aPort(&st.Spec.Template, "controller", 9093)
						w10bFieldEnv(&st.Spec.Template, "MY_POD_NAME", "metadata.name")
						w8bEnv(&st.Spec.Template, "KAFKA_CFG_PROCESS_ROLES", "controller,broker", "KAFKA_KRAFT_CLUSTER_ID", "q7Z3nV1iS5uJm0xE8kTb2A",
							"KAFKA_CFG_CONTROLLER_QUORUM_VOTERS", "0@events-kafka-0.events-kafka-headless:9093,1@events-kafka-1.events-kafka-headless:9093,2@events-kafka-2.events-kafka-headless:9093",
							"KAFKA_CFG_LISTENERS", "CLIENT://:9092,CONTROLLER://:9093", "KAFKA_CFG_ADVERTISED_LISTENERS", "CLIENT://$(MY_POD_NAME).events-kafka-headless:9092")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createService(ctx, w10aServicePort(w8bHeadless("events-kafka-headless", kafka, "client", 9092), "controller", 9093))
					},
					func() error { return e.createService(ctx, w8bService("events-kafka", kafka, "client", 9092)) },
					func() error {
						d := w8bDeployment("events-consumer", "registry.example/events/events-consumer:1.12.0", 2, w8bLabels("events-consumer", "events"), nil, "metrics", 9100)
						w8bEnv(&d.Spec.Template, "KAFKA_BROKERS", "events-kafka:9092", "KAFKA_GROUP_ID", "events-consumer", "KAFKA_TOPICS", "orders.placed,orders.shipped")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("kafka-ui", "docker.io/provectuslabs/kafka-ui:v0.7.2", 1, w8bLabels("kafka-ui", "events"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "KAFKA_CLUSTERS_0_NAME", "events", "KAFKA_CLUSTERS_0_BOOTSTRAPSERVERS", "events-kafka:9092")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(readyReplicas("events-consumer", 2), w17bRevertedButStuck("events-kafka", 3, "docker.io/bitnami/kafka:3.9.0", "docker.io/bitnami/kafka:3.90",
				sim("image-pull-notfound", annMessage, `rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/bitnami/kafka:3.90": failed to resolve reference "docker.io/bitnami/kafka:3.90": docker.io/bitnami/kafka:3.90: not found`))),
		},
		{
			// The batch pool is tainted node-pool=batch:NoExecute. The worker's toleration was
			// copied from the not-ready/unreachable defaults, tolerationSeconds included, so the
			// taint manager evicts every worker that many seconds after it lands on the pool.
			Name: "ingest-workers-replaced-every-30s", Covers: "ingest-worker pods on the batch pool are deleted about 25 s after they start (event TaintManagerEviction 'Marking for deletion Pod ...') and log 'received signal terminated ... checkpoint not committed'; the Deployment tolerates the pool's NoExecute taint node-pool=batch with tolerationSeconds 25, while compaction-worker, tolerating it without a limit, runs on",
			Source: w17bSrcTaintEviction, Class: ClassMechanism, Hops: 1,
			Problem: "ingest-worker pods on the batch nodes get replaced every half minute or so and never finish a file; no crash, no OOM in their status",
			Target:  target("Deployment", "ingest-worker"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "ingest-worker"}, Terms: []string{"tolerationSeconds"}},
			Setup: func(ctx context.Context, e *Env) error {
				pool := corev1.Taint{Key: "node-pool", Value: "batch", Effect: corev1.TaintEffectNoExecute}
				return steps(
					func() error {
						return e.w15bPoolNode(ctx, "batch-1", false, map[string]string{"node-pool": "batch"}, pool)
					},
					func() error {
						d := w8bDeployment("ingest-worker", "registry.example/clickstream/ingest-worker:2.7.0", 2, ingest, running("w17b-ingest-worker-sigterm"), "metrics", 9100)
						e.w8cOnPool(&d.Spec.Template, "node-pool", "batch")
						d.Spec.Template.Spec.Tolerations = append(d.Spec.Template.Spec.Tolerations, corev1.Toleration{Key: "node-pool", Operator: corev1.TolerationOpEqual, Value: "batch", Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](25)})
						w8bEnv(&d.Spec.Template, "SOURCE_URI", "s3://acme-clickstream-raw/", "SINK_DSN", "clickhouse://events-ch:9000/events", "BATCH_SIZE", "50000")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("compaction-worker", "registry.example/clickstream/compaction-worker:2.7.0", 1, w8bLabels("compaction-worker", "clickstream"), nil, "metrics", 9100)
						e.w8cOnPool(&d.Spec.Template, "node-pool", "batch")
						d.Spec.Template.Spec.Tolerations = append(d.Spec.Template.Spec.Tolerations, corev1.Toleration{Key: "node-pool", Operator: corev1.TolerationOpEqual, Value: "batch", Effect: corev1.TaintEffectNoExecute})
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("compaction-worker", 1), podEvent("TaintManagerEviction", "Marking for deletion")),
		},
	}
}

// w17bStorefrontScenario: a Secret whose password was written base64-encoded into stringData.
func w17bStorefrontScenario() *Scenario {
	db := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "orders-db")
	orders := w8bLabels("orders-api", "shop")
	store := w8bLabels("storefront", "shop")
	const password = "Vq7#pLx2-orders"
	return &Scenario{
		// The developer who created orders-api's Secret copied the "base64" value from the
		// database chart's values into stringData, which the API server encodes again: the app
		// sends the base64 text as its password and PostgreSQL refuses it.
		Name: "storefront-checkout-orders-unavailable", Covers: "storefront is not ready ('readiness: dependency orders-api unavailable (connect ECONNREFUSED)'); orders-api crash-loops on pgx 'failed SASL auth: FATAL: password authentication failed for user \"orders\" (SQLSTATE 28P01)' while orders-db runs and orders-admin logs in: DB_PASSWORD in Secret orders-api-db is the base64 encoding of the password (it was written base64-encoded into stringData)",
		Source: w17bSrcSecretData, Class: ClassRanking, Hops: 2,
		Problem: "checkout on the storefront says orders are unavailable and the storefront pods went unready after this morning's deploy of orders-api",
		Target:  target("Deployment", "storefront"),
		Want:    Want{Culprit: Ref{Kind: "Secret", Name: "orders-api-db"}, Terms: []string{"base64"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error {
					return e.createSecret(ctx, "orders-db-superuser", map[string]string{"password": password})
				},
				func() error {
					st := w8bStatefulSet("orders-db", "docker.io/library/postgres:16.4", "orders-db", 1, db, running("w17b-orders-db-auth"), "postgres", 5432)
					w8bEnv(&st.Spec.Template, "POSTGRES_USER", "orders", "POSTGRES_DB", "orders")
					envKeyFromSecret(&st.Spec.Template, "POSTGRES_PASSWORD", "orders-db-superuser", "password")
					if err := e.createStatefulSet(ctx, st); err != nil {
						return err
					}
					return e.createService(ctx, w8bService("orders-db", db, "postgres", 5432))
				},
				func() error {
					return e.w17bStringSecret(ctx, "orders-api-db", orders, map[string]string{"DB_HOST": "orders-db", "DB_PORT": "5432", "DB_NAME": "orders", "DB_USER": "orders",
						"DB_PASSWORD": base64.StdEncoding.EncodeToString([]byte(password))})
				},
				func() error {
					msg := fmt.Sprintf("open database: failed to connect to `user=orders database=orders`: %s:5432 (orders-db): failed SASL auth: FATAL: password authentication failed for user \"orders\" (SQLSTATE 28P01)", e.clusterIP(ctx, "orders-db"))
					d := w11bApp("orders-api", "orders-api", "registry.example/shop/orders-api:5.4.0", 2, orders, crash("1", msg, "w17b-orders-api-pgx"), "http", 8080)
					envFromSecret(&d.Spec.Template, "orders-api-db")
					return e.w11bServe(ctx, d, 8080)
				},
				func() error {
					d := w8bDeployment("orders-admin", "docker.io/library/adminer:4.8.1", 1, w8bLabels("orders-admin", "shop"), nil, "http", 8080)
					w8bEnv(&d.Spec.Template, "ADMINER_DEFAULT_SERVER", "orders-db", "DB_USER", "orders")
					envKeyFromSecret(&d.Spec.Template, "DB_PASSWORD", "orders-db-superuser", "password")
					return e.w11bServe(ctx, d, 8080)
				},
				func() error {
					d := w11bApp("storefront", "storefront", "registry.example/shop/storefront:7.2.1", 2, store,
						w11bReadinessFail("storefront", "w17b-storefront-orders", "HTTP probe failed with statuscode: 503"), "http", 3000)
					w8bEnv(&d.Spec.Template, "CATALOG_URL", "http://catalog-api:8080", "ORDERS_URL", "http://orders-api:8080", "CART_URL", "http://cart-api:8080")
					d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/ready", "http", 5, 3)
					return e.w11bServe(ctx, d, 80)
				},
			)
		},
		Wait: all(podsWith(orders, crashLooping(2)), podsWith(store, runningNotReady), readyReplicas("orders-admin", 1), w11aStatefulSetReady("orders-db", 1)),
	}
}
