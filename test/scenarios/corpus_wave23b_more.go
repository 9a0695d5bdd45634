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
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

func wave23bControllerScenarios() []*Scenario {
	worker := w8bLabels("queue-worker", "orders", "app.kubernetes.io/component", "worker")
	ordersAPI := w8bLabels("orders-api", "orders", "app.kubernetes.io/component", "api")
	reconcile := w8cLabels("app", "ledger-reconcile", "team", "finance")
	snapshot := w8cLabels("app", "ledger-snapshot", "team", "finance")
	search := w8bLabels("opensearch", "logging", "app.kubernetes.io/component", "cluster-manager")
	dashboards := w8bLabels("opensearch-dashboards", "logging", "app.kubernetes.io/component", "dashboards")
	thumbAPI := w8cLabels("app", "thumbnail-api", "team", "media")
	thumbnailer := w8cLabels("app", "thumbnailer", "team", "media")
	return []*Scenario{
		{
			// kubectl scale --replicas=0 during an incident, never undone: an HPA whose target
			// is at 0 replicas (and whose minReplicas is above 0) stops acting, ScalingActive
			// False ScalingDisabled, so the worker never comes back however long the queue
			// gets. orders-api's HPA next to it is loud (no metrics) but unrelated.
			Name: "order-events-backlog-growing", Covers: "the order-events backlog grows and HPA queue-worker (min 2, max 10) adds nothing: it reports ScalingActive False ScalingDisabled 'scaling is disabled since the replica count of the target is zero' because Deployment queue-worker was scaled to 0 by hand; HPA orders-api's FailedGetResourceMetric warnings are noise",
			Source: w23bSrcHPAZero, Class: ClassMechanism, Hops: 1,
			Problem: "the order-events queue keeps growing and the queue-worker autoscaler does not add a single worker",
			Target:  target("HorizontalPodAutoscaler", "queue-worker"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "queue-worker"}, Terms: []string{"zero"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("queue-worker", "registry.example/orders/queue-worker:3.8.2", 0, worker, nil, "metrics", 9090)
						w10aMain(&d.Spec.Template, "queue-worker", "--queue=order-events", "--concurrency=8")
						w8bEnv(&d.Spec.Template, "AMQP_URL", "amqp://orders-rabbitmq:5672/orders", "PREFETCH", "32")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createHPA(ctx, "queue-worker", "queue-worker", 2, 10) },
					func() error {
						d := w8bDeployment("orders-api", "registry.example/orders/orders-api:3.8.2", 2, ordersAPI, nil, "http", 8080)
						w10aMain(&d.Spec.Template, "orders-api")
						return e.w11bServe(ctx, d, 80)
					},
					func() error { return e.createHPA(ctx, "orders-api", "orders-api", 2, 6) },
				)
			},
			Wait: all(w23bHPAReason("queue-worker", autoscalingv2.ScalingActive, "ScalingDisabled"), readyReplicas("orders-api", 2)),
		},
		{
			// The CronJob was moved from a cluster where Kueue admitted batch work: its job
			// template still says suspend: true (Kueue's convention) and carries a queue-name
			// label nobody acts on here. Each run's Job is created suspended and never starts a
			// pod, and with concurrencyPolicy Forbid that one active Job blocks every later run.
			Name: "ledger-reconcile-no-report", Covers: "CronJob ledger-reconcile produced no report since the cluster move: its Job is created with Suspended True (JobSuspended) and no pod, and stays active, so with concurrencyPolicy Forbid later runs are skipped; the CronJob's jobTemplate sets suspend: true (and a kueue.x-k8s.io/queue-name label) from the Kueue cluster; ledger-snapshot, same schedule, completes",
			Source: w23bSrcJobSuspend, Class: ClassOutside, Hops: 2, Slow: true,
			Problem: "the ledger reconciliation has not produced a report since the move to this cluster; its CronJob always shows one active run but nothing happens",
			Target:  target("CronJob", "ledger-reconcile"),
			Want:    Want{Culprit: Ref{Kind: "CronJob", Name: "ledger-reconcile"}, Terms: []string{"suspend"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						c := w11aCronJob("ledger-snapshot", "registry.example/finance/ledger-tools:2.6.0", "* * * * *", false, snapshot, "snapshot", "--target=s3://acme-ledger/snapshots")
						return e.w11aCreateCronJob(ctx, c)
					},
					func() error {
						c := w11aCronJob("ledger-reconcile", "registry.example/finance/ledger-tools:2.6.0", "* * * * *", false, reconcile, "reconcile", "--window=24h", "--report=s3://acme-ledger/reports")
						c.Spec.JobTemplate.Labels = map[string]string{"kueue.x-k8s.io/queue-name": "finance-batch"}
						c.Spec.JobTemplate.Spec.Suspend = ptr.To(true)
						return e.w11aCreateCronJob(ctx, c)
					},
				)
			},
			Wait: all(w23bCronRun("ledger-reconcile", batchv1.JobSuspended), w23bCronRun("ledger-snapshot", batchv1.JobComplete)),
		},
		{
			// PersistentVolumeClaims outlive their StatefulSet: the Elasticsearch cluster removed
			// in the move to OpenSearch left data-elasticsearch-master-0 Bound, and it counts
			// against the namespace's persistentvolumeclaims quota of 3, sized for the three
			// OpenSearch nodes. The StatefulSet controller cannot create data-opensearch-2, so
			// opensearch-2 never exists.
			Name: "opensearch-third-node-never-created", Covers: "StatefulSet opensearch has 2 of 3 replicas and no opensearch-2 pod: its FailedCreate says 'create Claim data-opensearch-2 for Pod opensearch-2 in StatefulSet opensearch failed error: persistentvolumeclaims \"data-opensearch-2\" is forbidden: exceeded quota: claims-quota, requested: persistentvolumeclaims=1, used: persistentvolumeclaims=3, limited: persistentvolumeclaims=3'; the third claim counted is data-elasticsearch-master-0, left Bound by the Elasticsearch StatefulSet deleted in the migration",
			Source: w23bSrcPVCQuota, Class: ClassMechanism, Hops: 2,
			Problem: "the logs cluster runs only two OpenSearch nodes since yesterday's migration and opensearch-2 never shows up; the replica shards stay unassigned",
			Target:  target("StatefulSet", "opensearch"),
			Want:    Want{Culprit: Ref{Kind: "PersistentVolumeClaim", Name: "data-elasticsearch-master-0"}, Terms: []string{"persistentvolumeclaims"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.w17bBoundClaim(ctx, "data-elasticsearch-master-0", "30Gi") },
					func() error {
						return e.createStaticPV(ctx, "data-opensearch-0", "data-opensearch-0", "50Gi", corev1.ReadWriteOnce)
					},
					func() error {
						return e.createStaticPV(ctx, "data-opensearch-1", "data-opensearch-1", "50Gi", corev1.ReadWriteOnce)
					},
					func() error {
						return e.w11aQuota(ctx, "claims-quota", "persistentvolumeclaims", "3", "requests.storage", "500Gi")
					},
					func() error {
						d := w8bDeployment("opensearch-dashboards", "opensearchproject/opensearch-dashboards:2.15.0", 1, dashboards, nil, "http", 5601)
						w8bEnv(&d.Spec.Template, "OPENSEARCH_HOSTS", "[\"https://opensearch:9200\"]")
						return e.w11bServe(ctx, d, 5601)
					},
				)
			},
			Wait: w23bOnce("nodes", w23bQuotaCounted("claims-quota"),
				func(ctx context.Context, e *Env) error {
					st := w8bStatefulSet("opensearch", "opensearchproject/opensearch:2.15.0", "opensearch-headless", 3, search, nil, "http", 9200)
					st.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
					w8bEnv(&st.Spec.Template, "cluster.name", "logs", "discovery.seed_hosts", "opensearch-headless",
						"cluster.initial_cluster_manager_nodes", "opensearch-0,opensearch-1,opensearch-2", "OPENSEARCH_JAVA_OPTS", "-Xms1g -Xmx1g")
					st.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{*pvc("data", "manual", "50Gi", corev1.ReadWriteOnce)}
					st.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/usr/share/opensearch/data"}}
					gov := w8bService("opensearch-headless", search, "http", 9200)
					gov.Spec.ClusterIP = corev1.ClusterIPNone
					return steps(
						func() error { return e.createService(ctx, gov) },
						func() error { return e.createService(ctx, w8bService("opensearch", search, "http", 9200)) },
						func() error { return e.createStatefulSet(ctx, st) },
					)
				},
				all(w11aStatefulSetReady("opensearch", 2), w23bEvent("StatefulSet", "opensearch", "FailedCreate", "exceeded quota"),
					readyReplicas("opensearch-dashboards", 1))),
		},
		{
			// The team's LimitRange gives every container that sets nothing a 500m CPU request,
			// and the ResourceQuota caps requests.cpu at 2. thumbnailer sets no resources, so six
			// replicas would request 3 CPUs: three fit beside thumbnail-api's 200m and the rest
			// are refused with 'exceeded quota', although each pod barely uses CPU.
			Name: "thumbnailer-stuck-at-three", Covers: "Deployment thumbnailer runs 3 of 6 replicas with ReplicaFailure FailedCreate 'exceeded quota: team-compute, requested: requests.cpu=500m, used: requests.cpu=1700m, limited: requests.cpu=2' although its pods set no resources: LimitRange team-defaults injects a defaultRequest of 500m CPU into each; thumbnail-api sets 100m and runs",
			Source: w23bSrcDefaultQuota, Class: ClassMechanism, Hops: 2,
			Problem: "thumbnailer never gets past 3 of its 6 replicas, although each of its pods uses a few millicores",
			Target:  target("Deployment", "thumbnailer"),
			Want:    Want{Culprit: Ref{Kind: "LimitRange", Name: "team-defaults"}, Also: []Ref{{Kind: "Deployment", Name: "thumbnailer"}}, Terms: []string{"500m"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.ownNode(ctx, "media") },
					func() error {
						return e.w23bLimitRange(ctx, "team-defaults", corev1.LimitRangeItem{
							Default: w23bCPUMem("1", "512Mi"), DefaultRequest: w23bCPUMem("500m", "256Mi")})
					},
					func() error {
						return e.w11aQuota(ctx, "team-compute", "requests.cpu", "2", "requests.memory", "4Gi")
					},
				)
			},
			Wait: w23bOnce("api", w23bQuotaCounted("team-compute"),
				func(ctx context.Context, e *Env) error {
					d := w8bDeployment("thumbnail-api", "registry.example/media/thumbnail-api:1.12.0", 2, thumbAPI, nil, "http", 8080)
					w10aMain(&d.Spec.Template, "thumbnail-api")
					d.Spec.Template.Spec.Containers[0].Resources = w23bResources("100m", "128Mi", "500m", "256Mi")
					e.pin(&d.Spec.Template)
					return e.w11bServe(ctx, d, 80)
				},
				w23bOnce("workers", readyReplicas("thumbnail-api", 2),
					func(ctx context.Context, e *Env) error {
						d := w8bDeployment("thumbnailer", "registry.example/media/thumbnailer:1.12.0", 6, thumbnailer, nil, "", 0)
						w10aMain(&d.Spec.Template, "thumbnailer", "--queue=thumbnails", "--sizes=64,256,1024")
						w8bEnv(&d.Spec.Template, "S3_BUCKET", "acme-media-prod", "REDIS_URL", "redis://media-redis:6379/2")
						e.pin(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					all(deploymentCondition("thumbnailer", appsv1.DeploymentReplicaFailure, "FailedCreate"), readyReplicas("thumbnailer", 3)))),
		},
	}
}
