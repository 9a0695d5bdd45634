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

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

const (
	srcW7LimitRange  = "k8s-docs/concepts/policy/limit-range.md"
	srcW7Images      = "k8s-docs/concepts/containers/images.md"
	srcW7StsReplicas = "runbooks/kubernetes/KubeStatefulSetReplicasMismatch.md"
	srcW7TTL         = "k8s-docs/concepts/workloads/controllers/ttlafterfinished.md"
	srcW7Ingress     = "k8s-docs/concepts/services-networking/ingress.md"
	srcW7Ephemeral   = "k8s-docs/concepts/storage/ephemeral-volumes.md"
	srcW7Resources   = "k8s-docs/concepts/configuration/manage-resources-containers.md"
	srcW7Disruptions = "k8s-docs/concepts/workloads/pods/disruptions.md"
)

// createIngressClassNamed creates IngressClass ClusterName(name) for controller, removed by Cleanup.
func (e *Env) createIngressClassNamed(ctx context.Context, name, controller string) error {
	ic := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: e.ClusterName(name), Labels: map[string]string{LabelScenario: e.Namespace}},
		Spec: networkingv1.IngressClassSpec{Controller: controller}}
	if _, err := e.Client.NetworkingV1().IngressClasses().Create(ctx, ic, metav1.CreateOptions{}); err != nil {
		return wrap("IngressClass", ic.Name, err)
	}
	e.onCleanup(func(ctx context.Context) error {
		return ignoreNotFound(e.Client.NetworkingV1().IngressClasses().Delete(ctx, ic.Name, metav1.DeleteOptions{}))
	})
	return nil
}

// cpuRange sets a CPU request and a different CPU limit on the first container.
func cpuRange(t *corev1.PodTemplateSpec, request, limit string) {
	t.Spec.Containers[0].Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(request)},
		Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(limit)},
	}
}

