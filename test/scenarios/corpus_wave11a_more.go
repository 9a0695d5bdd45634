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

// wave11aWiringScenarios: the workload showing the symptom is fine; what it is wired to (a
// Secret key, a ConfigMap, a Service, a NetworkPolicy, a quota, a claim) is not.
func wave11aWiringScenarios() []*Scenario {
	checkout := w8bLabels("checkout-api", "shop", "app.kubernetes.io/component", "api")
	redis := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "checkout-redis", "app.kubernetes.io/component", "master")
	orders := w8cLabels("app", "orders-api", "tier", "backend")
	ordersUI := w8cLabels("app", "orders-ui", "tier", "frontend")
	bff := w8cLabels("app.kubernetes.io/name", "storefront-bff", "app.kubernetes.io/part-of", "storefront")
	catalog := w8cLabels("app.kubernetes.io/name", "catalog", "app.kubernetes.io/part-of", "storefront")
	worker := w8cLabels("app", "order-worker", "team", "fulfilment")
	notif := w8cLabels("app.kubernetes.io/name", "notifications", "app.kubernetes.io/instance", "notifications", "app.kubernetes.io/version", "2.0.1")
	billing := w8cLabels("app", "billing-api", "team", "billing")
	billingDB := w8cLabels("app", "billing-postgres", "team", "billing")
	return []*Scenario{
		{
			// The team switched to the Bitnami Redis chart, whose Secret holds the password
			// under redis-password; the checkout Deployment still asks for the key password.
			Name: "checkout-api-redis-secret-key-renamed", Covers: "checkout-api pods are stuck in CreateContainerConfigError: env REDIS_PASSWORD reads key 'password' of Secret checkout-redis, which only has 'redis-password' since the move to the Bitnami chart",
			Source: w11aSrcSecret, Class: ClassReference, Hops: 2,
			Problem: "checkout-api rollout is stuck, new pods never start",
			Target:  target("Deployment", "checkout-api"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "checkout-redis"}, Also: []Ref{{Kind: "Deployment", Name: "checkout-api"}}, Terms: []string{"password"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "checkout-redis", map[string]string{"redis-password": "q8N3vT1xWm0s"})
					},
					func() error {
						return e.createSecret(ctx, "checkout-api-stripe", map[string]string{"password": "sk_live_000000", "publishable-key": "pk_live_000000"})
					},
					func() error {
						st := w8bStatefulSet("checkout-redis-master", "docker.io/bitnami/redis:7.2.5-debian-12-r4", "checkout-redis-headless", 1, redis, nil, "redis", 6379)
						w10aMain(&st.Spec.Template, "redis")
						envKeyFromSecret(&st.Spec.Template, "REDIS_PASSWORD", "checkout-redis", "redis-password")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createService(ctx, w8bHeadless("checkout-redis-headless", redis, "redis", 6379))
					},
					func() error { return e.createService(ctx, w8bService("checkout-redis-master", redis, "redis", 6379)) },
					func() error {
						d := w8bDeployment("checkout-api", "registry.example.com/shop/checkout-api:4.6.0", 2, checkout,
							sim("create-config-error", annMessage, fmt.Sprintf("couldn't find key password in Secret %s/checkout-redis", e.Namespace)), "http", 8080)
						w10aMain(&d.Spec.Template, "checkout-api")
						w8bEnv(&d.Spec.Template, "REDIS_HOST", "checkout-redis-master", "REDIS_PORT", "6379")
						envKeyFromSecret(&d.Spec.Template, "REDIS_PASSWORD", "checkout-redis", "password")
						envKeyFromSecret(&d.Spec.Template, "STRIPE_API_KEY", "checkout-api-stripe", "password")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("checkout-api", checkout, "http", 80)) },
				)
			},
			Wait: all(podsWith(checkout, waiting("CreateContainerConfigError")), w11aStatefulSetReady("checkout-redis-master", 1)),
		},
		{
			// kustomize's configMapGenerator appends a content hash to the name and rewrites the
			// references, but someone applied the Deployment with kubectl apply -f, outside the
			// kustomization: the Deployment names the ConfigMap without the suffix.
			Name: "orders-api-configmap-kustomize-hash", Covers: "orders-api pods hang in ContainerCreating with FailedMount 'configmap \"orders-api-config\" not found'; only orders-api-config-5t8f2k9hbm (the generator's hashed name) exists because the Deployment was applied outside the kustomization",
			Source: w11aSrcConfigMap, Class: ClassReference, Hops: 2,
			Problem: "orders-api new pods stuck in ContainerCreating for 20 minutes",
			Target:  target("Deployment", "orders-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "orders-api-config"}, Also: []Ref{{Kind: "Deployment", Name: "orders-api"}}, Terms: []string{"orders-api-config"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "orders-api-config-5t8f2k9hbm", map[string]string{"application.yaml": "server:\n  port: 8080\nspring:\n  datasource:\n    url: jdbc:postgresql://orders-postgres:5432/orders\norders:\n  reservation-timeout: 15m\n"})
					},
					func() error {
						return e.createConfigMap(ctx, "orders-ui-config-m2b7c94f6d", map[string]string{"config.json": "{\"apiBase\": \"/api\", \"featureFlags\": {\"newCheckout\": true}}\n"})
					},
					func() error {
						d := w8bDeployment("orders-api", "registry.example.com/commerce/orders-api:7.3.1", 2, orders, sim("mount-fail"), "http", 8080)
						w10aMain(&d.Spec.Template, "orders-api")
						mountConfigMap(&d.Spec.Template, "orders-api-config", "/config")
						w8bEnv(&d.Spec.Template, "SPRING_CONFIG_ADDITIONAL_LOCATION", "file:/config/")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("orders-api", orders, "http", 80)) },
					func() error {
						d := w8bDeployment("orders-ui", "registry.example.com/commerce/orders-ui:7.3.0", 1, ordersUI, nil, "http", 8080)
						mountConfigMap(&d.Spec.Template, "orders-ui-config-m2b7c94f6d", "/usr/share/nginx/html/config")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("orders-ui", ordersUI, "http", 80)) },
				)
			},
			Wait: all(podEvent("FailedMount", `configmap "orders-api-config" not found`), readyReplicas("orders-ui", 1)),
		},
		{
			// catalog v4 is a Node.js rewrite listening on 3000; its Service still sends port
			// 80 to targetPort 8080, where nothing listens, so the BFF's calls are refused.
			Name: "storefront-catalog-stale-targetport", Covers: "storefront-bff is Ready but logs 'HTTPConnectionPool(host='catalog', port=80) ... [Errno 111] Connection refused' and serves empty product lists; Service catalog has targetPort 8080 while the catalog v4 pods listen on 3000",
			Source: w11aSrcDebugService, Class: ClassProvider, Hops: 2,
			Problem: "product listing pages on the storefront are empty since catalog v4 went out",
			Target:  target("Deployment", "storefront-bff"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "catalog"}, Terms: []string{"targetPort"}},
			Setup: func(ctx context.Context, e *Env) error {
				mongo := w8cLabels("app.kubernetes.io/name", "mongodb", "app.kubernetes.io/instance", "catalog-mongodb")
				return steps(
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("catalog-mongodb", "docker.io/bitnami/mongodb:7.0.14", "catalog-mongodb-headless", 1, mongo, nil, "mongodb", 27017))
					},
					func() error { return e.createService(ctx, w8bService("catalog-mongodb", mongo, "mongodb", 27017)) },
					func() error {
						d := w8bDeployment("catalog", "ghcr.io/acme-shop/catalog:4.0.2", 2, catalog, running("w11a-catalog-node"), "http", 3000)
						w8bEnv(&d.Spec.Template, "PORT", "3000", "MONGODB_URI", "mongodb://catalog-mongodb:27017/catalog")
						return e.createDeployment(ctx, d)
					},
					func() error {
						s := w8bService("catalog", catalog, "http", 80)
						s.Spec.Ports[0].TargetPort = intstr.FromInt32(8080)
						return e.createService(ctx, s)
					},
					func() error {
						d := w8bDeployment("storefront-bff", "ghcr.io/acme-shop/storefront-bff:2.18.0", 2, bff, running("w11a-storefront-bff-catalog"), "http", 8000)
						w8bEnv(&d.Spec.Template, "CATALOG_URL", "http://catalog", "GUNICORN_CMD_ARGS", "--workers=2 --bind=0.0.0.0:8000")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("storefront-bff", bff, "http", 80)) },
				)
			},
			Wait: all(readyReplicas("storefront-bff", 2), readyReplicas("catalog", 2)),
		},
		{
			// The notifications chart moved to app.kubernetes.io/* labels in 2.0; the Service
			// kept by the platform repo still selects app: notifications and has no endpoints.
			Name: "order-worker-notifications-no-endpoints", Covers: "order confirmations are not sent: order-worker logs 'Post \"http://notifications:8080/v1/messages\": ... connect: connection refused'; Service notifications selects app=notifications while the 2.0 pods carry app.kubernetes.io/name=notifications, so it has no endpoints",
			Source: w11aSrcDebugService, Class: ClassProvider, Hops: 2,
			Problem: "customers stopped getting order confirmation emails after the notifications upgrade",
			Target:  target("Deployment", "order-worker"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "notifications"}, Terms: []string{"selector"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("notifications", "ghcr.io/acme-shop/notifications:2.0.1", 2, notif, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "SMTP_HOST", "email-smtp.eu-west-1.amazonaws.com", "SMTP_PORT", "587")
						return e.createDeployment(ctx, d)
					},
					func() error {
						s := w8bService("notifications", map[string]string{"app": "notifications"}, "http", 8080)
						s.Spec.Ports[0].TargetPort = intstr.FromInt32(8080)
						// The address order-worker's log quotes (static logs cannot learn an allocated one).
						s.Spec.ClusterIP = "10.96.0.118"
						return e.createService(ctx, s)
					},
					func() error {
						d := w8bDeployment("order-worker", "ghcr.io/acme-shop/order-worker:5.4.2", 2, worker, running("w11a-order-worker-notifications"), "metrics", 9090)
						w8bEnv(&d.Spec.Template, "NOTIFICATIONS_URL", "http://notifications:8080", "KAFKA_BROKERS", "kafka.messaging:9092")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("order-worker", 2), readyReplicas("notifications", 2)),
		},
		{
			// Security locked the namespace down with per-app egress policies; billing-api's
			// allows DNS and HTTPS to Stripe but not its own database on 5432.
			Name: "billing-api-egress-policy-omits-postgres", Covers: "billing-api crash-loops with 'dial tcp 10.96.0.203:5432: i/o timeout' to billing-postgres (which is Ready); NetworkPolicy billing-api-egress allows only 53/UDP, 53/TCP and 443/TCP egress from billing-api",
			Source: w11aSrcNetPol, Class: ClassProvider, Hops: 2,
			Problem: "billing-api pods crash since the network policies were rolled out, the database looks fine",
			Target:  target("Deployment", "billing-api"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "billing-api-egress"}, Terms: []string{"egress", "5432"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("billing-postgres", "postgres:16.4", "billing-postgres", 1, billingDB, nil, "postgres", 5432))
					},
					func() error {
						// The address billing-api's log quotes (static logs cannot learn an allocated one).
						s := w8bService("billing-postgres", billingDB, "postgres", 5432)
						s.Spec.ClusterIP = "10.96.0.203"
						return e.createService(ctx, s)
					},
					func() error {
						d := w8bDeployment("billing-api", "ghcr.io/acme-billing/billing-api:1.22.0", 2, billing, crash("1", "", "w11a-billing-api-postgres-timeout"), "http", 8080)
						w8bEnv(&d.Spec.Template, "DATABASE_HOST", "billing-postgres", "DATABASE_NAME", "billing", "STRIPE_API_BASE", "https://api.stripe.com")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "default-deny"},
							Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}},
						})
					},
					func() error {
						return e.createNetworkPolicy(ctx, w8cEgressPolicy("billing-api-egress", map[string]string{"app": "billing-api"},
							networkingv1.NetworkPolicyEgressRule{
								To: []networkingv1.NetworkPolicyPeer{{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": "kube-system"}},
									PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "kube-dns"}}}},
								Ports: w8cPorts("UDP", 53, "TCP", 53),
							},
							networkingv1.NetworkPolicyEgressRule{
								To:    []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0", Except: []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"}}}},
								Ports: w8cPorts("TCP", 443),
							}))
					},
					func() error {
						return e.createNetworkPolicy(ctx, &networkingv1.NetworkPolicy{
							ObjectMeta: metav1.ObjectMeta{Name: "billing-postgres-ingress"},
							Spec: networkingv1.NetworkPolicySpec{
								PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"app": "billing-postgres"}},
								PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
								Ingress: []networkingv1.NetworkPolicyIngressRule{{
									From:  []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "billing-api"}}}},
									Ports: []networkingv1.NetworkPolicyPort{{Protocol: ptr.To(corev1.ProtocolTCP), Port: w10aPortNum(5432)}},
								}},
							},
						})
					},
				)
			},
			Wait: all(podsWith(billing, crashLooping(2)), w11aStatefulSetReady("billing-postgres", 1)),
		},
	}
}
