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
)

// Wave 19b: tickets from application teams (Django, Go, Laravel, NestJS, Node.js, ASP.NET
// Core, Rails, Spring Boot) whose service misbehaves after a change, theirs or someone
// else's: a policy rollout, a dependency upgrade, a rotated credential, a tightened Role, a
// shared configuration edited, a LimitRange added. The ticket states the symptom only.
// Written blind by an outside hand from the Kubernetes docs and public issue threads; every
// Want was fixed from the source before anything ran.

func wave19bScenarios() []*Scenario {
	return append(wave19bFirstScenarios(), wave19bMoreScenarios()...)
}

func wave19bFirstScenarios() []*Scenario {
	orders := w8bLabels("orders-api", "orders")
	quote := w8bLabels("quote-service", "checkout")
	portal := w8bLabels("invoice-portal", "invoicing")
	billing := w8bLabels("billing-api", "billing")
	return []*Scenario{
		{
			// The security team rolled out per-database ingress policies written against the
			// upstream postgres chart, whose container port is named "postgresql"; a named port
			// in a NetworkPolicy is resolved on the selected pods, and the Bitnami pods name it
			// "tcp-postgresql", so the rule admits no port at all and every connection times out.
			Name: "orders-migrate-timeouts-after-policy", Covers: "orders-api (Django) crash-loops in its migrate step on 'connection to server at \"orders-db\" (10.96.0.196), port 5432 failed: timeout expired' while orders-db is Ready; NetworkPolicy orders-db-ingress admits the orders pods only on the named port postgresql, but the Bitnami postgres container names its port tcp-postgresql, so the rule matches no port (orders-redis-ingress, on tcp-redis, works)",
			Source: w19bSrcNamedPort, Class: ClassProvider, Hops: 2,
			Problem: "orders-api pods restart over and over since this morning with database timeouts, but the database pod is up and healthy",
			Target:  target("Deployment", "orders-api"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "orders-db-ingress"}, Terms: []string{"tcp-postgresql"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8bLabels("orders-db", "orders", "app.kubernetes.io/component", "primary")
				redis := w8bLabels("orders-redis", "orders", "app.kubernetes.io/component", "master")
				clients := map[string]string{"app.kubernetes.io/part-of": "orders"}
				return steps(
					func() error {
						st := w8bStatefulSet("orders-db", "docker.io/bitnami/postgresql:16.4.0", "orders-db-hl", 1, db, nil, "tcp-postgresql", 5432)
						st.Spec.Template.Spec.Containers[0].Name = "postgresql"
						w8bEnv(&st.Spec.Template, "POSTGRESQL_DATABASE", "orders", "POSTGRESQL_USERNAME", "orders", "POSTGRESQL_PORT_NUMBER", "5432")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("orders-db-hl", db, "tcp-postgresql", 5432)); err != nil {
							return err
						}
						return e.createService(ctx, w19bService("orders-db", db, "tcp-postgresql", 5432, "10.96.0.196"))
					},
					func() error {
						return e.w11bStore(ctx, "orders-redis", "docker.io/bitnami/redis:7.4.1", redis, nil, "tcp-redis", 6379)
					},
					func() error {
						return e.createNetworkPolicy(ctx, w19bNamedPortPolicy("orders-db-ingress", db, clients, "postgresql"))
					},
					func() error {
						return e.createNetworkPolicy(ctx, w19bNamedPortPolicy("orders-redis-ingress", redis, clients, "tcp-redis"))
					},
					func() error {
						msg := `django.db.utils.OperationalError: connection to server at "orders-db" (10.96.0.196), port 5432 failed: timeout expired`
						d := w11bApp("orders-api", "orders-api", "registry.example/orders/orders-api:4.12.0", 2, orders, crash("1", msg, "w19b-orders-django-db"), "http", 8000)
						w8bEnv(&d.Spec.Template, "DJANGO_SETTINGS_MODULE", "orders.settings.production", "DATABASE_HOST", "orders-db", "DATABASE_PORT", "5432",
							"DATABASE_NAME", "orders", "DB_CONNECT_TIMEOUT", "5", "CELERY_BROKER_URL", "redis://orders-redis:6379/0")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("orders-worker", "celery", "registry.example/orders/orders-api:4.12.0", 1, w8bLabels("orders-worker", "orders"), nil, "", 0)
						d.Spec.Template.Spec.Containers[0].Args = []string{"celery", "-A", "orders", "worker", "-Q", "emails,webhooks", "--concurrency=4"}
						w8bEnv(&d.Spec.Template, "CELERY_BROKER_URL", "redis://orders-redis:6379/0")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(orders, crashLooping(2)), w8cStatefulSetReady("orders-db", 1), readyReplicas("orders-worker", 1)),
		},
		{
			// The team rebuilt quote-service with Go 1.23. Since Go 1.15 crypto/x509 no longer
			// falls back to the subject CommonName when a certificate has no SAN; the pricing
			// service's certificate, issued years ago by an openssl recipe, has CN only.
			Name: "quote-service-handshake-after-go-bump", Covers: "quote-service crash-loops on 'transport: authentication handshake failed: tls: failed to verify certificate: x509: certificate relies on legacy Common Name field, use SANs instead' dialling pricing-grpc:9443; pricing-grpc is Ready, its TLS Secret pricing-grpc-tls holds a certificate with CN pricing-grpc and no subjectAltName (inventory-grpc-tls, with a SAN, works)",
			Source: w19bSrcLegacyCN, Class: ClassClue, Hops: 3,
			Problem: "quote-service has been crash looping since we merged the dependency and toolchain upgrades; pricing and inventory are both up",
			Target:  target("Deployment", "quote-service"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "pricing-grpc-tls"}, Terms: []string{"Common Name"}},
			Setup: func(ctx context.Context, e *Env) error {
				pricing := w8bLabels("pricing-grpc", "checkout")
				inventory := w8bLabels("inventory-grpc", "checkout")
				return steps(
					func() error { return e.w19bCNOnlyCert(ctx, "pricing-grpc-tls", "pricing-grpc-ca", "pricing-grpc") },
					func() error { return e.w9bTLSSecret(ctx, "inventory-grpc-tls", "inventory-grpc") },
					func() error {
						d := w11bApp("pricing-grpc", "pricing", "registry.example/checkout/pricing-grpc:3.1.4", 2, pricing, nil, "grpc", 9443)
						w8bEnv(&d.Spec.Template, "GRPC_LISTEN", ":9443", "TLS_CERT", "/etc/pricing/tls/tls.crt", "TLS_KEY", "/etc/pricing/tls/tls.key")
						mountSecret(&d.Spec.Template, "pricing-grpc-tls", "/etc/pricing/tls")
						return e.w11bServe(ctx, d, 9443)
					},
					func() error {
						d := w11bApp("inventory-grpc", "inventory", "registry.example/checkout/inventory-grpc:5.0.2", 1, inventory, nil, "grpc", 9090)
						w8bEnv(&d.Spec.Template, "GRPC_LISTEN", ":9090", "TLS_CERT", "/etc/inventory/tls/tls.crt", "TLS_KEY", "/etc/inventory/tls/tls.key")
						mountSecret(&d.Spec.Template, "inventory-grpc-tls", "/etc/inventory/tls")
						return e.w11bServe(ctx, d, 9090)
					},
					func() error {
						msg := `cannot reach pricing service pricing-grpc:9443: rpc error: code = Unavailable desc = connection error: desc = "transport: authentication handshake failed: tls: failed to verify certificate: x509: certificate relies on legacy Common Name field, use SANs instead"`
						d := w11bApp("quote-service", "quote-service", "registry.example/checkout/quote-service:2.7.0", 2, quote, crash("1", msg, "w19b-quote-service-grpc"), "http", 8080)
						w8bEnv(&d.Spec.Template, "PRICING_ADDR", "pricing-grpc:9443", "INVENTORY_ADDR", "inventory-grpc:9090", "TLS_CA_FILE", "/etc/quote/ca/ca.crt")
						mountConfigMap(&d.Spec.Template, "pricing-grpc-ca", "/etc/quote/ca")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(quote, crashLooping(2)), readyReplicas("pricing-grpc", 2), readyReplicas("inventory-grpc", 1)),
		},
		{
			// The platform team's shared php.ini drop-in (mounted into every PHP app) was
			// "normalised" to memory_limit = 128M. Pages still render; only the dompdf invoice
			// export, which needs far more, dies with a PHP fatal error and nginx answers 500.
			Name: "invoice-portal-pdf-export-500s", Covers: "invoice-portal is Running and Ready, but every POST /invoices/export answers 500 and php-fpm logs 'PHP Fatal error:  Allowed memory size of 134217728 bytes exhausted' in dompdf; the shared ConfigMap php-platform-ini, mounted as conf.d/zz-platform.ini, sets memory_limit = 128M",
			Source: w19bSrcPHPMemory, Class: ClassOutside, Hops: 1,
			Problem: "exporting invoices as PDF fails with a 500 error since Friday, the rest of the invoice portal works fine",
			Target:  target("Deployment", "invoice-portal"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "php-platform-ini"}, Terms: []string{"memory_limit"}},
			Setup: func(ctx context.Context, e *Env) error {
				ini := "; managed by platform-team, synced from platform-config repo\nmemory_limit = 128M\nmax_execution_time = 60\nupload_max_filesize = 20M\npost_max_size = 25M\nexpose_php = Off\ndate.timezone = UTC\nopcache.enable = 1\nopcache.memory_consumption = 192\nopcache.max_accelerated_files = 20000\nopcache.validate_timestamps = 0\nrealpath_cache_size = 4096K\n"
				php := func(name, image string, replicas int32, lbl, ann map[string]string) *appsv1.Deployment {
					d := w11bApp(name, "php-fpm", image, replicas, lbl, ann, "fastcgi", 9000)
					w19bSubPathConfigMap(&d.Spec.Template, "php-platform-ini", "zz-platform.ini", "/usr/local/etc/php/conf.d/zz-platform.ini")
					w10aContainer(&d.Spec.Template, "nginx", "nginx:1.27-alpine", "http", 8080)
					return d
				}
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "php-platform-ini", w8cLabels("app.kubernetes.io/managed-by", "platform-config"), map[string]string{"zz-platform.ini": ini})
					},
					func() error {
						return e.createConfigMap(ctx, "invoice-portal-env", map[string]string{"APP_ENV": "production", "APP_URL": "https://portal.example.com", "DB_HOST": "invoicing-mysql", "QUEUE_CONNECTION": "redis", "PDF_RENDERER": "dompdf", "LOG_CHANNEL": "stderr"})
					},
					func() error {
						d := php("invoice-portal", "registry.example/invoicing/invoice-portal:8.4.2", 2, portal, running("w19b-invoice-portal-php"))
						envFromConfigMap(&d.Spec.Template, "invoice-portal-env")
						return e.w19bServeOn(ctx, d, "http", 80)
					},
					func() error {
						d := php("customer-portal", "registry.example/invoicing/customer-portal:3.9.0", 1, w8bLabels("customer-portal", "invoicing"), nil)
						return e.w19bServeOn(ctx, d, "http", 80)
					},
				)
			},
			Wait: all(readyReplicas("invoice-portal", 2), readyReplicas("customer-portal", 1)),
		},
		{
			// The DBA rotated the billing password to a generated one containing '#' and '@';
			// the Secret's DATABASE_URL is rendered from a template without percent-encoding, so
			// Prisma reads everything after '#' as a URL fragment and fails to parse the port.
			Name: "billing-api-crashes-after-pw-rotation", Covers: "billing-api (NestJS, Prisma) crash-loops at 'prisma migrate deploy' with 'Error: P1013: The provided database string is invalid. invalid port number in database URL'; Secret billing-db-url holds DATABASE_URL with the new password's '#' and '@' unescaped, while billing-worker, which takes the same password through PGPASSWORD, connects fine",
			Source: w19bSrcPrisma, Class: ClassClue, Hops: 1,
			Problem: "billing-api crashes right after start since last night's credential rotation, billing-worker with the same database is fine",
			Target:  target("Deployment", "billing-api"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "billing-db-url"}, Terms: []string{"DATABASE_URL", "#"}},
			Setup: func(ctx context.Context, e *Env) error {
				password := "Hq7#t@Lm2vR9xW"
				return steps(
					func() error {
						return e.w17bStringSecret(ctx, "billing-db", w8bLabels("billing-db", "billing"), map[string]string{"username": "billing", "password": password})
					},
					func() error {
						return e.w17bStringSecret(ctx, "billing-db-url", w8bLabels("billing-api", "billing"), map[string]string{
							"DATABASE_URL": fmt.Sprintf("postgresql://billing:%s@billing-db:5432/billing?schema=public&connection_limit=10", password)})
					},
					func() error {
						return e.w11bStore(ctx, "billing-db", "postgres:16.4", w8bLabels("billing-db", "billing"), nil, "postgres", 5432, "POSTGRES_DB", "billing", "POSTGRES_USER", "billing")
					},
					func() error {
						msg := "Error: P1013: The provided database string is invalid. invalid port number in database URL. Please refer to the documentation in https://www.prisma.io/docs/reference/database-reference/connection-urls for constructing a correct connection string. In some cases, certain characters must be escaped. Please check the string for any illegal characters."
						d := w11bApp("billing-api", "billing-api", "registry.example/billing/billing-api:5.8.1", 2, billing, crash("1", msg, "w19b-billing-api-prisma"), "http", 3000)
						envKeyFromSecret(&d.Spec.Template, "DATABASE_URL", "billing-db-url", "DATABASE_URL")
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "PORT", "3000")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("billing-worker", "billing-worker", "registry.example/billing/billing-worker:5.8.1", 1, w8bLabels("billing-worker", "billing"), nil, "metrics", 9090)
						w8bEnv(&d.Spec.Template, "PGHOST", "billing-db", "PGPORT", "5432", "PGDATABASE", "billing", "PGUSER", "billing")
						envKeyFromSecret(&d.Spec.Template, "PGPASSWORD", "billing-db", "password")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(billing, crashLooping(2)), readyReplicas("billing-worker", 1)),
		},
	}
}
