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

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Wave 12: the dependency is the problem, and the platform around the app. Written blind by
// an outside hand from the Kubernetes docs, the Prometheus Operator runbooks and public
// write-ups: the object showing the symptom is healthy and the fix lives one or two objects
// away, on the provider side (its Service, NetworkPolicy, own config, args, volume, quota) or in
// the platform (Ingress, HPA, DNS settings, RBAC). About a quarter carry no log clue at all:
// only a termination message, an event, an exit code or the configuration decides. Every Want
// was written from the source before anything ran.

const (
	w12SrcDebugService = "k8s-docs/tasks/debug/debug-application/debug-service.md"
	w12SrcService      = "k8s-docs/concepts/services-networking/service.md"
	w12SrcNetPol       = "k8s-docs/concepts/services-networking/network-policies.md"
	w12SrcPgMaxConn    = "PostgreSQL docs, 19.3 Connections and Authentication: max_connections (FATAL: sorry, too many clients already)"
	w12SrcRabbitConf   = "RabbitMQ docs, Configuration: rabbitmq.conf validation (Error preparing configuration in phase validation: Conf file attempted to set unknown variable)"
	w12SrcProbes       = "k8s-docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes.md"
	w12SrcStsQuota     = "runbooks/kubernetes/KubeStatefulSetReplicasMismatch.md; k8s-docs/concepts/policy/resource-quotas.md"
	w12SrcDSRollout    = "runbooks/kubernetes/KubeDaemonSetRolloutStuck.md"
	w12SrcJobFailed    = "runbooks/kubernetes/KubeJobFailed.md; k8s-docs/concepts/workloads/controllers/job.md"
	w12SrcTermMessage  = "k8s-docs/tasks/debug/debug-application/determine-reason-pod-failure.md"
)

func wave12Scenarios() []*Scenario {
	return append(wave12ProviderScenarios(), wave12PlatformScenarios()...)
}