func wave7aMoreScenarios() []*Scenario {
	return []*Scenario{
		{
			// configure-service-account / RBAC: exec opens a connection with create on the
			// pods/exec subresource; the on-call Role grants get.
			Name: "oncall-debugger-exec-verb-get", Covers: "RBAC question: kubectl exec as oncall-debugger is forbidden: its Role grants get on pods/exec, exec needs create",
			Source: srcW7ServiceAcct, Class: ClassOutside, Hops: 2,
			Problem: "kubectl exec into the checkout pods fails with forbidden for the oncall-debugger service account", Target: target("ServiceAccount", "oncall-debugger"),
			Want: Want{Culprit: Ref{Kind: "Role", Name: "oncall-debug"}, Terms: []string{"create", "pods/exec"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "oncall-debugger") },
					func() error {
						return e.createRole(ctx, "oncall-debug",
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods", "pods/log"}, Verbs: []string{"get", "list", "watch"}},
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods/exec", "pods/portforward"}, Verbs: []string{"get"}})
					},
					func() error {
						return e.createRoleBinding(ctx, "oncall-debug", "Role", "oncall-debug", "oncall-debugger")
					},
					func() error {
						return e.createDeployment(ctx, deployment("checkout", "registry.example/shop/checkout:9.1.0", 2, nil))
					},
				)
			},
			Wait: readyReplicas("checkout", 2),
		},
		{
			// limit-range: maxLimitRequestRatio rejects the pods of two workloads that share a
			// chart's resources (100m request, 2 CPU limit: ratio 20 over 4).
			Name: "search-limitrange-cpu-ratio", Covers: "the search Ingress answers 503 and the reindex Job has no pods: both are refused by the LimitRange's CPU maxLimitRequestRatio 4 (they ask 100m with a 2-CPU limit)",
			Source: srcW7LimitRange, Class: ClassRanking, Hops: 2,
			Problem: "search is down and the nightly reindex didn't run", Target: target("Ingress", "search"),
			Want: Want{Culprit: Ref{Kind: "LimitRange", Name: "container-limits"}, Terms: []string{"ratio"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						_, err := e.Client.CoreV1().LimitRanges(e.Namespace).Create(ctx, &corev1.LimitRange{
							ObjectMeta: metav1.ObjectMeta{Name: "container-limits"},
							Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
								Type:                 corev1.LimitTypeContainer,
								MaxLimitRequestRatio: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")},
							}}},
						}, metav1.CreateOptions{})
						return wrap("LimitRange", "container-limits", err)
					},
					func() error {
						d := deployment("autocomplete", "registry.example/search/autocomplete:1.3.0", 1, nil)
						cpuRange(&d.Spec.Template, "250m", "500m")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := deployment("search-api", "registry.example/search/api:7.4.0", 2, nil)
						cpuRange(&d.Spec.Template, "100m", "2")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createServiceOn(ctx, "search-api", "search-api", 80, intstr.FromString("http")) },
					func() error { return e.createIngress(ctx, ingress("search", "search-api", 80)) },
					func() error {
						j := job("search-reindex", 2, nil)
						cpuRange(&j.Spec.Template, "100m", "2")
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
						return wrap("Job", j.Name, err)
					},
				)
			},
			Wait: all(deploymentCondition("search-api", appsv1.DeploymentReplicaFailure, "FailedCreate"),
				objectEvent("Job", "search-reindex", "FailedCreate", "ratio")),
		},
		{
			// dns-pod-service: a headless Service publishes a pod's DNS record only once it is
			// ready, unless publishNotReadyAddresses is set; CockroachDB peers must resolve
			// each other before any of them is ready.
			Name: "crdb-peers-headless-not-ready", Covers: "ledger-api is not ready on connection refused to crdb-public; the crdb pods are not ready and only their logs say the peers do not resolve: the headless Service lacks publishNotReadyAddresses",
			Source: srcW7DNSPodService, Class: ClassProvider, Hops: 3,
			Problem: "the ledger API has been unavailable since we recreated the database cluster", Target: target("Deployment", "ledger-api"),
			Want: Want{Culprit: Ref{Kind: "Service", Name: "crdb"}, Terms: []string{"publishNotReadyAddresses"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						s := plainStatefulSet("crdb", "cockroachdb/cockroach:v23.2.3", 3, readinessFail("crdb-join-no-such-host"))
						s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
						port(&s.Spec.Template, "grpc", 26257)
						s.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/health?ready=1")
						return e.createStatefulSet(ctx, s)
					},
					func() error {
						s := service("crdb", map[string]string{"app": "crdb"}, intstr.FromString("grpc"))
						s.Spec.ClusterIP = corev1.ClusterIPNone
						s.Spec.Ports[0].Name, s.Spec.Ports[0].Port = "grpc", 26257
						return e.createService(ctx, s)
					},
					func() error { return e.createServiceOn(ctx, "crdb-public", "crdb", 26257, intstr.FromString("grpc")) },
					func() error {
						d := deployment("ledger-api", "registry.example/finance/ledger-api:2.11.0", 1, readinessFail("ledger-api-crdb-refused"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/readyz")
						return e.createDeployment(ctx, env(d, "DATABASE_URL", "postgresql://ledger@crdb-public:26257/ledger?sslmode=disable"))
					},
				)
			},
			Wait: all(anyPod("ledger-api", runningNotReady), anyPod("crdb", runningNotReady)),
		},
		{
			// images / configure-service-account: imagePullSecrets on a ServiceAccount are
			// copied into its pods; the name it lists is not the Secret's.
			Name: "payments-sa-pull-secret-renamed", Covers: "payments-api is in ImagePullBackOff (401) on the private registry: its ServiceAccount lists imagePullSecret harbor-robot, the Secret is harbor-robot-token",
			Source: srcW7Images, Class: ClassReference, Hops: 2,
			Problem: "the payments deploy is stuck, pods never start", Target: target("Deployment", "payments-api"),
			Want: Want{Culprit: Ref{Kind: "Secret", Name: "harbor-robot"}, Also: []Ref{{Kind: "ServiceAccount", Name: "payments-runtime"}}, Terms: []string{"harbor-robot"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						_, err := e.Client.CoreV1().Secrets(e.Namespace).Create(ctx, &corev1.Secret{
							ObjectMeta: metav1.ObjectMeta{Name: "harbor-robot-token"}, Type: corev1.SecretTypeDockerConfigJson,
							StringData: map[string]string{corev1.DockerConfigJsonKey: `{"auths":{"registry.private.example":{"auth":"cm9ib3QkcGF5bWVudHM6cGxhY2Vob2xkZXI="}}}`},
						}, metav1.CreateOptions{})
						return wrap("Secret", "harbor-robot-token", err)
					},
					func() error {
						_, err := e.Client.CoreV1().ServiceAccounts(e.Namespace).Create(ctx, &corev1.ServiceAccount{
							ObjectMeta:       metav1.ObjectMeta{Name: "payments-runtime"},
							ImagePullSecrets: []corev1.LocalObjectReference{{Name: "harbor-robot"}},
						}, metav1.CreateOptions{})
						return wrap("ServiceAccount", "payments-runtime", err)
					},
					func() error {
						d := deployment("payments-api", "registry.private.example/payments/api:4.2.0", 2, sim("image-pull-auth"))
						d.Spec.Template.Spec.ServiceAccountName = "payments-runtime"
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createDeployment(ctx, deployment("fx-rates", "registry.example/payments/fx-rates:1.0.7", 1, nil))
					},
				)
			},
			Wait: anyPod("payments-api", waiting("ErrImagePull", "ImagePullBackOff")),
		},
		{
			// KubeStatefulSetReplicasMismatch: the Redis StatefulSet's only pod is Pending on a
			// nodeSelector no node satisfies; two consumers fail in different ways.
			Name: "redis-disktype-selector-two-consumers", Covers: "cart crash-loops on connection refused and sessions is not ready (log: ECONNREFUSED); both use the redis Service, whose StatefulSet pod is Pending on nodeSelector disktype=ssd",
			Source: srcW7StsReplicas, Class: ClassRanking, Hops: 3,
			Problem: "cart and login are both broken since this morning", Target: target("Deployment", "cart"),
			Want: Want{Culprit: Ref{Kind: "StatefulSet", Name: "redis"}, Terms: []string{"disktype"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						s := plainStatefulSet("redis", "redis:7.2.4", 1, nil)
						s.Spec.ServiceName = "redis-headless"
						port(&s.Spec.Template, "redis", 6379)
						s.Spec.Template.Spec.NodeSelector = map[string]string{"disktype": "ssd"}
						return e.createStatefulSet(ctx, s)
					},
					func() error {
						h := service("redis-headless", map[string]string{"app": "redis"}, intstr.FromString("redis"))
						h.Spec.ClusterIP = corev1.ClusterIPNone
						h.Spec.Ports[0].Name, h.Spec.Ports[0].Port = "redis", 6379
						return e.createService(ctx, h)
					},
					func() error { return e.createServiceOn(ctx, "redis", "redis", 6379, intstr.FromString("redis")) },
					func() error {
						msg := "cart: session store: " + refused(e.clusterIP(ctx, "redis"), 6379)
						return e.createDeployment(ctx, env(deployment("cart", "registry.example/shop/cart:3.3.1", 1, crash("1", msg, "")), "REDIS_ADDR", "redis:6379"))
					},
					func() error {
						d := deployment("sessions", "registry.example/shop/sessions:4.0.3", 1, readinessFail("sessions-redis-refused"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/ready")
						return e.createDeployment(ctx, env(d, "REDIS_HOST", "redis", "REDIS_PORT", "6379"))
					},
					func() error {
						return e.createDeployment(ctx, deployment("catalog", "registry.example/shop/catalog:8.0.0", 1, nil))
					},
				)
			},
			Wait: all(anyPod("redis", unschedulable("node affinity/selector")), anyPod("cart", crashLooping(1)), anyPod("sessions", runningNotReady)),
		},
		{
			// ttlafterfinished: finished Jobs stay until deleted; six left over from a backfill
			// fill the count/jobs.batch quota and the CronJob cannot create its run.
			Name: "reconcile-cronjob-jobs-quota-full", Covers: "a CronJob's runs fail to be created: count/jobs.batch 6 of 6 in the ResourceQuota is used by six finished backfill Jobs without ttlSecondsAfterFinished",
			Source: srcW7TTL, Class: ClassMechanism, Hops: 1, Slow: true,
			Problem: "the ledger reconciliation has not run today", Target: target("CronJob", "ledger-reconcile"),
			Want: Want{Culprit: Ref{Kind: "ResourceQuota", Name: "batch-quota"}, Terms: []string{"count/jobs.batch"}},
			Setup: func(ctx context.Context, e *Env) error {
				var fs []func() error
				for i := 1; i <= 6; i++ {
					name := fmt.Sprintf("backfill-2026-01-0%d", i)
					fs = append(fs, func() error {
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, job(name, 0, nil), metav1.CreateOptions{})
						return wrap("Job", name, err)
					})
				}
				fs = append(fs,
					func() error {
						return e.createQuota(ctx, "batch-quota", corev1.ResourceList{"count/jobs.batch": resource.MustParse("6"), corev1.ResourcePods: resource.MustParse("20")})
					},
					func() error { return e.createCronJob(ctx, "ledger-reconcile", "* * * * *", false, nil) },
				)
				return steps(fs...)
			},
			Wait: objectEvent("CronJob", "ledger-reconcile", "FailedCreate", "exceeded quota"),
		},
		{
			// ingress: an Ingress is served only by the controller of the IngressClass it names;
			// nothing serves a class that does not exist.
			Name: "marketing-ingressclass-internal-typo", Covers: "the marketing site is unreachable: its Ingress names IngressClass nginx-internal, which does not exist (the cluster has nginx)",
			Source: srcW7Ingress, Class: ClassReference, Hops: 1,
			Problem: "the new marketing site is unreachable, its Ingress never got an address", Target: target("Ingress", "marketing-site"),
			Want: Want{Culprit: Ref{Kind: "IngressClass", Name: "nginx-internal", Cluster: true}, Also: []Ref{{Kind: "Ingress", Name: "marketing-site"}}, Terms: []string{"nginx-internal"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createIngressClassNamed(ctx, "nginx", "k8s.io/ingress-nginx") },
					func() error {
						return e.createBackend(ctx, "marketing-web", "registry.example/web/marketing:2026.02.1", 80, 8080)
					},
					func() error {
						return e.createIngress(ctx, ingressWithClass("marketing-site", "marketing-web", e.ClusterName("nginx-internal")))
					},
					func() error { return e.createBackend(ctx, "docs-web", "registry.example/web/docs:5.0.0", 80, 8080) },
					func() error {
						return e.createIngress(ctx, ingressWithClass("docs", "docs-web", e.ClusterName("nginx")))
					},
				)
			},
			Wait: all(anyPod("marketing-web", runningReady), anyPod("docs-web", runningReady)),
		},
		{
			// ephemeral-volumes: a generic ephemeral volume's claim is created per pod from
			// the template; its StorageClass does not exist, so the claim never binds.
			Name: "ci-runner-ephemeral-class-missing", Covers: "CI runner pods stay Pending on unbound claims: the generic ephemeral volume's claim template names StorageClass scratch-nvme, which does not exist (standard does)",
			Source: srcW7Ephemeral, Class: ClassReference, Hops: 2,
			Problem: "CI jobs are queued forever, the runners never start", Target: target("Deployment", "ci-runner"),
			Want: Want{Culprit: Ref{Kind: "StorageClass", Name: "scratch-nvme", Cluster: true}, Also: []Ref{{Kind: "Deployment", Name: "ci-runner"}}, Terms: []string{"scratch-nvme"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createStorageClass(ctx, "standard", "ebs.csi.aws.com", storagev1.VolumeBindingWaitForFirstConsumer)
					},
					func() error {
						d := deployment("ci-runner", "registry.example/ci/runner:17.8.0", 2, nil)
						d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
							VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: corev1.PersistentVolumeClaimSpec{
								AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
								StorageClassName: ptr.To(e.ClusterName("scratch-nvme")),
								Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("20Gi")}},
							}},
						}}}}
						d.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "scratch", MountPath: "/builds"}}
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createDeployment(ctx, deployment("ci-coordinator", "registry.example/ci/coordinator:17.8.0", 1, nil))
					},
				)
			},
			Wait: anyPod("ci-runner", unschedulable("unbound")),
		},
		{
			// manage-resources-containers: the container has a 2Gi limit, but Node's heap is
			// capped at 256 MB by NODE_OPTIONS; V8 aborts (exit 134), no OOMKill.
			Name: "ssr-renderer-node-heap-cap", Covers: "the storefront Ingress has no ready backend: ssr-renderer crash-loops with exit 134 'JavaScript heap out of memory' while its limit is 2Gi: NODE_OPTIONS sets --max-old-space-size=256",
			Source: srcW7Resources, Class: ClassMechanism, Hops: 2,
			Problem: "storefront pages time out since the SSR release", Target: target("Ingress", "storefront"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "ssr-renderer"}, Terms: []string{"max-old-space-size"}},
			Setup: func(ctx context.Context, e *Env) error {
				msg := "<--- Last few GCs --->\n[1:0x6a3c8a0]    42311 ms: Mark-Compact 252.0 (259.1) -> 251.6 (260.4) MB, 481.20 / 0.00 ms  (average mu = 0.078, current mu = 0.016) allocation failure; scavenge might not succeed\n\n" +
					"<--- JS stacktrace --->\n\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n"
				return steps(
					func() error {
						d := deployment("ssr-renderer", "registry.example/shop/storefront-ssr:5.8.0", 2, crash("134", msg, "ssr-renderer-heap"))
						d.Spec.Template.Spec.Containers[0].Ports[0].ContainerPort = 3000
						memoryOnly(&d.Spec.Template, 0, "2Gi")
						return e.createDeployment(ctx, env(d, "NODE_ENV", "production", "NODE_OPTIONS", "--max-old-space-size=256 --enable-source-maps"))
					},
					func() error { return e.createServiceOn(ctx, "ssr", "ssr-renderer", 80, intstr.FromString("http")) },
					func() error { return e.createIngress(ctx, ingress("storefront", "ssr", 80)) },
					func() error {
						return e.createBackend(ctx, "storefront-api", "registry.example/shop/storefront-api:12.1.0", 80, 8080)
					},
				)
			},
			Wait: anyPod("ssr-renderer", crashLooping(1)),
		},
		{
			// disruptions: a PodDisruptionBudget protects the pods its selector matches; after
			// the chart moved to app.kubernetes.io labels it matches none, so drains evict all.
			Name: "checkout-pdb-selector-old-labels", Covers: "question after a drain took every checkout pod at once: the checkout PodDisruptionBudget selects app=checkout, the pods are labelled app.kubernetes.io/name=checkout, so it protects no pod",
			Source: srcW7Disruptions, Class: ClassOutside, Hops: 1,
			Problem: "last night's node drain evicted all checkout pods at once even though we have a PDB", Target: target("PodDisruptionBudget", "checkout"),
			Want: Want{Culprit: Ref{Kind: "PodDisruptionBudget", Name: "checkout"}, Terms: []string{"selector"}},
			Setup: func(ctx context.Context, e *Env) error {
				lbl := map[string]string{"app.kubernetes.io/name": "checkout", "app.kubernetes.io/instance": "checkout-prod"}
				return steps(
					func() error {
						d := labelledDeployment("checkout", "registry.example/shop/checkout:9.1.0", lbl, nil)
						d.Spec.Replicas = ptr.To[int32](3)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createPDB(ctx, "checkout", 2, map[string]string{"app": "checkout"}) },
					func() error {
						return e.createDeployment(ctx, deployment("payments-gw", "registry.example/shop/payments-gw:3.0.2", 2, nil))
					},
					func() error { return e.createPDB(ctx, "payments-gw", 1, map[string]string{"app": "payments-gw"}) },
				)
			},
			Wait: all(podsWith(map[string]string{"app.kubernetes.io/name": "checkout"}, runningReady),
				objectEvent("PodDisruptionBudget", "checkout", "NoPods", "No matching pods")),
		},
	}
}
