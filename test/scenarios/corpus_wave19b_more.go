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
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/utils/ptr"
)

func wave19bMoreScenarios() []*Scenario {
	flags := w8bLabels("feature-flags", "storefront")
	bff := w8bLabels("storefront-bff", "storefront")
	catalog := w8bLabels("catalog-api", "storefront")
	dunning := w8cLabels("app.kubernetes.io/name", "invoice-dunning", "app.kubernetes.io/component", "cron")
	pricing := w8bLabels("pricing-engine", "pricing")
	return []*Scenario{
		{
			// A least-privilege review narrowed the flag service's Role to the two flag-set
			// ConfigMaps by resourceNames. Get on those names still works, but the service runs
			// an informer (list and watch of the collection), which resourceNames cannot grant.
			Name: "feature-flags-restarts-after-review", Covers: "feature-flags (Node.js, client-node informer) crash-loops on 'configmaps is forbidden: User \"system:serviceaccount:<ns>:feature-flags\" cannot list resource \"configmaps\" in API group \"\" in the namespace'; Role feature-flags-reader grants get, list and watch on configmaps only with resourceNames [storefront-flags checkout-flags], and a list of the collection is never allowed by resource name (pricing-api's get on a named Secret works)",
			Source: w19bSrcResourceNames, Class: ClassOutside, Hops: 2,
			Problem: "flag changes no longer reach the storefront and the feature-flags pods keep restarting since Monday's access review",
			Target:  target("Deployment", "feature-flags"),
			Want:    Want{Culprit: Ref{Kind: "Role", Name: "feature-flags-reader"}, Terms: []string{"resourceNames"}},
			Setup: func(ctx context.Context, e *Env) error {
				set := w8cLabels("flags.example.com/set", "true")
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "storefront-flags", set, map[string]string{"flags.json": `{"flags":{"new-checkout":{"state":"ENABLED","variants":{"on":true,"off":false},"defaultVariant":"off"}}}`})
					},
					func() error {
						return e.w10aConfigMap(ctx, "checkout-flags", set, map[string]string{"flags.json": `{"flags":{"apple-pay":{"state":"ENABLED","variants":{"on":true,"off":false},"defaultVariant":"on"}}}`})
					},
					func() error { return e.createServiceAccount(ctx, "feature-flags") },
					func() error {
						return e.createRole(ctx, "feature-flags-reader", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"},
							ResourceNames: []string{"storefront-flags", "checkout-flags"}, Verbs: []string{"get", "list", "watch"}})
					},
					func() error {
						return e.createRoleBinding(ctx, "feature-flags-reader", "Role", "feature-flags-reader", "feature-flags")
					},
					func() error { return e.createServiceAccount(ctx, "pricing-api") },
					func() error {
						return e.createRole(ctx, "pricing-keys-reader", rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"},
							ResourceNames: []string{"pricing-keys"}, Verbs: []string{"get"}})
					},
					func() error {
						return e.createRoleBinding(ctx, "pricing-keys-reader", "Role", "pricing-keys-reader", "pricing-api")
					},
					func() error {
						return e.createSecret(ctx, "pricing-keys", map[string]string{"PSP_API_KEY": "psp-key-7f3c9a21", "FX_API_KEY": "fx-key-2b1c9e0d"})
					},
					func() error {
						msg := fmt.Sprintf(`HttpError: HTTP request failed: configmaps is forbidden: User "system:serviceaccount:%s:feature-flags" cannot list resource "configmaps" in API group "" in the namespace "%s"`, e.Namespace, e.Namespace)
						d := w11bApp("feature-flags", "feature-flags", "registry.example/platform/feature-flags:1.9.3", 2, flags, crash("1", msg, "w19b-feature-flags-node"), "grpc", 8013)
						w15aServiceAccount(&d.Spec.Template, "feature-flags")
						w8bEnv(&d.Spec.Template, "FLAG_SET_SELECTOR", "flags.example.com/set=true", "WATCH_NAMESPACE_ONLY", "true")
						return e.w11bServe(ctx, d, 8013)
					},
					func() error {
						d := w11bApp("pricing-api", "pricing-api", "registry.example/pricing/pricing-api:2.2.0", 1, w8bLabels("pricing-api", "pricing"), nil, "http", 8080)
						w15aServiceAccount(&d.Spec.Template, "pricing-api")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("storefront-web", "web", "registry.example/storefront/storefront-web:9.1.0", 1, w8bLabels("storefront-web", "storefront"), nil, "http", 3000)
						w8bEnv(&d.Spec.Template, "FLAGD_HOST", "feature-flags", "FLAGD_PORT", "8013", "FLAGD_CACHE", "lru")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(flags, crashLooping(2)), readyReplicas("pricing-api", 1), readyReplicas("storefront-web", 1)),
		},
		{
			// The platform team added ASPNETCORE_URLS=http://+:5000 to the shared .NET defaults
			// for its legacy services. URLS wins over the image's ASPNETCORE_HTTP_PORTS=8080, so
			// catalog-api listens on 5000 while its probe and Service target 8080; the BFF in
			// front of it gets connection refused and reports not ready.
			Name: "storefront-bff-502-after-defaults-sync", Covers: "storefront-bff answers 502 on product pages and is not ready ('readiness: upstream catalog unhealthy ... ECONNREFUSED'); catalog-api pods run but are never ready ('dial tcp ...:8080: connect: connection refused') and log 'Overriding HTTP_PORTS '8080' ... Binding to values defined by URLS instead 'http://+:5000'': ConfigMap dotnet-defaults, which catalog-api takes through envFrom, sets ASPNETCORE_URLS=http://+:5000 (reviews-api, with its own settings, is fine)",
			Source: w19bSrcKestrelURLS, Class: ClassProvider, Hops: 3,
			Problem: "product pages on the shop return 502 since this morning, the storefront BFF is marked not ready; cart and reviews work",
			Target:  target("Deployment", "storefront-bff"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "dotnet-defaults"}, Terms: []string{"ASPNETCORE_URLS", "5000"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "dotnet-defaults", w8cLabels("app.kubernetes.io/managed-by", "platform-config"), map[string]string{
							"DOTNET_gcServer": "0", "DOTNET_GCHeapHardLimitPercent": "0x4B", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://otel-collector:4317",
							"Logging__Console__FormatterName": "json", "ASPNETCORE_URLS": "http://+:5000", "ASPNETCORE_FORWARDEDHEADERS_ENABLED": "true"})
					},
					func() error {
						d := w11bApp("catalog-api", "catalog-api", "registry.example/storefront/catalog-api:5.3.0", 2, catalog,
							w11bReadinessFail("catalog-api", "w19b-catalog-api-kestrel", `Get "http://10.244.1.23:8080/healthz/ready": dial tcp 10.244.1.23:8080: connect: connection refused`), "http", 8080)
						envFromConfigMap(&d.Spec.Template, "dotnet-defaults")
						w8bEnv(&d.Spec.Template, "ASPNETCORE_HTTP_PORTS", "8080", "ConnectionStrings__Catalog", "Host=catalog-db;Port=5432;Database=catalog;Username=catalog")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/healthz/ready", "http", 10, 3)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("reviews-api", "reviews-api", "registry.example/storefront/reviews-api:2.0.7", 1, w8bLabels("reviews-api", "storefront"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "ASPNETCORE_HTTP_PORTS", "8080", "DOTNET_gcServer", "0", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel-collector:4317")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/healthz/ready", "http", 10, 3)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("cart-api", "cart-api", "registry.example/storefront/cart-api:4.4.1", 1, w8bLabels("cart-api", "storefront"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("storefront-bff", "bff", "registry.example/storefront/storefront-bff:3.14.2", 2, bff,
							w11bReadinessFail("bff", "w19b-storefront-bff", "HTTP probe failed with statuscode: 503"), "http", 3000)
						w8bEnv(&d.Spec.Template, "CATALOG_URL", "http://catalog-api", "REVIEWS_URL", "http://reviews-api", "CART_URL", "http://cart-api")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/ready", "http", 10, 3)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(bff, runningNotReady), podsWith(catalog, runningNotReady), readyReplicas("reviews-api", 1), readyReplicas("cart-api", 1)),
		},
		{
			// The new policy admits billing-db clients by app.kubernetes.io/part-of=billing. The
			// dunning CronJob carries that label on its own metadata only; its jobTemplate's pod
			// labels lack it, so its pods are not admitted and every run times out.
			Name: "invoice-dunning-run-times-out-nightly", Covers: "every run of CronJob invoice-dunning (Rails rake task) fails on 'PG::ConnectionBad: connection to server at \"10.96.0.157\", port 5432 failed: timeout expired'; NetworkPolicy billing-db-ingress admits pods labelled app.kubernetes.io/part-of=billing, which billing-api and CronJob invoice-reminders' pods carry, but invoice-dunning has that label only on the CronJob itself, not in its jobTemplate's pod template",
			Source: w19bSrcCronLabels, Class: ClassProvider, Hops: 2, Slow: true,
			Problem: "the dunning job fails every run since the network policies went live, billing-api itself talks to the database fine",
			Target:  target("CronJob", "invoice-dunning"),
			Want:    Want{Culprit: Ref{Kind: "CronJob", Name: "invoice-dunning"}, Terms: []string{"part-of"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8bLabels("billing-db", "billing")
				return steps(
					func() error {
						st := w8bStatefulSet("billing-db", "postgres:16.4", "billing-db", 1, db, nil, "postgres", 5432)
						w8bEnv(&st.Spec.Template, "POSTGRES_DB", "billing", "POSTGRES_USER", "billing")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w19bService("billing-db", db, "postgres", 5432, "10.96.0.157"))
					},
					func() error {
						return e.createNetworkPolicy(ctx, w13bIngressPolicy("billing-db-ingress", db, w13bFrom(nil, map[string]string{"app.kubernetes.io/part-of": "billing"}, "TCP", 5432)))
					},
					func() error {
						d := w11bApp("billing-api", "billing-api", "registry.example/billing/billing-api:7.3.1", 1, w8bLabels("billing-api", "billing"), nil, "http", 3000)
						w8bEnv(&d.Spec.Template, "DATABASE_HOST", "billing-db", "RAILS_ENV", "production")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						c := w11aCronJob("invoice-reminders", "registry.example/billing/billing-api:7.3.1", "* * * * *", false, w8bLabels("invoice-reminders", "billing"), "bundle", "exec", "rake", "billing:reminders")
						return e.w11aCreateCronJob(ctx, c)
					},
					func() error {
						msg := `PG::ConnectionBad: connection to server at "10.96.0.157", port 5432 failed: timeout expired`
						c := w11aCronJob("invoice-dunning", "registry.example/billing/billing-api:7.3.1", "* * * * *", false, w8bLabels("invoice-dunning", "billing"), "bundle", "exec", "rake", "billing:dunning")
						t := &c.Spec.JobTemplate.Spec.Template
						t.Labels = dunning
						t.Annotations = sim("fail", annExitCode, "1", annMessage, msg, annLogs, "w19b-dunning-rails")
						t.Spec.RestartPolicy = corev1.RestartPolicyNever
						c.Spec.JobTemplate.Spec.BackoffLimit = ptr.To[int32](1)
						w8bEnv(t, "DATABASE_HOST", "billing-db", "RAILS_ENV", "production", "DUNNING_STAGE_DAYS", "7,14,30")
						return e.w11aCreateCronJob(ctx, c)
					},
				)
			},
			Wait: all(w13aAnyJobFailed, w11aAnyJobComplete, readyReplicas("billing-api", 1)),
		},
		{
			// The platform team added a namespace LimitRange with a default CPU limit of 250m for
			// containers that set none. The Spring Boot service never set resources; throttled
			// to a quarter core it needs minutes to start, and its liveness probe kills it first.
			Name: "pricing-engine-restarts-no-errors", Covers: "pricing-engine (Spring Boot) restarts every minute or so: 'Liveness probe failed: ... dial tcp ...:8080: connect: connection refused' and 'Container pricing-engine failed liveness probe, will be restarted', its log a slow start with no error; it sets no resources, so LimitRange container-defaults gives it a default CPU limit of 250m and the start outlasts the probe's 30 s delay and 3 failures",
			Source: w19bSrcLimitDefault, Class: ClassMechanism, Hops: 2,
			Problem: "pricing-engine keeps restarting since last week, there is no error in its logs and we did not change anything",
			Target:  target("Deployment", "pricing-engine"),
			Want:    Want{Culprit: Ref{Kind: "LimitRange", Name: "container-defaults"}, Terms: []string{"250m"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.ownNode(ctx, "pricing") },
					func() error {
						return e.w13bLimitRange(ctx, "container-defaults", corev1.LimitRangeItem{Type: corev1.LimitTypeContainer,
							Default:        w13bList("cpu", "250m", "memory", "768Mi"),
							DefaultRequest: w13bList("cpu", "100m", "memory", "512Mi")})
					},
					func() error {
						d := w11bApp("pricing-engine", "pricing-engine", "registry.example/pricing/pricing-engine:6.2.0", 2, pricing,
							w10aOn("pricing-engine", "liveness-fail", "w19b-pricing-engine-start", annMessage, `Get "http://10.244.3.17:8080/actuator/health/liveness": dial tcp 10.244.3.17:8080: connect: connection refused`), "http", 8080)
						w8bEnv(&d.Spec.Template, "JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75.0", "SPRING_PROFILES_ACTIVE", "prod")
						d.Spec.Template.Spec.Containers[0].LivenessProbe = w19bLiveness("/actuator/health/liveness", "http", 30, 10, 3)
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/actuator/health/readiness", "http", 10, 3)
						e.pin(&d.Spec.Template)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("pricing-admin", "pricing-admin", "registry.example/pricing/pricing-admin:1.4.0", 1, w8bLabels("pricing-admin", "pricing"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "PRICING_ENGINE_URL", "http://pricing-engine")
						e.pin(&d.Spec.Template)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(pricing, restartedWith("Error", 137)), podEvent("Killing", "failed liveness probe"), readyReplicas("pricing-admin", 1)),
		},
	}
}
