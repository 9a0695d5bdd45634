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
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func wave15cMoreScenarios() []*Scenario {
	migrate := w8bLabels("shop-migrate", "shop", "app.kubernetes.io/component", "migrations")
	search := w8bLabels("search-api", "search")
	catalog := w8bLabels("catalog-api", "catalog")
	pricing := w8bLabels("pricing", "storefront")
	worker := w8bLabels("notifications-worker", "notifications")
	return []*Scenario{
		{
			// The migration hook reuses the web image's entrypoint line, which migrates and
			// then execs the web server; the server never exits, so the Job never completes and
			// the Helm upgrade waiting on the pre-upgrade hook hangs.
			Name: "shop-upgrade-hook-job-never-completes", Covers: "helm upgrade of shop hangs on its pre-upgrade hook: Job shop-migrate has one pod Running and Ready for ever because its command is 'python manage.py migrate --noinput && exec gunicorn ...', so after migrating it serves HTTP and never exits (shop-collectstatic, a one-shot, completed)",
			Source: w15cSrcJob, Class: ClassOutside, Hops: 0,
			Problem: "our helm upgrade of shop has been waiting on the pre-upgrade migration job for twenty minutes; the job's pod is Running and healthy but the job never finishes",
			Target:  target("Job", "shop-migrate"),
			Want:    Want{Culprit: Ref{Kind: "Job", Name: "shop-migrate"}, Terms: []string{"gunicorn"}},
			Setup: func(ctx context.Context, e *Env) error {
				img := "registry.example/shop/shop-web:7.14.0"
				hook := map[string]string{"helm.sh/hook": "pre-upgrade", "helm.sh/hook-weight": "0", "helm.sh/hook-delete-policy": "before-hook-creation"}
				return steps(
					func() error {
						return e.createSecret(ctx, "shop-db", map[string]string{"DATABASE_URL": "postgres://shop:Vb71kQp2Lr@shop-postgres:5432/shop"})
					},
					func() error {
						d := w8bDeployment("shop-web", img, 2, w8bLabels("shop-web", "shop"), nil, "http", 8000)
						w8cArgs(&d.Spec.Template, "gunicorn", "shop.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3")
						envFromSecret(&d.Spec.Template, "shop-db")
						w8cReadiness(&d.Spec.Template, "/healthz/", "http")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						j := w15cJob("shop-collectstatic", img, "", 2, w8bLabels("shop-collectstatic", "shop"), nil, "python", "manage.py", "collectstatic", "--noinput")
						j.Annotations = hook
						return e.w9aJob(ctx, j)
					},
					func() error {
						j := w15cJob("shop-migrate", img, "", 2, migrate, sim("run", annLogs, "w15c-shop-migrate-gunicorn"),
							"sh", "-c", "python manage.py migrate --noinput && exec gunicorn shop.wsgi:application --bind 0.0.0.0:8000 --workers 3")
						j.Annotations = hook
						envFromSecret(&j.Spec.Template, "shop-db")
						return e.w9aJob(ctx, j)
					},
				)
			},
			Wait: all(podsWith(migrate, runningReady), w9aJobComplete("shop-collectstatic"), readyReplicas("shop-web", 2)),
		},
		{
			// A scale-down of the search pool failed half-way: the cluster autoscaler tainted two
			// nodes ToBeDeletedByClusterAutoscaler, never deleted them and never took the taint
			// off, so the scheduler can place new replicas only on the third node.
			Name: "search-api-replicas-share-one-node", Covers: "all three search-api replicas run on one node of a three-node pool: the other two nodes still carry the NoSchedule taint ToBeDeletedByClusterAutoscaler from a scale-down that never completed (node-exporter, which tolerates every taint, runs on all three)",
			Source: w15cSrcCATaint, Class: ClassOutside, Hops: 1,
			Problem: "why are all search-api pods on the same node? the pool has three healthy nodes and we lose search whenever that one node goes",
			Target:  target("Deployment", "search-api"),
			Want:    Want{Culprit: Ref{Kind: "Node", Name: "pool-b", Cluster: true}, Also: []Ref{{Kind: "Node", Name: "pool-c", Cluster: true}}, Terms: []string{"ToBeDeletedByClusterAutoscaler"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { _, err := e.w10bNode(ctx, "pool-a", nil); return err },
					func() error { _, err := e.w10bNode(ctx, "pool-b", nil, w15cAutoscalerTaint(3*time.Hour)); return err },
					func() error { _, err := e.w10bNode(ctx, "pool-c", nil, w15cAutoscalerTaint(3*time.Hour)); return err },
					func() error {
						lbl := w8cLabels("app.kubernetes.io/name", "prometheus-node-exporter", "app.kubernetes.io/instance", "search-node-exporter")
						return e.w8aCreateDaemonSet(ctx, w8aDaemonSet("search-node-exporter", "quay.io/prometheus/node-exporter:v1.8.2", lbl, func(t *corev1.PodTemplateSpec) {
							e.pin(t)
							t.Spec.Tolerations = append(t.Spec.Tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists})
							port(t, "metrics", 9100)
						}))
					},
					func() error {
						d := w8bDeployment("search-api", "registry.example/search/search-api:5.0.3", 3, search, nil, "http", 8080)
						e.pin(&d.Spec.Template)
						w8bEnv(&d.Spec.Template, "OPENSEARCH_URL", "https://opensearch:9200", "INDEX_PREFIX", "products-v5")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: w15cOnOneNode(search, 3),
		},
		{
			// The 2.8.0 release also added a "bake time": minReadySeconds 1800 (with the progress
			// deadline raised so the API accepts it). With maxUnavailable 0 and maxSurge 1 the
			// first new pod is Ready but not Available for 30 minutes, so no old pod goes.
			Name: "catalog-api-rollout-stops-after-one-pod", Covers: "catalog-api 2.8.0 rollout stands still with one new pod Running and Ready and three 2.7.4 pods kept: the release set minReadySeconds 1800, so with maxUnavailable 0 / maxSurge 1 the new pod counts as available only after 30 minutes and no old pod is removed (catalog-worker on 2.8.0 is fine)",
			Source: w15cSrcMinReady, Class: ClassMechanism, Hops: 0,
			Problem: "we released catalog-api 2.8.0 and only one pod runs the new version; that pod is healthy and Ready but the other three are still on 2.7.4 and nothing moves",
			Target:  target("Deployment", "catalog-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "catalog-api"}, Terms: []string{"minReadySeconds"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("catalog-api", "registry.example/catalog/catalog-api:2.7.4", 3, catalog, nil, "http", 8080)
						zero, one := intstr.FromInt(0), intstr.FromInt(1)
						d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
							RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &zero, MaxSurge: &one}}
						w8cReadiness(&d.Spec.Template, "/ready", "http")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("catalog-worker", "registry.example/catalog/catalog-api:2.8.0", 1, w8bLabels("catalog-worker", "catalog"), nil, "metrics", 9102)
						w8cArgs(&d.Spec.Template, "worker", "--queue=catalog-updates")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: w9bRollout("catalog-api", 3, func(d *appsv1.Deployment) {
				d.Spec.Template.Spec.Containers[0].Image = "registry.example/catalog/catalog-api:2.8.0"
				d.Spec.MinReadySeconds = 1800
				d.Spec.ProgressDeadlineSeconds = ptr.To[int32](3600)
			}, all(w15cRolloutHeld("catalog-api"), readyReplicas("catalog-worker", 1))),
		},
		{
			// The pricing Service was created with sessionAffinity: ClientIP (copied from a
			// stateful admin UI). Its only client is one storefront pod, so every request comes
			// from one source IP and kube-proxy pins it to one endpoint for 3 hours.
			Name: "pricing-two-pods-never-get-requests", Covers: "two of three Ready pricing pods get no traffic and the third is overloaded: Service pricing has sessionAffinity ClientIP (timeout 10800 s) and its single caller, storefront-bff, has one pod, so kube-proxy sends every request to the same endpoint (Service inventory, without affinity, spreads)",
			Source: w15cSrcAffinity, Class: ClassOutside, Hops: 1,
			Problem: "why does traffic never reach two of the three pricing pods? all three are Ready, yet every storefront request lands on the same pod and it is overloaded",
			Target:  target("Deployment", "pricing"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "pricing"}, Terms: []string{"sessionAffinity"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("pricing", "registry.example/storefront/pricing:3.2.1", 3, pricing, nil, "http", 8080)
						w8cReadiness(&d.Spec.Template, "/health/ready", "http")
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						s := w10aServiceTo("pricing", pricing, "http", 8080, "http")
						s.Spec.SessionAffinity = corev1.ServiceAffinityClientIP
						s.Spec.SessionAffinityConfig = &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr.To[int32](10800)}}
						return e.createService(ctx, s)
					},
					func() error {
						d := w8bDeployment("inventory", "registry.example/storefront/inventory:6.0.4", 3, w8bLabels("inventory", "storefront"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						d := w8bDeployment("storefront-bff", "registry.example/storefront/bff:9.7.0", 1, w8bLabels("storefront-bff", "storefront"), nil, "http", 3000)
						w8bEnv(&d.Spec.Template, "PRICING_URL", "http://pricing:8080", "INVENTORY_URL", "http://inventory:8080", "HTTP_KEEPALIVE", "false")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(readyReplicas("pricing", 3), readyReplicas("inventory", 3), readyReplicas("storefront-bff", 1)),
		},
		{
			// During an SMTP incident someone set CONSUMERS_ENABLED=false in the worker's
			// ConfigMap to stop the retry storm and never set it back; the worker stays Running
			// and Ready (its health endpoint is fine) but subscribes to no queue.
			Name: "notifications-worker-healthy-but-idle", Covers: "no emails or pushes are sent although notifications-worker is Running and Ready: ConfigMap notifications-worker-env sets CONSUMERS_ENABLED=false, so the worker subscribes to no queue and its log repeats 'idle: 0 consumers running' with a growing queue_depth",
			Source: w15cSrcRunning, Class: ClassOutside, Hops: 1,
			Problem: "customers stopped getting order emails and push notifications yesterday; the notifications worker pods are Running and Ready with no restarts",
			Target:  target("Deployment", "notifications-worker"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "notifications-worker-env"}, Terms: []string{"CONSUMERS_ENABLED"}},
			Setup: func(ctx context.Context, e *Env) error {
				mq := w8cLabels("app.kubernetes.io/name", "rabbitmq", "app.kubernetes.io/instance", "rabbitmq")
				return steps(
					func() error {
						return e.w11bStore(ctx, "rabbitmq", "docker.io/bitnami/rabbitmq:3.13.7", mq, nil, "amqp", 5672, "RABBITMQ_USERNAME", "notifications")
					},
					func() error {
						return e.createConfigMap(ctx, "notifications-worker-env", map[string]string{
							"AMQP_URL": "amqp://notifications@rabbitmq:5672/notifications", "SMTP_HOST": "email-smtp.eu-west-1.amazonaws.com", "SMTP_PORT": "587",
							"PREFETCH": "20", "CONSUMERS_ENABLED": "false", "LOG_LEVEL": "info",
						})
					},
					func() error {
						d := w8bDeployment("notifications-worker", "registry.example/notifications/worker:3.6.0", 2, worker, running("w15c-notifications-worker-disabled"), "health", 8081)
						envFromConfigMap(&d.Spec.Template, "notifications-worker-env")
						w8cReadiness(&d.Spec.Template, "/healthz", "health")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("notifications-api", "registry.example/notifications/api:3.6.0", 2, w8bLabels("notifications-api", "notifications"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "AMQP_URL", "amqp://notifications@rabbitmq:5672/notifications")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(readyReplicas("notifications-worker", 2), readyReplicas("notifications-api", 2), w8cStatefulSetReady("rabbitmq", 1)),
		},
	}
}
