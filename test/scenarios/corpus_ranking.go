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
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Class 1: one fault, several visible problems; the finding that explains the others must win.

const (
	srcHPAMismatch     = "runbooks/kubernetes/KubeHpaReplicasMismatch.md"
	srcQuotaFullyUsed  = "runbooks/kubernetes/KubeQuotaFullyUsed.md"
	srcStsMismatch     = "runbooks/kubernetes/KubeStatefulSetReplicasMismatch.md"
	srcNodeUnreachable = "runbooks/kubernetes/KubeNodeUnreachable.md"
	srcDeployMismatch  = "runbooks/kubernetes/KubeDeploymentReplicasMismatch.md"
	srcDebugApp        = "k8s-docs/tasks/debug/debug-application/_index.md"
)

func rankingScenarios() []*Scenario {
	return []*Scenario{
		{
			Name: "quota-blocks-hpa-scale-up", Covers: "HPA cannot reach its minimum and the Deployment reports FailedCreate; a pods ResourceQuota is the cause",
			Source: srcHPAMismatch, Class: ClassRanking, Hops: 3,
			Problem: "web autoscaling is stuck at 3 pods", Target: target("HorizontalPodAutoscaler", "web"),
			Want: Want{Culprit: Ref{Kind: "ResourceQuota", Name: "team-compute"}, Terms: []string{"team-compute", "quota"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createQuota(ctx, "team-compute", corev1.ResourceList{corev1.ResourcePods: resource.MustParse("3")})
					},
					func() error {
						d := deployment("web", "example/web:14.2", 3, nil)
						limits(&d.Spec.Template, "100m", "128Mi")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createHPA(ctx, "web", "web", 5, 10) },
				)
			},
			Wait: deploymentCondition("web", appsv1.DeploymentReplicaFailure, "FailedCreate"),
		},
		{
			Name: "shared-configmap-deleted", Covers: "three workloads fail at once; the ConfigMap they all load was deleted",
			Source: srcContainerWaiting, Class: ClassRanking, Hops: 2,
			Problem: "everything in this namespace is broken since the cleanup",
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "platform-env"}, Terms: []string{"platform-env"}},
			Setup: func(ctx context.Context, e *Env) error {
				for _, n := range []string{"api", "worker", "scheduler"} {
					d := deployment(n, "example/"+n+":6.1", 1, sim("create-config-error"))
					envFromConfigMap(&d.Spec.Template, "platform-env")
					if err := e.createDeployment(ctx, d); err != nil {
						return err
					}
				}
				return nil
			},
			Wait: all(anyPod("api", waiting("CreateContainerConfigError")), anyPod("worker", waiting("CreateContainerConfigError")), anyPod("scheduler", waiting("CreateContainerConfigError"))),
		},
		{
			Name: "postgres-oom-takes-down-consumers", Covers: "two consumers crash on connection refused; the database they share is OOMKilled",
			Source: srcCrashLoop, Class: ClassRanking, Hops: 3,
			Problem: "api and worker both crash-loop", Target: target("Deployment", "api"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "postgres"}, Terms: []string{"OOMKilled", "256Mi"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := deployment("postgres", "postgres:16", 1, sim("oomkill", annLogs, "postgres-oom"))
						memoryOnly(&d.Spec.Template, 0, "256Mi")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createServiceOn(ctx, "postgres", "postgres", 5432, intstr.FromString("http")) },
					func() error {
						msg := fmt.Sprintf("failed to connect to `host=postgres user=app database=app`: dial error (%s)", refused(e.clusterIP(ctx, "postgres"), 5432))
						for _, n := range []string{"api", "worker"} {
							if err := e.createDeployment(ctx, env(deployment(n, "example/"+n+":2.0", 1, crash("1", msg, "app-postgres-refused")), "DB_HOST", "postgres")); err != nil {
								return err
							}
						}
						return nil
					},
				)
			},
			Wait: all(anyPod("api", crashLooping(3)), anyPod("postgres", restartedWith("OOMKilled", 137))),
		},
		{
			Name: "quota-memory-stalls-rollout", Covers: "a rollout exceeds its progress deadline; the surge pod does not fit the memory ResourceQuota",
			Source: srcQuotaFullyUsed, Class: ClassRanking, Hops: 2,
			Problem: "the api rollout to 3.2 hangs", Target: target("Deployment", "api"),
			Want: Want{Culprit: Ref{Kind: "ResourceQuota", Name: "team-memory"}, Terms: []string{"team-memory", "1Gi"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createQuota(ctx, "team-memory", corev1.ResourceList{corev1.ResourceRequestsMemory: resource.MustParse("1Gi"), corev1.ResourceLimitsMemory: resource.MustParse("1Gi")})
					},
					func() error {
						d := deployment("api", "example/api:3.1", 2, nil)
						memoryOnly(&d.Spec.Template, 0, "400Mi")
						d.Spec.ProgressDeadlineSeconds = ptr.To[int32](10)
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["rolled"] == "" {
					d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, "api", metav1.GetOptions{})
					if err != nil {
						return err
					}
					if d.Status.AvailableReplicas < 2 {
						return errors.New("3.1 not available yet")
					}
					d.Spec.Template.Spec.Containers[0].Image = "example/api:3.2"
					if _, err := e.Client.AppsV1().Deployments(e.Namespace).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
						return err
					}
					e.State["rolled"] = "yes"
				}
				return deploymentCondition("api", appsv1.DeploymentProgressing, "ProgressDeadlineExceeded")(ctx, e)
			},
		},
		{
			Name: "db-secret-missing-app-and-job", Covers: "a Deployment and a Job both wait in CreateContainerConfigError; one Secret is missing",
			Source: srcContainerWaiting, Class: ClassRanking, Hops: 2,
			Problem: "the release is broken: app down and migrations stuck",
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "db-credentials"}, Terms: []string{"db-credentials"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := deployment("app", "example/app:7.0", 1, sim("create-config-error"))
						envFromSecret(&d.Spec.Template, "db-credentials")
						return e.createDeployment(ctx, d)
					},
					func() error {
						j := job("migrate", 2, sim("create-config-error"))
						envFromSecret(&j.Spec.Template, "db-credentials")
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
						return wrap("Job", j.Name, err)
					},
				)
			},
			Wait: all(anyPod("app", waiting("CreateContainerConfigError")), anyPod("migrate", waiting("CreateContainerConfigError"))),
		},
		{
			Name: "storageclass-missing-cascade", Covers: "app crash-loops on connection refused → db Service has no endpoints → db-0 Pending → its claim names a missing StorageClass",
			Source: srcStsMismatch, Class: ClassRanking, Hops: 4,
			Problem: "the app has been down since the cluster migration", Target: target("Deployment", "app"),
			Want: Want{Culprit: Ref{Kind: "StorageClass", Name: "standard-rwo", Cluster: true}, Terms: []string{"{ns}-standard-rwo"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createService(ctx, service("db", map[string]string{"app": "db"}, intstr.FromString("http")))
					},
					func() error {
						return e.createStatefulSet(ctx, statefulSet("db", "postgres:16", pvc("data", e.ClusterName("standard-rwo"), "20Gi", corev1.ReadWriteOnce)))
					},
					func() error {
						msg := fmt.Sprintf("failed to connect to `host=db user=app database=app`: dial error (%s)", refused(e.clusterIP(ctx, "db"), 80))
						return e.createDeployment(ctx, env(deployment("app", "example/app:5.0", 1, crash("1", msg, "app-db-refused")), "DB_HOST", "db", "DB_PORT", "80"))
					},
				)
			},
			Wait: all(anyPod("app", crashLooping(3)), pvcPending("data-db-0")),
		},
		{
			Name: "three-tier-auth-crash", Covers: "frontend and api not ready; the auth service at the end of the chain crash-loops on a missing setting",
			Source: srcDebugApp, Class: ClassRanking, Hops: 4,
			Problem: "the site is down", Target: target("Deployment", "frontend"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "auth"}, Terms: []string{"JWT_SIGNING_KEY"}},
			Setup: func(ctx context.Context, e *Env) error {
				notReady := func(name, image, upstreamEnv, upstream, logs string) error {
					d := deployment(name, image, 1, sim("readiness-fail", annMessage, "HTTP probe failed with statuscode: 503", annLogs, logs))
					d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/ready")
					if err := e.createDeployment(ctx, env(d, upstreamEnv, upstream)); err != nil {
						return err
					}
					return e.createServiceOn(ctx, name, name, 80, intstr.FromString("http"))
				}
				return steps(
					func() error {
						return e.createDeployment(ctx, deployment("auth", "example/auth:6.1", 1, crash("1", "config: missing required setting JWT_SIGNING_KEY", "auth-missing-key")))
					},
					func() error { return e.createServiceOn(ctx, "auth", "auth", 80, intstr.FromString("http")) },
					func() error { return notReady("api", "example/api:3.1", "AUTH_URL", "http://auth", "api-auth-503") },
					func() error {
						return notReady("frontend", "example/frontend:7.2", "API_URL", "http://api", "frontend-api-503")
					},
				)
			},
			Wait: all(anyPod("auth", crashLooping(3)), anyPod("frontend", runningNotReady), anyPod("api", runningNotReady)),
		},
		{
			Name: "ingress-web-catalog-netpol", Covers: "Ingress 503 → web not ready → web times out calling catalog → catalog's NetworkPolicy admits only the api",
			Source: srcNetpol, Class: ClassRanking, Hops: 4,
			Problem: "www.example.com returns 503", Target: target("Ingress", "www"),
			Want: Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "catalog-allow-api"}, Terms: []string{"catalog-allow-api"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "catalog", "example/catalog:2.4", 80, 8080) },
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "catalog-allow-api"},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "catalog"}},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
								Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{
									PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}},
								}}}},
							},
						})
					},
					func() error {
						d := deployment("web", "example/web:15.0", 2, sim("readiness-fail", annMessage,
							"HTTP probe failed with statuscode: 503", annLogs, "web-catalog-timeout"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/ready")
						return e.createDeployment(ctx, env(d, "CATALOG_URL", "http://catalog"))
					},
					func() error { return e.createServiceOn(ctx, "web", "web", 80, intstr.FromString("http")) },
					func() error { return e.createIngress(ctx, ingress("www", "web", 80)) },
				)
			},
			Wait: all(anyPod("web", runningNotReady), podEvent("Unhealthy", "Readiness probe failed")),
		},
		{
			Name: "pvc-missing-stalls-rollout", Covers: "a rollout hangs with one new pod Pending; the claim the new version mounts does not exist",
			Source: srcDeployMismatch, Class: ClassRanking, Hops: 2,
			Problem: "reports 2.0 is not rolling out", Target: target("Deployment", "reports"),
			Want: Want{Culprit: Ref{Kind: "PersistentVolumeClaim", Name: "reports-cache"}, Terms: []string{"reports-cache"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := deployment("reports", "example/reports:1.9", 2, nil)
				d.Spec.ProgressDeadlineSeconds = ptr.To[int32](10)
				return e.createDeployment(ctx, d)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["rolled"] == "" {
					d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, "reports", metav1.GetOptions{})
					if err != nil {
						return err
					}
					if d.Status.AvailableReplicas < 2 {
						return errors.New("1.9 not available yet")
					}
					d.Spec.Template.Spec.Containers[0].Image = "example/reports:2.0"
					claimVolume(&d.Spec.Template, "reports-cache")
					if _, err := e.Client.AppsV1().Deployments(e.Namespace).Update(ctx, d, metav1.UpdateOptions{}); err != nil {
						return err
					}
					e.State["rolled"] = "yes"
				}
				return deploymentCondition("reports", appsv1.DeploymentProgressing, "ProgressDeadlineExceeded")(ctx, e)
			},
		},
		{
			Name: "node-lost-takes-two-apps", Covers: "a Service loses its endpoints and a second app stops; both ran on a node that stopped reporting",
			Source: srcNodeUnreachable, Class: ClassRanking, Hops: 3, Slow: true,
			Problem: "api and cache went down together", Target: target("Service", "api"),
			Want: Want{Culprit: Ref{Kind: "Node", Name: "worker-a", Cluster: true}, Terms: []string{"{ns}-worker-a"}},
			Setup: func(ctx context.Context, e *Env) error {
				if _, err := e.startSimNode(ctx, nodeSpec{name: "worker-a"}); err != nil {
					return err
				}
				for _, n := range []string{"api", "cache"} {
					d := deployment(n, "example/"+n+":1.0", 1, nil)
					e.pin(&d.Spec.Template)
					if err := e.createDeployment(ctx, d); err != nil {
						return err
					}
				}
				return e.createServiceOn(ctx, "api", "api", 80, intstr.FromString("http"))
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["dead"] == "" {
					if err := all(anyPod("api", runningReady), anyPod("cache", runningReady))(ctx, e); err != nil {
						return err
					}
					e.sim("worker-a").Stop()
					e.State["dead"] = "yes"
				}
				return all(anyPod("api", runningNotReady), anyPod("cache", runningNotReady))(ctx, e)
			},
		},
		{
			Name: "configmap-missing-behind-ingress-hpa", Covers: "Ingress 503, Service without endpoints and an HPA without metrics; the pods wait on a missing ConfigMap",
			Source: srcDebugApp, Class: ClassRanking, Hops: 4,
			Problem: "shop.example.com is down and autoscaling shows errors", Target: target("Ingress", "shop"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "shop-config"}, Terms: []string{"shop-config"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := deployment("shop", "example/shop:10.0", 2, sim("create-config-error"))
						envFromConfigMap(&d.Spec.Template, "shop-config")
						limits(&d.Spec.Template, "200m", "256Mi")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createServiceOn(ctx, "shop", "shop", 80, intstr.FromString("http")) },
					func() error { return e.createIngress(ctx, ingress("shop", "shop", 80)) },
					func() error { return e.createHPA(ctx, "shop", "shop", 2, 6) },
				)
			},
			Wait: anyPod("shop", waiting("CreateContainerConfigError")),
		},
		{
			Name: "quota-pods-starves-job", Covers: "a Job creates no pods while the Deployment beside it looks healthy; it has used the whole pods ResourceQuota",
			Source: "runbooks/kubernetes/KubeQuotaExceeded.md", Class: ClassRanking, Hops: 1,
			Problem: "the nightly report job never starts", Target: target("Job", "nightly-report"),
			Want: Want{Culprit: Ref{Kind: "ResourceQuota", Name: "pod-count"}, Terms: []string{"pod-count", "pods"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createQuota(ctx, "pod-count", corev1.ResourceList{corev1.ResourcePods: resource.MustParse("2")})
					},
					func() error { return e.createDeployment(ctx, deployment("web", "nginx:1.27", 2, nil)) },
					func() error {
						return poll(ctx, setupWait, func() error { return anyPodCount(ctx, e, "web", 2) })
					},
					func() error {
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, job("nightly-report", 1, nil), metav1.CreateOptions{})
						return wrap("Job", "nightly-report", err)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				return podEventOn(ctx, e, "Job", "FailedCreate", "exceeded quota")
			},
		},
		{
			Name: "regcred-deleted-three-apps", Covers: "three Deployments of a private registry stuck in ImagePullBackOff; the pull Secret they share was deleted",
			Source: srcPullPrivate, Class: ClassRanking, Hops: 2,
			Problem: "after the namespace cleanup nothing can pull images",
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "regcred"}, Terms: []string{"regcred"}},
			Setup: func(ctx context.Context, e *Env) error {
				for _, n := range []string{"api", "web", "worker"} {
					d := deployment(n, "registry.private.example/shop/"+n+":4.0", 1, sim("image-pull-auth"))
					d.Spec.Template.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "regcred"}}
					if err := e.createDeployment(ctx, d); err != nil {
						return err
					}
				}
				return nil
			},
			Wait: all(anyPod("api", waiting("ErrImagePull", "ImagePullBackOff")), anyPod("worker", waiting("ErrImagePull", "ImagePullBackOff"))),
		},
	}
}

// anyPodCount succeeds once app has n pods.
func anyPodCount(ctx context.Context, e *Env, app string, n int) error {
	pods, err := e.pods(ctx, app)
	if err != nil {
		return err
	}
	if len(pods) < n {
		return fmt.Errorf("%d of %d pods of %s", len(pods), n, app)
	}
	return nil
}