func wave12ProviderScenarios() []*Scenario {
	payments := w8bLabels("payments-api", "payments")
	redisChart := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "payments-redis", "app.kubernetes.io/component", "master")
	search := w8cLabels("app", "search-api", "team", "discovery")
	es := w8cLabels("app.kubernetes.io/name", "elasticsearch", "app.kubernetes.io/instance", "search", "role", "master")
	fulfil := w8bLabels("fulfillment-worker", "warehouse")
	inventory := w8bLabels("inventory-api", "warehouse")
	storefront := w8bLabels("storefront", "warehouse")
	ledger := w8cLabels("app", "ledger-api", "tier", "backend")
	ledgerDB := w8cLabels("app", "ledger-postgres", "tier", "db")
	notif := w8cLabels("app.kubernetes.io/name", "notification-worker", "app.kubernetes.io/part-of", "notifications")
	rabbit := w8cLabels("app.kubernetes.io/name", "rabbitmq", "app.kubernetes.io/instance", "rabbitmq")
	bff := w8bLabels("mobile-bff", "mobile")
	profile := w8bLabels("profile-api", "mobile")
	kafka := w8cLabels("app.kubernetes.io/name", "kafka", "app.kubernetes.io/instance", "events")
	fluent := w8cLabels("app.kubernetes.io/name", "fluent-bit", "app.kubernetes.io/instance", "logging")
	return []*Scenario{
		{
			// The team moved Redis to the Bitnami chart; the chart's pods carry its recommended
			// labels, but the app still talks to the old hand-written Service whose selector
			// names the labels of the retired manifests, so it has no endpoints.
			Name: "payments-redis-service-old-selector", Covers: "payments-api crash-loops on 'dial tcp ...:6379: connect: connection refused' to payments-redis; the Redis master runs and is ready under the chart's labels, but Service payments-redis still selects app=payments-redis,role=master and has no endpoints",
			Source: w12SrcDebugService, Class: ClassProvider, Hops: 2,
			Problem: "payments-api keeps restarting since the Redis migration to the Bitnami chart",
			Target:  target("Deployment", "payments-api"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "payments-redis"}, Terms: []string{"selector"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := w8bStatefulSet("payments-redis-master", "docker.io/bitnami/redis:7.2.5", "payments-redis-headless", 1, redisChart, running("w12-payments-redis-master"), "redis", 6379)
						w8bEnv(&st.Spec.Template, "REDIS_REPLICATION_MODE", "master", "ALLOW_EMPTY_PASSWORD", "yes")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						s := w8bHeadless("payments-redis-headless", redisChart, "tcp-redis", 6379)
						s.Spec.Ports[0].TargetPort = intstr.FromString("redis")
						return e.createService(ctx, s)
					},
					func() error {
						return e.createService(ctx, w10aServiceTo("payments-redis-master", redisChart, "tcp-redis", 6379, "redis"))
					},
					func() error {
						return e.createService(ctx, w10aServiceTo("payments-redis", w8cLabels("app", "payments-redis", "role", "master"), "redis", 6379, "redis"))
					},
					func() error {
						d := w8bDeployment("payments-api", "registry.example/payments/payments-api:2.19.4", 2, payments, crash("1", "", "w12-payments-api-redis"), "http", 8080)
						w8bEnv(&d.Spec.Template, "REDIS_ADDR", "payments-redis:6379", "REDIS_DB", "0", "PSP_BASE_URL", "https://api.psp.example.com")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("payments-webhooks", "registry.example/payments/payments-webhooks:2.19.4", 1, w8bLabels("payments-webhooks", "payments"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(payments, crashLooping(2)), w8cStatefulSetReady("payments-redis-master", 1)),
		},
		{
			// The Service was written for the official chart's port name "http"; the team's own
			// StatefulSet names the container port "rest", so the named targetPort resolves on
			// no pod and the Service has no ready endpoint address for 9200.
			Name: "search-api-es-named-targetport", Covers: "search-api is Running but never Ready, its readiness check logs 'Failed to establish a new connection: [Errno 111] Connection refused' for http://elasticsearch:9200; Elasticsearch is green, but Service elasticsearch targets the named port 'http' while the pods name 9200 'rest'",
			Source: w12SrcService, Class: ClassProvider, Hops: 2,
			Problem: "search-api pods are not ready and product search returns 503",
			Target:  target("Deployment", "search-api"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "elasticsearch"}, Terms: []string{"targetPort"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := w8bStatefulSet("elasticsearch-master", "docker.elastic.co/elasticsearch/elasticsearch:8.15.3", "elasticsearch-master-headless", 1, es, running("w12-elasticsearch-master"), "rest", 9200)
						w10aPort(&st.Spec.Template, "transport", 9300)
						w8bEnv(&st.Spec.Template, "cluster.name", "search", "discovery.type", "single-node", "xpack.security.enabled", "false", "ES_JAVA_OPTS", "-Xms1g -Xmx1g")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createService(ctx, w10aServicePort(w8bHeadless("elasticsearch-master-headless", es, "rest", 9200), "transport", 9300))
					},
					func() error {
						return e.createService(ctx, w10aServiceTo("elasticsearch", es, "http", 9200, "http"))
					},
					func() error {
						d := w8bDeployment("search-api", "registry.example/discovery/search-api:1.8.2", 2, search,
							sim("readiness-fail", annLogs, "w12-search-api-es", annMessage, "Readiness probe failed: HTTP probe failed with statuscode: 503"), "http", 8000)
						w8bEnv(&d.Spec.Template, "ELASTICSEARCH_URL", "http://elasticsearch:9200", "SEARCH_INDEX", "products-v7")
						w8bReadiness(&d.Spec.Template, "/readyz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("search-indexer", "registry.example/discovery/search-indexer:1.8.2", 1, w8cLabels("app", "search-indexer", "team", "discovery"), nil, "metrics", 9102)
						w8bEnv(&d.Spec.Template, "ELASTICSEARCH_URL", "http://elasticsearch-master-headless:9200")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(search, runningNotReady), w8cStatefulSetReady("elasticsearch-master", 1)),
		},
		{
			// inventory-api only admits gRPC from the storefront; the new fulfillment-worker is
			// allowed out by its own egress policy, but the provider's ingress policy drops it,
			// so its calls time out.
			Name: "fulfillment-inventory-ingress-policy", Covers: "fulfillment-worker crash-loops on gRPC UNAVAILABLE 'connection timed out after 5000 ms: inventory-api/...:50051'; its egress policy allows inventory-api, but NetworkPolicy inventory-api-ingress on the provider admits port 50051 only from the storefront pods",
			Source: w12SrcNetPol, Class: ClassProvider, Hops: 2,
			Problem: "the new fulfillment-worker crash-loops right after start, timing out against inventory",
			Target:  target("Deployment", "fulfillment-worker"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "inventory-api-ingress"}, Terms: []string{"ingress"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("inventory-api", "registry.example/warehouse/inventory-api:3.7.0", 2, inventory, nil, "grpc", 50051)
						return e.w11bServe(ctx, d, 50051)
					},
					func() error {
						d := w8bDeployment("storefront", "registry.example/warehouse/storefront:9.2.1", 2, storefront, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "INVENTORY_GRPC_TARGET", "dns:///inventory-api:50051")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "inventory-api-ingress"},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: inventory},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
								Ingress: []networkingv1.NetworkPolicyIngressRule{{
									From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "storefront"}}}},
									Ports: w8cPorts("TCP", 50051),
								}},
							},
						})
					},
					func() error {
						return e.createNetworkPolicy(ctx, w8cEgressPolicy("fulfillment-worker-egress", fulfil,
							networkingv1.NetworkPolicyEgressRule{Ports: w8cPorts("UDP", 53, "TCP", 53)},
							w11bToPods(inventory, 50051)))
					},
					func() error {
						d := w8bDeployment("fulfillment-worker", "registry.example/warehouse/fulfillment-worker:0.9.0", 1, fulfil, crash("1", "", "w12-fulfillment-worker-grpc"), "http", 8080)
						w8bEnv(&d.Spec.Template, "INVENTORY_GRPC_TARGET", "dns:///inventory-api:50051", "SPRING_PROFILES_ACTIVE", "prod")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(fulfil, crashLooping(2)), readyReplicas("inventory-api", 2)),
		},
		{
			// A new reporting service took its pool of connections; the database still runs
			// with max_connections = 20 from its ConfigMap, so ledger-api cannot open its pool.
			Name: "ledger-api-postgres-max-connections", Covers: "ledger-api (Spring Boot, Hikari) crash-loops on 'FATAL: sorry, too many clients already'; ledger-postgres mounts postgresql.conf from ConfigMap ledger-postgres-config with max_connections = 20 while ledger-reports (pool 15) and ledger-api (2 x 10) need more",
			Source: w12SrcPgMaxConn, Class: ClassClue, Hops: 3,
			Problem: "ledger-api crash-loops since ledger-reports went live this morning",
			Target:  target("Deployment", "ledger-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "ledger-postgres-config"}, Terms: []string{"max_connections"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "ledger-postgres-config", map[string]string{"postgresql.conf": "listen_addresses = '*'\nport = 5432\nmax_connections = 20\nshared_buffers = 256MB\nwork_mem = 8MB\nwal_level = replica\nmax_wal_size = 2GB\nlog_min_duration_statement = 500\nlog_line_prefix = '%m [%p] '\n"})
					},
					func() error {
						return e.createSecret(ctx, "ledger-postgres", map[string]string{"POSTGRES_PASSWORD": "Lk2vQ9xTm4Rb"})
					},
					func() error {
						st := w8bStatefulSet("ledger-postgres", "postgres:16.4", "ledger-postgres", 1, ledgerDB, running("w12-ledger-postgres"), "postgres", 5432)
						w8cArgs(&st.Spec.Template, "postgres", "-c", "config_file=/etc/postgresql/postgresql.conf")
						w8bEnv(&st.Spec.Template, "POSTGRES_DB", "ledger", "POSTGRES_USER", "ledger")
						envFromSecret(&st.Spec.Template, "ledger-postgres")
						mountConfigMap(&st.Spec.Template, "ledger-postgres-config", "/etc/postgresql")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("ledger-postgres", ledgerDB, "postgres", 5432))
					},
					func() error {
						return e.createConfigMap(ctx, "ledger-api-config", map[string]string{"SPRING_DATASOURCE_URL": "jdbc:postgresql://ledger-postgres:5432/ledger",
							"SPRING_DATASOURCE_USERNAME": "ledger", "SPRING_DATASOURCE_HIKARI_MAXIMUMPOOLSIZE": "10", "SERVER_PORT": "8080"})
					},
					func() error {
						d := w8bDeployment("ledger-reports", "registry.example/finance/ledger-reports:1.0.0", 1, w8cLabels("app", "ledger-reports", "tier", "backend"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_DATASOURCE_URL", "jdbc:postgresql://ledger-postgres:5432/ledger", "SPRING_DATASOURCE_HIKARI_MAXIMUMPOOLSIZE", "15")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("ledger-api", "registry.example/finance/ledger-api:5.4.0", 2, ledger, crash("1", "", "w12-ledger-api-too-many-clients"), "http", 8080)
						envFromConfigMap(&d.Spec.Template, "ledger-api-config")
						envKeyFromSecret(&d.Spec.Template, "SPRING_DATASOURCE_PASSWORD", "ledger-postgres", "POSTGRES_PASSWORD")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(ledger, crashLooping(2)), w8cStatefulSetReady("ledger-postgres", 1), readyReplicas("ledger-reports", 1)),
		},
		{
			// A typo in the peer-discovery key of rabbitmq.conf makes the broker refuse its
			// configuration at boot; the worker that consumes from it crash-loops on refused
			// AMQP connections, so two things crash and the broker's config is the cause.
			Name: "notification-worker-rabbitmq-conf-typo", Covers: "notification-worker (Celery) crash-loops on 'Cannot connect to amqp://...@rabbitmq:5672: [Errno 111] Connection refused'; the rabbitmq StatefulSet crash-loops too: 'Conf file attempted to set unknown variable: cluster_formation.k8s.hostname_suffx' from ConfigMap rabbitmq-config",
			Source: w12SrcRabbitConf, Class: ClassRanking, Hops: 3,
			Problem: "password-reset e-mails are not being sent and notification-worker keeps restarting",
			Target:  target("Deployment", "notification-worker"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "rabbitmq-config"}, Terms: []string{"hostname_suffx"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "rabbitmq-config", map[string]string{
							"enabled_plugins": "[rabbitmq_management,rabbitmq_peer_discovery_k8s,rabbitmq_prometheus].\n",
							"rabbitmq.conf":   "cluster_formation.peer_discovery_backend = rabbit_peer_discovery_k8s\ncluster_formation.k8s.host = kubernetes.default.svc.cluster.local\ncluster_formation.k8s.address_type = hostname\ncluster_formation.k8s.service_name = rabbitmq-headless\ncluster_formation.k8s.hostname_suffx = .rabbitmq-headless.notifications.svc.cluster.local\ncluster_partition_handling = autoheal\nqueue_master_locator = min-masters\nloopback_users.guest = false\nvm_memory_high_watermark.relative = 0.6\n"})
					},
					func() error {
						return e.createSecret(ctx, "rabbitmq", map[string]string{"rabbitmq-password": "Qw7pLx2Nc5Vz", "rabbitmq-erlang-cookie": "b0c5a9e17f3d48e2a6c1d7f9e4b2a8c3"})
					},
					func() error {
						st := w8bStatefulSet("rabbitmq", "docker.io/bitnami/rabbitmq:3.13.7", "rabbitmq-headless", 1, rabbit, crash("1", "", "w12-rabbitmq-conf-unknown"), "amqp", 5672)
						w10aPort(&st.Spec.Template, "epmd", 4369)
						w10aPort(&st.Spec.Template, "stats", 15672)
						envKeyFromSecret(&st.Spec.Template, "RABBITMQ_ERLANG_COOKIE", "rabbitmq", "rabbitmq-erlang-cookie")
						mountConfigMap(&st.Spec.Template, "rabbitmq-config", "/bitnami/rabbitmq/conf")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("rabbitmq-headless", rabbit, "amqp", 5672)) },
					func() error {
						return e.createService(ctx, w10aServicePort(w8bService("rabbitmq", rabbit, "amqp", 5672), "stats", 15672))
					},
					func() error {
						d := w8bDeployment("notification-worker", "registry.example/notifications/notification-worker:3.2.0", 2, notif, crash("1", "", "w12-notification-worker-amqp"), "", 0)
						w8cArgs(&d.Spec.Template, "celery", "-A", "notifications.worker", "worker", "--loglevel=INFO")
						w8bEnv(&d.Spec.Template, "CELERY_BROKER_URL", "amqp://notifications@rabbitmq:5672/notifications")
						envKeyFromSecret(&d.Spec.Template, "CELERY_BROKER_PASSWORD", "rabbitmq", "rabbitmq-password")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("notification-api", "registry.example/notifications/notification-api:3.2.0", 1,
							w8cLabels("app.kubernetes.io/name", "notification-api", "app.kubernetes.io/part-of", "notifications"), nil, "http", 8000)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(notif, crashLooping(2)), podsWith(rabbit, crashLooping(2))),
		},
		{
			// profile-api's readiness probe still points at the old management port 8081; the
			// app now serves the actuator on 9090, so the pods never become ready and the
			// Service the BFF calls has no endpoint.
			Name: "mobile-bff-profile-api-probe-port", Covers: "mobile-bff is Ready but logs 'upstream profile-api failed ... connect ECONNREFUSED' and answers 503; profile-api runs but is never Ready: its readiness probe targets port 8081 while Spring's management server listens on 9090",
			Source: w12SrcProbes, Class: ClassProvider, Hops: 2,
			Problem: "the mobile app home screen fails with 503 from mobile-bff",
			Target:  target("Deployment", "mobile-bff"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "profile-api"}, Terms: []string{"readiness", "8081"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("profile-api", "registry.example/mobile/profile-api:4.1.0", 2, profile,
							sim("readiness-fail", annLogs, "w12-profile-api-boot", annMessage, "Readiness probe failed: Get \"http://10.244.1.23:8081/actuator/health/readiness\": dial tcp 10.244.1.23:8081: connect: connection refused"), "http", 8080)
						w10aPort(&d.Spec.Template, "management", 9090)
						w8bEnv(&d.Spec.Template, "MANAGEMENT_SERVER_PORT", "9090", "SPRING_PROFILES_ACTIVE", "prod")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 10, FailureThreshold: 3,
							ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/actuator/health/readiness", Port: intstr.FromInt32(8081)}}}
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("mobile-bff", "registry.example/mobile/mobile-bff:7.3.1", 2, bff, running("w12-mobile-bff-upstream"), "http", 3000)
						w8bEnv(&d.Spec.Template, "PROFILE_API_URL", "http://profile-api", "CATALOG_API_URL", "http://catalog-api")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("catalog-api", "registry.example/mobile/catalog-api:2.0.9", 1, w8bLabels("catalog-api", "mobile"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(profile, runningNotReady), readyReplicas("mobile-bff", 2)),
		},
		{
			// The storage quota of the namespace covers two 100Gi brokers; the third claim of
			// the StatefulSet is refused at creation, so kafka-2 never exists.
			Name: "kafka-third-broker-storage-quota", Covers: "KubeStatefulSetReplicasMismatch: kafka has 2 of 3 replicas; the StatefulSet controller's FailedCreate says creating claim data-kafka-2 is forbidden: exceeded quota storage-quota, requested requests.storage=100Gi, used 200Gi, limited 200Gi",
			Source: w12SrcStsQuota, Class: ClassMechanism, Hops: 1,
			Problem: "KubeStatefulSetReplicasMismatch: StatefulSet kafka has not matched the expected number of replicas for 15 minutes",
			Target:  target("StatefulSet", "kafka"),
			Want:    Want{Culprit: Ref{Kind: "ResourceQuota", Name: "storage-quota"}, Terms: []string{"requests.storage"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						_, err := e.Client.CoreV1().ResourceQuotas(e.Namespace).Create(ctx, &corev1.ResourceQuota{
							ObjectMeta: metav1.ObjectMeta{Name: "storage-quota"},
							Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{
								corev1.ResourceRequestsStorage:        resource.MustParse("200Gi"),
								corev1.ResourcePersistentVolumeClaims: resource.MustParse("10"),
							}},
						}, metav1.CreateOptions{})
						return wrap("ResourceQuota", "storage-quota", err)
					},
					func() error {
						return e.createQuota(ctx, "object-counts", corev1.ResourceList{corev1.ResourceServices: resource.MustParse("20"), corev1.ResourceConfigMaps: resource.MustParse("50")})
					},
					func() error {
						st := w8bStatefulSet("kafka", "docker.io/bitnami/kafka:3.8.1", "kafka-headless", 3, kafka, nil, "client", 9092)
						w10aPort(&st.Spec.Template, "controller", 9093)
						w8bEnv(&st.Spec.Template, "KAFKA_CFG_PROCESS_ROLES", "controller,broker", "KAFKA_CFG_CONTROLLER_QUORUM_VOTERS",
							"0@kafka-0.kafka-headless:9093,1@kafka-1.kafka-headless:9093,2@kafka-2.kafka-headless:9093", "KAFKA_KRAFT_CLUSTER_ID", "q1Xr3bTQ2Sx0m9w8e7fLgA")
						return e.w10aClaimedStatefulSet(ctx, st, "data", "100Gi", "/bitnami/kafka")
					},
					func() error { return e.createService(ctx, w8bHeadless("kafka-headless", kafka, "client", 9092)) },
					func() error { return e.createService(ctx, w8bService("kafka", kafka, "client", 9092)) },
					func() error {
						d := w8bDeployment("kafka-ui", "provectuslabs/kafka-ui:v0.7.2", 1, w8cLabels("app.kubernetes.io/name", "kafka-ui"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "KAFKA_CLUSTERS_0_NAME", "events", "KAFKA_CLUSTERS_0_BOOTSTRAPSERVERS", "kafka:9092")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(objectEvent("StatefulSet", "kafka", "FailedCreate", "exceeded quota"), w8cStatefulSetReady("kafka", 2)),
		},
		{
			// The logging change renamed the output plugin with a typo; every fluent-bit pod
			// exits on its configuration, so the DaemonSet has no ready pod on the pool.
			Name: "fluent-bit-output-plugin-typo", Covers: "KubeDaemonSetRolloutStuck: fluent-bit pods crash-loop on \"section 'output' tried to instance a plugin name that doesn't exist: 'opensearh'\"; the [OUTPUT] Name in ConfigMap fluent-bit is a typo of opensearch",
			Source: w12SrcDSRollout, Class: ClassClue, Hops: 2,
			Problem: "KubeDaemonSetRolloutStuck: only 0 of the desired fluent-bit pods are ready since the switch to OpenSearch",
			Target:  target("DaemonSet", "fluent-bit"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "fluent-bit"}, Terms: []string{"opensearh"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { _, err := e.w10bNode(ctx, "logging-a", nil); return err },
					func() error { _, err := e.w10bNode(ctx, "logging-b", nil); return err },
					func() error {
						return e.createConfigMap(ctx, "fluent-bit", map[string]string{
							"fluent-bit.conf":     "[SERVICE]\n    Daemon Off\n    Flush 1\n    Log_Level info\n    Parsers_File /fluent-bit/etc/parsers.conf\n    HTTP_Server On\n    HTTP_Listen 0.0.0.0\n    HTTP_Port 2020\n\n[INPUT]\n    Name tail\n    Path /var/log/containers/*.log\n    multiline.parser docker, cri\n    Tag kube.*\n    Mem_Buf_Limit 5MB\n    Skip_Long_Lines On\n\n[FILTER]\n    Name kubernetes\n    Match kube.*\n    Merge_Log On\n    Keep_Log Off\n\n[OUTPUT]\n    Name opensearh\n    Match kube.*\n    Host opensearch-cluster-master\n    Port 9200\n    Logstash_Format On\n    Logstash_Prefix kube\n    Suppress_Type_Name On\n    tls On\n    tls.verify Off\n",
							"custom_parsers.conf": "[PARSER]\n    Name docker_no_time\n    Format json\n    Time_Keep Off\n    Time_Key time\n    Time_Format %Y-%m-%dT%H:%M:%S.%L\n"})
					},
					func() error {
						t := template("fluent-bit", "cr.fluentbit.io/fluent/fluent-bit:3.1.9", crash("1", "", "w12-fluent-bit-output"))
						t.Labels = fluent
						port(&t, "http", 2020)
						w10aMain(&t, "fluent-bit")
						mountConfigMap(&t, "fluent-bit", "/fluent-bit/etc/conf")
						t.Spec.Containers[0].Args = []string{"--workdir=/fluent-bit/etc", "--config=/fluent-bit/etc/conf/fluent-bit.conf"}
						e.pin(&t)
						ds := w10bDaemonSet("fluent-bit", fluent, t)
						ds.Spec.UpdateStrategy.RollingUpdate = nil
						_, err := e.Client.AppsV1().DaemonSets(e.Namespace).Create(ctx, ds, metav1.CreateOptions{})
						return wrap("DaemonSet", "fluent-bit", err)
					},
					func() error {
						d := w8bDeployment("opensearch-dashboards", "opensearchproject/opensearch-dashboards:2.17.1", 1, w8cLabels("app.kubernetes.io/name", "opensearch-dashboards"), nil, "http", 5601)
						e.pin(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: w10aStatefulSetPods(fluent, 2, crashLooping(2)),
		},
		{
			// The database was scaled to zero for a storage move and never scaled back; the
			// release's migration Job cannot connect and fails.
			Name: "orders-flyway-db-scaled-to-zero", Covers: "KubeJobFailed: Job orders-db-migrate-4-12-0 (Flyway) failed with BackoffLimitExceeded, its log says 'Connection to orders-db:5432 refused'; StatefulSet orders-db has replicas: 0 (scaled down for a storage move), so Service orders-db has no endpoints",
			Source: w12SrcJobFailed, Class: ClassProvider, Hops: 3,
			Problem: "KubeJobFailed: the orders release migration job failed and the deploy pipeline is blocked",
			Target:  target("Job", "orders-db-migrate-4-12-0"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "orders-db"}, Terms: []string{"replicas"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8bLabels("orders-db", "orders", "app.kubernetes.io/component", "database")
				return steps(
					func() error {
						st := w8bStatefulSet("orders-db", "postgres:16.4", "orders-db", 0, db, nil, "postgres", 5432)
						st.Annotations = map[string]string{"ops.example.com/note": "scaled down for the gp2 -> gp3 volume move"}
						w8bEnv(&st.Spec.Template, "POSTGRES_DB", "orders", "POSTGRES_USER", "orders")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("orders-db", db, "postgres", 5432))
					},
					func() error {
						return e.createSecret(ctx, "orders-db-migrate", map[string]string{"FLYWAY_USER": "flyway", "FLYWAY_PASSWORD": "Hv6sPq1Zx8Wm"})
					},
					func() error {
						d := w8bDeployment("orders-api", "registry.example/orders/orders-api:4.11.3", 1, w8bLabels("orders-api", "orders"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						j := job("orders-db-migrate-4-12-0", 1, sim("fail", annExitCode, "1", annLogs, "w12-flyway-refused"))
						j.Spec.Template.Spec.Containers[0].Name = "flyway"
						j.Spec.Template.Spec.Containers[0].Image = "flyway/flyway:10.17.3"
						j.Spec.Template.Spec.Containers[0].Args = []string{"migrate"}
						w8bEnv(&j.Spec.Template, "FLYWAY_URL", "jdbc:postgresql://orders-db:5432/orders", "FLYWAY_LOCATIONS", "filesystem:/flyway/sql")
						envFromSecret(&j.Spec.Template, "orders-db-migrate")
						return e.w9aJob(ctx, j)
					},
				)
			},
			Wait: w11aJobFailed("orders-db-migrate-4-12-0", "BackoffLimitExceeded"),
		},
	}
}
