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
)

func wave11bMoreScenarios() []*Scenario {
	payments := w8bLabels("payments-api", "payments", "app.kubernetes.io/component", "api")
	ledgerGRPC := w8bLabels("ledger-grpc", "payments", "app.kubernetes.io/component", "ledger")
	frontend := w8cLabels("app", "web-frontend", "tier", "edge")
	catalog := w8cLabels("app", "catalog-api", "tier", "backend")
	mailer := w8cLabels("app.kubernetes.io/name", "mailer", "app.kubernetes.io/component", "worker")
	kafka := w8cLabels("app.kubernetes.io/name", "kafka", "app.kubernetes.io/instance", "kafka", "app.kubernetes.io/component", "broker")
	indexer := w8cLabels("app.kubernetes.io/name", "search-indexer", "app.kubernetes.io/instance", "search")
	profile := w8bLabels("profile-api", "accounts")
	identity := w8cLabels("app", "identity-api", "team", "accounts")
	checkout := w8bLabels("checkout-api", "shop", "app.kubernetes.io/component", "api")
	vmagent := w8cLabels("app.kubernetes.io/name", "vmagent", "app.kubernetes.io/instance", "edge-metrics")
	blog := w8cLabels("app.kubernetes.io/name", "wordpress", "app.kubernetes.io/instance", "blog")
	portal := w8cLabels("app", "legacy-portal", "tier", "web")
	return []*Scenario{
		{
			// The ledger's gRPC serving certificate in its Secret ran out on the 24th; the
			// .NET payments API cannot complete a TLS handshake and reports itself unhealthy.
			Name: "payments-dotnet-ledger-cert-expired", Covers: "payments-api (ASP.NET Core, Grpc.Net.Client) is not Ready: 'AuthenticationException: The remote certificate is invalid because of errors in the certificate chain: NotTimeValid' calling https://ledger-grpc:8443; the certificate in Secret ledger-grpc-tls mounted by ledger-grpc expired on 2026-11-24",
			Source: w11bSrcSecret + " (TLS Secrets)", Class: ClassProvider, Hops: 3,
			Problem: "card payments fail with 'ledger unavailable' and payments-api shows 0/2 ready",
			Target:  target("Deployment", "payments-api"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "ledger-grpc-tls"}, Terms: []string{"expired"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createExpiredTLSSecret(ctx, "ledger-grpc-tls", "ledger-grpc") },
					func() error {
						d := w11bApp("ledger-grpc", "ledger", "registry.example/payments/ledger-grpc:7.3.0", 2, ledgerGRPC, running("w11b-ledger-grpc-serving"), "grpc", 8443)
						w8cArgs(&d.Spec.Template, "--listen=:8443", "--tls-cert=/etc/ledger/tls/tls.crt", "--tls-key=/etc/ledger/tls/tls.key")
						mountSecret(&d.Spec.Template, "ledger-grpc-tls", "/etc/ledger/tls")
						return e.w11bServe(ctx, d, 8443)
					},
					func() error {
						return e.createConfigMap(ctx, "payments-api-settings", map[string]string{"appsettings.Production.json": "{\n  \"Ledger\": {\n    \"Address\": \"https://ledger-grpc:8443\",\n    \"DeadlineSeconds\": 5\n  },\n  \"Serilog\": { \"MinimumLevel\": \"Information\" },\n  \"AllowedHosts\": \"*\"\n}\n"})
					},
					func() error {
						d := w11bApp("payments-api", "payments-api", "registry.example/payments/payments-api:5.0.3", 2, payments,
							w11bReadinessFail("payments-api", "w11b-payments-dotnet-notimevalid", "Readiness probe failed: HTTP probe failed with statuscode: 503"), "http", 8080)
						mountConfigMap(&d.Spec.Template, "payments-api-settings", "/app/config")
						w8bEnv(&d.Spec.Template, "ASPNETCORE_ENVIRONMENT", "Production", "ASPNETCORE_HTTP_PORTS", "8080")
						w8bReadiness(&d.Spec.Template, "/health/ready", "http", 5)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("fraud-scoring", "scorer", "registry.example/payments/fraud-scoring:2.2.0", 1, w8bLabels("fraud-scoring", "payments"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(payments, runningNotReady), readyReplicas("ledger-grpc", 2)),
		},
		{
			// nginx proxies /api to catalog-api, which has no ready endpoint: its pods exit on
			// a Mongo authentication failure from the URI in their Secret.
			Name: "web-frontend-catalog-mongo-bad-auth", Covers: "web-frontend (nginx) logs 'connect() failed (111: Connection refused) while connecting to upstream' for /api/products; Service catalog-api has no ready endpoints because catalog-api (Node, mongoose) crash-loops on 'MongoServerError: bad auth : Authentication failed.' with MONGODB_URI from Secret catalog-api-mongo",
			Source: "https://kubernetes.io/docs/tutorials/services/connect-applications-service/; " + w11bSrcSecret, Class: ClassProvider, Hops: 3,
			Problem: "product pages on shop.example.com show nginx's 502 Bad Gateway",
			Target:  target("Deployment", "web-frontend"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "catalog-api-mongo"}, Terms: []string{"authentication failed"}},
			Setup: func(ctx context.Context, e *Env) error {
				mongo := w8cLabels("app", "catalog-mongo", "tier", "data")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "web-frontend-conf", map[string]string{"default.conf": "upstream catalog_api {\n    server catalog-api:3000;\n    keepalive 16;\n}\n\nserver {\n    listen 8080;\n    server_name shop.example.com;\n    root /usr/share/nginx/html;\n\n    location /api/ {\n        proxy_pass http://catalog_api;\n        proxy_http_version 1.1;\n        proxy_set_header Connection \"\";\n        proxy_set_header Host $host;\n    }\n\n    location / {\n        try_files $uri /index.html;\n    }\n}\n"})
					},
					func() error {
						return e.createSecret(ctx, "catalog-api-mongo", map[string]string{"MONGODB_URI": "mongodb://catalog:Wn4tG7yb2Rcx@catalog-mongo:27017/catalog?authSource=admin"})
					},
					func() error {
						return e.createSecret(ctx, "catalog-mongo-root", map[string]string{"MONGO_INITDB_ROOT_USERNAME": "root", "MONGO_INITDB_ROOT_PASSWORD": "Hb6sK1qe8Pvz"})
					},
					func() error {
						st := w8bStatefulSet("catalog-mongo", "mongo:7.0.14", "catalog-mongo", 1, mongo, running("w11b-catalog-mongo-auth"), "mongodb", 27017)
						envFromSecret(&st.Spec.Template, "catalog-mongo-root")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("catalog-mongo", mongo, "mongodb", 27017))
					},
					func() error {
						d := w11bApp("catalog-api", "catalog-api", "registry.example/shop/catalog-api:6.1.0", 2, catalog, crash("1", "", "w11b-catalog-api-mongo-bad-auth"), "http", 3000)
						envFromSecret(&d.Spec.Template, "catalog-api-mongo")
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "PORT", "3000")
						w8bReadiness(&d.Spec.Template, "/readyz", "http", 10)
						return e.w11bServe(ctx, d, 3000)
					},
					func() error {
						d := w11bApp("web-frontend", "nginx", "nginx:1.27.2", 2, frontend, running("w11b-web-frontend-upstream-refused"), "http", 8080)
						mountConfigMap(&d.Spec.Template, "web-frontend-conf", "/etc/nginx/conf.d")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("web-frontend", "shop.example.com", "web-frontend", 80))
					},
				)
			},
			Wait: all(podsWith(catalog, crashLooping(2)), readyReplicas("web-frontend", 2)),
		},
		{
			// The broker URL in the worker's Secret names rabbit-mq; the Service is rabbitmq.
			// Celery retries forever, so the worker runs and consumes nothing.
			Name: "mailer-celery-broker-host-typo", Covers: "mailer-worker (Celery) is Running but logs 'consumer: Cannot connect to amqp://mailer:**@rabbit-mq:5672/mailer: [Errno -2] Name or service not known.'; CELERY_BROKER_URL in Secret mailer-celery names rabbit-mq while the Service is rabbitmq",
			Source: w11bSrcCeleryHost + "; " + w11bSrcDNS, Class: ClassClue, Hops: 2,
			Problem: "password-reset emails stopped going out; the mail queue is never consumed",
			Target:  target("Deployment", "mailer-worker"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "mailer-celery"}, Terms: []string{"rabbit-mq"}},
			Setup: func(ctx context.Context, e *Env) error {
				rabbit := w8cLabels("app.kubernetes.io/name", "rabbitmq", "app.kubernetes.io/instance", "rabbitmq")
				return steps(
					func() error {
						return e.createSecret(ctx, "mailer-celery", map[string]string{"CELERY_BROKER_URL": "amqp://mailer:Qp3xT8vk6Lsd@rabbit-mq:5672/mailer",
							"CELERY_RESULT_BACKEND": "redis://mailer-redis:6379/2", "SMTP_PASSWORD": "Ue9rJ4mc7Hwa"})
					},
					func() error {
						return e.createConfigMap(ctx, "mailer-config", map[string]string{"SMTP_HOST": "smtp.eu.mailgun.org", "SMTP_PORT": "587", "MAIL_FROM": "no-reply@example.com"})
					},
					func() error {
						return e.w11bStore(ctx, "rabbitmq", "rabbitmq:3.13.7-management", rabbit, nil, "amqp", 5672, "RABBITMQ_DEFAULT_VHOST", "mailer")
					},
					func() error {
						return e.w11bStore(ctx, "mailer-redis", "redis:7.2.5", w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "mailer-redis"), nil, "redis", 6379)
					},
					func() error {
						d := w11bApp("mailer-worker", "worker", "registry.example/accounts/mailer:2.7.1", 2, mailer, running("w11b-mailer-celery-broker-dns"), "", 0)
						w8cArgs(&d.Spec.Template, "celery", "-A", "mailer", "worker", "--loglevel=INFO", "--concurrency=4")
						envFromSecret(&d.Spec.Template, "mailer-celery")
						envFromConfigMap(&d.Spec.Template, "mailer-config")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("accounts-web", "web", "registry.example/accounts/accounts-web:4.4.0", 2, w8cLabels("app.kubernetes.io/name", "accounts-web", "app.kubernetes.io/component", "web"), nil, "http", 8000)
						w8bEnv(&d.Spec.Template, "CELERY_BROKER_URL", "amqp://accounts@rabbitmq:5672/mailer")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(mailer, runningReady), w8cStatefulSetReady("rabbitmq", 1)),
		},
		{
			// The broker's server.properties in its ConfigMap advertises 0.0.0.0; Kafka refuses
			// to start, and the indexer's consumer never reaches a bootstrap broker.
			Name: "search-indexer-kafka-advertised-any", Covers: "search-indexer (Spring Kafka) logs 'Connection to node -1 (kafka/...:9092) could not be established. Broker may not be available.'; the kafka StatefulSet crash-loops on 'requirement failed: advertised.listeners cannot use the nonroutable meta-address 0.0.0.0' from server.properties in ConfigMap kafka-broker-config",
			Source: w11bSrcKafka0000, Class: ClassProvider, Hops: 3,
			Problem: "new products no longer show up in site search; the indexer is stuck",
			Target:  target("Deployment", "search-indexer"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "kafka-broker-config"}, Terms: []string{"advertised.listeners"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "kafka-broker-config", map[string]string{"server.properties": "process.roles=broker,controller\nnode.id=0\ncontroller.quorum.voters=0@kafka-0.kafka-headless:9093\nlisteners=PLAINTEXT://0.0.0.0:9092,CONTROLLER://0.0.0.0:9093\nadvertised.listeners=PLAINTEXT://0.0.0.0:9092\ncontroller.listener.names=CONTROLLER\nlistener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT\ninter.broker.listener.name=PLAINTEXT\nlog.dirs=/bitnami/kafka/data\nnum.partitions=6\noffsets.topic.replication.factor=1\ntransaction.state.log.replication.factor=1\n"})
					},
					func() error {
						st := w8bStatefulSet("kafka", "bitnami/kafka:3.7.1", "kafka-headless", 1, kafka, crash("1", "", "w11b-kafka-advertised-nonroutable"), "client", 9092)
						w10aPort(&st.Spec.Template, "controller", 9093)
						mountConfigMap(&st.Spec.Template, "kafka-broker-config", "/opt/bitnami/kafka/config/server.properties")
						st.Spec.Template.Spec.Containers[0].VolumeMounts[0].SubPath = "server.properties"
						w8bEnv(&st.Spec.Template, "KAFKA_KRAFT_CLUSTER_ID", "q1Sh-9_ISia_zwGINzRvyQ", "BITNAMI_DEBUG", "true")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bService("kafka", kafka, "client", 9092)) },
					func() error { return e.createService(ctx, w8bHeadless("kafka-headless", kafka, "client", 9092)) },
					func() error {
						d := w11bApp("search-indexer", "indexer", "registry.example/search/search-indexer:3.9.0", 1, indexer, running("w11b-search-indexer-no-broker"), "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_KAFKA_BOOTSTRAP_SERVERS", "kafka:9092", "SPRING_KAFKA_CONSUMER_GROUP_ID", "search-indexer", "OPENSEARCH_URL", "http://opensearch:9200")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.w11bStore(ctx, "opensearch", "opensearchproject/opensearch:2.17.1", w8cLabels("app.kubernetes.io/name", "opensearch", "app.kubernetes.io/instance", "search"), nil, "http", 9200, "discovery.type", "single-node")
					},
				)
			},
			Wait: all(podsWith(kafka, crashLooping(2)), readyReplicas("search-indexer", 1)),
		},
		{
			// The service-account key Secret is mounted at /var/secrets/gcp while the
			// variable points the Google client at /var/secrets/google.
			Name: "profile-fastapi-gcp-key-path", Covers: "profile-api (FastAPI on uvicorn) exits on 'google.auth.exceptions.DefaultCredentialsError: File /var/secrets/google/key.json was not found.'; Deployment profile-api sets GOOGLE_APPLICATION_CREDENTIALS=/var/secrets/google/key.json but mounts Secret profile-gcs-sa at /var/secrets/gcp",
			Source: w11bSrcSecret + " (Using Secrets as files from a Pod)", Class: ClassClue, Hops: 2,
			Problem: "the profile-api Service has no endpoints; avatar uploads fail",
			Target:  target("Service", "profile-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "profile-api"}, Terms: []string{"key.json"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "profile-gcs-sa", map[string]string{"key.json": "{\n  \"type\": \"service_account\",\n  \"project_id\": \"acme-accounts-prod\",\n  \"private_key_id\": \"3f9a0c1e5b7d\",\n  \"client_email\": \"profile-api@acme-accounts-prod.iam.gserviceaccount.com\",\n  \"token_uri\": \"https://oauth2.googleapis.com/token\"\n}\n"})
					},
					func() error {
						return e.createConfigMap(ctx, "profile-api-env", map[string]string{"AVATAR_BUCKET": "acme-profile-avatars", "DATABASE_URL": "postgresql+asyncpg://profile@profile-db:5432/profile", "LOG_LEVEL": "info"})
					},
					func() error {
						return e.w11bStore(ctx, "profile-db", "postgres:16.4", w8bLabels("profile-db", "accounts"), nil, "postgres", 5432, "POSTGRES_DB", "profile")
					},
					func() error {
						d := w11bApp("profile-api", "api", "registry.example/accounts/profile-api:1.8.0", 2, profile, crash("3", "", "w11b-profile-fastapi-credentials"), "http", 8000)
						w8cArgs(&d.Spec.Template, "uvicorn", "profile_api.main:app", "--host", "0.0.0.0", "--port", "8000", "--proxy-headers")
						envFromConfigMap(&d.Spec.Template, "profile-api-env")
						w8bEnv(&d.Spec.Template, "GOOGLE_APPLICATION_CREDENTIALS", "/var/secrets/google/key.json")
						mountSecret(&d.Spec.Template, "profile-gcs-sa", "/var/secrets/gcp")
						d.Spec.Template.Spec.Containers[0].VolumeMounts[0].ReadOnly = true
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.w11bServe(ctx, w11bApp("accounts-gateway", "gateway", "registry.example/accounts/gateway:2.0.4", 1, w8bLabels("accounts-gateway", "accounts"), nil, "http", 8080), 80)
					},
				)
			},
			Wait: all(podsWith(profile, crashLooping(2)), readyReplicas("accounts-gateway", 1)),
		},
		{
			// The connection string in the Secret names mssql-primary (the old VM's DNS name);
			// in the cluster the SQL Server Service is mssql.
			Name: "identity-dotnet-sqlserver-host-unknown", Covers: "identity-api (ASP.NET Core, EF Core) dies on 'SqlException (0x80131904): A network-related or instance-specific error ... ---> SocketException: Name or service not known' for server 'mssql-primary,1433'; ConnectionStrings__IdentityDb in Secret identity-api-db names mssql-primary while the Service is mssql",
			Source: w11bSrcAirflowHost + "; " + w11bSrcDNS, Class: ClassClue, Hops: 2,
			Problem: "logins fail everywhere: identity-api is in CrashLoopBackOff",
			Target:  target("Deployment", "identity-api"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "identity-api-db"}, Terms: []string{"mssql-primary"}},
			Setup: func(ctx context.Context, e *Env) error {
				sql := w8cLabels("app", "mssql", "team", "accounts")
				return steps(
					func() error {
						return e.createSecret(ctx, "identity-api-db", map[string]string{"ConnectionStrings__IdentityDb": "Server=mssql-primary,1433;Database=Identity;User Id=identity_app;Password=Lx7#vQ2m!Rk9;TrustServerCertificate=True;Encrypt=True"})
					},
					func() error {
						return e.createSecret(ctx, "mssql-sa", map[string]string{"MSSQL_SA_PASSWORD": "Sa!9Tq4zWm2e"})
					},
					func() error {
						st := w8bStatefulSet("mssql", "mcr.microsoft.com/mssql/server:2022-CU15-ubuntu-22.04", "mssql", 1, sql, nil, "tds", 1433)
						w8bEnv(&st.Spec.Template, "ACCEPT_EULA", "Y", "MSSQL_PID", "Standard")
						envFromSecret(&st.Spec.Template, "mssql-sa")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("mssql", sql, "tds", 1433))
					},
					func() error {
						d := w11bApp("identity-api", "identity-api", "registry.example/accounts/identity-api:8.2.1", 2, identity, crash("134", "", "w11b-identity-dotnet-sql-dns"), "http", 8080)
						envFromSecret(&d.Spec.Template, "identity-api-db")
						w8bEnv(&d.Spec.Template, "ASPNETCORE_ENVIRONMENT", "Production", "ASPNETCORE_HTTP_PORTS", "8080", "Identity__Issuer", "https://login.example.com")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("login-ui", "ui", "registry.example/accounts/login-ui:8.2.0", 2, w8cLabels("app", "login-ui", "team", "accounts"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "IDENTITY_API", "http://identity-api")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(identity, crashLooping(2)), readyReplicas("login-ui", 2)),
		},
		{
			// The Deployment asks for key STRIPE_API_KEY of Secret checkout-stripe with
			// optional: true; the Secret's keys are kebab-case, so the variable is just unset.
			Name: "checkout-go-optional-secret-key-absent", Covers: "checkout-api (Go, envconfig) exits on 'envconfig.Process: required key STRIPE_API_KEY missing value'; the Deployment's env takes key STRIPE_API_KEY of Secret checkout-stripe with optional: true, but the Secret only has stripe-api-key and stripe-webhook-secret",
			Source: "https://kubernetes.io/docs/tasks/inject-data-application/distribute-credentials-secure/ (Define container environment variables using Secret data; optional keys)", Class: ClassReference, Hops: 2,
			Problem: "checkout-api pods restart every few seconds after today's rollout",
			Target:  target("Deployment", "checkout-api"),
			Want: Want{Culprit: Ref{Kind: "Secret", Name: "checkout-stripe"}, Also: []Ref{{Kind: "Deployment", Name: "checkout-api"}},
				Terms: []string{"STRIPE_API_KEY"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "checkout-stripe", map[string]string{"stripe-api-key": "sk_live_51Nq8xAcmeCheckout0000000000", "stripe-webhook-secret": "whsec_9f1c0e7b3a5d"})
					},
					func() error {
						return e.createConfigMap(ctx, "checkout-api-config", map[string]string{"HTTP_ADDR": ":8080", "ORDERS_URL": "http://orders-api", "CURRENCY": "EUR"})
					},
					func() error {
						d := w11bApp("checkout-api", "checkout-api", "registry.example/shop/checkout-api:5.1.0", 2, checkout, crash("1", "", "w11b-checkout-envconfig-missing"), "http", 8080)
						envFromConfigMap(&d.Spec.Template, "checkout-api-config")
						w11bOptionalSecretEnv(&d.Spec.Template, "STRIPE_API_KEY", "checkout-stripe", "STRIPE_API_KEY")
						w11bOptionalSecretEnv(&d.Spec.Template, "STRIPE_WEBHOOK_SECRET", "checkout-stripe", "stripe-webhook-secret")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.w11bServe(ctx, w11bApp("orders-api", "orders-api", "registry.example/shop/orders-api:4.1.3", 2, w8bLabels("orders-api", "shop", "app.kubernetes.io/component", "api"), nil, "http", 3000), 80)
					},
				)
			},
			Wait: all(podsWith(checkout, crashLooping(2)), readyReplicas("orders-api", 2)),
		},
		{
			// vmagent's remote-write URL has the port digits swapped (8248 for 8428); it keeps
			// buffering and retrying while the single-node VictoriaMetrics gets nothing new.
			Name: "vmagent-remote-write-port-swapped", Covers: "vmagent is Running but logs 'couldn't send a block ... Post \"http://victoria-metrics:8248/api/v1/write\": dial tcp4 ...:8248: i/o timeout'; its -remoteWrite.url arg has port 8248 while Service victoria-metrics serves 8428",
			Source: "https://kubernetes.io/docs/tutorials/services/connect-applications-service/ (a Service exposes only the ports it lists)", Class: ClassClue, Hops: 1,
			Problem: "Grafana shows no new data for the edge scrape jobs since 23:40",
			Target:  target("Deployment", "vmagent"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "vmagent"}, Terms: []string{"8248"}},
			Setup: func(ctx context.Context, e *Env) error {
				vm := w8cLabels("app.kubernetes.io/name", "victoria-metrics-single", "app.kubernetes.io/instance", "edge-metrics")
				return steps(
					func() error {
						return e.createConfigMap(ctx, "vmagent-scrape", map[string]string{"scrape.yml": "global:\n  scrape_interval: 30s\nscrape_configs:\n- job_name: edge-nodes\n  static_configs:\n  - targets: [edge-gw-1.example.net:9100, edge-gw-2.example.net:9100]\n- job_name: kubernetes-pods\n  kubernetes_sd_configs:\n  - role: pod\n"})
					},
					func() error {
						st := w8bStatefulSet("victoria-metrics", "victoriametrics/victoria-metrics:v1.106.1", "victoria-metrics", 1, vm, nil, "http", 8428)
						w8cArgs(&st.Spec.Template, "-retentionPeriod=90d", "-storageDataPath=/storage", "-httpListenAddr=:8428")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("victoria-metrics", vm, "http", 8428))
					},
					func() error {
						d := w11bApp("vmagent", "vmagent", "victoriametrics/vmagent:v1.106.1", 1, vmagent, running("w11b-vmagent-remote-write-timeout"), "http", 8429)
						w8cArgs(&d.Spec.Template, "-promscrape.config=/config/scrape.yml", "-remoteWrite.url=http://victoria-metrics:8248/api/v1/write", "-remoteWrite.tmpDataPath=/tmpData")
						mountConfigMap(&d.Spec.Template, "vmagent-scrape", "/config")
						w9aEmptyDir(&d.Spec.Template, "tmpdata", "/tmpData")
						return e.w11bServe(ctx, d, 8429)
					},
					func() error {
						d := w11bApp("grafana", "grafana", "grafana/grafana:11.3.0", 1, w8cLabels("app.kubernetes.io/name", "grafana", "app.kubernetes.io/instance", "edge-metrics"), nil, "http", 3000)
						w8bEnv(&d.Spec.Template, "GF_SERVER_ROOT_URL", "https://grafana.example.com")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(vmagent, runningReady), w8cStatefulSetReady("victoria-metrics", 1)),
		},
		{
			// The blog's DB Secret was written by hand from `echo ... | base64`, so its password
			// ends in a newline; MySQL was initialised from the operator's Secret without one.
			Name: "wordpress-db-password-trailing-newline", Covers: "blog.example.com 500: wordpress fails readiness with 'mysqli_real_connect(): (HY000/1045): Access denied for user 'wordpress'@'10.244.1.23' (using password: YES)'; WORDPRESS_DB_PASSWORD comes from Secret blog-wordpress-db whose password value ends with a newline, unlike MYSQL_PASSWORD in Secret blog-mysql",
			Source: w11bSrcNewline + "; " + w11bSrcSecret, Class: ClassClue, Hops: 3,
			Problem: "blog.example.com shows 'Error establishing a database connection'",
			Target:  target("Ingress", "blog"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "blog-wordpress-db"}, Terms: []string{"newline"}},
			Setup: func(ctx context.Context, e *Env) error {
				mysql := w8cLabels("app.kubernetes.io/name", "mysql", "app.kubernetes.io/instance", "blog")
				return steps(
					func() error {
						return e.w8bSecretBytes(ctx, "blog-mysql", map[string]string{"mysql-root-password": "R00t-Bl0g-77x", "mysql-password": "wp-Pr0d-2026x"})
					},
					func() error {
						return e.w8bSecretBytes(ctx, "blog-wordpress-db", map[string]string{"username": "wordpress", "password": "wp-Pr0d-2026x\n"})
					},
					func() error {
						st := w8bStatefulSet("blog-mysql", "mysql:8.0.39", "blog-mysql", 1, mysql, nil, "mysql", 3306)
						w8bEnv(&st.Spec.Template, "MYSQL_DATABASE", "wordpress", "MYSQL_USER", "wordpress")
						envKeyFromSecret(&st.Spec.Template, "MYSQL_ROOT_PASSWORD", "blog-mysql", "mysql-root-password")
						envKeyFromSecret(&st.Spec.Template, "MYSQL_PASSWORD", "blog-mysql", "mysql-password")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("blog-mysql", mysql, "mysql", 3306))
					},
					func() error {
						d := w11bApp("blog-wordpress", "wordpress", "wordpress:6.6.2-php8.2-apache", 2, blog,
							w11bReadinessFail("wordpress", "w11b-wordpress-access-denied", "Readiness probe failed: HTTP probe failed with statuscode: 500"), "http", 80)
						w8bEnv(&d.Spec.Template, "WORDPRESS_DB_HOST", "blog-mysql:3306", "WORDPRESS_DB_NAME", "wordpress")
						envKeyFromSecret(&d.Spec.Template, "WORDPRESS_DB_USER", "blog-wordpress-db", "username")
						envKeyFromSecret(&d.Spec.Template, "WORDPRESS_DB_PASSWORD", "blog-wordpress-db", "password")
						w8bReadiness(&d.Spec.Template, "/wp-admin/install.php", "http", 5)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("blog", "blog.example.com", "blog-wordpress", 80))
					},
				)
			},
			Wait: all(podsWith(blog, runningNotReady), w8cStatefulSetReady("blog-mysql", 1)),
		},
		{
			// nginx and php-fpm share the pod; nginx's ConfigMap passes FastCGI to a unix socket,
			// while the pool's ConfigMap makes php-fpm listen on 127.0.0.1:9000.
			Name: "legacy-portal-fastcgi-socket-missing", Covers: "legacy-portal's nginx container fails readiness and logs 'connect() to unix:/run/php/php-fpm.sock failed (2: No such file or directory) while connecting to upstream'; ConfigMap legacy-portal-nginx sets fastcgi_pass unix:/run/php/php-fpm.sock while ConfigMap legacy-portal-fpm has php-fpm listen = 127.0.0.1:9000",
			Source: w11bSrcConfigMap + " (Add ConfigMap data to a Volume)", Class: ClassClue, Hops: 2,
			Problem: "portal.example.com answers 502 Bad Gateway on every PHP page",
			Target:  target("Deployment", "legacy-portal"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "legacy-portal-nginx"}, Also: []Ref{{Kind: "ConfigMap", Name: "legacy-portal-fpm"}},
				Terms: []string{"php-fpm.sock"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "legacy-portal-nginx", map[string]string{"default.conf": "server {\n    listen 8080;\n    server_name portal.example.com;\n    root /var/www/html/public;\n    index index.php;\n\n    location / {\n        try_files $uri $uri/ /index.php?$query_string;\n    }\n\n    location ~ \\.php$ {\n        include fastcgi_params;\n        fastcgi_pass unix:/run/php/php-fpm.sock;\n        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;\n        fastcgi_read_timeout 60s;\n    }\n}\n"})
					},
					func() error {
						return e.createConfigMap(ctx, "legacy-portal-fpm", map[string]string{"zz-docker.conf": "[global]\ndaemonize = no\n\n[www]\nlisten = 127.0.0.1:9000\npm = dynamic\npm.max_children = 20\npm.start_servers = 4\npm.min_spare_servers = 2\npm.max_spare_servers = 6\n"})
					},
					func() error {
						return e.createConfigMap(ctx, "legacy-portal-env", map[string]string{"APP_ENV": "prod", "DATABASE_URL": "mysql://portal@portal-mysql:3306/portal"})
					},
					func() error {
						return e.w11bStore(ctx, "portal-mysql", "mysql:8.0.39", w8cLabels("app", "portal-mysql", "tier", "db"), nil, "mysql", 3306, "MYSQL_DATABASE", "portal")
					},
					func() error {
						d := w11bApp("legacy-portal", "nginx", "nginx:1.27.2", 2, portal,
							w11bReadinessFail("nginx", "w11b-legacy-portal-fastcgi-socket", "Readiness probe failed: HTTP probe failed with statuscode: 502"), "http", 8080)
						mountConfigMap(&d.Spec.Template, "legacy-portal-nginx", "/etc/nginx/conf.d")
						w8bReadiness(&d.Spec.Template, "/index.php?health=1", "http", 5)
						w10aEmptyDir(&d.Spec.Template, "php-run", "/run/php", 0)
						fpm := w10aContainer(&d.Spec.Template, "php-fpm", "registry.example/web/legacy-portal:2019.4-fpm", "", 0)
						fpm.EnvFrom = append(fpm.EnvFrom, w11bEnvFromCM("legacy-portal-env"))
						t := &d.Spec.Template
						t.Spec.Volumes = append(t.Spec.Volumes, w11bConfigMapVolume("legacy-portal-fpm"))
						fpm = &t.Spec.Containers[1]
						fpm.VolumeMounts = append(fpm.VolumeMounts, w11bMount("legacy-portal-fpm", "/usr/local/etc/php-fpm.d/zz-docker.conf", "zz-docker.conf"), w11bMount("php-run", "/run/php", ""))
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: podsWith(portal, runningNotReady),
		},
	}
}
