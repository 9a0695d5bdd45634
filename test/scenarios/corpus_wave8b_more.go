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
	"encoding/json"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// The second half of wave 8b (see corpus_wave8b.go).

const (
	w8bSrcVhostSlash        = "https://github.com/postalserver/postal/issues/12 (vhost created as /postal, the AMQP URL path selects postal)"
	w8bSrcMigrateReplica    = "https://github.com/transact-rs/sqlx/issues/4105 (migrations against a read-only replica: cannot execute CREATE TABLE in a read-only transaction)"
	w8bSrcKeyMismatch       = "https://github.com/kubernetes/ingress-nginx/pull/851 (a TLS Secret whose key and certificate do not match: key values mismatch)"
	w8bSrcFastifyLocal      = "https://github.com/fastify/fastify/issues/5945 (Fastify deployed in Kubernetes listens on localhost)"
	w8bSrcCAShadow          = "https://github.com/konflux-ci/release-service-catalog/pull/2153 (a CA ConfigMap mounted over /etc/ssl/certs hides the system roots)"
	w8bSrcIstioPortName     = "https://github.com/istio/istio/issues/38284 (MySQL through a Service whose port name does not follow Istio protocol selection)"
	w8bSrcCeleryPrefork     = "https://github.com/prowler-cloud/prowler/issues/10968 (Celery --concurrency defaults to the node's CPU count, workers OOMKilled)"
	w8bSrcRedisMaxmemory    = "https://github.com/rhesis-ai/rhesis/issues/1769 (Celery publish fails: command not allowed when used memory > 'maxmemory')"
	w8bRabbitDefinitions    = `{"vhosts":[{"name":"/"},{"name":"/notifications"}],"users":[{"name":"billing","password_hash":"kI3GCqW5JLMJa4iX1lo7X4D6XbYqlLgxIs30+P6tENUV2POR","tags":""},{"name":"notifier","password_hash":"Q8t1Yb0X9hJ0YQ7m2PqvB1gk0WbZ0mJ3b1Kq2c8xw3yQ9aLR","tags":""}],"permissions":[{"user":"billing","vhost":"/","configure":".*","write":".*","read":".*"},{"user":"notifier","vhost":"/notifications","configure":".*","write":".*","read":".*"}],"queues":[{"name":"notifications.email","vhost":"/notifications","durable":true,"arguments":{"x-queue-type":"quorum"}}]}`
	w8bPartnersConfTemplate = "server {\n    listen 8443 ssl;\n    server_name partners.example.com;\n    ssl_certificate     /etc/nginx/tls/tls.crt;\n    ssl_certificate_key /etc/nginx/tls/tls.key;\n" +
		"    ssl_protocols TLSv1.2 TLSv1.3;\n    location / {\n        proxy_pass http://partner-orders:8080;\n        proxy_set_header X-Partner-Id $ssl_client_s_dn_cn;\n    }\n}\n"
)

