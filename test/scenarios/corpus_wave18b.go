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
	"k8s.io/utils/ptr"
)

// Wave 18b: platform components and the teams that depend on them. The symptom shows on an
// application team's workload or dashboard; the cause sits in the platform component's
// configuration, RBAC, network policy or scheduling (or the reverse). Written blind by an
// outside hand; every Want was fixed from the cited source before anything ran.

func wave18bScenarios() []*Scenario {
	return append(wave18bFirstScenarios(), wave18bMoreScenarios()...)
}

func wave18bFirstScenarios() []*Scenario {
	nodeCache := w8cLabels("k8s-app", "node-local-dns")
	embeddings := w8bLabels("embeddings-api", "search")
	ordersAPI := w8bLabels("orders-api", "orders")
	syncJob := w8bLabels("secret-sync", "platform-secrets")
	payments := w8bLabels("payments-api", "payments")
	cache := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "recommendations-cache")
	mirror := w8cLabels("app.kubernetes.io/name", "docker-registry", "app.kubernetes.io/instance", "registry-mirror")
	return []*Scenario{
		{
			// With NodeLocal DNSCache every kubelet hands pods the link-local 169.254.20.10 as
			// their nameserver, so the cache DaemonSet must run on every node. The platform's
			// copy tolerates only CriticalAddonsOnly; on the new GPU pool, tainted
			// nvidia.com/gpu:NoSchedule, no cache runs and every lookup times out.
			Name: "embeddings-api-lookups-time-out-new-pool", Covers: "embeddings-api (pinned to the new GPU pool) crash-loops on 'dial tcp: lookup qdrant on 169.254.20.10:53: read udp ...: i/o timeout' while reranker-api on the general pool reaches qdrant: DaemonSet node-local-dns (listening on 169.254.20.10) tolerates only CriticalAddonsOnly and the scenario's pool taint, not the GPU pool's taint nvidia.com/gpu=present:NoSchedule, so it has no pod on the GPU node",
			Source: w18bSrcNodeLocalDNS, Class: ClassProvider, Hops: 2,
			Problem: "embeddings-api pods on the new node pool keep crashing on DNS timeouts to qdrant, while reranker-api on the older nodes reaches qdrant fine",
			Target:  target("Deployment", "embeddings-api"),
			Want:    Want{Culprit: Ref{Kind: "DaemonSet", Name: "node-local-dns"}, Terms: []string{"nvidia.com/gpu"}},
			Setup: func(ctx context.Context, e *Env) error {
				gpu := corev1.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule}
				return steps(
					func() error {
						return e.w15bPoolNode(ctx, "general-1", false, map[string]string{"node-pool": "general"})
					},
					func() error {
						return e.w15bPoolNode(ctx, "gpu-1", false, map[string]string{"node-pool": "gpu", "nvidia.com/gpu.product": "NVIDIA-L4"}, gpu)
					},
					func() error {
						corefile := "cluster.local:53 {\n    errors\n    cache {\n        success 9984 30\n        denial 9984 5\n    }\n    reload\n    loop\n    bind 169.254.20.10 10.96.0.10\n    forward . 10.96.0.10 {\n        force_tcp\n    }\n    prometheus :9253\n    health 169.254.20.10:8080\n}\n.:53 {\n    errors\n    cache 30\n    reload\n    loop\n    bind 169.254.20.10 10.96.0.10\n    forward . /etc/resolv.conf\n    prometheus :9253\n}\n"
						return e.w10aConfigMap(ctx, "node-local-dns", nodeCache, map[string]string{"Corefile": corefile})
					},
					func() error {
						return e.w8aCreateDaemonSet(ctx, w8aDaemonSet("node-local-dns", "registry.k8s.io/dns/k8s-dns-node-cache:1.23.1", nodeCache, func(t *corev1.PodTemplateSpec) {
							e.pin(t)
							w18bTolerate(t, "CriticalAddonsOnly", "", "")
							t.Spec.HostNetwork = true
							t.Spec.DNSPolicy = corev1.DNSDefault
							w10aMain(t, "node-cache", "-localip", "169.254.20.10,10.96.0.10", "-conf", "/etc/Corefile", "-health-port", "8080")
							t.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP},
								{Name: "dns-tcp", ContainerPort: 53, Protocol: corev1.ProtocolTCP}, {Name: "metrics", ContainerPort: 9253}}
							mountConfigMap(t, "node-local-dns", "/etc/coredns")
						}))
					},
					func() error {
						return e.w11bStore(ctx, "qdrant", "qdrant/qdrant:v1.12.4", w8bLabels("qdrant", "search"), nil, "grpc", 6334)
					},
					func() error {
						d := w8bDeployment("reranker-api", "registry.example/search/reranker-api:0.9.3", 1, w8bLabels("reranker-api", "search"), running("w18b-reranker-api"), "http", 8080)
						e.w8cOnPool(&d.Spec.Template, "node-pool", "general")
						w8bEnv(&d.Spec.Template, "QDRANT_HOST", "qdrant", "QDRANT_GRPC_PORT", "6334", "COLLECTION", "catalog-embeddings")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("embeddings-api", "registry.example/search/embeddings-api:1.6.0", 2, embeddings,
							crash("1", `init store: health check qdrant:6334: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp: lookup qdrant on 169.254.20.10:53: read udp 10.244.7.21:48211->169.254.20.10:53: i/o timeout"`, "w18b-embeddings-api-dns"), "http", 8080)
						e.w8cOnPool(&d.Spec.Template, "node-pool", "gpu")
						w18bTolerate(&d.Spec.Template, "nvidia.com/gpu", "", corev1.TaintEffectNoSchedule)
						w8bEnv(&d.Spec.Template, "QDRANT_HOST", "qdrant", "QDRANT_GRPC_PORT", "6334", "MODEL", "bge-large-en-v1.5", "CUDA_VISIBLE_DEVICES", "0")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(embeddings, crashLooping(2)), readyReplicas("reranker-api", 1), w14aDaemonSetScheduled("node-local-dns", 1), w14aDaemonSetReady("node-local-dns")),
		},
		{
			// The platform's Vault-to-Secret syncer runs as a CronJob. Release 1.8 writes Secrets
			// with a merge patch instead of an update, but its Role still lists only get, list,
			// watch, create and update: after a rotation the run fails on patch, the Secret keeps
			// the old password and the application is refused by its database.
			Name: "orders-api-rejected-after-vault-rotation", Covers: "orders-api crash-loops on 'FATAL: password authentication failed for user \"orders_app\"' after the password was rotated in Vault; Secret orders-db-credentials still holds Vault version 7; the secret-sync run (CronJob secret-sync, Job secret-sync-29543070) fails with 'unable to patch secret orders-db-credentials: secrets ... is forbidden: ... cannot patch resource \"secrets\"': Role secret-sync grants get, list, watch, create and update on secrets but not patch",
			Source: w18bSrcSecretSyncRBAC, Class: ClassProvider, Hops: 3,
			Problem: "orders-api has been crash-looping on database authentication since the orders DB password was rotated in Vault last night; the new password is definitely in Vault",
			Target:  target("Deployment", "orders-api"),
			Want:    Want{Culprit: Ref{Kind: "Role", Name: "secret-sync"}, Terms: []string{"patch"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w15cAccount(ctx, "secret-sync", "secret-sync",
							w15cRule("", []string{"secrets"}, "get", "list", "watch", "create", "update"),
							w15cRule("", []string{"configmaps"}, "get"))
					},
					func() error {
						return e.w10aConfigMap(ctx, "secret-sync-mappings", syncJob, map[string]string{"mappings.yaml": "vault:\n  address: https://vault.platform.example.com:8200\n  authMethod: kubernetes\n  role: orders-secret-sync\nsecrets:\n- name: orders-db-credentials\n  path: secret/data/orders/postgres\n  keys: [username, password]\n- name: orders-smtp\n  path: secret/data/orders/smtp\n  keys: [SMTP_USER, SMTP_PASSWORD]\n"})
					},
					func() error {
						return e.w18bSyncedSecret(ctx, "orders-db-credentials", "secret/data/orders/postgres", "7", map[string]string{"username": "orders_app", "password": "Xq7v-2mPa9-Lr4t"})
					},
					func() error {
						return e.w18bSyncedSecret(ctx, "orders-smtp", "secret/data/orders/smtp", "3", map[string]string{"SMTP_USER": "orders@mail.example.com", "SMTP_PASSWORD": "Tg5-pw8K-3nvQ"})
					},
					func() error {
						cj := w11aCronJob("secret-sync", "registry.example/platform/secret-sync:1.8.2", "0 2 * * *", false, syncJob,
							"--mappings=/etc/secret-sync/mappings.yaml", "--once", "--apply-mode=merge-patch")
						t := &cj.Spec.JobTemplate.Spec.Template
						t.Annotations = sim("fail", annExitCode, "1", annLogs, "w18b-secret-sync-run", annMessage,
							"sync orders-db-credentials: unable to patch secret orders-db-credentials: "+w15cForbidden(e, `secrets "orders-db-credentials"`, "secret-sync", "patch", "secrets", ""))
						t.Spec.RestartPolicy = corev1.RestartPolicyNever
						t.Spec.ServiceAccountName = "secret-sync"
						mountConfigMap(t, "secret-sync-mappings", "/etc/secret-sync")
						cj.Spec.JobTemplate.Spec.BackoffLimit = ptr.To[int32](1)
						return e.w18bCronJobRun(ctx, cj, "secret-sync-29543070")
					},
					func() error {
						return e.w11bStore(ctx, "orders-postgres", "postgres:16.4", w8bLabels("orders-postgres", "orders"), running("w18b-orders-postgres-auth"), "postgres", 5432, "POSTGRES_DB", "orders")
					},
					func() error {
						d := w8bDeployment("orders-api", "registry.example/orders/orders-api:4.2.1", 2, ordersAPI,
							crash("1", `org.postgresql.util.PSQLException: FATAL: password authentication failed for user "orders_app"`, "w18b-orders-api-pg-auth"), "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_PROFILES_ACTIVE", "production", "SPRING_DATASOURCE_URL", "jdbc:postgresql://orders-postgres:5432/orders")
						envKeyFromSecret(&d.Spec.Template, "SPRING_DATASOURCE_USERNAME", "orders-db-credentials", "username")
						envKeyFromSecret(&d.Spec.Template, "SPRING_DATASOURCE_PASSWORD", "orders-db-credentials", "password")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("orders-mailer", "registry.example/orders/orders-mailer:1.3.0", 1, w8bLabels("orders-mailer", "orders"), nil, "metrics", 9100)
						envFromSecret(&d.Spec.Template, "orders-smtp")
						w8bEnv(&d.Spec.Template, "SMTP_HOST", "smtp.mail.example.com", "SMTP_PORT", "587")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(ordersAPI, crashLooping(2)), w11aJobFailed("secret-sync-29543070", "BackoffLimitExceeded"), readyReplicas("orders-mailer", 1), w11aStatefulSetReady("orders-postgres", 1)),
		},
		{
			// Mesh sidecars get all their listeners and clusters over ADS from the control plane
			// on 18000 and report ready only once they have them. The payments team's new egress
			// policy admits DNS, the database and the card processor, not the control plane, so
			// the sidecar never leaves initialisation and the pods stay 1/2 ready.
			Name: "payments-api-stuck-one-of-two-ready", Covers: "payments-api pods stay 1/2 ready: the envoy sidecar fails readiness (503) and logs 'DeltaAggregatedResources gRPC config stream to xds_cluster closed ... reset reason: connection timeout' for mesh-xds:18000, while ledger-api with the same sidecar is ready: NetworkPolicy payments-api-egress allows only DNS, payments-db:5432 and 443 to the internet, not TCP 18000 to mesh-xds",
			Source: w18bSrcEnvoyXDS, Class: ClassProvider, Hops: 3,
			Problem: "since this morning's deploy payments-api pods show 1/2 ready and checkout gets 'no healthy upstream' from payments; ledger-api runs the same sidecar version and is fine",
			Target:  target("Deployment", "payments-api"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "payments-api-egress"}, Terms: []string{"18000"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8bLabels("payments-db", "payments")
				mesh := func(name, image string, lbl, ann map[string]string) error {
					d := w8bDeployment(name, image, 2, lbl, ann, "http", 8080)
					w18bEnvoySidecar(&d.Spec.Template, name)
					return e.w11bServe(ctx, d, 80)
				}
				return steps(
					func() error {
						d := w8bDeployment("mesh-xds", "registry.example/platform/mesh-xds:1.9.0", 1, w8bLabels("mesh-xds", "mesh"), nil, "grpc", 18000)
						w10aPort(&d.Spec.Template, "metrics", 9090)
						return e.w11bServe(ctx, d, 18000)
					},
					func() error {
						return e.w10aConfigMap(ctx, "envoy-bootstrap", w8bLabels("envoy-bootstrap", "mesh"), map[string]string{"envoy.yaml": w18bEnvoyBootstrap("mesh-xds", 18000)})
					},
					func() error {
						return e.w11bStore(ctx, "payments-db", "postgres:16.4", db, nil, "postgres", 5432, "POSTGRES_DB", "payments")
					},
					func() error {
						return mesh("payments-api", "registry.example/payments/payments-api:5.1.0", payments,
							w10aOn("envoy", "readiness-fail", "w18b-payments-envoy-xds", annMessage, "Readiness probe failed: HTTP probe failed with statuscode: 503"))
					},
					func() error {
						return mesh("ledger-api", "registry.example/payments/ledger-api:2.8.4", w8bLabels("ledger-api", "payments"), nil)
					},
					func() error {
						return e.createNetworkPolicy(ctx, w8cEgressPolicy("payments-api-egress", payments,
							w18bAnyPeer("UDP", 53, "TCP", 53), w11bToPods(db, 5432), w18bInternet("TCP", 443)))
					},
					func() error {
						d := w8bDeployment("checkout", "registry.example/shop/checkout:7.4.0", 1, w8bLabels("checkout", "shop"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "PAYMENTS_URL", "http://payments-api", "LEDGER_URL", "http://ledger-api")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(payments, runningNotReady), readyReplicas("ledger-api", 2), readyReplicas("mesh-xds", 1), readyReplicas("checkout", 1)),
		},
		{
			// Images are pulled through an in-cluster pull-through cache that node runtimes
			// reach on 127.0.0.1:30050 (a NodePort). The mirror was moved to the infra pool with a
			// nodeSelector on the old node-role label, which the new pool's nodes do not carry:
			// the mirror is Pending, the NodePort refuses and every pull through it fails.
			Name: "recommendations-cache-pulls-refused", Covers: "recommendations-cache pods stay in ImagePullBackOff: 'dial tcp 127.0.0.1:30050: connect: connection refused' pulling 127.0.0.1:30050/bitnami/redis:7.2.5; NodePort 30050 is Service registry-mirror, which has no endpoints because the registry-mirror pod is Pending: its nodeSelector node-role.kubernetes.io/infra matches no node (the infra pool is labelled node-pool=infra)",
			Source: w18bSrcMirror, Class: ClassRanking, Hops: 3,
			Problem: "new recommendations-cache pods are stuck in ImagePullBackOff since this morning, though the redis tag certainly exists upstream",
			Target:  target("Deployment", "recommendations-cache"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "registry-mirror"}, Terms: []string{"node-role.kubernetes.io/infra"}},
			Setup: func(ctx context.Context, e *Env) error {
				infra := corev1.Taint{Key: "node-pool", Value: "infra", Effect: corev1.TaintEffectNoSchedule}
				return steps(
					func() error {
						return e.w15bPoolNode(ctx, "infra-1", false, map[string]string{"node-pool": "infra"}, infra)
					},
					func() error { return e.w15bPoolNode(ctx, "apps-1", false, map[string]string{"node-pool": "apps"}) },
					func() error {
						return e.w10aConfigMap(ctx, "registry-mirror-config", mirror, map[string]string{"config.yml": "version: 0.1\nlog:\n  level: info\nstorage:\n  filesystem:\n    rootdirectory: /var/lib/registry\n  delete:\n    enabled: true\nhttp:\n  addr: :5000\n  headers:\n    X-Content-Type-Options: [nosniff]\nproxy:\n  remoteurl: https://registry-1.docker.io\n  ttl: 168h\n"})
					},
					func() error {
						d := w11bApp("registry-mirror", "registry", "registry:2.8.3", 1, mirror, nil, "registry", 5000)
						e.pin(&d.Spec.Template)
						d.Spec.Template.Spec.NodeSelector["node-role.kubernetes.io/infra"] = ""
						w18bTolerate(&d.Spec.Template, "node-pool", "infra", corev1.TaintEffectNoSchedule)
						mountConfigMap(&d.Spec.Template, "registry-mirror-config", "/etc/docker/registry")
						w10aEmptyDir(&d.Spec.Template, "cache", "/var/lib/registry", 0)
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w18bNodePortService("registry-mirror", mirror, "registry", 5000, 30050))
					},
					func() error {
						img := "127.0.0.1:30050/bitnami/redis:7.2.5"
						d := w11bApp("recommendations-cache", "redis", img, 2, cache, sim("image-pull-notfound", annMessage,
							`rpc error: code = Unknown desc = failed to pull and unpack image "`+img+`": failed to resolve reference "`+img+`": failed to do request: Head "http://127.0.0.1:30050/v2/bitnami/redis/manifests/7.2.5": dial tcp 127.0.0.1:30050: connect: connection refused`), "redis", 6379)
						e.w8cOnPool(&d.Spec.Template, "node-pool", "apps")
						w8bEnv(&d.Spec.Template, "ALLOW_EMPTY_PASSWORD", "yes", "REDIS_AOF_ENABLED", "no")
						return e.w11bServe(ctx, d, 6379)
					},
					func() error {
						d := w8bDeployment("recs-api", "registry.example/recs/recs-api:2.4.0", 1, w8bLabels("recs-api", "recommendations"), nil, "http", 8080)
						e.w8cOnPool(&d.Spec.Template, "node-pool", "apps")
						w8bEnv(&d.Spec.Template, "CACHE_URL", "redis://recommendations-cache:6379/0", "CACHE_OPTIONAL", "true")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(cache, waiting("ErrImagePull", "ImagePullBackOff")), podsWith(mirror, unschedulable("didn't match")), readyReplicas("recs-api", 1)),
		},
		{
			// The logging team replaced the fluent-bit shippers with a fluentd DaemonSet. The
			// OpenSearch ingress policy still admits 9200 only from fluent-bit pods (and the
			// dashboards), so fluentd's connections time out, its buffer fills and blocks: the
			// pods stay Running and Ready while no application log reaches OpenSearch.
			Name: "service-logs-missing-in-dashboards", Covers: "no new logs in OpenSearch Dashboards: the Running, Ready fluentd DaemonSet logs 'Failed to open TCP connection to opensearch-logs:9200 (execution expired)' and 'buffer overflow action=:block'; NetworkPolicy opensearch-logs-ingress admits 9200 only from pods labelled app.kubernetes.io/name=fluent-bit and opensearch-dashboards, not fluentd",
			Source: w18bSrcFluentd, Class: ClassProvider, Hops: 2,
			Problem: "our services' logs stopped showing up in OpenSearch Dashboards around 09:40 after the log pipeline change; the fluentd pods are all Running and the dashboards load",
			Target:  target("DaemonSet", "fluentd"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "opensearch-logs-ingress"}, Terms: []string{"fluent-bit"}},
			Setup: func(ctx context.Context, e *Env) error {
				osl := w8cLabels("app.kubernetes.io/name", "opensearch", "app.kubernetes.io/instance", "opensearch-logs")
				dash := w8cLabels("app.kubernetes.io/name", "opensearch-dashboards", "app.kubernetes.io/instance", "opensearch-logs")
				shipper := w8cLabels("app.kubernetes.io/name", "fluentd", "app.kubernetes.io/instance", "fluentd-logs")
				return steps(
					func() error {
						return e.w11bStore(ctx, "opensearch-logs", "opensearchproject/opensearch:2.17.1", osl, nil, "http", 9200,
							"discovery.type", "single-node", "DISABLE_SECURITY_PLUGIN", "true", "OPENSEARCH_JAVA_OPTS", "-Xms1g -Xmx1g")
					},
					func() error {
						d := w8bDeployment("opensearch-dashboards", "opensearchproject/opensearch-dashboards:2.17.1", 1, dash, nil, "http", 5601)
						w8bEnv(&d.Spec.Template, "OPENSEARCH_HOSTS", `["http://opensearch-logs:9200"]`, "DISABLE_SECURITY_DASHBOARDS_PLUGIN", "true")
						return e.w11bServe(ctx, d, 5601)
					},
					func() error {
						return e.createNetworkPolicy(ctx, w13bIngressPolicy("opensearch-logs-ingress", osl,
							w13bFrom(nil, w8cLabels("app.kubernetes.io/name", "fluent-bit"), "TCP", 9200),
							w13bFrom(nil, dash, "TCP", 9200),
							w13bFrom(nil, osl, "TCP", 9300)))
					},
					func() error {
						conf := "<source>\n  @type tail\n  path /var/log/containers/*.log\n  pos_file /var/log/fluentd-containers.log.pos\n  tag kubernetes.*\n  <parse>\n    @type cri\n  </parse>\n</source>\n<filter kubernetes.**>\n  @type kubernetes_metadata\n</filter>\n<match kubernetes.**>\n  @type opensearch\n  @id out_opensearch\n  host \"#{ENV['FLUENT_OPENSEARCH_HOST']}\"\n  port \"#{ENV['FLUENT_OPENSEARCH_PORT']}\"\n  scheme http\n  logstash_format true\n  logstash_prefix logs\n  <buffer>\n    @type file\n    path /var/log/fluentd-buffers/opensearch.buffer\n    flush_interval 5s\n    retry_max_interval 30\n    chunk_limit_size 8M\n    total_limit_size 512M\n    overflow_action block\n  </buffer>\n</match>\n"
						return e.w10aConfigMap(ctx, "fluentd-config", shipper, map[string]string{"fluent.conf": conf})
					},
					func() error {
						return e.w8aCreateDaemonSet(ctx, w8aDaemonSet("fluentd", "fluent/fluentd-kubernetes-daemonset:v1.17.1-debian-opensearch-1.0", shipper, func(t *corev1.PodTemplateSpec) {
							t.Annotations = running("w18b-fluentd-opensearch")
							t.Spec.Containers[0].Name = "fluentd"
							t.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "FLUENT_OPENSEARCH_HOST", Value: "opensearch-logs"}, {Name: "FLUENT_OPENSEARCH_PORT", Value: "9200"}}
							mountConfigMap(t, "fluentd-config", "/fluentd/etc")
							w14aHostPath(t, "varlog", "/var/log", corev1.HostPathDirectory)
							t.Spec.Containers[0].VolumeMounts[len(t.Spec.Containers[0].VolumeMounts)-1].ReadOnly = false
						}))
					},
					func() error {
						d := w8bDeployment("orders-api", "registry.example/orders/orders-api:4.2.1", 2, w8bLabels("orders-api", "orders"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(w14aDaemonSetReady("fluentd"), w11aStatefulSetReady("opensearch-logs", 1), readyReplicas("opensearch-dashboards", 1), readyReplicas("orders-api", 2)),
		},
	}
}
