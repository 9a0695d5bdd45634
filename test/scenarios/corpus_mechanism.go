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
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Class 5: the explanation needs the numbers the cluster gives (limits, requests, probe timing,
// deadlines, quota usage).

const (
	srcMemory        = "k8s-docs/tasks/configure-pod-container/assign-memory-resource.md"
	srcCPU           = "k8s-docs/tasks/configure-pod-container/assign-cpu-resource.md"
	srcQuota         = "k8s-docs/concepts/policy/resource-quotas.md"
	srcLimitRange    = "k8s-docs/concepts/policy/limit-range.md"
	srcProbes        = "k8s-docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes.md"
	srcDisruptions   = "k8s-docs/concepts/workloads/pods/disruptions.md"
	srcTooManyPods   = "runbooks/kubernetes/KubeletTooManyPods.md"
	srcManageRes     = "k8s-docs/concepts/configuration/manage-resources-containers.md"
	srcDrain         = "k8s-docs/tasks/administer-cluster/safely-drain-node.md"
	srcJobCompletion = "runbooks/kubernetes/KubeJobCompletion.md"
)

func mechanismScenarios() []*Scenario {
	return []*Scenario{
		{
			Name: "search-java-heap-over-limit", Covers: "OOMKilled: the JVM heap (-Xmx1g) is larger than the 512Mi container limit",
			Source: srcMemory, Class: ClassMechanism,
			Problem: "search pods restart every few minutes", Target: target("Deployment", "search"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "search"}, Terms: []string{"512Mi", "OOMKilled"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := deployment("search", "example/search:8.2", 1, sim("oomkill", annLogs, "search-jvm-oom"))
				memoryOnly(&d.Spec.Template, 0, "512Mi")
				return e.createDeployment(ctx, env(d, "JAVA_OPTS", "-Xms1g -Xmx1g"))
			},
			Wait: anyPod("search", restartedWith("OOMKilled", 137)),
		},
		{
			Name: "worker-over-memory-quota", Covers: "new Deployment creates no pods: 512Mi requested, 768Mi of the 1Gi quota already used",
			Source: srcQuota, Class: ClassMechanism, Hops: 2,
			Problem: "the new worker deployment has no pods", Target: target("Deployment", "worker"),
			Want: Want{Culprit: Ref{Kind: "ResourceQuota", Name: "mem-quota"}, Terms: []string{"mem-quota", "512Mi", "1Gi"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createQuota(ctx, "mem-quota", corev1.ResourceList{corev1.ResourceRequestsMemory: resource.MustParse("1Gi")})
					},
					func() error {
						d := deployment("cache", "memcached:1.6", 1, nil)
						memoryOnly(&d.Spec.Template, 0, "768Mi")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["worker"] == "" {
					if err := anyPod("cache", runningReady)(ctx, e); err != nil {
						return err
					}
					d := deployment("worker", "example/worker:2.2", 1, nil)
					memoryOnly(&d.Spec.Template, 0, "512Mi")
					if err := e.createDeployment(ctx, d); err != nil {
						return err
					}
					e.State["worker"] = "yes"
				}
				return deploymentCondition("worker", appsv1.DeploymentReplicaFailure, "FailedCreate")(ctx, e)
			},
		},
		{
			Name: "inference-memory-request-too-big", Covers: "pod Pending: it requests 24Gi of memory and nodes have 15Gi allocatable",
			Source: srcMemory, Class: ClassMechanism,
			Problem: "the inference service never starts", Target: target("Deployment", "inference"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "inference"}, Terms: []string{"24Gi", "memory"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := deployment("inference", "example/inference:0.4", 1, nil)
				limits(&d.Spec.Template, "1", "24Gi")
				return e.createDeployment(ctx, d)
			},
			Wait: anyPod("inference", unschedulable("Insufficient memory")),
		},
		{
			Name: "liveness-kills-slow-start", Covers: "liveness probe kills the container before it finishes starting: initialDelaySeconds 5 against a ~45 s warm-up",
			Source: srcProbes, Class: ClassMechanism,
			Problem: "catalog-search restarts forever after the upgrade", Target: target("Deployment", "catalog-search"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "catalog-search"}, Terms: []string{"liveness", "initialDelaySeconds"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := deployment("catalog-search", "example/catalog-search:5.0", 1, sim("liveness-fail", annMessage,
					`Get "http://10.244.0.12:8080/healthz": dial tcp 10.244.0.12:8080: connect: connection refused`, annLogs, "catalog-search-warmup"))
				p := httpProbe("/healthz")
				p.InitialDelaySeconds, p.PeriodSeconds, p.FailureThreshold = 5, 5, 3
				d.Spec.Template.Spec.Containers[0].LivenessProbe = p
				return e.createDeployment(ctx, d)
			},
			Wait: all(anyPod("catalog-search", restartedWith("Error", 137)), podEvent("Unhealthy", "Liveness probe failed")),
		},
		{
			Name: "keycloak-liveness-timeout", Covers: "liveness probe kills the container: timeoutSeconds 1 while /health takes ~3 s under load",
			Source: srcProbes, Class: ClassMechanism,
			Problem: "keycloak restarts every few minutes during peak hours", Target: target("Deployment", "keycloak"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "keycloak"}, Terms: []string{"liveness", "timeoutSeconds"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := deployment("keycloak", "quay.io/keycloak/keycloak:24.0", 1, sim("liveness-fail", annMessage,
					`Get "http://10.244.0.31:8080/health/live": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, annLogs, "keycloak-slow-health"))
				p := httpProbe("/health/live")
				p.PeriodSeconds, p.TimeoutSeconds, p.FailureThreshold = 5, 1, 3
				d.Spec.Template.Spec.Containers[0].LivenessProbe = p
				return e.createDeployment(ctx, d)
			},
			Wait: all(anyPod("keycloak", restartedWith("Error", 137)), podEvent("Unhealthy", "Liveness probe failed")),
		},
		{
			Name: "report-job-active-deadline", Covers: "Job killed by activeDeadlineSeconds 15 while still working",
			Source: srcJobCompletion, Class: ClassMechanism,
			Problem: "the quarterly report job failed halfway", Target: target("Job", "quarterly-report"),
			Want: Want{Culprit: Ref{Kind: "Job", Name: "quarterly-report"}, Terms: []string{"activeDeadlineSeconds"}},
			Setup: func(ctx context.Context, e *Env) error {
				_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, jobWithDeadline("quarterly-report", 15, sim("run", annLogs, "report-progress")), metav1.CreateOptions{})
				return wrap("Job", "quarterly-report", err)
			},
			Wait: func(ctx context.Context, e *Env) error {
				return jobFailed(ctx, e, "quarterly-report", "DeadlineExceeded")
			},
		},
		{
			Name: "import-job-exit-126", Covers: "Job fails after its backoffLimit of 3: exit code 126, the entrypoint is not executable",
			Source: srcJobFailed, Class: ClassMechanism,
			Problem: "catalog import keeps failing", Target: target("Job", "catalog-import"),
			Want: Want{Culprit: Ref{Kind: "Job", Name: "catalog-import"}, Terms: []string{"126", "permission denied"}},
			Setup: func(ctx context.Context, e *Env) error {
				j := job("catalog-import", 3, sim("fail", annExitCode, "126", annMessage,
					`exec: "/entrypoint.sh": permission denied`))
				_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
				return wrap("Job", j.Name, err)
			},
			Wait: func(ctx context.Context, e *Env) error {
				return jobFailed(ctx, e, "catalog-import", "BackoffLimitExceeded")
			},
		},
		{
			Name: "pdb-max-unavailable-zero", Covers: "drain blocked: the PodDisruptionBudget sets maxUnavailable 0",
			Source: srcDrain, Class: ClassMechanism,
			Problem: "the node upgrade is stuck draining payments pods", Target: target("PodDisruptionBudget", "payments"),
			Want: Want{Culprit: Ref{Kind: "PodDisruptionBudget", Name: "payments"}, Terms: []string{"maxUnavailable"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createDeployment(ctx, deployment("payments", "example/payments:2.8", 2, nil)) },
					func() error {
						_, err := e.Client.PolicyV1().PodDisruptionBudgets(e.Namespace).Create(ctx, &policyv1.PodDisruptionBudget{
							ObjectMeta: metav1.ObjectMeta{Name: "payments"},
							Spec: policyv1.PodDisruptionBudgetSpec{
								MaxUnavailable: ptr.To(intstr.FromInt32(0)),
								Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "payments"}},
							},
						}, metav1.CreateOptions{})
						return wrap("PodDisruptionBudget", "payments", err)
					},
				)
			},
			Wait: pdbHealthy("payments", 2),
		},
		{
			Name: "pool-too-many-pods", Covers: "pods Pending with 'Too many pods': the pool's node takes 3 pods and the Deployment wants 5",
			Source: srcTooManyPods, Class: ClassMechanism,
			Problem: "only 3 of 5 agents are running", Target: target("Deployment", "agents"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "agents"}, Terms: []string{"too many pods"}},
			Setup: func(ctx context.Context, e *Env) error {
				if _, err := e.createNode(ctx, nodeSpec{name: "small", kwok: true, pods: 3}); err != nil {
					return err
				}
				d := deployment("agents", "example/agent:1.3", 5, nil)
				e.pin(&d.Spec.Template)
				return e.createDeployment(ctx, d)
			},
			Wait: anyPod("agents", unschedulable("Too many pods")),
		},
		{
			Name: "quota-requires-limits", Covers: "Deployment creates no pods: the ResourceQuota sets limits.cpu/limits.memory and the pods set none",
			Source: srcQuota, Class: ClassMechanism, Hops: 2,
			Problem: "etl has no pods after moving to the shared namespace", Target: target("Deployment", "etl"),
			Want: Want{Culprit: Ref{Kind: "ResourceQuota", Name: "compute-limits"}, Also: []Ref{{Kind: "Deployment", Name: "etl"}}, Terms: []string{"limits.cpu"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createQuota(ctx, "compute-limits", corev1.ResourceList{corev1.ResourceLimitsCPU: resource.MustParse("4"), corev1.ResourceLimitsMemory: resource.MustParse("8Gi")})
					},
					func() error { return e.createDeployment(ctx, deployment("etl", "example/etl:6.1", 1, nil)) },
				)
			},
			Wait: deploymentCondition("etl", appsv1.DeploymentReplicaFailure, "FailedCreate"),
		},
		{
			Name: "limitrange-minimum-memory", Covers: "Deployment creates no pods: 64Mi requested, the LimitRange minimum is 256Mi",
			Source: srcLimitRange, Class: ClassMechanism, Hops: 1,
			Problem: "tiny-proxy doesn't start", Target: target("Deployment", "tiny-proxy"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "tiny-proxy"}, Terms: []string{"256Mi", "64Mi"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						_, err := e.Client.CoreV1().LimitRanges(e.Namespace).Create(ctx, &corev1.LimitRange{
							ObjectMeta: metav1.ObjectMeta{Name: "mem-bounds"},
							Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
								Type: corev1.LimitTypeContainer, Min: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("256Mi")},
							}}},
						}, metav1.CreateOptions{})
						return wrap("LimitRange", "mem-bounds", err)
					},
					func() error {
						d := deployment("tiny-proxy", "example/tiny-proxy:0.3", 1, nil)
						memoryOnly(&d.Spec.Template, 0, "64Mi")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: deploymentCondition("tiny-proxy", appsv1.DeploymentReplicaFailure, "FailedCreate"),
		},
		{
			Name: "envoy-sidecar-oom", Covers: "only the envoy sidecar is OOMKilled: its 64Mi limit, not the app's",
			Source: srcManageRes, Class: ClassMechanism,
			Problem: "orders pods restart but the app logs look clean", Target: target("Deployment", "orders"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "orders"}, Terms: []string{"envoy", "64Mi"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := deployment("orders", "example/orders:5.2", 1, sim("oomkill", annContainer, "envoy", annLogs, "envoy-oom"))
				d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "envoy", Image: "envoyproxy/envoy:v1.30.1"})
				memoryOnly(&d.Spec.Template, 0, "1Gi")
				memoryOnly(&d.Spec.Template, 1, "64Mi")
				return e.createDeployment(ctx, d)
			},
			Wait: anyPod("orders", restartedWith("OOMKilled", 137)),
		},
		{
			Name: "pool-cpu-requests-overcommit", Covers: "one of three replicas Pending: 3 × 1500m CPU requested on a pool of one 4-CPU node",
			Source: srcCPU, Class: ClassMechanism,
			Problem: "transcoder is running with fewer replicas than configured", Target: target("Deployment", "transcoder"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "transcoder"}, Terms: []string{"1500m", "cpu"}},
			Setup: func(ctx context.Context, e *Env) error {
				if _, err := e.createNode(ctx, nodeSpec{name: "media", kwok: true}); err != nil {
					return err
				}
				d := deployment("transcoder", "example/transcoder:2.0", 3, nil)
				limits(&d.Spec.Template, "1500m", "1Gi")
				e.pin(&d.Spec.Template)
				return e.createDeployment(ctx, d)
			},
			Wait: anyPod("transcoder", unschedulable("Insufficient cpu")),
		},
	}
}

// pdbHealthy succeeds once the PDB counts n healthy pods.
func pdbHealthy(name string, n int32) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		p, err := e.Client.PolicyV1().PodDisruptionBudgets(e.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if p.Status.ExpectedPods != n || p.Status.CurrentHealthy != n {
			return fmt.Errorf("PDB sees %d/%d healthy pods", p.Status.CurrentHealthy, p.Status.ExpectedPods)
		}
		return nil
	}
}
