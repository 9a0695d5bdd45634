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

	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

const (
	w12SrcIngress      = "k8s-docs/concepts/services-networking/ingress.md"
	w12SrcHPAMismatch  = "runbooks/kubernetes/KubeHpaReplicasMismatch.md; k8s-docs/tasks/run-application/horizontal-pod-autoscale.md"
	w12SrcPodDNS       = "k8s-docs/concepts/services-networking/dns-pod-service.md (Pod's DNS Config, dnsPolicy None)"
	w12SrcRBAC         = "https://kubernetes.io/docs/reference/access-authn-authz/rbac/ (Role rules: apiGroups \"batch\" for jobs)"
	w12SrcUnleashToken = "https://docs.getunleash.io/reference/api-tokens-and-client-keys (client tokens are scoped to one environment; a token of another environment answers 401)"
	w12SrcPVErrors     = "runbooks/kubernetes/KubePersistentVolumeErrors.md; k8s-docs/concepts/storage/persistent-volumes.md (Retain: a Released volume is not available for another claim)"
	w12SrcArgoIngress  = "https://argo-cd.readthedocs.io/en/stable/operator-manual/ingress/ (ingress-nginx SSL passthrough requires the controller flag --enable-ssl-passthrough; otherwise ERR_TOO_MANY_REDIRECTS)"
)

