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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/utils/ptr"
)

// Wave 15b, continued: a provider refused by Pod Security admission, a PriorityClass-scoped
// quota, a claim template asking for no class, an orphaned ReplicaSet behind a Service and a
// toleration left on an old node pool.

func wave15bMoreScenarios() []*Scenario {
	sessAPI := w8bLabels("sessions-api", "identity", "app.kubernetes.io/component", "api")
	redis := w8bLabels("redis", "identity", "app.kubernetes.io/instance", "sessions", "app.kubernetes.io/component", "master")
	ordersAPI := w8bLabels("orders-api", "orders", "app.kubernetes.io/component", "api")
	emb := w8bLabels("embeddings-api", "ml-serving", "app.kubernetes.io/component", "inference")
	return []*Scenario{
		{
			// The namespace enforces Pod Security "restricted"; the reinstalled redis chart has
			// volumePermissions enabled, an init container that chowns the data volume as uid 0.
			// Admission refuses every pod of the StatefulSet, so the Service has no endpoint and
			// the API crash-loops on connection refused.
			Name: "sessions-redis-refused-after-reinstall", Covers: "sessions-api (gunicorn, redis-py) crash-loops on 'Error 111 connecting to sessions-redis-master:6379. Connection refused.'; StatefulSet sessions-redis-master has no pod: its FailedCreate says 'violates PodSecurity \"restricted:latest\"' for the init container volume-permissions (runAsUser=0, no capabilities drop), in a namespace that enforces restricted; the API and rate-limiter comply and run",
			Source: w15bSrcPSAInit, Class: ClassRanking, Hops: 3,
			Problem: "logins fail: sessions-api restarts every few seconds with 'Connection refused' from redis since we reinstalled the redis chart",
			Target:  target("Deployment", "sessions-api"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "sessions-redis-master"}, Terms: []string{"volume-permissions"}},
			Setup: func(ctx context.Context, e *Env) error {
				class := e.ClusterName("gp3")
				return steps(
					func() error {
						return e.w8aLabelNamespace(ctx, map[string]string{"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/enforce-version": "latest"})
					},
					func() error {
						return e.createStorageClass(ctx, "gp3", "ebs.csi.aws.com", storagev1.VolumeBindingWaitForFirstConsumer)
					},
					func() error {
						st := w8bStatefulSet("sessions-redis-master", "docker.io/bitnami/redis:7.2.5-debian-12-r4", "sessions-redis-headless", 1, redis, nil, "redis", 6379)
						w10aMain(&st.Spec.Template, "redis", "/opt/bitnami/scripts/start-scripts/start-master.sh")
						w8bEnv(&st.Spec.Template, "REDIS_REPLICATION_MODE", "master", "ALLOW_EMPTY_PASSWORD", "yes", "REDIS_PORT", "6379")
						w10bRestricted(&st.Spec.Template, 1001)
						w13bClaimTemplate(st, "redis-data", class, "8Gi", "/bitnami/redis/data")
						st.Spec.Template.Spec.InitContainers = []corev1.Container{{
							Name: "volume-permissions", Image: "docker.io/bitnami/os-shell:12-debian-12-r16",
							Command:         []string{"/bin/bash", "-ec", "chown -R 1001:1001 /bitnami/redis/data"},
							SecurityContext: &corev1.SecurityContext{RunAsUser: ptr.To[int64](0)},
							VolumeMounts:    []corev1.VolumeMount{{Name: "redis-data", MountPath: "/bitnami/redis/data"}},
						}}
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("sessions-redis-headless", redis, "redis", 6379)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("sessions-redis-master", redis, "redis", 6379))
					},
					func() error {
						d := w11bApp("sessions-api", "api", "registry.example/identity/sessions-api:3.4.1", 2, sessAPI, crash("3", "", "w15b-sessions-api-redis"), "http", 8000)
						w8bEnv(&d.Spec.Template, "SESSION_BACKEND", "redis", "REDIS_HOST", "sessions-redis-master", "REDIS_PORT", "6379", "REDIS_DB", "0")
						w10bRestricted(&d.Spec.Template, 10001)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						lbl := w8bLabels("rate-limiter", "identity", "app.kubernetes.io/component", "api")
						d := w11bApp("rate-limiter", "limiter", "registry.example/identity/rate-limiter:1.6.0", 1, lbl, nil, "grpc", 8081)
						w10bRestricted(&d.Spec.Template, 10001)
						return e.w11bServe(ctx, d, 8081)
					},
				)
			},
			Wait: all(podsWith(sessAPI, crashLooping(2)), objectEvent("StatefulSet", "sessions-redis-master", "FailedCreate", "PodSecurity"), readyReplicas("rate-limiter", 1)),
		},
		{
			// Pods of the platform-critical PriorityClass are capped per namespace by a quota
			// scoped to that class (the docs' "limit priority class consumption"); the two edge
			// gateways use it up. The new pdf-worker copied priorityClassName from the gateway's
			// manifest, so its ReplicaSet is refused 'exceeded quota'.
			Name: "pdf-exports-queued-new-worker-empty", Covers: "PDF exports stay queued: the new Deployment pdf-worker has no pods, its ReplicaSet's FailedCreate says 'exceeded quota: critical-pods, requested: pods=1, used: pods=2, limited: pods=2'; the quota counts only pods of PriorityClass platform-critical, which pdf-worker names (copied from edge-gateway, whose 2 pods legitimately use the quota)",
			Source: w15bSrcQuotaPrio, Class: ClassMechanism, Hops: 2,
			Problem: "PDF exports stay 'queued' forever; the pdf-worker deployment we added on Monday shows 0/2",
			Target:  target("Deployment", "pdf-worker"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "pdf-worker"}, Terms: []string{"platform-critical"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w10bPriorityClass(ctx, "platform-critical", 1000000, corev1.PreemptLowerPriority, "edge and ingress gateways only; capped per namespace by a scoped quota")
					},
					func() error { return e.w15bPodsQuota(ctx, "critical-pods", "2", e.ClusterName("platform-critical")) },
					func() error { return e.w11aQuota(ctx, "compute", "pods", "40", "count/services", "20") },
					func() error {
						lbl := w8bLabels("edge-gateway", "docs", "app.kubernetes.io/component", "gateway")
						d := w11bApp("edge-gateway", "envoy", "envoyproxy/envoy:v1.31.2", 2, lbl, nil, "http", 8080)
						d.Spec.Template.Spec.PriorityClassName = e.ClusterName("platform-critical")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						lbl := w8bLabels("pdf-api", "docs", "app.kubernetes.io/component", "api")
						d := w11bApp("pdf-api", "api", "registry.example/docs/pdf-api:2.2.0", 2, lbl, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "QUEUE_URL", "redis://pdf-queue:6379/0", "QUEUE_NAME", "pdf-render")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			// The worker is added once the gateways run, as it was on Monday.
			Wait: w13bOnce("worker", readyReplicas("edge-gateway", 2), func(ctx context.Context, e *Env) error {
				lbl := w8bLabels("pdf-worker", "docs", "app.kubernetes.io/component", "worker")
				d := w11bApp("pdf-worker", "worker", "registry.example/docs/pdf-worker:2.2.0", 2, lbl, nil, "metrics", 9100)
				w8bEnv(&d.Spec.Template, "QUEUE_URL", "redis://pdf-queue:6379/0", "QUEUE_NAME", "pdf-render", "CONCURRENCY", "4")
				d.Spec.Template.Spec.PriorityClassName = e.ClusterName("platform-critical")
				return e.createDeployment(ctx, d)
			}, all(deploymentCondition("pdf-worker", appsv1.DeploymentReplicaFailure, "FailedCreate"), readyReplicas("pdf-api", 2))),
		},
		{
			// The values file sets persistence.storageClass "-", which the chart renders as
			// storageClassName: "": the claim may only bind a volume without a class and is
			// never provisioned, so postgres stays Pending and the API cannot connect.
			Name: "orders-api-db-never-starts-after-move", Covers: "orders-api (Spring Boot) crash-loops on 'PSQLException: Connection to orders-postgresql:5432 refused'; orders-postgresql-0 is Pending on its unbound claim data-orders-postgresql-0, whose FailedBinding says 'no persistent volumes available for this claim and no storage class is set': the StatefulSet's volumeClaimTemplate sets storageClassName \"\" (catalog-postgresql's names a class and runs)",
			Source: w15bSrcEmptyClass, Class: ClassProvider, Hops: 3,
			Problem: "orders-api keeps restarting with 'Connection refused' to its database since we moved orders to the new cluster",
			Target:  target("Deployment", "orders-api"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "orders-postgresql"}, Terms: []string{"storageClassName"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := func(name, class string, lbl map[string]string) error {
					st := w8bStatefulSet(name, "docker.io/bitnami/postgresql:16.4.0-debian-12-r9", name+"-hl", 1, lbl, nil, "tcp-postgresql", 5432)
					w10aMain(&st.Spec.Template, "postgresql")
					w8bEnv(&st.Spec.Template, "POSTGRESQL_PORT_NUMBER", "5432", "POSTGRESQL_VOLUME_DIR", "/bitnami/postgresql", "PGDATA", "/bitnami/postgresql/data")
					w13bClaimTemplate(st, "data", class, "20Gi", "/bitnami/postgresql")
					if err := e.createStatefulSet(ctx, st); err != nil {
						return err
					}
					if err := e.createService(ctx, w8bHeadless(name+"-hl", lbl, "tcp-postgresql", 5432)); err != nil {
						return err
					}
					return e.createService(ctx, w8bService(name, lbl, "tcp-postgresql", 5432))
				}
				catalogDB := w8bLabels("postgresql", "catalog", "app.kubernetes.io/instance", "catalog-postgresql")
				return steps(
					func() error { return e.w9cLocalClass(ctx, "local-nvme") },
					func() error { return e.w13bLocalPV(ctx, "catalog-pg-0", e.ClusterName("local-nvme"), "20Gi", "zone-a") },
					func() error {
						return db("orders-postgresql", "", w8bLabels("postgresql", "orders", "app.kubernetes.io/instance", "orders-postgresql"))
					},
					func() error { return db("catalog-postgresql", e.ClusterName("local-nvme"), catalogDB) },
					func() error {
						d := w11bApp("orders-api", "api", "registry.example/orders/orders-api:5.8.0", 2, ordersAPI, crash("1", "", "w15b-orders-api-pg"), "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_PROFILES_ACTIVE", "prod", "SPRING_DATASOURCE_URL", "jdbc:postgresql://orders-postgresql:5432/orders", "SPRING_DATASOURCE_USERNAME", "orders")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						lbl := w8bLabels("catalog-api", "catalog", "app.kubernetes.io/component", "api")
						d := w11bApp("catalog-api", "api", "registry.example/catalog/catalog-api:3.0.2", 1, lbl, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_DATASOURCE_URL", "jdbc:postgresql://catalog-postgresql:5432/catalog")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(ordersAPI, crashLooping(2)), pvcPending("data-orders-postgresql-0"), w8cStatefulSetReady("catalog-postgresql", 1), readyReplicas("catalog-api", 1)),
		},
		{
			// The Deployment was renamed (checkout -> checkout-service) by deleting the old one
			// with --cascade=orphan; its last ReplicaSet still runs 3.1.0, whose payments URL is
			// retired, and the Service selects those pods too: every other checkout fails.
			Name: "checkout-half-fail-after-rename", Covers: "about half of POST /api/checkout answer 502: Service checkout selects app.kubernetes.io/name=checkout, which matches the Ready pods of checkout-service (3.2.0, clean logs) and of ReplicaSet checkout-6d8f7b9c4d, left without owner when Deployment checkout was deleted with --cascade=orphan; those 3.1.0 pods log 'charge failed ... lookup payments-v1 ... no such host'",
			Source: w15bSrcOrphanRS, Class: ClassRanking, Hops: 2,
			Problem: "since checkout moved to the new chart, roughly half of the checkout requests fail with 502; the checkout-service pods are healthy and their logs are clean",
			Target:  target("Service", "checkout"),
			Want:    Want{Culprit: Ref{Kind: "ReplicaSet", Name: "checkout-6d8f7b9c4d"}, Terms: []string{"3.1.0"}},
			Setup: func(ctx context.Context, e *Env) error {
				payments := w8bLabels("payments", "shop", "app.kubernetes.io/component", "api")
				return steps(
					func() error {
						d := w11bApp("payments", "api", "registry.example/shop/payments:7.0.4", 2, payments, nil, "http", 8080)
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						return e.w15bOrphanReplicaSet(ctx, "checkout-6d8f7b9c4d", "6d8f7b9c4d", "registry.example/shop/checkout:3.1.0", 2,
							w8cLabels("app.kubernetes.io/name", "checkout", "app.kubernetes.io/instance", "checkout", "app.kubernetes.io/version", "3.1.0"),
							running("w15b-checkout-old-payments"), "http", 8080)
					},
					func() error {
						lbl := w8cLabels("app.kubernetes.io/name", "checkout", "app.kubernetes.io/instance", "checkout-service")
						d := w11bApp("checkout-service", "checkout", "registry.example/shop/checkout:3.2.0", 2, lbl, nil, "http", 8080)
						d.Spec.Template.Labels = w8cLabels("app.kubernetes.io/name", "checkout", "app.kubernetes.io/instance", "checkout-service", "app.kubernetes.io/version", "3.2.0")
						w8bEnv(&d.Spec.Template, "PAYMENTS_URL", "http://payments:8080/v2/charges", "INVENTORY_URL", "http://inventory:8080/v2/reservations")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, w8bService("checkout", w8cLabels("app.kubernetes.io/name", "checkout"), "http", 80))
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("checkout", "shop.example.com", "checkout", 80))
					},
				)
			},
			Wait: all(readyReplicas("checkout-service", 2), w9bReplicaSetReady("checkout-6d8f7b9c4d", 2), readyReplicas("payments", 2)),
		},
		{
			// The GPU pool was replaced: the old node is cordoned and the new nodes carry the
			// platform's new taint workload-class=gpu-inference. reranker was updated; the
			// embeddings-api Deployment still tolerates only the old pool's dedicated=ml taint.
			Name: "embeddings-api-pending-after-pool-swap", Covers: "embeddings-api pods are Pending with '1 node(s) were unschedulable, 2 node(s) had untolerated taint {workload-class: gpu-inference}' after the ML pool was replaced; Deployment embeddings-api tolerates dedicated=ml (the cordoned old pool's taint) while reranker, which tolerates workload-class=gpu-inference, runs on the new nodes",
			Source: w15bSrcTaintPool, Class: ClassSingle, Hops: 1,
			Problem: "semantic search is down since the ML node pool was replaced over the weekend: embeddings-api pods are all Pending",
			Target:  target("Deployment", "embeddings-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "embeddings-api"}, Terms: []string{"workload-class"}},
			Setup: func(ctx context.Context, e *Env) error {
				taint := func(k, v string) corev1.Taint {
					return corev1.Taint{Key: k, Value: v, Effect: corev1.TaintEffectNoSchedule}
				}
				app := func(name, image string, lbl map[string]string, key, value string) error {
					d := w11bApp(name, "server", image, 2, lbl, nil, "http", 8080)
					e.w8cOnPool(&d.Spec.Template, "node-pool", "ml-inference")
					w15bToleration(&d.Spec.Template, key, value)
					return e.w11bServe(ctx, d, 80)
				}
				pool := w8cLabels("node-pool", "ml-inference", "node.kubernetes.io/instance-type", "g5.xlarge")
				return steps(
					func() error { return e.w15bPoolNode(ctx, "ml-2023-a", true, pool, taint("dedicated", "ml")) },
					func() error {
						return e.w15bPoolNode(ctx, "ml-2025-a", false, pool, taint("workload-class", "gpu-inference"))
					},
					func() error {
						return e.w15bPoolNode(ctx, "ml-2025-b", false, pool, taint("workload-class", "gpu-inference"))
					},
					func() error {
						return app("embeddings-api", "registry.example/ml/embeddings-api:1.8.2", emb, "dedicated", "ml")
					},
					func() error {
						return app("reranker", "registry.example/ml/reranker:0.9.5", w8bLabels("reranker", "ml-serving", "app.kubernetes.io/component", "inference"), "workload-class", "gpu-inference")
					},
				)
			},
			Wait: all(podsWith(emb, unschedulable("untolerated taint")), readyReplicas("reranker", 2)),
		},
	}
}
