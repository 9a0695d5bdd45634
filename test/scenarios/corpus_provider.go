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

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Class 2: the pod that fails is healthy itself; what it calls is not.

const (
	srcDebugService = "k8s-docs/tasks/debug/debug-application/debug-service.md"
	srcNetpol       = "k8s-docs/concepts/services-networking/network-policies.md"
	srcDNS          = "k8s-docs/tasks/administer-cluster/dns-debugging-resolution.md"
	srcCrashLoop    = "runbooks/kubernetes/KubePodCrashLooping.md"
	srcPodNotReady  = "runbooks/kubernetes/KubePodNotReady.md"
	srcJobFailed    = "runbooks/kubernetes/KubeJobFailed.md"
	srcService      = "k8s-docs/concepts/services-networking/service.md"
	srcIngress      = "k8s-docs/concepts/services-networking/ingress.md"
	srcDebugPods    = "k8s-docs/tasks/debug/debug-application/debug-pods.md"
)

func providerScenarios() []*Scenario {
	return []*Scenario{
		{
			Name: "checkout-payments-selector", Covers: "consumer crash-loops on connection refused; the provider Service's selector has a typo",
			Source: srcDebugService, Class: ClassProvider, Hops: 2,
			Problem: "checkout is down", Target: target("Deployment", "checkout"),
			Want: Want{Culprit: Ref{Kind: "Service", Name: "payments"}, Terms: []string{"payments", "selector"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createDeployment(ctx, deployment("payments", "example/payments:2.8", 1, nil)) },
					func() error { return e.createServiceOn(ctx, "payments", "payment", 8080, intstr.FromString("http")) },
					func() error {
						msg := fmt.Sprintf(`payment client: Post "http://payments:8080/v1/charges": %s`, refused(e.clusterIP(ctx, "payments"), 8080))
						return e.createDeployment(ctx, env(deployment("checkout", "example/checkout:3.4", 1, crash("1", msg, "checkout-payments")), "PAYMENTS_URL", "http://payments:8080"))
					},
				)
			},
			Wait: anyPod("checkout", crashLooping(3)),
		},
		{
			Name: "orders-inventory-target-port", Covers: "consumer not ready (503); the provider Service's numeric targetPort matches no container port",
			Source: srcDebugService, Class: ClassProvider, Hops: 2,
			Problem: "orders API returns 503", Target: target("Deployment", "orders"),
			Want: Want{Culprit: Ref{Kind: "Service", Name: "inventory"}, Terms: []string{"inventory", "8081"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createDeployment(ctx, deployment("inventory", "example/inventory:1.12", 1, nil))
					},
					func() error { return e.createServiceOn(ctx, "inventory", "inventory", 80, intstr.FromInt32(8081)) },
					func() error {
						d := deployment("orders", "example/orders:5.2", 1, sim("readiness-fail", annMessage,
							"HTTP probe failed with statuscode: 503", annLogs, "orders-inventory"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/ready")
						return e.createDeployment(ctx, env(d, "INVENTORY_URL", "http://inventory"))
					},
					func() error { return e.createServiceOn(ctx, "orders", "orders", 80, intstr.FromString("http")) },
				)
			},
			Wait: all(anyPod("orders", runningNotReady), podEvent("Unhealthy", "Readiness probe failed")),
		},
		{
			Name: "frontend-api-named-port", Covers: "consumer crash-loops; the provider Service targets a port name the pods do not declare",
			Source: srcService, Class: ClassProvider, Hops: 2,
			Problem: "the storefront shows a blank page", Target: target("Deployment", "storefront"),
			Want: Want{Culprit: Ref{Kind: "Service", Name: "catalog-api"}, Terms: []string{"catalog-api", "targetPort"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := deployment("catalog-api", "example/catalog-api:4.0", 1, nil)
						port(&d.Spec.Template, "web", 8080)
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createServiceOn(ctx, "catalog-api", "catalog-api", 80, intstr.FromString("http"))
					},
					func() error {
						msg := fmt.Sprintf(`fatal: loading categories: Get "http://catalog-api/v1/categories": %s`, refused(e.clusterIP(ctx, "catalog-api"), 80))
						return e.createDeployment(ctx, env(deployment("storefront", "example/storefront:9.1", 1, crash("1", msg, "storefront-catalog")), "CATALOG_API", "http://catalog-api"))
					},
				)
			},
			Wait: anyPod("storefront", crashLooping(3)),
		},
		{
			Name: "cart-redis-scaled-to-zero", Covers: "consumer crash-loops on connection refused; the provider Deployment was scaled to zero",
			Source: srcCrashLoop, Class: ClassProvider, Hops: 3,
			Problem: "adding to cart fails for everyone", Target: target("Deployment", "cart"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "redis"}, Terms: []string{"redis", "0 replicas"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createDeployment(ctx, deployment("redis", "redis:7.2", 0, nil)) },
					func() error { return e.createServiceOn(ctx, "redis", "redis", 6379, intstr.FromString("http")) },
					func() error {
						msg := fmt.Sprintf("redis: %s", refused(e.clusterIP(ctx, "redis"), 6379))
						return e.createDeployment(ctx, env(deployment("cart", "example/cart:2.0", 1, crash("1", msg, "cart-redis")), "REDIS_ADDR", "redis:6379"))
					},
				)
			},
			Wait: anyPod("cart", crashLooping(3)),
		},
		{
			Name: "api-postgres-crashing", Covers: "consumer not ready; the database it needs crash-loops on its own error",
			Source: srcPodNotReady, Class: ClassProvider, Hops: 3,
			Problem: "the accounts API is unavailable", Target: target("Deployment", "accounts"),
			Want: Want{Culprit: Ref{Kind: "StatefulSet", Name: "postgres"}, Terms: []string{"postgres", "wrong ownership"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createService(ctx, headless("postgres")) },
					func() error {
						_, err := e.Client.AppsV1().StatefulSets(e.Namespace).Create(ctx, plainStatefulSet("postgres", "postgres:16", 1,
							crash("1", `FATAL:  data directory "/var/lib/postgresql/data" has wrong ownership`, "postgres-ownership")), metav1.CreateOptions{})
						return wrap("StatefulSet", "postgres", err)
					},
					func() error {
						d := deployment("accounts", "example/accounts:7.3", 1, sim("readiness-fail", annMessage,
							"HTTP probe failed with statuscode: 503", annLogs, "accounts-postgres"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/ready")
						return e.createDeployment(ctx, env(d, "DATABASE_URL", "postgres://accounts@postgres-0.postgres:5432/accounts"))
					},
				)
			},
			Wait: all(anyPod("accounts", runningNotReady), anyPod("postgres", crashLooping(3))),
		},
		{
			Name: "api-db-networkpolicy-ingress", Covers: "consumer times out to its database; a NetworkPolicy on the database admits only the backup job",
			Source: srcNetpol, Class: ClassProvider, Hops: 2,
			Problem: "profile service keeps restarting with timeouts", Target: target("Deployment", "profile"),
			Want: Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "db-allow-backup"}, Terms: []string{"db-allow-backup"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "db", "postgres:16", 5432, 5432) },
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "db-allow-backup"},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
								Ingress: []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{
									PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "backup"}},
								}}}},
							},
						})
					},
					func() error {
						msg := fmt.Sprintf("failed to connect to `host=db user=profile database=profile`: dial error (dial tcp %s:5432: i/o timeout)", e.clusterIP(ctx, "db"))
						return e.createDeployment(ctx, env(deployment("profile", "example/profile:1.9", 1, crash("1", msg, "profile-db-timeout")), "DB_HOST", "db"))
					},
				)
			},
			Wait: anyPod("profile", crashLooping(3)),
		},
		{
			Name: "worker-egress-blocks-dns", Covers: "consumer cannot resolve names; its egress NetworkPolicy allows the queue but not DNS",
			Source: srcDNS, Class: ClassProvider, Hops: 2,
			Problem: "emails are not being sent", Target: target("Deployment", "mailer"),
			Want: Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "mailer-egress"}, Terms: []string{"mailer-egress", "DNS"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "rabbitmq", "rabbitmq:3.13", 5672, 5672) },
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "mailer-egress"},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "mailer"}},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
								Egress: []networkingv1.NetworkPolicyEgressRule{{
									To:    []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "rabbitmq"}}}},
									Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(5672))}},
								}},
							},
						})
					},
					func() error {
						msg := "amqp: dial tcp: lookup rabbitmq on 10.96.0.10:53: read udp 10.244.1.17:41234->10.96.0.10:53: i/o timeout"
						return e.createDeployment(ctx, env(deployment("mailer", "example/mailer:2.2", 1, crash("1", msg, "mailer-dns")), "AMQP_URL", "amqp://rabbitmq:5672"))
					},
				)
			},
			Wait: anyPod("mailer", crashLooping(3)),
		},
		{
			Name: "notifications-default-deny-egress", Covers: "consumer times out to SMTP; a namespace-wide default-deny egress policy was applied",
			Source: srcNetpol, Class: ClassProvider, Hops: 2,
			Problem: "password reset mails stopped", Target: target("Deployment", "notifications"),
			Want: Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "default-deny-egress"}, Terms: []string{"default-deny-egress", "egress"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "smtp-relay", "example/postfix:3.8", 587, 587) },
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "default-deny-egress"},
							Spec:       networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress}},
						})
					},
					func() error {
						msg := fmt.Sprintf("smtp: dial tcp %s:587: i/o timeout", e.clusterIP(ctx, "smtp-relay"))
						return e.createDeployment(ctx, env(deployment("notifications", "example/notifications:3.1", 1, crash("1", msg, "notifications-smtp")), "SMTP_HOST", "smtp-relay", "SMTP_PORT", "587"))
					},
				)
			},
			Wait: anyPod("notifications", crashLooping(3)),
		},
		{
			Name: "migrate-job-db-selector", Covers: "a migration Job fails on connection refused; the database Service selects no pods",
			Source: srcJobFailed, Class: ClassProvider, Hops: 3,
			Problem: "the release pipeline fails at the migration step", Target: target("Job", "db-migrate"),
			Want: Want{Culprit: Ref{Kind: "Service", Name: "postgres"}, Terms: []string{"postgres", "selector"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createDeployment(ctx, deployment("postgres", "postgres:16", 1, nil)) },
					func() error { return e.createServiceOn(ctx, "postgres", "postgresql", 5432, intstr.FromString("http")) },
					func() error {
						msg := fmt.Sprintf(`psql: error: connection to server at "postgres" (%s), port 5432 failed: Connection refused`, e.clusterIP(ctx, "postgres"))
						j := job("db-migrate", 1, sim("fail", annExitCode, "2", annMessage, msg, annLogs, "migrate-refused"))
						j.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "PGHOST", Value: "postgres"}}
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
						return wrap("Job", "db-migrate", err)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				return jobFailed(ctx, e, "db-migrate", "BackoffLimitExceeded")
			},
		},
		{
			Name: "gateway-auth-not-ready", Covers: "gateway crash-loops on 503 from auth; auth's pods fail their readiness probe",
			Source: srcPodNotReady, Class: ClassProvider, Hops: 3,
			Problem: "nobody can log in", Target: target("Deployment", "gateway"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "auth"}, Terms: []string{"auth", "readiness"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := deployment("auth", "example/auth:6.0", 2, sim("readiness-fail", annMessage,
							"HTTP probe failed with statuscode: 500", annLogs, "auth-ready"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/healthz/ready")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createServiceOn(ctx, "auth", "auth", 80, intstr.FromString("http")) },
					func() error {
						msg := `upstream check failed: GET http://auth/.well-known/jwks.json: 503 Service Unavailable (no healthy upstream)`
						return e.createDeployment(ctx, env(deployment("gateway", "example/gateway:2.5", 1, crash("1", msg, "gateway-auth")), "AUTH_URL", "http://auth"))
					},
				)
			},
			Wait: all(anyPod("gateway", crashLooping(3)), anyPod("auth", runningNotReady)),
		},
		{
			Name: "recommendations-image-missing", Covers: "frontend crash-loops on connection refused; the provider's new image tag does not exist",
			Source: srcDebugPods, Class: ClassProvider, Hops: 3,
			Problem: "home page errors since this morning", Target: target("Deployment", "home"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "recommendations"}, Terms: []string{"recommendations", "4.2.0-does-not-exist"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createDeployment(ctx, deployment("recommendations", "example/recommendations:4.2.0-does-not-exist", 1, nil))
					},
					func() error {
						return e.createServiceOn(ctx, "recommendations", "recommendations", 8080, intstr.FromString("http"))
					},
					func() error {
						msg := fmt.Sprintf(`recommendations client: Get "http://recommendations:8080/v2/for-user": %s`, refused(e.clusterIP(ctx, "recommendations"), 8080))
						return e.createDeployment(ctx, env(deployment("home", "example/home:12.0", 1, crash("1", msg, "home-recommendations")), "RECOMMENDATIONS_URL", "http://recommendations:8080"))
					},
				)
			},
			Wait: all(anyPod("home", crashLooping(3)), anyPod("recommendations", waiting("ErrImagePull", "ImagePullBackOff"))),
		},
		{
			Name: "invoices-selectorless-service", Covers: "consumer crash-loops; the provider Service has no selector and nobody created its endpoints",
			Source: srcService, Class: ClassProvider, Hops: 2,
			Problem: "invoice generation is failing", Target: target("Deployment", "invoices"),
			Want: Want{Culprit: Ref{Kind: "Service", Name: "legacy-billing"}, Terms: []string{"legacy-billing", "endpoints"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						s := service("legacy-billing", nil, intstr.FromInt32(443))
						s.Spec.Ports[0].Port = 443
						return e.createService(ctx, s)
					},
					func() error {
						msg := fmt.Sprintf(`billing: Post "https://legacy-billing/api/invoice": %s`, refused(e.clusterIP(ctx, "legacy-billing"), 443))
						return e.createDeployment(ctx, env(deployment("invoices", "example/invoices:1.4", 1, crash("1", msg, "invoices-billing")), "BILLING_URL", "https://legacy-billing"))
					},
				)
			},
			Wait: anyPod("invoices", crashLooping(3)),
		},
		{
			Name: "ingress-service-selector-typo", Covers: "Ingress answers 503; its Service selects pods by a label the pods do not carry",
			Source: srcIngress, Class: ClassProvider, Hops: 1,
			Problem: "blog.example.com returns 503", Target: target("Ingress", "blog"),
			Want: Want{Culprit: Ref{Kind: "Service", Name: "blog"}, Terms: []string{"blog", "selector"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createDeployment(ctx, deployment("blog", "ghost:5.80", 2, nil)) },
					func() error {
						return e.createService(ctx, service("blog", map[string]string{"app": "blog", "tier": "frontend"}, intstr.FromString("http")))
					},
					func() error { return e.createIngress(ctx, ingress("blog", "blog", 80)) },
				)
			},
			Wait: anyPod("blog", runningReady),
		},
		{
			Name: "search-elasticsearch-netpol-port", Covers: "consumer times out; the provider's NetworkPolicy admits the consumer on the transport port only",
			Source: srcNetpol, Class: ClassProvider, Hops: 2,
			Problem: "search results time out", Target: target("Deployment", "search-api"),
			Want: Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "elasticsearch-ingress"}, Terms: []string{"elasticsearch-ingress", "9200"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "elasticsearch", "elasticsearch:8.13.0", 9200, 9200) },
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "elasticsearch-ingress"},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "elasticsearch"}},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
								Ingress: []networkingv1.NetworkPolicyIngressRule{{
									From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "search-api"}}}},
									Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(9300))}},
								}},
							},
						})
					},
					func() error {
						d := deployment("search-api", "example/search-api:3.3", 1, sim("readiness-fail", annMessage,
							"Get \"http://10.244.2.31:8080/ready\": context deadline exceeded", annLogs, "search-es-timeout"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/ready")
						return e.createDeployment(ctx, env(d, "ES_URL", "http://elasticsearch:9200"))
					},
				)
			},
			Wait: all(anyPod("search-api", runningNotReady), anyPod("elasticsearch", runningReady)),
		},
		{
			Name: "quotes-pricing-grpc-port-name", Covers: "gRPC consumer crash-loops; the provider Service targets port name grpc while the pods name it grpc-api",
			Source: srcDebugService, Class: ClassProvider, Hops: 2,
			Problem: "quotes can't be generated", Target: target("Deployment", "quotes"),
			Want: Want{Culprit: Ref{Kind: "Service", Name: "pricing"}, Terms: []string{"pricing", "grpc"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := deployment("pricing", "example/pricing:3.0", 1, nil)
						port(&d.Spec.Template, "grpc-api", 9090)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createServiceOn(ctx, "pricing", "pricing", 9090, intstr.FromString("grpc")) },
					func() error {
						msg := fmt.Sprintf(`rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: %s"`, refused(e.clusterIP(ctx, "pricing"), 9090))
						return e.createDeployment(ctx, env(deployment("quotes", "example/quotes:1.8", 1, crash("1", msg, "quotes-grpc")), "PRICING_ADDR", "pricing:9090"))
					},
				)
			},
			Wait: anyPod("quotes", crashLooping(3)),
		},
		{
			Name: "worker-rabbitmq-statefulset-zero", Covers: "worker crash-loops on connection refused; the broker StatefulSet was scaled to 0 during maintenance and left there",
			Source: srcStatefulSet, Class: ClassProvider, Hops: 3,
			Problem: "jobs pile up and workers restart", Target: target("Deployment", "worker"),
			Want: Want{Culprit: Ref{Kind: "StatefulSet", Name: "rabbitmq"}, Terms: []string{"rabbitmq", "replicas"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceOn(ctx, "rabbitmq", "rabbitmq", 5672, intstr.FromString("http")) },
					func() error {
						_, err := e.Client.AppsV1().StatefulSets(e.Namespace).Create(ctx, plainStatefulSet("rabbitmq", "rabbitmq:3.13", 0, nil), metav1.CreateOptions{})
						return wrap("StatefulSet", "rabbitmq", err)
					},
					func() error {
						msg := fmt.Sprintf("amqp: dial tcp %s:5672: connect: connection refused", e.clusterIP(ctx, "rabbitmq"))
						return e.createDeployment(ctx, env(deployment("worker", "example/worker:2.9", 1, crash("1", msg, "worker-amqp")), "AMQP_URL", "amqp://rabbitmq:5672"))
					},
				)
			},
			Wait: anyPod("worker", crashLooping(3)),
		},
		{
			Name: "api-memcached-egress-port", Covers: "consumer times out to memcached; its egress NetworkPolicy allows DNS and 6379, not 11211",
			Source: srcNetpol, Class: ClassProvider, Hops: 2,
			Problem: "api latency went through the roof and pods restart", Target: target("Deployment", "api"),
			Want: Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "api-egress"}, Terms: []string{"api-egress", "11211"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "memcached", "memcached:1.6", 11211, 11211) },
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "api-egress"},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "api"}},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeEgress},
								Egress: []networkingv1.NetworkPolicyEgressRule{
									{Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolUDP), Port: ptr.To(intstr.FromInt32(53))}, {Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(53))}}},
									{Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(intstr.FromInt32(6379))}}},
								},
							},
						})
					},
					func() error {
						msg := fmt.Sprintf("memcache: dial tcp %s:11211: i/o timeout", e.clusterIP(ctx, "memcached"))
						return e.createDeployment(ctx, env(deployment("api", "example/api:3.3", 1, crash("1", msg, "api-memcached-timeout")), "MEMCACHED_SERVERS", "memcached:11211"))
					},
				)
			},
			Wait: anyPod("api", crashLooping(3)),
		},
	}
}