func wave12PlatformScenarios() []*Scenario {
	sync := w8cLabels("app.kubernetes.io/name", "inventory-sync", "app.kubernetes.io/part-of", "erp-integration")
	erp := w8cLabels("app.kubernetes.io/name", "erp-gateway", "app.kubernetes.io/part-of", "erp-integration")
	catalog := w8cLabels("app", "catalog", "runtime", "node")
	checkout := w8bLabels("checkout-service", "shop")
	ordersPG := w8cLabels("app.kubernetes.io/name", "orders-postgres", "app.kubernetes.io/component", "primary")
	proxy := w8cLabels("app.kubernetes.io/name", "oauth2-proxy", "app.kubernetes.io/instance", "internal-tools")
	cart := w8bLabels("cart-api", "shop")
	metabase := w8cLabels("app", "metabase", "team", "analytics")
	analyticsDB := w8cLabels("app", "analytics-db", "team", "analytics")
	account := w8cLabels("app", "account-web", "tier", "web")
	sessions := w8cLabels("app", "sessions-redis", "tier", "cache")
	argocd := w8cLabels("app.kubernetes.io/name", "argocd-server", "app.kubernetes.io/part-of", "argocd")
	return []*Scenario{
		{
			// The ERP team re-issued erp-gateway's certificate for its old namespace's DNS name;
			// the Go sync job dials https://erp-gateway:8443 and fails verification. The job's
			// log stops before the call; only its termination message says why.
			Name: "inventory-sync-erp-cert-wrong-name", Covers: "Job inventory-sync-29412960 fails; no error in its log, its termination message says 'x509: certificate is valid for erp-gateway.erp-legacy.svc.cluster.local, not erp-gateway'; the certificate in Secret erp-gateway-tls mounted by erp-gateway was issued for the wrong name",
			Source: w12SrcTermMessage, Class: ClassClue, Hops: 3,
			Problem: "KubeJobFailed: the hourly inventory sync from the ERP failed",
			Target:  target("Job", "inventory-sync-29412960"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "erp-gateway-tls"}, Terms: []string{"certificate"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w9aTLSSecret(ctx, "erp-gateway-tls", "erp-gateway.erp-legacy.svc.cluster.local")
					},
					func() error {
						d := w8bDeployment("erp-gateway", "registry.example/erp/erp-gateway:2.3.1", 2, erp, nil, "https", 8443)
						w8bEnv(&d.Spec.Template, "TLS_CERT_FILE", "/etc/tls/tls.crt", "TLS_KEY_FILE", "/etc/tls/tls.key", "ERP_BACKEND_URL", "https://erp.corp.example.com/sap/opu/odata")
						mountSecret(&d.Spec.Template, "erp-gateway-tls", "/etc/tls")
						return e.w11bServe(ctx, d, 8443)
					},
					func() error {
						return e.createConfigMap(ctx, "inventory-sync", map[string]string{"warehouses.yaml": "warehouses:\n- id: HAM1\n  erp_plant: \"1000\"\n- id: MUC2\n  erp_plant: \"2000\"\n"})
					},
					func() error {
						j := job("inventory-sync-29412960", 0, sim("fail", annExitCode, "1", annLogs, "w12-inventory-sync-start",
							annMessage, "sync failed: Get \"https://erp-gateway:8443/api/v2/stock?plant=1000\": tls: failed to verify certificate: x509: certificate is valid for erp-gateway.erp-legacy.svc.cluster.local, not erp-gateway"))
						j.Labels = sync
						j.Spec.Template.Labels = sync
						j.Spec.Template.Spec.Containers[0].Name = "inventory-sync"
						j.Spec.Template.Spec.Containers[0].Image = "registry.example/erp/inventory-sync:1.12.0"
						w8bEnv(&j.Spec.Template, "ERP_GATEWAY_URL", "https://erp-gateway:8443")
						mountConfigMap(&j.Spec.Template, "inventory-sync", "/etc/inventory-sync")
						return e.w9aJob(ctx, j)
					},
				)
			},
			Wait: w11aJobFailed("inventory-sync-29412960", "BackoffLimitExceeded"),
		},
		{
			// The Node.js rewrite listens on 3000; the Service kept the JVM app's numeric
			// targetPort 8080, so it has endpoints, but nothing answers on them.
			Name: "catalog-ingress-502-numeric-targetport", Covers: "catalog.example.com answers 502 after the Node.js rewrite; pods are Ready and the Service has endpoints, but Service catalog sends port 80 to targetPort 8080 while the container listens on 3000 (no log or event says so)",
			Source: w12SrcDebugService, Class: ClassProvider, Hops: 2,
			Problem: "catalog.example.com returns 502 Bad Gateway since the Node.js rewrite went out",
			Target:  target("Ingress", "catalog"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "catalog"}, Terms: []string{"targetPort"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("catalog", "registry.example/shop/catalog-node:1.0.0", 2, catalog, running("w12-plain-web"), "http", 3000)
						w8bEnv(&d.Spec.Template, "PORT", "3000", "NODE_ENV", "production")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error {
						s := w8bService("catalog", catalog, "http", 80)
						s.Spec.Ports[0].TargetPort = intstr.FromInt32(8080)
						return e.createService(ctx, s)
					},
					func() error {
						d := w8bDeployment("catalog-images", "registry.example/shop/catalog-images:3.2.0", 1, w8cLabels("app", "catalog-images", "runtime", "nginx"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("catalog", "catalog.example.com", "catalog", 80))
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("catalog-images", "images.catalog.example.com", "catalog-images", 80))
					},
				)
			},
			Wait: readyReplicas("catalog", 2),
		},
		{
			// The chart migration renamed the Deployment to checkout-service; the HPA kept its
			// scaleTargetRef to the old name, so it cannot read the scale and never acts.
			Name: "checkout-hpa-scale-target-renamed", Covers: "KubeHpaReplicasMismatch/the HPA never scales: HPA checkout's scaleTargetRef names Deployment checkout, renamed to checkout-service in the chart migration; AbleToScale=False FailedGetScale 'deployments/scale.apps \"checkout\" not found'",
			Source: w12SrcHPAMismatch, Class: ClassReference, Hops: 1,
			Problem: "checkout stays at 2 pods during the load test although the autoscaler allows 10",
			Target:  target("HorizontalPodAutoscaler", "checkout"),
			Want:    Want{Culprit: Ref{Kind: "HorizontalPodAutoscaler", Name: "checkout"}, Terms: []string{"scaleTargetRef"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("checkout-service", "registry.example/shop/checkout-service:8.0.2", 2, checkout, nil, "http", 8080)
						w8cRequests(&d.Spec.Template, "100m", "128Mi", "", "256Mi")
						return e.w11bServe(ctx, d, 80)
					},
					func() error { return e.createHPA(ctx, "checkout", "checkout", 2, 10) },
					func() error {
						d := w8bDeployment("cart-service", "registry.example/shop/cart-service:3.1.0", 1, w8bLabels("cart-service", "shop"), nil, "http", 8080)
						w8cRequests(&d.Spec.Template, "50m", "64Mi", "", "128Mi")
						return e.w11bServe(ctx, d, 80)
					},
					func() error { return e.createHPA(ctx, "cart-service", "cart-service", 1, 4) },
				)
			},
			Wait: w8cHPACondition("checkout", autoscalingv2.AbleToScale, "FailedGetScale"),
		},
		{
			// The database only lets the app user in through pg_hba.conf; the new backup user
			// was created but never given a host line, so pg_dump exits 1 at connect. The
			// backup script traces its commands and prints nothing else.
			Name: "orders-backup-pg-hba-no-entry", Covers: "Job orders-db-backup-20261128 fails with exit code 1; its log only traces the pg_dump command, its termination message says 'FATAL: no pg_hba.conf entry for host \"10.244.2.31\", user \"backup\", database \"orders\"'; ConfigMap orders-postgres-hba (the hba_file of orders-postgres) has no line for the backup user",
			Source: w12SrcTermMessage + "; runbooks/kubernetes/KubeJobFailed.md", Class: ClassClue, Hops: 3,
			Problem: "KubeJobFailed: last night's orders database backup failed",
			Target:  target("Job", "orders-db-backup-20261128"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "orders-postgres-hba"}, Terms: []string{"pg_hba"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "orders-postgres-hba", map[string]string{"pg_hba.conf": "# TYPE  DATABASE  USER        ADDRESS         METHOD\nlocal   all       all                         trust\nhost    all       all         127.0.0.1/32    scram-sha-256\nhost    orders    orders_app  10.244.0.0/16   scram-sha-256\nhost    replication replicator 10.244.0.0/16 scram-sha-256\n"})
					},
					func() error {
						st := w8bStatefulSet("orders-postgres", "postgres:16.4", "orders-postgres", 1, ordersPG, nil, "postgres", 5432)
						w8cArgs(&st.Spec.Template, "postgres", "-c", "hba_file=/etc/postgresql/hba/pg_hba.conf")
						w8bEnv(&st.Spec.Template, "POSTGRES_DB", "orders", "POSTGRES_USER", "postgres")
						mountConfigMap(&st.Spec.Template, "orders-postgres-hba", "/etc/postgresql/hba")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("orders-postgres", ordersPG, "postgres", 5432))
					},
					func() error {
						return e.createSecret(ctx, "orders-db-backup", map[string]string{"pgpass": "orders-postgres:5432:orders:backup:Np3xR7wq2Lzt\n"})
					},
					func() error {
						d := w8bDeployment("orders-api", "registry.example/orders/orders-api:4.12.0", 2, w8bLabels("orders-api", "orders"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "PGHOST", "orders-postgres", "PGUSER", "orders_app", "PGDATABASE", "orders")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						j := job("orders-db-backup-20261128", 0, sim("fail", annExitCode, "1", annLogs, "w12-orders-backup-wrapper",
							annMessage, "pg_dump: error: connection to server at \"orders-postgres\" (10.96.88.14), port 5432 failed: FATAL:  no pg_hba.conf entry for host \"10.244.2.31\", user \"backup\", database \"orders\", no encryption"))
						c := &j.Spec.Template.Spec.Containers[0]
						c.Name, c.Image = "pg-dump", "postgres:16.4"
						c.Command = []string{"/bin/sh", "-xc", "export PGPASSFILE=/run/secrets/pgpass; STAMP=$(date -u +%Y%m%d); pg_dump --format=custom --no-owner --file=/backup/orders-$STAMP.dump orders"}
						w8bEnv(&j.Spec.Template, "PGHOST", "orders-postgres", "PGUSER", "backup")
						mountSecret(&j.Spec.Template, "orders-db-backup", "/run/secrets")
						return e.w9aJob(ctx, j)
					},
				)
			},
			Wait: all(w11aJobFailed("orders-db-backup-20261128", "BackoffLimitExceeded"), w8cStatefulSetReady("orders-postgres", 1)),
		},
		{
			// Someone pinned oauth2-proxy's resolver with dnsPolicy None while testing a split
			// DNS setup and typed the nameserver wrong; OIDC discovery times out at start.
			Name: "oauth2-proxy-dnsconfig-wrong-nameserver", Covers: "sso.example.com answers 503; oauth2-proxy crash-loops on 'lookup keycloak-http on 10.96.0.100:53: ... i/o timeout' during OIDC discovery; its pod template sets dnsPolicy None with dnsConfig nameserver 10.96.0.100 instead of the cluster DNS 10.96.0.10",
			Source: w12SrcPodDNS, Class: ClassClue, Hops: 2,
			Problem: "logging in through sso.example.com fails with 503 for all internal tools",
			Target:  target("Ingress", "oauth2-proxy"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "oauth2-proxy"}, Terms: []string{"10.96.0.100"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("keycloak", "quay.io/keycloak/keycloak:26.0.5", 1, w8cLabels("app.kubernetes.io/name", "keycloak"), nil, "http", 8080)
						w8cArgs(&d.Spec.Template, "start", "--hostname=https://sso.example.com/auth", "--http-enabled=true")
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w10aServiceTo("keycloak-http", w8cLabels("app.kubernetes.io/name", "keycloak"), "http", 80, "http"))
					},
					func() error {
						return e.createSecret(ctx, "oauth2-proxy", map[string]string{"client-id": "internal-tools", "client-secret": "m1Zq8Vt3Xc7Rk2Lp", "cookie-secret": "b2F1dGgycHJveHljb29raWVzZWNyZXQ="})
					},
					func() error {
						d := w8bDeployment("oauth2-proxy", "quay.io/oauth2-proxy/oauth2-proxy:v7.7.1", 2, proxy, crash("1", "", "w12-oauth2-proxy-dns"), "http", 4180)
						w10aMain(&d.Spec.Template, "oauth2-proxy", "--provider=keycloak-oidc", "--oidc-issuer-url=http://keycloak-http/realms/internal",
							"--upstream=http://grafana.monitoring.svc.cluster.local:80/", "--http-address=0.0.0.0:4180", "--email-domain=*")
						envKeyFromSecret(&d.Spec.Template, "OAUTH2_PROXY_CLIENT_ID", "oauth2-proxy", "client-id")
						envKeyFromSecret(&d.Spec.Template, "OAUTH2_PROXY_CLIENT_SECRET", "oauth2-proxy", "client-secret")
						envKeyFromSecret(&d.Spec.Template, "OAUTH2_PROXY_COOKIE_SECRET", "oauth2-proxy", "cookie-secret")
						d.Spec.Template.Spec.DNSPolicy = corev1.DNSNone
						d.Spec.Template.Spec.DNSConfig = &corev1.PodDNSConfig{
							Nameservers: []string{"10.96.0.100"},
							Searches:    []string{e.Namespace + ".svc.cluster.local", "svc.cluster.local", "cluster.local"},
							Options:     []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr.To("5")}},
						}
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("oauth2-proxy", "sso.example.com", "oauth2-proxy", 80))
					},
				)
			},
			Wait: podsWith(proxy, crashLooping(2)),
		},
		{
			// The Role was written with jobs in the core API group; Jobs live in "batch", so
			// the runner's create is denied although the Role seems to list them.
			Name: "ci-runner-role-jobs-core-group", Covers: "outside the catalogue: 'why can't the ci-runner service account create jobs here?'; Role ci-runner (bound to it) lists resource jobs under apiGroups [\"\"] instead of \"batch\"; no pod fails, the answer is in the RBAC objects",
			Source: w12SrcRBAC, Class: ClassOutside, Hops: 2,
			Problem: "why can't the ci-runner service account create jobs in this namespace? kubectl auth can-i create jobs as it says no",
			Target:  target("ServiceAccount", "ci-runner"),
			Want:    Want{Culprit: Ref{Kind: "Role", Name: "ci-runner"}, Terms: []string{"batch"}},
			Setup: func(ctx context.Context, e *Env) error {
				verbs := []string{"get", "list", "watch", "create", "delete"}
				return steps(
					func() error { return e.createServiceAccount(ctx, "ci-runner") },
					func() error { return e.createServiceAccount(ctx, "deployer") },
					func() error {
						return e.createRole(ctx, "ci-runner",
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"pods", "pods/log", "pods/exec", "pods/attach", "secrets", "configmaps"}, Verbs: verbs},
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"jobs"}, Verbs: verbs})
					},
					func() error { return e.createRoleBinding(ctx, "ci-runner", "Role", "ci-runner", "ci-runner") },
					func() error {
						return e.createRole(ctx, "deployer",
							rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments", "statefulsets"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch"}},
							rbacv1.PolicyRule{APIGroups: []string{"batch"}, Resources: []string{"cronjobs"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch"}})
					},
					func() error { return e.createRoleBinding(ctx, "deployer", "Role", "deployer", "deployer") },
					func() error {
						d := w8bDeployment("gitlab-runner", "registry.gitlab.com/gitlab-org/gitlab-runner:v17.5.3", 1, w8cLabels("app", "gitlab-runner", "release", "ci"), running("w12-gitlab-runner"), "metrics", 9252)
						d.Spec.Template.Spec.ServiceAccountName = "ci-runner"
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: readyReplicas("gitlab-runner", 1),
		},
		{
			// The cart-api Secret holds a development-environment client token; the production
			// Unleash only accepts its production token, so every refresh is refused with 401
			// while the app keeps serving from its bootstrap toggles.
			Name: "cart-api-unleash-token-401-every-minute", Covers: "outside the catalogue: a Running, Ready cart-api logs 'unleash: fetching feature toggles failed ... status 401 Unauthorized' every minute; UNLEASH_API_TOKEN from Secret cart-api-unleash is a development token, the production Unleash only knows the token in unleash-api-tokens",
			Source: w12SrcUnleashToken, Class: ClassOutside, Hops: 1,
			Problem: "why is cart-api logging unleash errors every minute? the pods are Running and Ready",
			Target:  target("Deployment", "cart-api"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "cart-api-unleash"}, Terms: []string{"401", "token"}},
			Setup: func(ctx context.Context, e *Env) error {
				unleash := w8cLabels("app.kubernetes.io/name", "unleash", "app.kubernetes.io/instance", "unleash")
				return steps(
					func() error {
						return e.createSecret(ctx, "unleash-api-tokens", map[string]string{"INIT_CLIENT_API_TOKENS": "default:production.8c2b5f0e9a7d41c6b3e2f1a0d9c8b7a6",
							"INIT_FRONTEND_API_TOKENS": "default:production.1e3a5c7b9d2f4a6c8e0b1d3f5a7c9e2b"})
					},
					func() error {
						d := w8bDeployment("unleash", "unleashorg/unleash-server:6.3.0", 1, unleash, nil, "http", 4242)
						w8bEnv(&d.Spec.Template, "DATABASE_HOST", "unleash-postgresql", "DATABASE_NAME", "unleash", "LOG_LEVEL", "warn")
						envFromSecret(&d.Spec.Template, "unleash-api-tokens")
						return e.w11bServe(ctx, d, 4242)
					},
					func() error {
						return e.createSecret(ctx, "cart-api-unleash", map[string]string{"UNLEASH_API_TOKEN": "default:development.4f1c7a2e9b3d48e6a5c0f2b1d8e7c6a9"})
					},
					func() error {
						d := w8bDeployment("cart-api", "registry.example/shop/cart-api:5.0.2", 2, cart, running("w12-cart-api-unleash"), "http", 8080)
						w8bEnv(&d.Spec.Template, "UNLEASH_URL", "http://unleash:4242/api", "UNLEASH_APP_NAME", "cart-api", "UNLEASH_ENVIRONMENT", "production")
						envFromSecret(&d.Spec.Template, "cart-api-unleash")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("wishlist-api", "registry.example/shop/wishlist-api:1.6.0", 1, w8bLabels("wishlist-api", "shop"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "UNLEASH_URL", "http://unleash:4242/api")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(readyReplicas("cart-api", 2), readyReplicas("unleash", 1)),
		},
		{
			// ingress-nginx merges Ingresses of one host, and for the same host and path the
			// oldest Ingress wins; the legacy Ingress was never deleted, so the new one is
			// ignored for "/".
			Name: "docs-v2-ingress-shadowed-by-legacy", Covers: "outside the catalogue: docs.example.com still serves the old site; Ingress docs-v2 routes docs.example.com / to docs-v2, but the older Ingress docs (same class, same host and path, to docs-legacy) still exists and takes precedence",
			Source: w12SrcIngress + "; ingress-nginx docs, Ingress merging: the oldest rule wins for a duplicate host and path", Class: ClassOutside, Hops: 1,
			Problem: "docs.example.com still serves the old documentation although the docs-v2 Ingress now routes it to docs-v2; why?",
			Target:  target("Ingress", "docs-v2"),
			Want:    Want{Culprit: Ref{Kind: "Ingress", Name: "docs"}, Terms: []string{"docs.example.com"}},
			Setup: func(ctx context.Context, e *Env) error {
				class := e.ClusterName("nginx")
				return steps(
					func() error { return e.createIngressClassNamed(ctx, "nginx", "k8s.io/ingress-nginx") },
					func() error {
						d := w8bDeployment("docs-legacy", "registry.example/web/docs-legacy:2023.4", 1, w8cLabels("app", "docs-legacy"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createIngress(ctx, w9aIngress("docs", class, "docs.example.com", "/", "docs-legacy", "http", nil, ""))
					},
					func() error {
						d := w8bDeployment("docs-v2", "registry.example/web/docs-v2:2026.11.2", 2, w8cLabels("app", "docs-v2"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createIngress(ctx, w9aIngress("docs-v2", class, "docs.example.com", "/", "docs-v2", "http", nil, ""))
					},
					func() error {
						d := w8bDeployment("blog", "registry.example/web/blog:5.8.0", 1, w8cLabels("app", "blog"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createIngress(ctx, w9aIngress("blog", class, "blog.example.com", "/", "blog", "http", nil, ""))
					},
				)
			},
			Wait: all(readyReplicas("docs-v2", 2), readyReplicas("docs-legacy", 1)),
		},
		{
			// analytics-db was deleted and re-created; its claim is new, but the Retain volume
			// still carries the old claim's UID, so it is Released and binds nothing: the
			// database pod cannot be scheduled and Metabase cannot reach it.
			Name: "metabase-analytics-db-volume-released", Covers: "Metabase crash-loops on 'Connection to analytics-db:5432 refused'; analytics-db-0 is Pending (no available persistent volume to bind); the only volume of its StorageClass is Released, its claimRef still holding the deleted claim's UID",
			Source: w12SrcPVErrors, Class: ClassRanking, Hops: 4,
			Problem: "Metabase is down since the analytics-db StatefulSet was re-created",
			Target:  target("Deployment", "metabase"),
			Want:    Want{Culprit: Ref{Kind: "PersistentVolume", Name: "analytics-db-data", Cluster: true}, Terms: []string{"Released"}},
			Setup: func(ctx context.Context, e *Env) error {
				class := e.ClusterName("analytics-local")
				return steps(
					func() error {
						return e.createStorageClass(ctx, "analytics-local", "kubernetes.io/no-provisioner", storagev1.VolumeBindingWaitForFirstConsumer)
					},
					func() error {
						return e.w8aCreateRetainedPV(ctx, "analytics-db-data", "data-analytics-db-0", class, "50Gi")
					},
					func() error {
						st := w8bStatefulSet("analytics-db", "postgres:15.8", "analytics-db", 1, analyticsDB, nil, "postgres", 5432)
						w8bEnv(&st.Spec.Template, "POSTGRES_DB", "metabase", "POSTGRES_USER", "metabase", "PGDATA", "/var/lib/postgresql/data/pgdata")
						st.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{
							ObjectMeta: metav1.ObjectMeta{Name: "data"},
							Spec: corev1.PersistentVolumeClaimSpec{
								AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
								StorageClassName: ptr.To(class),
								Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("50Gi")}},
							},
						}}
						st.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/var/lib/postgresql/data"}}
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("analytics-db", analyticsDB, "postgres", 5432))
					},
					func() error {
						d := w8bDeployment("metabase", "metabase/metabase:v0.51.4", 1, metabase, crash("1", "", "w12-metabase-refused"), "http", 3000)
						w8bEnv(&d.Spec.Template, "MB_DB_TYPE", "postgres", "MB_DB_HOST", "analytics-db", "MB_DB_PORT", "5432", "MB_DB_DBNAME", "metabase", "MB_DB_USER", "metabase")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("dbt-docs", "registry.example/analytics/dbt-docs:1.8.7", 1, w8cLabels("app", "dbt-docs", "team", "analytics"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(w8aPVPhase("analytics-db-data", corev1.VolumeReleased), podsWith(metabase, crashLooping(2))),
		},
		{
			// The Redis StatefulSet was moved to port 6380 by an args change; its container
			// port, the Service and every client still say 6379.
			Name: "account-web-sessions-redis-port-args", Covers: "account-web (Rails, Puma) crash-loops on 'Connection refused - connect(2) for ...:6379 (sessions-redis:6379)'; sessions-redis is Running and Ready, its log says 'Running mode=standalone, port=6380.' because its args pass --port 6380 while the Service sends 6379",
			Source: w12SrcDebugService, Class: ClassProvider, Hops: 2,
			Problem: "account.example.com is down, account-web restarts in a loop after the sessions-redis change",
			Target:  target("Deployment", "account-web"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "sessions-redis"}, Terms: []string{"6380"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := w8bStatefulSet("sessions-redis", "redis:7.4.1", "sessions-redis", 1, sessions, running("w12-sessions-redis"), "redis", 6379)
						w10aMain(&st.Spec.Template, "redis", "redis-server", "--port", "6380", "--save", "", "--appendonly", "no", "--maxmemory", "512mb", "--maxmemory-policy", "allkeys-lru")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("sessions-redis", sessions, "redis", 6379))
					},
					func() error {
						return e.createSecret(ctx, "account-web", map[string]string{"SECRET_KEY_BASE": "9f8e7d6c5b4a39281706f5e4d3c2b1a0", "DATABASE_URL": "postgres://account:Vb4nQ8zr1Tx@account-db:5432/account"})
					},
					func() error {
						d := w8bDeployment("account-web", "registry.example/web/account-web:12.4.0", 2, account, crash("1", "", "w12-account-web-redis"), "http", 3000)
						w8bEnv(&d.Spec.Template, "RAILS_ENV", "production", "REDIS_SESSION_URL", "redis://sessions-redis:6379/0", "RAILS_LOG_TO_STDOUT", "1")
						envFromSecret(&d.Spec.Template, "account-web")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.w11bStore(ctx, "account-db", "postgres:16.4", w8cLabels("app", "account-db", "tier", "db"), nil, "postgres", 5432, "POSTGRES_DB", "account")
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("account-web", "account.example.com", "account-web", 80))
					},
				)
			},
			Wait: all(podsWith(account, crashLooping(2)), w8cStatefulSetReady("sessions-redis", 1)),
		},
		{
			// The ExternalName Service that stands for the mail team's relay has a typo in its
			// domain; the resolver error Python prints does not even name the host.
			Name: "newsletter-smtp-relay-externalname-typo", Covers: "Job newsletter-send-november fails: 'connecting to SMTP relay smtp-relay:587' then 'socket.gaierror: [Errno -2] Name or service not known'; Service smtp-relay is an ExternalName for postfix.mail-infra.svc.cluster.locl (typo of .local)",
			Source: w12SrcService + " (type ExternalName)", Class: ClassProvider, Hops: 2,
			Problem: "the November newsletter was not sent; the send job failed",
			Target:  target("Job", "newsletter-send-november"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "smtp-relay"}, Terms: []string{"cluster.locl"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createService(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "smtp-relay"},
							Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "postfix.mail-infra.svc.cluster.locl",
								Ports: []corev1.ServicePort{{Name: "submission", Port: 587}}}})
					},
					func() error {
						return e.createService(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "crm-api"},
							Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "crm-api.crm.svc.cluster.local",
								Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}})
					},
					func() error {
						d := w8bDeployment("newsletter-api", "registry.example/marketing/newsletter-api:2.4.1", 1, w8cLabels("app", "newsletter-api"), nil, "http", 8000)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createSecret(ctx, "newsletter-smtp", map[string]string{"SMTP_USER": "newsletter@example.com", "SMTP_PASSWORD": "Tz5kW2nq8Lrp"})
					},
					func() error {
						j := job("newsletter-send-november", 1, sim("fail", annExitCode, "1", annLogs, "w12-newsletter-mailer-smtp"))
						c := &j.Spec.Template.Spec.Containers[0]
						c.Name, c.Image = "mailer", "registry.example/marketing/newsletter-mailer:2.4.1"
						c.Args = []string{"send", "--campaign", "november-digest"}
						w8bEnv(&j.Spec.Template, "SMTP_HOST", "smtp-relay", "SMTP_PORT", "587", "SMTP_STARTTLS", "true", "CRM_API_URL", "http://crm-api")
						envFromSecret(&j.Spec.Template, "newsletter-smtp")
						return e.w9aJob(ctx, j)
					},
				)
			},
			Wait: w11aJobFailed("newsletter-send-november", "BackoffLimitExceeded"),
		},
		{
			// The Ingress asks for SSL passthrough so argocd-server terminates TLS itself, but
			// the controller runs without --enable-ssl-passthrough: it ignores the annotation,
			// proxies plain HTTP, and argocd-server redirects every request back to HTTPS.
			Name: "argocd-ssl-passthrough-not-enabled", Covers: "argocd.example.com loops with ERR_TOO_MANY_REDIRECTS; Ingress argocd-server sets nginx.ingress.kubernetes.io/ssl-passthrough: \"true\" but the ingress-nginx-controller Deployment runs without --enable-ssl-passthrough, so nginx proxies HTTP to the TLS-serving argocd-server, which answers 307 to HTTPS",
			Source: w12SrcArgoIngress, Class: ClassMechanism, Hops: 2,
			Problem: "argocd.example.com ends in ERR_TOO_MANY_REDIRECTS in every browser",
			Target:  target("Ingress", "argocd-server"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "ingress-nginx-controller"}, Terms: []string{"enable-ssl-passthrough"}},
			Setup: func(ctx context.Context, e *Env) error {
				var class string
				return steps(
					func() error {
						c, err := e.w9aIngressNginx(ctx, "nginx", "v1.11.3", "w12-ingress-nginx-controller", map[string]string{"allow-snippet-annotations": "false", "use-forwarded-headers": "true"})
						class = c
						return err
					},
					func() error {
						return e.createConfigMap(ctx, "argocd-cmd-params-cm", map[string]string{"server.insecure": "false", "server.rootpath": "", "reposerver.parallelism.limit": "4"})
					},
					func() error { return e.w9aTLSSecret(ctx, "argocd-server-tls", "argocd.example.com") },
					func() error {
						d := w8bDeployment("argocd-server", "quay.io/argoproj/argocd:v2.12.6", 1, argocd, running("w12-argocd-server"), "server", 8080)
						w10aMain(&d.Spec.Template, "argocd-server", "/usr/local/bin/argocd-server")
						w10aPort(&d.Spec.Template, "metrics", 8083)
						mountSecret(&d.Spec.Template, "argocd-server-tls", "/app/config/server/tls")
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						s := w10aServiceTo("argocd-server", argocd, "http", 80, "server")
						s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "https", Port: 443, TargetPort: intstr.FromString("server")})
						return e.createService(ctx, s)
					},
					func() error {
						return e.createIngress(ctx, w9aIngress("argocd-server", class, "argocd.example.com", "/", "argocd-server", "https",
							map[string]string{"nginx.ingress.kubernetes.io/ssl-passthrough": "true", "nginx.ingress.kubernetes.io/force-ssl-redirect": "true"}, ""))
					},
					func() error {
						d := w8bDeployment("argocd-repo-server", "quay.io/argoproj/argocd:v2.12.6", 1, w8cLabels("app.kubernetes.io/name", "argocd-repo-server", "app.kubernetes.io/part-of", "argocd"), nil, "server", 8081)
						return e.w11bServe(ctx, d, 8081)
					},
				)
			},
			Wait: all(readyReplicas("argocd-server", 1), readyReplicas("ingress-nginx-controller", 2)),
		},
	}
}
