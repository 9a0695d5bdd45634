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
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Scenarios written the way other teams lay out their namespaces: app.kubernetes.io/*,
// component/tier or role labels instead of app=, several things visibly wrong at once (the
// symptom, what it causes downstream, and unrelated objects that are slightly unhealthy too),
// and an error that is often only in a probe message, an exit code or a reference.

const (
	srcIndDebugService   = "k8s-docs/tasks/debug/debug-application/debug-service.md"
	srcIndNetPolicies    = "k8s-docs/concepts/services-networking/network-policies.md"
	srcIndHPA            = "k8s-docs/tasks/run-application/horizontal-pod-autoscale.md"
	srcIndStorageClasses = "k8s-docs/concepts/storage/storage-classes.md"
	srcIndDeterminePod   = "k8s-docs/tasks/debug/debug-application/determine-reason-pod-failure.md"
	srcIndServiceAccount = "k8s-docs/tasks/configure-pod-container/configure-service-account.md"
)

// labelledDeployment is a Deployment whose pods carry lbl (and nothing else) as labels.
func labelledDeployment(name, image string, lbl map[string]string, annotations map[string]string) *appsv1.Deployment {
	t := template(name, image, annotations)
	t.Labels = lbl
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbl},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: lbl},
			Template: t,
		},
	}
}

// podsWith succeeds when a pod matching the label set passes check.
func podsWith(lbl map[string]string, check func(p *corev1.Pod) error) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		l, err := e.Client.CoreV1().Pods(e.Namespace).List(ctx, metav1.ListOptions{LabelSelector: labels.Set(lbl).String()})
		if err != nil {
			return err
		}
		for i := range l.Items {
			if check(&l.Items[i]) == nil {
				return nil
			}
		}
		return fmt.Errorf("no pod %v passes the check yet", lbl)
	}
}

// objectEvent succeeds once an event about kind/name has reason and contains text.
func objectEvent(kind, name, reason, text string) func(context.Context, *Env) error {
	return func(ctx context.Context, e *Env) error {
		l, err := e.Client.CoreV1().Events(e.Namespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.kind=" + kind + ",involvedObject.name=" + name + ",reason=" + reason})
		if err != nil {
			return err
		}
		for _, ev := range l.Items {
			if strings.Contains(ev.Message, text) {
				return nil
			}
		}
		return fmt.Errorf("no %s event on %s %s with %q", reason, kind, name, text)
	}
}

func readinessFail(logs string) map[string]string {
	return sim("readiness-fail", annMessage, "Readiness probe failed: HTTP probe failed with statuscode: 503", annLogs, logs)
}

func (e *Env) createPDB(ctx context.Context, name string, minAvailable int, lbl map[string]string) error {
	_, err := e.Client.PolicyV1().PodDisruptionBudgets(e.Namespace).Create(ctx, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt(minAvailable)),
			Selector: &metav1.LabelSelector{MatchLabels: lbl}},
	}, metav1.CreateOptions{})
	return wrap("PodDisruptionBudget", name, err)
}

func independentScenarios() []*Scenario {
	out := independentProviderScenarios()
	out = append(out, independentConfigScenarios()...)
	out = append(out, independentMoreScenarios()...)
	out = append(out, independentFourthScenarios()...)
	return append(out, independentFifthScenarios()...)
}

// Consumers whose provider is at fault, with competing symptoms.
func independentProviderScenarios() []*Scenario {
	profile := map[string]string{"app.kubernetes.io/name": "profile", "app.kubernetes.io/part-of": "accounts"}
	gateway := map[string]string{"app.kubernetes.io/name": "edge-gateway", "app.kubernetes.io/component": "ingress"}
	warehouse := map[string]string{"app.kubernetes.io/name": "warehouse", "app.kubernetes.io/component": "database"}
	orders := map[string]string{"component": "orders", "tier": "api"}
	store := map[string]string{"component": "session-store", "tier": "cache"}
	return []*Scenario{
		{
			Name: "gateway-upstream-named-port-drift", Covers: "an edge gateway is not ready (probe 503) and its Ingress serves errors; the upstream Service's named targetPort no longer matches the renamed container port",
			Source: srcIndDebugService, Class: ClassProvider, Hops: 2,
			Problem: "the edge gateway returns 503 for every /profile request", Target: target("Deployment", "edge-gateway"),
			Want: Want{Culprit: Ref{Kind: "Service", Name: "profile"}, Terms: []string{"grpc"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := labelledDeployment("profile-svc", "registry.example/accounts/profile:8.1.0", profile, nil)
						d.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "grpc-api", ContainerPort: 50051}}
						return e.createDeployment(ctx, d)
					},
					func() error {
						s := service("profile", profile, intstr.FromString("grpc"))
						s.Spec.Ports[0].Name, s.Spec.Ports[0].Port = "grpc", 50051
						return e.createService(ctx, s)
					},
					func() error {
						d := labelledDeployment("edge-gateway", "registry.example/platform/edge-gateway:2.14.1", gateway, readinessFail("edge-gateway-profile"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/ready")
						return e.createDeployment(ctx, env(d, "PROFILE_ADDR", "profile:50051", "LOG_FORMAT", "json"))
					},
					func() error { return e.createService(ctx, service("edge-gateway", gateway, intstr.FromString("http"))) },
					func() error { return e.createIngress(ctx, ingress("edge", "edge-gateway", 80)) },
					// Noise: a PDB that allows no disruption while the gateway is unready.
					func() error { return e.createPDB(ctx, "edge-gateway", 1, gateway) },
				)
			},
			Wait: all(podsWith(gateway, runningNotReady), podEvent("Unhealthy", "Readiness probe failed")),
		},
		{
			Name: "etl-warehouse-ingress-allowlist", Covers: "a nightly ETL Job times out connecting to the warehouse; the warehouse's ingress NetworkPolicy admits only the BI dashboard",
			Source: srcIndNetPolicies, Class: ClassProvider, Hops: 2,
			Problem: "the etl-nightly job failed again last night", Target: target("Job", "etl-nightly"),
			Want: Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "warehouse-allow-bi"}, Terms: []string{"warehouse-allow-bi"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := labelledDeployment("warehouse", "postgres:16.2", warehouse, nil)
						d.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "pg", ContainerPort: 5432}}
						return e.createDeployment(ctx, d)
					},
					func() error {
						s := service("warehouse", warehouse, intstr.FromString("pg"))
						s.Spec.Ports[0].Name, s.Spec.Ports[0].Port = "pg", 5432
						return e.createService(ctx, s)
					},
					func() error {
						return e.createDeployment(ctx, labelledDeployment("bi-dashboard", "registry.example/bi/dashboard:5.0.2",
							map[string]string{"app.kubernetes.io/name": "bi-dashboard"}, nil))
					},
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "warehouse-allow-bi"},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: warehouse},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
								Ingress: []networkingv1.NetworkPolicyIngressRule{{
									From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app.kubernetes.io/name": "bi-dashboard"}}}},
									Ports: []networkingv1.NetworkPolicyPort{{Port: ptr.To(intstr.FromInt(5432))}},
								}},
							},
						})
					},
					// Noise: a PDB on the single warehouse replica that blocks drains.
					func() error { return e.createPDB(ctx, "warehouse", 1, warehouse) },
					func() error {
						msg := fmt.Sprintf(`psql: error: connection to server at "warehouse" (%s), port 5432 failed: timeout expired`, e.clusterIP(ctx, "warehouse"))
						j := job("etl-nightly", 1, sim("fail", annExitCode, "2", annMessage, msg, annLogs, "etl-warehouse-timeout"))
						j.Spec.Template.Labels = map[string]string{"app.kubernetes.io/name": "etl"}
						j.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "PGHOST", Value: "warehouse"}, {Name: "PGPORT", Value: "5432"}}
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
						return wrap("Job", j.Name, err)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				return jobFailed(ctx, e, "etl-nightly", "BackoffLimitExceeded")
			},
		},
		{
			Name: "orders-readiness-redis-egress-lockdown", Covers: "orders pods never become ready (probe 503 only); an egress lockdown policy on them admits DNS but not the session store they are configured to use",
			Source: srcIndNetPolicies, Class: ClassProvider, Hops: 2,
			Problem: "orders pods never become ready after the security hardening",
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "orders-egress-lockdown"}, Terms: []string{"orders-egress-lockdown"}},
			Setup: func(ctx context.Context, e *Env) error {
				dns := networkingv1.NetworkPolicyEgressRule{
					To: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "kube-system"}}}},
					Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolUDP), Port: ptr.To(intstr.FromInt(53))},
						{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt(53))}},
				}
				return steps(
					func() error {
						d := labelledDeployment("session-store", "redis:7.2", store, nil)
						d.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "redis", ContainerPort: 6379}}
						return e.createDeployment(ctx, d)
					},
					func() error {
						s := service("session-store", store, intstr.FromString("redis"))
						s.Spec.Ports[0].Name, s.Spec.Ports[0].Port = "redis", 6379
						return e.createService(ctx, s)
					},
					func() error {
						d := labelledDeployment("orders", "registry.example/shop/orders:12.0.3", orders, readinessFail("orders-session-store"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/readyz")
						return e.createDeployment(ctx, env(d, "SESSION_STORE_ADDR", "session-store:6379", "HTTP_PORT", "8080"))
					},
					func() error { return e.createService(ctx, service("orders", orders, intstr.FromString("http"))) },
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "orders-egress-lockdown"},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"component": "orders"}},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
								Egress:      []networkingv1.NetworkPolicyEgressRule{dns},
							},
						})
					},
					// Noise: a selector-less Service kept for a retired external endpoint.
					func() error {
						s := service("legacy-orders", nil, intstr.FromInt(8080))
						return e.createService(ctx, s)
					},
				)
			},
			Wait: all(podsWith(orders, runningNotReady), podEvent("Unhealthy", "Readiness probe failed")),
		},
		{
			Name: "statement-renderer-liveness-sigkill", Covers: "statement-api is not ready because its renderer is killed (exit 137, not OOM) by a 1 s liveness timeout while it warms up",
			Source: srcIndDeterminePod, Class: ClassRanking, Hops: 2,
			Problem: "customers cannot download statements", Target: target("Deployment", "statement-api"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "statement-renderer"}, Terms: []string{"liveness"}},
			Setup: func(ctx context.Context, e *Env) error {
				renderer := map[string]string{"app.kubernetes.io/name": "statement-renderer"}
				api := map[string]string{"app.kubernetes.io/name": "statement-api"}
				return steps(
					func() error {
						d := labelledDeployment("statement-renderer", "registry.example/docs/statement-renderer:1.9.2", renderer,
							sim("liveness-fail", annMessage, `Liveness probe failed: Get "http://10.244.2.4:8080/livez": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`, annLogs, "statement-renderer-slow"))
						p := httpProbe("/livez")
						p.TimeoutSeconds, p.FailureThreshold = 1, 1
						d.Spec.Template.Spec.Containers[0].LivenessProbe = p
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createService(ctx, service("statement-renderer", renderer, intstr.FromString("http")))
					},
					func() error {
						d := labelledDeployment("statement-api", "registry.example/docs/statement-api:5.3.0", api, readinessFail("statement-api-renderer"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/ready")
						return e.createDeployment(ctx, env(d, "RENDERER_URL", "http://statement-renderer"))
					},
					func() error { return e.createService(ctx, service("statement-api", api, intstr.FromString("http"))) },
				)
			},
			Wait: all(podsWith(map[string]string{"app.kubernetes.io/name": "statement-renderer"}, restartedWith("Error", 137)),
				podsWith(map[string]string{"app.kubernetes.io/name": "statement-renderer"}, func(p *corev1.Pod) error {
					if p.Status.ContainerStatuses[0].RestartCount < 2 {
						return errors.New("killed fewer than twice")
					}
					return nil
				}),
				podsWith(map[string]string{"app.kubernetes.io/name": "statement-api"}, runningNotReady),
				podEvent("Unhealthy", "Liveness probe failed"), podEvent("Unhealthy", "HTTP probe failed with statuscode: 503")),
		},
		{
			Name: "tileserver-pvc-class-retired", Covers: "tileserver crash-loops on a cache host that does not resolve; the cache StatefulSet's pod is Pending on a claim whose StorageClass was retired",
			Source: srcIndStorageClasses, Class: ClassRanking, Hops: 4,
			Problem: "tileserver keeps restarting", Target: target("Deployment", "tileserver"),
			Want: Want{Culprit: Ref{Kind: "StorageClass", Name: "standard-v1", Cluster: true}, Terms: []string{"standard-v1"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createStatefulSet(ctx, statefulSet("tile-cache", "redis:7.2", pvc("data", e.ClusterName("standard-v1"), "20Gi", corev1.ReadWriteOnce)))
					},
					func() error { return e.createService(ctx, headless("tile-cache")) },
					func() error {
						d := deployment("tileserver", "registry.example/maps/tileserver:3.4.0", 1, crash("1",
							"cache: dial tcp: lookup tile-cache-0.tile-cache on 10.96.0.10:53: no such host", "tileserver-cache"))
						return e.createDeployment(ctx, env(d, "CACHE_ADDR", "tile-cache-0.tile-cache:6379"))
					},
					// Noise: an autoscaler that cannot read metrics (there is no metrics server).
					func() error { return e.createHPA(ctx, "tileserver", "tileserver", 1, 4) },
				)
			},
			Wait: all(pvcPending("data-tile-cache-0"), anyPod("tileserver", crashLooping(3))),
		},
	}
}
