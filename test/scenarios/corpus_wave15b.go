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
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Wave 15b: written blind by an outside hand from public issues and the Kubernetes docs.
// Kubernetes-native faults two or more hops from what the user sees, where one fault makes
// several objects look broken: rollouts that deadlock (a ReadWriteOnce volume held by the old
// pod, required anti-affinity with the default surge), autoscalers that disable each other,
// Pod Security admission or a PriorityClass-scoped quota refusing pods, a claim template that
// asks for no class, an orphaned ReplicaSet behind a Service, a hand-written service-account
// volume, a Role naming a subresource wrongly, tolerations left on an old node pool. Every Want
// was fixed from the source before anything ran.

func wave15bScenarios() []*Scenario {
	return append(wave15bFirstScenarios(), wave15bMoreScenarios()...)
}

func wave15bFirstScenarios() []*Scenario {
	grafana := w8bLabels("grafana", "monitoring", "app.kubernetes.io/instance", "grafana")
	renderer := w8bLabels("grafana-image-renderer", "monitoring", "app.kubernetes.io/instance", "grafana")
	search := w8bLabels("search-api", "search", "app.kubernetes.io/component", "api")
	indexer := w8bLabels("search-indexer", "search", "app.kubernetes.io/component", "worker")
	worker := w8bLabels("orders-worker", "orders", "app.kubernetes.io/component", "worker")
	ordersAPI := w8bLabels("orders-api", "orders", "app.kubernetes.io/component", "api")
	tenantOp := w8bLabels("tenant-operator", "tenancy", "app.kubernetes.io/component", "controller")
	return []*Scenario{
		{
			// A single-replica Deployment with a ReadWriteOnce block volume keeps the default
			// RollingUpdate strategy: the new pod is started before the old one stops, lands on
			// another node (the old pool is cordoned), and cannot attach the disk the old pod's
			// node still holds. The fix is strategy Recreate on the Deployment.
			Name: "grafana-11-upgrade-never-finishes", Covers: "the Grafana 11 rollout hangs: the new grafana pod on the new node pool stays ContainerCreating with FailedMount 'Unable to attach or mount volumes: unmounted volumes=[storage]... timed out waiting for the condition' while the old pod on the cordoned node keeps the ReadWriteOnce EBS claim grafana attached; Deployment grafana keeps the default RollingUpdate strategy (grafana-image-renderer, without a volume, rolled to the new pool)",
			Source: w15bSrcMultiAttach, Class: ClassMechanism, Hops: 2,
			Problem: "we bumped Grafana to 11.3 after the node pool upgrade; half an hour later the new grafana pod is still ContainerCreating and the old one keeps serving",
			Target:  target("Deployment", "grafana"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "grafana"}, Terms: []string{"ReadWriteOnce"}},
			Setup: func(ctx context.Context, e *Env) error {
				class := e.ClusterName("gp3")
				return steps(
					func() error {
						return e.w15bPoolNode(ctx, "pool-2024", false, w8cLabels("eks.amazonaws.com/nodegroup", "general-2024", "topology.kubernetes.io/zone", "eu-west-1a"))
					},
					func() error {
						return e.w15bPoolNode(ctx, "pool-2025", true, w8cLabels("eks.amazonaws.com/nodegroup", "general-2025", "topology.kubernetes.io/zone", "eu-west-1a"))
					},
					func() error {
						return e.createStorageClass(ctx, "gp3", "ebs.csi.aws.com", storagev1.VolumeBindingWaitForFirstConsumer)
					},
					func() error {
						return e.w15bCSIVolume(ctx, "grafana-storage", class, "grafana", "10Gi", "vol-0c4f9a7e21b3d5f68")
					},
					func() error {
						c := pvc("grafana", class, "10Gi", corev1.ReadWriteOnce)
						c.Spec.VolumeName = e.ClusterName("grafana-storage")
						return e.createPVC(ctx, c)
					},
					func() error {
						return e.createConfigMap(ctx, "grafana", map[string]string{"grafana.ini": "[server]\nroot_url = https://grafana.example.com\n[database]\ntype = sqlite3\n" +
							"[paths]\ndata = /var/lib/grafana\n[rendering]\nserver_url = http://grafana-image-renderer:8081/render\ncallback_url = http://grafana/\n"})
					},
					func() error {
						d := w8bDeployment("grafana", "grafana/grafana:10.4.2", 1, grafana, nil, "http", 3000)
						w10aMain(&d.Spec.Template, "grafana")
						w15bVolume(&d.Spec.Template, "config", "/etc/grafana", corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: "grafana"}}})
						w15bVolume(&d.Spec.Template, "storage", "/var/lib/grafana", corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "grafana"}})
						e.pin(&d.Spec.Template)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("grafana-image-renderer", "grafana/grafana-image-renderer:3.10.5", 1, renderer, nil, "http", 8081)
						w10aMain(&d.Spec.Template, "image-renderer")
						e.pin(&d.Spec.Template)
						return e.w11bServe(ctx, d, 8081)
					},
				)
			},
			// The node pool upgrade: the new pool's node is uncordoned, the old one cordoned,
			// then both Deployments get their new versions.
			Wait: w13bOnce("pool-upgrade", all(readyReplicas("grafana", 1), readyReplicas("grafana-image-renderer", 1)),
				func(ctx context.Context, e *Env) error {
					return steps(
						func() error { return e.w8cSetNodeUnschedulable(ctx, e.State["pool-2025"], false) },
						func() error { return e.w8cSetNodeUnschedulable(ctx, e.State["pool-2024"], true) },
						func() error {
							return e.updateDeployment(ctx, "grafana", func(d *appsv1.Deployment) {
								d.Spec.Template.Spec.Containers[0].Image = "grafana/grafana:11.3.1"
								d.Spec.Template.Annotations = sim("mount-fail", annMessage,
									"Unable to attach or mount volumes: unmounted volumes=[storage], unattached volumes=[config storage kube-api-access-7xk2p]: timed out waiting for the condition")
							})
						},
						func() error {
							return e.updateDeployment(ctx, "grafana-image-renderer", func(d *appsv1.Deployment) {
								d.Spec.Template.Spec.Containers[0].Image = "grafana/grafana-image-renderer:3.11.6"
							})
						},
					)
				},
				all(podEvent("FailedMount", "unmounted volumes=[storage]"), w15bRolledOut("grafana-image-renderer", 1), readyReplicas("grafana", 1))),
		},
		{
			// Required anti-affinity by hostname, three replicas on a three-node pool, and the
			// default strategy: 25% of 3 rounds maxUnavailable down to 0 and maxSurge up to 1, so
			// the rollout needs a fourth pod that no node may take; no old pod is ever removed.
			Name: "search-api-4-2-rollout-pending-pod", Covers: "the search-api 4.2 rollout never progresses: its one new pod is Pending with 'didn't match pod anti-affinity rules' on the three-node search pool; Deployment search-api (3 replicas, required podAntiAffinity on kubernetes.io/hostname, default RollingUpdate so maxUnavailable rounds to 0 and maxSurge to 1) needs a fourth node; search-indexer (2 replicas, same affinity) rolled out",
			Source: w15bSrcAntiAffinity, Class: ClassMechanism, Hops: 2,
			Problem: "search-api 4.2 has been deploying for an hour: one new pod is Pending and the three old pods are still the ones serving",
			Target:  target("Deployment", "search-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "search-api"}, Terms: []string{"maxUnavailable"}},
			Setup: func(ctx context.Context, e *Env) error {
				app := func(name, image string, replicas int32, lbl map[string]string) error {
					d := w8bDeployment(name, image, replicas, lbl, nil, "http", 8080)
					w10aMain(&d.Spec.Template, name)
					w15bAntiAffinity(&d.Spec.Template, lbl)
					e.w8cOnPool(&d.Spec.Template, "node-pool", "search")
					w8bEnv(&d.Spec.Template, "OPENSEARCH_URL", "https://opensearch.search.svc:9200", "INDEX_PREFIX", "catalog-")
					return e.w11bServe(ctx, d, 80)
				}
				return steps(
					func() error { return e.w15bPoolNode(ctx, "search-a", false, w8cLabels("node-pool", "search")) },
					func() error { return e.w15bPoolNode(ctx, "search-b", false, w8cLabels("node-pool", "search")) },
					func() error { return e.w15bPoolNode(ctx, "search-c", false, w8cLabels("node-pool", "search")) },
					func() error { return app("search-api", "registry.example/search/search-api:4.1.3", 3, search) },
					func() error { return app("search-indexer", "registry.example/search/search-indexer:4.1.3", 2, indexer) },
				)
			},
			Wait: all(
				w9bRollout("search-indexer", 2, func(d *appsv1.Deployment) {
					d.Spec.Template.Spec.Containers[0].Image = "registry.example/search/search-indexer:4.2.0"
				}, w15bRolledOut("search-indexer", 2)),
				w9bRollout("search-api", 3, func(d *appsv1.Deployment) {
					d.Spec.Template.Spec.Containers[0].Image = "registry.example/search/search-api:4.2.0"
				}, podsWith(search, unschedulable("anti-affinity"))),
			),
		},
		{
			// KEDA creates HPA keda-hpa-<scaledobject> for the Deployment; the chart's own CPU
			// HPA was left enabled. Since Kubernetes 1.26 two HPAs selecting the same pods both
			// stop with ScalingActive=False AmbiguousSelector. The fix is removing the old HPA.
			Name: "orders-worker-stuck-at-two-under-backlog", Covers: "orders-worker stays at 2 replicas under a deep queue: both HPA orders-worker (the chart's CPU autoscaler, left enabled) and KEDA's keda-hpa-orders-worker (external queue metric) report ScalingActive False AmbiguousSelector 'pods by selector ... are controlled by multiple HPAs'; orders-api's HPA only lacks metrics",
			Source: w15bSrcKedaHPA, Class: ClassRanking, Hops: 1,
			Problem: "the orders queue is 40k messages deep and orders-worker stays at 2 replicas; we moved its autoscaling to queue length last week",
			Target:  target("Deployment", "orders-worker"),
			Want:    Want{Culprit: Ref{Kind: "HorizontalPodAutoscaler", Name: "orders-worker"}, Terms: []string{"keda-hpa-orders-worker"}},
			Setup: func(ctx context.Context, e *Env) error {
				chart := func(name string) map[string]string {
					return w8cLabels("app.kubernetes.io/name", name, "app.kubernetes.io/managed-by", "Helm", "helm.sh/chart", name+"-2.7.0")
				}
				app := func(name string, lbl map[string]string, portName string) error {
					d := w8bDeployment(name, "registry.example/orders/"+name+":2.7.0", 2, lbl, nil, portName, 8080)
					w10aMain(&d.Spec.Template, name)
					w8cRequests(&d.Spec.Template, "250m", "256Mi", "", "512Mi")
					w8bEnv(&d.Spec.Template, "AMQP_URL", "amqp://orders:5672/orders", "QUEUE", "orders.created", "PREFETCH", "20")
					e.pin(&d.Spec.Template)
					return e.createDeployment(ctx, d)
				}
				return steps(
					func() error { return e.ownNode(ctx, "orders-pool") },
					func() error { return app("orders-worker", worker, "metrics") },
					func() error { return app("orders-api", ordersAPI, "http") },
					func() error {
						return e.w15bCreateHPA(ctx, "orders-worker", "orders-worker", chart("orders-worker"), 2, 10, w15bCPUMetric(70))
					},
					func() error {
						return e.w15bCreateHPA(ctx, "keda-hpa-orders-worker", "orders-worker",
							w8cLabels("app.kubernetes.io/managed-by", "keda-operator", "app.kubernetes.io/name", "keda-hpa-orders-worker", "scaledobject.keda.sh/name", "orders-worker"), 2, 30,
							autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
								Metric: autoscalingv2.MetricIdentifier{Name: "s0-rabbitmq-orders-created", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"scaledobject.keda.sh/name": "orders-worker"}}},
								Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: ptr.To(resource.MustParse("500"))},
							}})
					},
					func() error {
						return e.w15bCreateHPA(ctx, "orders-api", "orders-api", chart("orders-api"), 2, 6, w15bCPUMetric(70))
					},
				)
			},
			Wait: all(readyReplicas("orders-worker", 2), w8cHPACondition("orders-worker", autoscalingv2.ScalingActive, "AmbiguousSelector"),
				w8cHPACondition("keda-hpa-orders-worker", autoscalingv2.ScalingActive, "AmbiguousSelector"), hpaHasConditions("orders-api")),
		},
		{
			// automountServiceAccountToken is turned off by a hardening policy and the token is
			// mounted by hand as a projected volume; the hand-written volume lacks the
			// kube-root-ca.crt ConfigMap source, so client-go has no CA and every API call fails
			// TLS verification. tenant-webhook's volume, copied from the docs, has it.
			Name: "tenant-operator-restarts-since-release", Covers: "tenant-operator (client-go, controller-runtime) crash-loops: its log says 'Expected to load root CA config from /var/run/secrets/kubernetes.io/serviceaccount/ca.crt ... no such file or directory' then 'x509: certificate signed by unknown authority' listing Tenants; Deployment tenant-operator sets automountServiceAccountToken false and its hand-written projected volume has the token and namespace but no kube-root-ca.crt source (tenant-webhook's has it)",
			Source: w15bSrcRootCA, Class: ClassClue, Hops: 2,
			Problem: "new tenants are no longer provisioned since Tuesday's platform release; tenant-operator restarts every few seconds",
			Target:  target("Deployment", "tenant-operator"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "tenant-operator"}, Terms: []string{"ca.crt"}},
			Setup: func(ctx context.Context, e *Env) error {
				app := func(name string, lbl, ann map[string]string, withCA bool) error {
					d := w8bDeployment(name, "registry.example/platform/"+name+":1.19.0", 1, lbl, ann, "metrics", 8080)
					w10aMain(&d.Spec.Template, "manager", "--leader-elect", "--metrics-bind-address=:8080", "--health-probe-bind-address=:8081")
					w15bServiceAccountVolume(&d.Spec.Template, name, withCA)
					return e.createDeployment(ctx, d)
				}
				webhook := w8bLabels("tenant-webhook", "tenancy", "app.kubernetes.io/component", "webhook")
				rules := []rbacv1.PolicyRule{w13bRule("", "configmaps", "get", "list", "watch", "create", "update"), w13bRule("coordination.k8s.io", "leases", "get", "create", "update"),
					w13bRule("", "events", "create", "patch"), w13bRule("", "namespaces", "get", "list", "watch")}
				return steps(
					func() error { return e.createServiceAccount(ctx, "tenant-operator") },
					func() error { return e.createServiceAccount(ctx, "tenant-webhook") },
					func() error { return e.createRole(ctx, "tenant-operator", rules...) },
					func() error {
						return e.createRoleBinding(ctx, "tenant-operator", "Role", "tenant-operator", "tenant-operator")
					},
					func() error {
						return e.createRoleBinding(ctx, "tenant-webhook", "Role", "tenant-operator", "tenant-webhook")
					},
					func() error {
						return app("tenant-operator", tenantOp, crash("1", "", "w15b-tenant-operator-ca"), false)
					},
					func() error { return app("tenant-webhook", webhook, nil, true) },
				)
			},
			Wait: all(podsWith(tenantOp, crashLooping(2)), readyReplicas("tenant-webhook", 1)),
		},
		{
			// The log archiver lists the test pods (allowed) and then reads their logs, the
			// pods/log subresource; its Role names "pods/logs", which matches nothing, so every
			// GET .../log is refused and the Job fails.
			Name: "ci-test-logs-never-reach-bucket", Covers: "Job ci-log-archiver fails (BackoffLimitExceeded): its termination message is the Python client's ApiException (403) 'pods \"integration-tests-...\" is forbidden: User \"system:serviceaccount:<ns>:log-archiver\" cannot get resource \"pods/log\"'; Role log-archiver lists resources pods and pods/logs (a typo) instead of pods/log",
			Source: w15bSrcPodsLog, Class: ClassOutside, Hops: 2,
			Problem: "the ci-log-archiver job fails on every pipeline, so integration test logs never reach the artifacts bucket",
			Target:  target("Job", "ci-log-archiver"),
			Want:    Want{Culprit: Ref{Kind: "Role", Name: "log-archiver"}, Terms: []string{"pods/log"}},
			Setup: func(ctx context.Context, e *Env) error {
				msg := `kubernetes.client.exceptions.ApiException: (403) Reason: Forbidden: pods "integration-tests-4k9xq" is forbidden: User "system:serviceaccount:` +
					e.Namespace + `:log-archiver" cannot get resource "pods/log" in API group "" in the namespace "` + e.Namespace + `"`
				return steps(
					func() error { return e.createServiceAccount(ctx, "log-archiver") },
					func() error {
						return e.createRole(ctx, "log-archiver", w13bRule("", "pods", "get", "list", "watch"), w13bRule("", "pods/logs", "get", "list"),
							w13bRule("batch", "jobs", "get", "list"))
					},
					func() error { return e.createRoleBinding(ctx, "log-archiver", "Role", "log-archiver", "log-archiver") },
					// The CI runner starts each pipeline's test pod itself (no Job owns it).
					func() error {
						t := template("integration-tests", "registry.example/ci/integration-tests:8812", sim("complete"))
						t.Spec.RestartPolicy = corev1.RestartPolicyNever
						t.Spec.Containers[0].Ports = nil
						return e.w14aCreatePods(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "integration-tests-4k9xq",
							Labels: map[string]string{"app": "integration-tests", "ci.example.com/pipeline": "8812"}, Annotations: t.Annotations}, Spec: t.Spec})
					},
					func() error {
						j := job("ci-log-archiver", 1, sim("fail", annExitCode, "1", annMessage, msg, annLogs, "w15b-ci-log-archiver"))
						j.Spec.Template.Spec.ServiceAccountName = "log-archiver"
						j.Spec.Template.Spec.Containers[0].Name = "archiver"
						j.Spec.Template.Spec.Containers[0].Image = "registry.example/ci/log-archiver:0.9.2"
						j.Spec.Template.Spec.Containers[0].Args = []string{"--selector=ci.example.com/pipeline=8812", "--bucket=s3://acme-ci-artifacts/logs"}
						return e.w9aJob(ctx, j)
					},
				)
			},
			Wait: all(podsWith(map[string]string{"app": "integration-tests"}, w15bSucceeded), w11aJobFailed("ci-log-archiver", "BackoffLimitExceeded")),
		},
	}
}