func wave8bMoreScenarios() []*Scenario {
	return []*Scenario{
		{
			// The definitions create the vhost "/notifications"; the URL's path
			// ".../notifications" selects the vhost "notifications", which does not exist.
			Name: "notifications-consumer-amqp-vhost-slash", Covers: "a Ruby AMQP consumer crashes on Bunny::NotAllowedError 'NOT_ALLOWED - vhost notifications not found'; its Secret's AMQP_URL selects vhost notifications while the RabbitMQ definitions ConfigMap declares /notifications",
			Source: w8bSrcVhostSlash, Class: ClassReference, Hops: 2,
			Problem: "notifications-consumer crash-loops since we moved notifications to their own RabbitMQ vhost",
			Target:  target("Deployment", "notifications-consumer"),
			Want: Want{Culprit: Ref{Kind: "Secret", Name: "notifications-amqp"}, Also: []Ref{{Kind: "ConfigMap", Name: "rabbitmq-definitions"}},
				Terms: []string{"vhost"}},
			Setup: func(ctx context.Context, e *Env) error {
				mq := map[string]string{"app.kubernetes.io/name": "rabbitmq", "app.kubernetes.io/instance": "messaging"}
				consumer := w8bLabels("notifications-consumer", "notifications")
				billing := w8bLabels("billing-events", "billing")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "rabbitmq-config", map[string]string{"rabbitmq.conf": "load_definitions = /etc/rabbitmq/definitions/definitions.json\n" +
							"loopback_users.guest = false\nlisteners.tcp.default = 5672\nmanagement.tcp.port = 15672\nvm_memory_high_watermark.relative = 0.6\n"})
					},
					func() error {
						return e.createConfigMap(ctx, "rabbitmq-definitions", map[string]string{"definitions.json": w8bRabbitDefinitions})
					},
					func() error {
						st := w8bStatefulSet("rabbitmq", "docker.io/library/rabbitmq:3.13.7-management", "rabbitmq-nodes", 1, mq, running("w8b-rabbitmq-vhost-not-found"), "amqp", 5672)
						mountConfigMap(&st.Spec.Template, "rabbitmq-config", "/etc/rabbitmq/conf.d")
						mountConfigMap(&st.Spec.Template, "rabbitmq-definitions", "/etc/rabbitmq/definitions")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("rabbitmq-nodes", mq, "amqp", 5672)) },
					func() error { return e.createService(ctx, w8bService("rabbitmq", mq, "amqp", 5672)) },
					func() error {
						return e.createSecret(ctx, "billing-amqp", map[string]string{"AMQP_URL": "amqp://billing:T4nq8Lw2Zr@rabbitmq:5672/%2F"})
					},
					func() error {
						return e.createSecret(ctx, "notifications-amqp", map[string]string{"AMQP_URL": "amqp://notifier:Hx7pQ2mVe9@rabbitmq:5672/notifications"})
					},
					func() error {
						d := w8bDeployment("billing-events", "registry.example/billing/events:1.9.4", 1, billing, nil, "", 0)
						envFromSecret(&d.Spec.Template, "billing-amqp")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("notifications-consumer", "registry.example/notifications/consumer:3.2.0", 2, consumer, crash("1", "", "w8b-notifications-consumer-vhost"), "", 0)
						d.Spec.Template.Spec.Containers[0].Args = []string{"bin/consumer", "--queues", "notifications.email"}
						envFromSecret(&d.Spec.Template, "notifications-amqp")
						w8bEnv(&d.Spec.Template, "RACK_ENV", "production")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: podsWith(w8bLabels("notifications-consumer", "notifications"), crashLooping(3)),
		},
		{
			// During the database maintenance DATABASE_URL was pointed at the replica so reads
			// keep working; the release's migration Job then fails on the read-only server.
			Name: "inventory-migrate-job-on-read-replica", Covers: "a release's migration Job fails (BackoffLimitExceeded) on 'cannot execute CREATE TABLE in a read-only transaction'; the DATABASE_URL in its Secret names the read replica",
			Source: w8bSrcMigrateReplica, Class: ClassClue, Hops: 2,
			Problem: "the inventory 2.31.0 release is blocked: its migration job failed",
			Target:  target("Job", "inventory-migrate-2-31-0"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "inventory-db-url"}, Terms: []string{"read-only", "inventory-db-replica"}},
			Setup: func(ctx context.Context, e *Env) error {
				app := w8bLabels("inventory-svc", "inventory")
				return steps(
					func() error { return w8bPostgres(ctx, e, "inventory-db", "inventory", "primary") },
					func() error { return w8bPostgres(ctx, e, "inventory-db-replica", "inventory", "replica") },
					func() error {
						return e.createSecret(ctx, "inventory-db-url", map[string]string{"DATABASE_URL": "postgres://inventory:Yq2m8Rz5Tb@inventory-db-replica:5432/inventory?sslmode=disable"})
					},
					func() error {
						d := w8bDeployment("inventory-svc", "registry.example/inventory/inventory-svc:2.30.4", 2, app, nil, "http", 8080)
						envFromSecret(&d.Spec.Template, "inventory-db-url")
						w8bEnv(&d.Spec.Template, "RUST_LOG", "info,sqlx=warn")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("inventory-svc", app, "http", 80)) },
					func() error {
						j := job("inventory-migrate-2-31-0", 1, sim("fail", annExitCode, "1", annLogs, "w8b-inventory-migrate-read-only"))
						j.Labels = w8bLabels("inventory-migrate", "inventory", "app.kubernetes.io/version", "2.31.0")
						c := &j.Spec.Template.Spec.Containers[0]
						c.Image, c.Args = "registry.example/inventory/inventory-svc:2.31.0", []string{"inventory-migrate", "--source", "/app/migrations"}
						envFromSecret(&j.Spec.Template, "inventory-db-url")
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
						return wrap("Job", j.Name, err)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				return jobFailed(ctx, e, "inventory-migrate-2-31-0", "BackoffLimitExceeded")
			},
		},
		{
			// The renewal script replaced tls.crt but kept the old tls.key: nginx refuses the
			// pair at start, so the partner gateway Service has no endpoint at all.
			Name: "partner-gateway-tls-key-mismatch", Covers: "a Service has no ready endpoints: its nginx pods crash at start with SSL_CTX_use_PrivateKey ... key values mismatch; the kubernetes.io/tls Secret's tls.key is not the key of its tls.crt",
			Source: w8bSrcKeyMismatch, Class: ClassClue, Hops: 3,
			Problem: "partners get connection refused on partners.example.com since the certificate renewal last night",
			Target:  target("Service", "partner-gateway"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "partner-gateway-tls"}, Terms: []string{"mismatch"}},
			Setup: func(ctx context.Context, e *Env) error {
				gw := w8bLabels("partner-gateway", "partners", "app.kubernetes.io/component", "edge")
				orders := w8bLabels("partner-orders", "partners")
				return steps(
					func() error { return e.w8bMismatchedTLSSecret(ctx, "partner-gateway-tls", "partners.example.com") },
					func() error {
						return e.createConfigMap(ctx, "partner-gateway-templates", map[string]string{"partners.conf.template": w8bPartnersConfTemplate})
					},
					func() error {
						d := w8bDeployment("partner-orders", "registry.example/partners/orders:7.4.1", 2, orders, nil, "http", 8080)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("partner-orders", orders, "http", 8080)) },
					func() error {
						d := w8bDeployment("partner-gateway", "nginx:1.27.2", 2, gw, crash("1", "", "w8b-partner-gateway-key-mismatch"), "https", 8443)
						mountSecret(&d.Spec.Template, "partner-gateway-tls", "/etc/nginx/tls")
						mountConfigMap(&d.Spec.Template, "partner-gateway-templates", "/etc/nginx/templates")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("partner-gateway", gw, "https", 443)) },
					func() error {
						renew := job("partner-cert-renew", 0, nil)
						c := &renew.Spec.Template.Spec.Containers[0]
						c.Image, c.Args = "registry.example/platform/cert-renew:0.6.0", []string{"--secret", "partner-gateway-tls", "--domain", "partners.example.com"}
						_, err := e.Client.BatchV1().CronJobs(e.Namespace).Create(ctx, &batchv1.CronJob{
							ObjectMeta: metav1.ObjectMeta{Name: "partner-cert-renew"},
							Spec: batchv1.CronJobSpec{Schedule: "30 2 1 * *", ConcurrencyPolicy: batchv1.ForbidConcurrent,
								JobTemplate: batchv1.JobTemplateSpec{Spec: renew.Spec}},
						}, metav1.CreateOptions{})
						return wrap("CronJob", "partner-cert-renew", err)
					},
				)
			},
			Wait: podsWith(w8bLabels("partner-gateway", "partners", "app.kubernetes.io/component", "edge"), crashLooping(2)),
		},
		{
			// HOST=localhost came with the .env file: Fastify binds 127.0.0.1 and ::1 only, so
			// the kubelet's probe to the pod IP is refused and the Ingress has no backend.
			Name: "catalog-api-fastify-host-localhost", Covers: "an Ingress answers 503: catalog-api pods fail readiness with 'connect: connection refused' on the pod IP while their log says 'Server listening at http://127.0.0.1:3000'; HOST=localhost comes from a ConfigMap",
			Source: w8bSrcFastifyLocal, Class: ClassClue, Hops: 3,
			Problem: "catalog.example.com returns 503 after we moved catalog-api to its env ConfigMap",
			Target:  target("Ingress", "catalog"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "catalog-api-env"}, Terms: []string{"localhost"}},
			Setup: func(ctx context.Context, e *Env) error {
				api := w8bLabels("catalog-api", "catalog")
				search := w8bLabels("catalog-search", "catalog")
				ssr := w8bLabels("storefront-ssr", "catalog")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "catalog-api-env", map[string]string{"NODE_ENV": "production", "PORT": "3000", "HOST": "localhost",
							"SEARCH_URL": "http://catalog-search:9200", "LOG_LEVEL": "info"})
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("catalog-search", "docker.io/opensearchproject/opensearch:2.17.1", 1, search, nil, "http", 9200))
					},
					func() error { return e.createService(ctx, w8bService("catalog-search", search, "http", 9200)) },
					func() error {
						d := w8bDeployment("catalog-api", "registry.example/catalog/catalog-api:4.6.0", 2, api,
							sim("readiness-fail", annMessage, `Readiness probe failed: Get "http://10.244.1.41:3000/health": dial tcp 10.244.1.41:3000: connect: connection refused`, annLogs, "w8b-catalog-api-listen-localhost"), "http", 3000)
						envFromConfigMap(&d.Spec.Template, "catalog-api-env")
						w8bReadiness(&d.Spec.Template, "/health", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("catalog-api", api, "http", 80)) },
					func() error { return e.createIngress(ctx, ingress("catalog", "catalog-api", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("storefront-ssr", "registry.example/catalog/storefront-ssr:9.2.0", 2, ssr, nil, "http", 3000))
					},
				)
			},
			Wait: all(podsWith(w8bLabels("catalog-api", "catalog"), runningNotReady), podEvent("Unhealthy", "connection refused")),
		},
		{
			// The corporate root CA was mounted as a whole directory over /etc/ssl/certs: the
			// internal ledger still verifies, every public endpoint fails with unknown authority.
			Name: "payouts-ca-bundle-shadows-system-roots", Covers: "a Ready Go service logs 'x509: certificate signed by unknown authority' for api.stripe.com on every batch while internal TLS calls work; its Deployment mounts the corporate CA ConfigMap over /etc/ssl/certs",
			Source: w8bSrcCAShadow, Class: ClassOutside, Hops: 1,
			Problem: "payouts to Stripe have failed since we added our corporate CA; calls to the internal ledger are fine",
			Target:  target("Deployment", "payouts"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "payouts"}, Terms: []string{"/etc/ssl/certs"}},
			Setup: func(ctx context.Context, e *Env) error {
				payouts := w8bLabels("payouts", "payments")
				admin := w8bLabels("payouts-admin", "payments")
				ledger := w8bLabels("ledger", "payments")
				return steps(
					func() error {
						ca, err := w8bCAPEM("ACME Corp Internal Root CA G2")
						if err != nil {
							return err
						}
						return e.createConfigMap(ctx, "corp-ca-bundle", map[string]string{"acme-root-g2.crt": ca})
					},
					func() error {
						return e.createDeployment(ctx, w8bDeployment("ledger", "registry.example/payments/ledger:12.0.1", 2, ledger, nil, "https", 8443))
					},
					func() error { return e.createService(ctx, w8bService("ledger", ledger, "https", 8443)) },
					func() error {
						d := w8bDeployment("payouts", "registry.example/payments/payouts:3.7.0", 2, payouts, running("w8b-payouts-ca-shadowed"), "http", 8080)
						mountConfigMap(&d.Spec.Template, "corp-ca-bundle", "/etc/ssl/certs")
						w8bEnv(&d.Spec.Template, "STRIPE_API_BASE", "https://api.stripe.com", "LEDGER_URL", "https://ledger.payments.svc:8443")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("payouts-admin", "registry.example/payments/payouts-admin:3.7.0", 1, admin, nil, "http", 8080)
						mountConfigMap(&d.Spec.Template, "corp-ca-bundle", "/etc/ssl/corp")
						w8bEnv(&d.Spec.Template, "SSL_CERT_DIR", "/etc/ssl/certs:/etc/ssl/corp")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("payouts", 2), readyReplicas("payouts-admin", 1)),
		},
		{
			// The MySQL Service was cloned from a web Service and kept the port name "http":
			// the sidecars speak HTTP to a server-first protocol and the handshake never arrives.
			Name: "orders-api-mysql-service-port-named-http", Covers: "a Spring API in an Istio mesh crash-loops on HikariPool 'Communications link failure' (read 0 bytes) to orders-mysql:3306; that Service's port is named http, so protocol selection treats MySQL as HTTP",
			Source: w8bSrcIstioPortName, Class: ClassProvider, Hops: 2,
			Problem: "orders-api pods restart over and over after we enabled sidecar injection in the namespace",
			Target:  target("Deployment", "orders-api"),
			Want:    Want{Culprit: Ref{Kind: "Service", Name: "orders-mysql"}, Terms: []string{"protocol", "3306"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8bLabels("orders-mysql", "orders", "app.kubernetes.io/component", "database")
				api := w8bLabels("orders-api", "orders")
				web := w8bLabels("orders-web", "orders")
				return steps(
					func() error {
						patch := []byte(`{"metadata":{"labels":{"istio-injection":"enabled"}}}`)
						_, err := e.Client.CoreV1().Namespaces().Patch(ctx, e.Namespace, types.MergePatchType, patch, metav1.PatchOptions{})
						return ignoreNotFound(err) // (the unit test's fake clientset has no namespace objects)
					},
					func() error {
						st := w8bStatefulSet("orders-mysql", "mysql:8.0.39", "orders-mysql-headless", 1, db, nil, "mysql", 3306)
						w8bSidecar(&st.Spec.Template)
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("orders-mysql-headless", db, "mysql", 3306)) },
					func() error {
						s := w8bService("orders-mysql", db, "mysql", 3306)
						s.Spec.Ports[0].Name = "http"
						return e.createService(ctx, s)
					},
					func() error {
						d := w8bDeployment("orders-api", "registry.example/orders/orders-api:5.0.3", 2, api, crash("1", "", "w8b-orders-api-mysql-link-failure"), "http", 8080)
						d.Spec.Template.Annotations[annContainer] = "app"
						w8bEnv(&d.Spec.Template, "SPRING_DATASOURCE_URL", "jdbc:mysql://orders-mysql:3306/orders", "SPRING_PROFILES_ACTIVE", "prod")
						w8bSidecar(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error {
						s := w8bService("orders-api", api, "http", 80)
						s.Spec.Ports[0].Name = "http-web"
						return e.createService(ctx, s)
					},
					func() error {
						d := w8bDeployment("orders-web", "registry.example/orders/orders-web:5.0.3", 2, web, nil, "http", 8080)
						w8bSidecar(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "orders-mysql", 1) },
				podsWith(w8bLabels("orders-api", "orders"), crashLooping(3))),
		},
		{
			// No --concurrency: celery starts one prefork child per CPU it sees (the node's),
			// each loads the cloud SDKs, and the 512Mi container is OOMKilled under load.
			Name: "scan-worker-celery-prefork-oomkilled", Covers: "a celery worker is OOMKilled (512Mi limit) soon after taking tasks; its banner shows concurrency: 4 (prefork), the node's CPU count, because the command sets no --concurrency",
			Source: w8bSrcCeleryPrefork, Class: ClassMechanism, Hops: 1,
			Problem: "scan-worker keeps getting OOMKilled when scans start",
			Target:  target("Deployment", "scan-worker"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "scan-worker"}, Terms: []string{"OOMKilled", "concurrency"}},
			Setup: func(ctx context.Context, e *Env) error {
				redis := w8bLabels("scan-redis", "scanner")
				api := w8bLabels("scan-api", "scanner")
				worker := w8bLabels("scan-worker", "scanner")
				return steps(
					func() error {
						return e.createDeployment(ctx, w8bDeployment("scan-redis", "redis:7.2.5-alpine", 1, redis, nil, "redis", 6379))
					},
					func() error { return e.createService(ctx, w8bService("scan-redis", redis, "redis", 6379)) },
					func() error {
						d := w8bDeployment("scan-api", "registry.example/scanner/api:5.22.0", 2, api, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "CELERY_BROKER_URL", "redis://scan-redis:6379/0")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("scan-worker", "registry.example/scanner/api:5.22.0", 2, worker, sim("oomkill", annLogs, "w8b-scan-worker-prefork-oom"), "", 0)
						d.Spec.Template.Spec.Containers[0].Args = []string{"celery", "-A", "config.celery", "worker", "-Q", "scans,scan-reports", "-E", "--max-tasks-per-child", "1"}
						w8bEnv(&d.Spec.Template, "CELERY_BROKER_URL", "redis://scan-redis:6379/0")
						d.Spec.Template.Spec.Containers[0].Resources = corev1.ResourceRequirements{
							Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
							Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("512Mi")}}
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: podsWith(w8bLabels("scan-worker", "scanner"), restartedWith("OOMKilled", 137)),
		},
		{
			// The broker Redis has maxmemory 64mb with noeviction: once full, every publish
			// is refused and the web tier answers 500 on export requests while staying Ready.
			Name: "exports-redis-maxmemory-noeviction", Covers: "a Ready Django web tier logs kombu OperationalError 'command not allowed when used memory > maxmemory' on every export; the broker Redis reads maxmemory 64mb / noeviction from its ConfigMap",
			Source: w8bSrcRedisMaxmemory, Class: ClassOutside, Hops: 3,
			Problem: "creating an export returns 500 since this morning, the rest of the reports site works",
			Target:  target("Deployment", "exports-web"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "exports-redis-config"}, Terms: []string{"maxmemory"}},
			Setup: func(ctx context.Context, e *Env) error {
				redis := w8bLabels("exports-redis", "reports", "app.kubernetes.io/component", "broker")
				web := w8bLabels("exports-web", "reports")
				worker := w8bLabels("exports-worker", "reports")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "exports-redis-config", map[string]string{"redis.conf": "bind 0.0.0.0\nport 6379\nmaxmemory 64mb\nmaxmemory-policy noeviction\nappendonly no\nsave 900 1\n"})
					},
					func() error {
						st := w8bStatefulSet("exports-redis", "redis:7.2.5", "exports-redis", 1, redis, running("w8b-redis-maxmemory-reached"), "redis", 6379)
						st.Spec.Template.Spec.Containers[0].Args = []string{"redis-server", "/usr/local/etc/redis/redis.conf"}
						mountConfigMap(&st.Spec.Template, "exports-redis-config", "/usr/local/etc/redis")
						memoryOnly(&st.Spec.Template, 0, "256Mi")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bService("exports-redis", redis, "redis", 6379)) },
					func() error {
						d := w8bDeployment("exports-web", "registry.example/reports/exports:8.3.1", 2, web, running("w8b-web-redis-maxmemory"), "http", 8000)
						w8bEnv(&d.Spec.Template, "DJANGO_SETTINGS_MODULE", "exports.settings.production", "CELERY_BROKER_URL", "redis://exports-redis:6379/0")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("exports-web", web, "http", 80)) },
					func() error {
						d := w8bDeployment("exports-worker", "registry.example/reports/exports:8.3.1", 2, worker, nil, "", 0)
						d.Spec.Template.Spec.Containers[0].Args = []string{"celery", "-A", "exports", "worker", "-Q", "exports", "--concurrency", "2"}
						w8bEnv(&d.Spec.Template, "DJANGO_SETTINGS_MODULE", "exports.settings.production", "CELERY_BROKER_URL", "redis://exports-redis:6379/0")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("exports-web", 2), func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "exports-redis", 1) }),
		},
	}
}

