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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

const (
	srcW8aTrafficPolicy = "k8s-docs/concepts/services-networking/service.md"
	srcW8aScheduler     = "k8s-docs/concepts/scheduling-eviction/kube-scheduler.md"
)

// wave8aLateScenarios is the third batch of wave 8a: traffic policy and scheduler selection.
func wave8aLateScenarios() []*Scenario {
	agent := map[string]string{"app.kubernetes.io/name": "otel-agent", "app.kubernetes.io/component": "agent"}
	pricing := map[string]string{"app.kubernetes.io/name": "pricing-engine", "app.kubernetes.io/part-of": "quoting"}
	return []*Scenario{
		{
			// service (traffic policies): internalTrafficPolicy Local routes only to
			// endpoints on the client's own node and drops the traffic when there are none.
			Name: "invoice-batch-otel-agent-local-policy", Covers: "a Running invoice-batch on the batch pool logs 'Failed to export spans … Connect timed out' to otel-agent:4317; the otel-agent Service has internalTrafficPolicy Local and its DaemonSet runs only on the general pool",
			Source: srcW8aTrafficPolicy, Class: ClassProvider, Hops: 2,
			Problem: "no traces from invoice-batch since it moved to the batch node pool", Target: target("Deployment", "invoice-batch"),
			Want: Want{Culprit: Ref{Kind: "Service", Name: "otel-agent"}, Terms: []string{"internalTrafficPolicy"}},
			Setup: func(ctx context.Context, e *Env) error {
				onPool := func(t *corev1.PodTemplateSpec, pool string) {
					e.pin(t)
					t.Spec.NodeSelector["node.example.com/pool"] = pool
				}
				node := func(name, pool string) error {
					n, err := e.createNode(ctx, nodeSpec{name: name, kwok: true})
					if err != nil {
						return err
					}
					return e.labelScenarioNode(ctx, n, map[string]string{"node.example.com/pool": pool})
				}
				return steps(
					func() error { return node("general-a", "general") },
					func() error { return node("batch-a", "batch") },
					func() error {
						return e.w8aCreateDaemonSet(ctx, w8aDaemonSet("otel-agent", "otel/opentelemetry-collector-contrib:0.112.0", agent, func(t *corev1.PodTemplateSpec) {
							onPool(t, "general")
							t.Spec.Containers[0].Args = []string{"--config=/conf/agent.yaml"}
							t.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "otlp-grpc", ContainerPort: 4317}, {Name: "otlp-http", ContainerPort: 4318}}
						}))
					},
					func() error {
						s := service("otel-agent", agent, intstr.FromString("otlp-grpc"))
						s.Spec.Ports = []corev1.ServicePort{{Name: "otlp-grpc", Port: 4317, TargetPort: intstr.FromString("otlp-grpc")},
							{Name: "otlp-http", Port: 4318, TargetPort: intstr.FromString("otlp-http")}}
						s.Spec.InternalTrafficPolicy = ptr.To(corev1.ServiceInternalTrafficPolicyLocal)
						return e.createService(ctx, s)
					},
					func() error {
						d := w8aDeployment("orders-api", "registry.example/shop/orders-api:8.2.0", 1, 8080,
							map[string]string{"app.kubernetes.io/name": "orders-api", "app.kubernetes.io/part-of": "shop"}, nil)
						onPool(&d.Spec.Template, "general")
						return e.createDeployment(ctx, env(d, "OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel-agent:4317"))
					},
					func() error {
						d := w8aDeployment("invoice-batch", "registry.example/billing/invoice-batch:4.6.0", 1, 8080,
							map[string]string{"app.kubernetes.io/name": "invoice-batch", "app.kubernetes.io/part-of": "billing"}, running("w8a-invoice-batch-otlp-timeout"))
						onPool(&d.Spec.Template, "batch")
						return e.createDeployment(ctx, env(d, "OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel-agent:4317", "OTEL_SERVICE_NAME", "invoice-batch"))
					},
				)
			},
			Wait: all(podsWith(agent, runningReady), podsWith(map[string]string{"app.kubernetes.io/name": "invoice-batch"}, runningReady)),
		},
		{
			// kube-scheduler: a pod names its scheduler in schedulerName; when no scheduler of
			// that name runs, nothing binds the pod and nothing records an event about it.
			Name: "pricing-engine-scheduler-name-gone", Covers: "quote-api is not ready (its log: dependency pricing-engine refused); pricing-engine has no endpoints because its pods stay Pending with no event at all: they name schedulerName binpack-scheduler, which was removed in the cluster upgrade",
			Source: srcW8aScheduler, Class: ClassReference, Hops: 3,
			Problem: "quote-api has not been ready since the cluster upgrade", Target: target("Deployment", "quote-api"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "pricing-engine"}, Terms: []string{"binpack-scheduler"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8aDeployment("pricing-engine", "registry.example/quoting/pricing-engine:3.0.7", 3, 8080, pricing, nil)
						d.Spec.Template.Spec.SchedulerName = "binpack-scheduler"
						limits(&d.Spec.Template, "2", "4Gi")
						return e.createDeployment(ctx, d)
					},
					func() error {
						s := service("pricing-engine", pricing, intstr.FromString("http"))
						s.Spec.Ports[0].Port = 8080
						return e.createService(ctx, s)
					},
					func() error {
						d := w8aDeployment("quote-api", "registry.example/quoting/quote-api:1.22.0", 2, 8000,
							map[string]string{"app.kubernetes.io/name": "quote-api", "app.kubernetes.io/part-of": "quoting"},
							sim("readiness-fail", annMessage, "Readiness probe failed: HTTP probe failed with statuscode: 503", annLogs, "w8a-quote-api-pricing-down"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/ready", Port: intstr.FromString("http")}}, PeriodSeconds: 10}
						return e.createDeployment(ctx, env(d, "PRICING_URL", "http://pricing-engine:8080"))
					},
					func() error {
						return e.createDeployment(ctx, w8aDeployment("quote-ui", "registry.example/quoting/quote-ui:1.9.3", 1, 8080,
							map[string]string{"app.kubernetes.io/name": "quote-ui", "app.kubernetes.io/part-of": "quoting"}, nil))
					},
				)
			},
			Wait: all(podsWith(pricing, w8aNeverScheduled(15*time.Second)), podsWith(map[string]string{"app.kubernetes.io/name": "quote-api"}, runningNotReady)),
		},
	}
}