// w8bPostgres creates a one-replica postgres StatefulSet name (component role) with its Service.
func w8bPostgres(ctx context.Context, e *Env, name, partOf, role string) error {
	lbl := w8bLabels(name, partOf, "app.kubernetes.io/component", "database", "role", role)
	if err := e.createStatefulSet(ctx, w8bStatefulSet(name, "postgres:16.4", name, 1, lbl, nil, "postgres", 5432)); err != nil {
		return err
	}
	return e.createService(ctx, w8bService(name, lbl, "postgres", 5432))
}

// w8bSidecar adds the containers sidecar injection leaves in a pod: istio-init and istio-proxy.
func w8bSidecar(t *corev1.PodTemplateSpec) {
	if t.Annotations == nil {
		t.Annotations = map[string]string{}
	}
	status, _ := json.Marshal(map[string]any{"initContainers": []string{"istio-init"}, "containers": []string{"istio-proxy"}, "volumes": []string{"istio-envoy", "istio-data"}})
	t.Annotations["sidecar.istio.io/status"] = string(status)
	t.Spec.InitContainers = append(t.Spec.InitContainers, corev1.Container{Name: "istio-init", Image: "docker.io/istio/proxyv2:1.22.3",
		Args: []string{"istio-iptables", "-p", "15001", "-z", "15006", "-u", "1337", "-m", "REDIRECT", "-i", "*", "-b", "*"}})
	t.Spec.Containers = append(t.Spec.Containers, corev1.Container{Name: "istio-proxy", Image: "docker.io/istio/proxyv2:1.22.3",
		Args:  []string{"proxy", "sidecar", "--domain", "$(POD_NAMESPACE).svc.cluster.local"},
		Ports: []corev1.ContainerPort{{Name: "http-envoy-prom", ContainerPort: 15090}},
		ReadinessProbe: &corev1.Probe{PeriodSeconds: 15, ProbeHandler: corev1.ProbeHandler{
			HTTPGet: &corev1.HTTPGetAction{Path: "/healthz/ready", Port: intstr.FromInt32(15021)}}},
		SecurityContext: &corev1.SecurityContext{RunAsUser: ptr.To[int64](1337), RunAsNonRoot: ptr.To(true)},
	})
}
