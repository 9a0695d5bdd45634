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

// Wave 23a: "Ready but wrong". Every workload is Running and Ready, no probe fails and nothing
// restarts, yet users see 4xx, mails that never leave, traces and log labels that never
// arrive, orders nobody consumes. The application keeps logging the same error in its own
// wording, and the cause is one value in the namespace: a .env Secret key, a missing env var,
// a collector or broker setting, a misspelt ConfigMap key, a ClusterRoleBinding subject, an
// egress port, an Ingress annotation. Written blind from public issues; every Want was fixed
// from the source before anything ran.

func wave23aScenarios() []*Scenario {
	return append(wave23aFirstScenarios(), wave23aMoreScenarios()...)
}

func wave23aFirstScenarios() []*Scenario {
	queue := w8bLabels("shop-queue", "shop")
	booking := w8bLabels("booking-api", "booking")
	fulfil := w8bLabels("fulfilment-consumer", "orders")
	signup := w8bLabels("signup-api", "identity")
	return []*Scenario{
		{
			// Staging's mail catcher was moved from MailHog to Mailpit (MailHog is unmaintained).
			// The Laravel .env lives in a Secret loaded with envFrom and still says
			// MAIL_HOST=mailhog, so every queued mail job fails on DNS while the worker stays up.
			Name: "staging-order-mails-vanish", Covers: "outside the catalogue: shop-queue (Laravel queue:work) is Running and Ready but every mail job ends FAIL with 'Connection could not be established with host \"mailhog:1025\": ... getaddrinfo for mailhog failed'; Secret shop-dotenv (envFrom) still sets MAIL_HOST=mailhog while the mail catcher is Deployment/Service mailpit (status-notifier sends to mailpit fine)",
			Source: w23aSrcMailpit, Class: ClassClue, Hops: 2,
			Problem: "Order confirmations and password-reset mails no longer show up in the staging mail inbox since the dev tooling was refreshed last week; the shop works and its queue worker is up",
			Target:  target("Deployment", "shop-queue"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "shop-dotenv"}, Terms: []string{"mailhog"}},
			Setup: func(ctx context.Context, e *Env) error {
				store := w8bLabels("shop-redis", "shop")
				return steps(
					func() error {
						return e.createSecret(ctx, "shop-dotenv", map[string]string{
							"APP_NAME": "Shop", "APP_ENV": "staging", "APP_KEY": "base64:3q8rJ0c1Yk4m2Vt7pQh9Xw5sZb6nL1fA0eD8gK2uR4o=", "APP_DEBUG": "false", "APP_URL": "https://staging.shop.example.com",
							"LOG_CHANNEL": "stderr", "DB_CONNECTION": "mysql", "DB_HOST": "shop-mysql", "DB_PORT": "3306", "DB_DATABASE": "shop", "DB_USERNAME": "shop", "DB_PASSWORD": "s7aGing-Db-2291",
							"QUEUE_CONNECTION": "redis", "CACHE_STORE": "redis", "REDIS_HOST": "shop-redis", "REDIS_PORT": "6379",
							"MAIL_MAILER": "smtp", "MAIL_HOST": "mailhog", "MAIL_PORT": "1025", "MAIL_ENCRYPTION": "null", "MAIL_FROM_ADDRESS": "orders@staging.shop.example.com", "MAIL_FROM_NAME": "Shop (staging)",
						})
					},
					func() error { return e.w11bStore(ctx, "shop-redis", "redis:7.2-alpine", store, nil, "redis", 6379) },
					func() error {
						return e.w11bStore(ctx, "shop-mysql", "mysql:8.0.39", w8bLabels("shop-mysql", "shop"), nil, "mysql", 3306, "MYSQL_DATABASE", "shop", "MYSQL_USER", "shop")
					},
					func() error {
						lbl := w8bLabels("mailpit", "dev-tools")
						d := w23aApp("mailpit", "mailpit", "axllent/mailpit:v1.20.5", 1, lbl, nil, "smtp", 1025, "http", 8025)
						w8bEnv(&d.Spec.Template, "MP_SMTP_AUTH_ACCEPT_ANY", "1", "MP_SMTP_AUTH_ALLOW_INSECURE", "1", "MP_MAX_MESSAGES", "5000")
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						return e.createService(ctx, w23aTwoPorts("mailpit", lbl, "smtp", 1025, "http", 8025))
					},
					func() error {
						d := w11bApp("shop-web", "php-fpm", "registry.example/shop/shop-app:3.14.2", 2, w8bLabels("shop-web", "shop"), nil, "http", 8080)
						envFromSecret(&d.Spec.Template, "shop-dotenv")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("shop-queue", "worker", "registry.example/shop/shop-app:3.14.2", 1, queue, running("w23a-shop-queue"), "", 0)
						d.Spec.Template.Spec.Containers[0].Command = []string{"php", "artisan", "queue:work", "redis", "--queue=mail,default", "--sleep=3", "--tries=3", "--max-time=3600"}
						envFromSecret(&d.Spec.Template, "shop-dotenv")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("status-notifier", "notifier", "registry.example/platform/status-notifier:0.9.4", 1, w8bLabels("status-notifier", "dev-tools"), nil, "", 0)
						w8bEnv(&d.Spec.Template, "SMTP_HOST", "mailpit", "SMTP_PORT", "1025", "NOTIFY_TO", "qa-team@shop.example.com")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("shop-queue", 1), readyReplicas("mailpit", 1), readyReplicas("shop-web", 2), w11aStatefulSetReady("shop-redis", 1)),
		},
		{
			// TLS ends at the ingress controller, so Kestrel sees http. Without
			// ASPNETCORE_FORWARDEDHEADERS_ENABLED the OIDC handler builds
			// redirect_uri=http://hr.../signin-oidc, which Keycloak's client does not allow.
			// expenses-portal, same stack and same Keycloak, sets the variable and signs in.
			Name: "hr-portal-sign-in-bounces", Covers: "outside the catalogue: hr-portal (.NET 8, OpenIdConnect) is Ready but nobody can sign in: the Ready keycloak logs type=\"LOGIN_ERROR\" clientId=\"hr-portal\" error=\"invalid_redirect_uri\" redirect_uri=\"http://hr.corp.example.com/signin-oidc\" behind a TLS Ingress; Deployment hr-portal lacks ASPNETCORE_FORWARDEDHEADERS_ENABLED=true, which expenses-portal sets",
			Source: w23aSrcForwarded, Class: ClassOutside, Hops: 2,
			Problem: "Nobody can sign in to the HR portal: after choosing 'Sign in' they land on a Keycloak page saying 'Invalid parameter: redirect_uri'. The expenses portal signs in through the same Keycloak without trouble",
			Target:  target("Deployment", "hr-portal"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "hr-portal"}, Terms: []string{"ASPNETCORE_FORWARDEDHEADERS_ENABLED"}},
			Setup: func(ctx context.Context, e *Env) error {
				realm := `{"realm":"corp","enabled":true,"sslRequired":"external","clients":[` +
					`{"clientId":"hr-portal","protocol":"openid-connect","publicClient":false,"standardFlowEnabled":true,"redirectUris":["https://hr.corp.example.com/signin-oidc"],"webOrigins":["https://hr.corp.example.com"],"attributes":{"post.logout.redirect.uris":"https://hr.corp.example.com/signout-callback-oidc"}},` +
					`{"clientId":"expenses-portal","protocol":"openid-connect","publicClient":false,"standardFlowEnabled":true,"redirectUris":["https://expenses.corp.example.com/signin-oidc"],"webOrigins":["https://expenses.corp.example.com"]}]}`
				portal := func(name, logs string, replicas int32, extra ...string) func() error {
					return func() error {
						var ann map[string]string
						if logs != "" {
							ann = running(logs)
						}
						d := w11bApp(name, name, "registry.example/corp/"+name+":5.3.0", replicas, w8bLabels(name, "corp-portals"), ann, "http", 8080)
						w8bEnv(&d.Spec.Template, append([]string{"ASPNETCORE_URLS", "http://+:8080", "ASPNETCORE_ENVIRONMENT", "Production",
							"Oidc__Authority", "https://sso.corp.example.com/realms/corp", "Oidc__ClientId", name, "Oidc__CallbackPath", "/signin-oidc",
							"Oidc__ResponseType", "code", "Oidc__SaveTokens", "true"}, extra...)...)
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					}
				}
				host := func(name, host, svc string) func() error {
					return func() error {
						if err := e.w10bTLSSecret(ctx, name+"-tls", host); err != nil {
							return err
						}
						return e.createIngress(ctx, w9aIngress(name, "nginx", host, "/", svc, "http", nil, name+"-tls"))
					}
				}
				return steps(
					func() error { return e.createConfigMap(ctx, "corp-realm", map[string]string{"corp-realm.json": realm}) },
					func() error {
						return e.w11bStore(ctx, "sso-postgres", "postgres:16.4", w22aLabels("postgresql", "sso-postgres"), nil, "postgresql", 5432, "POSTGRES_DB", "keycloak", "POSTGRES_USER", "keycloak")
					},
					func() error {
						d := w11bApp("keycloak", "keycloak", "quay.io/keycloak/keycloak:25.0.6", 1, w22aLabels("keycloak", "sso"), running("w23a-keycloak"), "http", 8080)
						w8cArgs(&d.Spec.Template, "start", "--import-realm", "--hostname=https://sso.corp.example.com", "--proxy-headers=xforwarded", "--http-enabled=true", "--health-enabled=true")
						w8bEnv(&d.Spec.Template, "KC_DB", "postgres", "KC_DB_URL", "jdbc:postgresql://sso-postgres:5432/keycloak", "KC_DB_USERNAME", "keycloak")
						mountConfigMap(&d.Spec.Template, "corp-realm", "/opt/keycloak/data/import")
						return e.w11bServe(ctx, d, 80)
					},
					portal("hr-portal", "w23a-hr-portal", 2),
					portal("expenses-portal", "", 1, "ASPNETCORE_FORWARDEDHEADERS_ENABLED", "true"),
					host("sso", "sso.corp.example.com", "keycloak"),
					host("hr", "hr.corp.example.com", "hr-portal"),
					host("expenses", "expenses.corp.example.com", "expenses-portal"),
				)
			},
			Wait: all(readyReplicas("hr-portal", 2), readyReplicas("expenses-portal", 1), readyReplicas("keycloak", 1)),
		},
		{
			// The collector's memory_limiter was copied from a sidecar example: limit_mib 64
			// with spike_limit_mib 48 leaves a 16 MiB soft limit, below what the idle
			// collector already uses, so it refuses every batch while its pod stays Ready.
			Name: "booking-spans-refused-at-collector", Covers: "outside the catalogue: booking-api is Ready but its log repeats 'traces export: ... rpc error: code = Unavailable desc = data refused due to high memory usage'; the Ready otel-collector logs 'Memory usage is above soft limit. Refusing data.' at cur_mem_mib 41: the memory_limiter in ConfigMap otel-collector-config sets limit_mib 64 and spike_limit_mib 48 (soft limit 16 MiB)",
			Source: w23aSrcMemLimiter, Class: ClassProvider, Hops: 2,
			Problem: "Jaeger has shown no booking-api traces since yesterday afternoon; booking-api serves requests normally and nothing has restarted",
			Target:  target("Deployment", "booking-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "otel-collector-config"}, Terms: []string{"limit_mib"}},
			Setup: func(ctx context.Context, e *Env) error {
				limiter := "  memory_limiter:\n    check_interval: 1s\n    limit_mib: 64\n    spike_limit_mib: 48\n  batch:\n    send_batch_size: 8192\n    timeout: 5s\n"
				return steps(
					func() error {
						return e.createConfigMap(ctx, "otel-collector-config", map[string]string{"config.yaml": w23aCollectorConfig(limiter, "memory_limiter, batch", "otlp/jaeger", "jaeger-collector:4317")})
					},
					func() error { return e.w23aCollector(ctx, "otel-collector-config", running("w23a-otel-collector")) },
					func() error {
						return e.w11bStore(ctx, "booking-db", "postgres:16.4", w8bLabels("booking-db", "booking"), nil, "postgresql", 5432, "POSTGRES_DB", "booking")
					},
					func() error {
						d := w11bApp("jaeger-collector", "jaeger", "jaegertracing/all-in-one:1.61.0", 1, w22aLabels("jaeger", "jaeger"), nil, "otlp-grpc", 4317)
						w8bEnv(&d.Spec.Template, "COLLECTOR_OTLP_ENABLED", "true", "SPAN_STORAGE_TYPE", "badger")
						return e.w11bServe(ctx, d, 4317)
					},
					func() error {
						d := w11bApp("booking-api", "booking-api", "registry.example/booking/booking-api:4.11.0", 2, booking, running("w23a-booking-api"), "http", 8080)
						w8bEnv(&d.Spec.Template, "OTEL_SERVICE_NAME", "booking-api", "OTEL_EXPORTER_OTLP_ENDPOINT", "http://otel-collector:4317",
							"OTEL_TRACES_SAMPLER", "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG", "0.25", "DB_HOST", "booking-db")
						w8bReadiness(&d.Spec.Template, "/readyz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(readyReplicas("booking-api", 2), readyReplicas("otel-collector", 1), readyReplicas("jaeger-collector", 1)),
		},
		{
			// NATS moved to the 1.x chart, whose nats.conf carries a jetstream block only
			// when config.jetstream.enabled is set. Core NATS works (publishes succeed, the
			// notifications relay receives), but the durable consumer cannot be created.
			Name: "fulfilment-consumer-idle-orders-pile", Covers: "outside the catalogue: fulfilment-consumer (Go, nats.go) is Running and Ready but logs every 5 s 'jetstream setup failed, retrying ... err=\"nats: jetstream not enabled\"'; the Ready nats server prints no JetStream lines: nats.conf in ConfigMap nats-config has no jetstream block (core-NATS notifications-relay works)",
			Source: w23aSrcJetStream, Class: ClassProvider, Hops: 2,
			Problem: "Orders are accepted, but fulfilment has not picked up a single one since NATS was redeployed on Tuesday; fulfilment-consumer is Running and Ready and nothing restarts",
			Target:  target("Deployment", "fulfilment-consumer"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "nats-config"}, Terms: []string{"jetstream"}},
			Setup: func(ctx context.Context, e *Env) error {
				conf := "# NATS Server configuration (rendered by the nats chart)\nport: 4222\nhttp_port: 8222\nserver_name: $SERVER_NAME\nlame_duck_duration: 30s\nlame_duck_grace_period: 10s\nmax_payload: 1MB\nmax_connections: 64K\npid_file: /var/run/nats/nats.pid\nwrite_deadline: 10s\n"
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "nats-config", w22aLabels("nats", "nats"), map[string]string{"nats.conf": conf})
					},
					func() error {
						return e.w22aConfiguredStatefulSet(ctx, "nats", "nats:2.10.20-alpine", w22aLabels("nats", "nats"), running("w23a-nats"), "nats", 4222,
							"nats-config", "/etc/nats-config", []string{"nats-server", "--config", "/etc/nats-config/nats.conf"}, "SERVER_NAME", "nats-0", "GOMEMLIMIT", "900MiB")
					},
					func() error {
						d := w11bApp("fulfilment-consumer", "consumer", "registry.example/orders/fulfilment-consumer:2.7.1", 2, fulfil, running("w23a-fulfilment-consumer"), "http", 8080)
						w8bEnv(&d.Spec.Template, "NATS_URL", "nats://nats:4222", "NATS_STREAM", "ORDERS", "NATS_DURABLE", "fulfilment", "NATS_FILTER_SUBJECT", "orders.created", "WMS_URL", "http://wms-gateway:8080")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("wms-gateway", "gateway", "registry.example/orders/wms-gateway:1.4.2", 1, w8bLabels("wms-gateway", "orders"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						d := w11bApp("orders-api", "orders-api", "registry.example/orders/orders-api:5.0.3", 2, w8bLabels("orders-api", "orders"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "NATS_URL", "nats://nats:4222", "ORDER_EVENTS_SUBJECT", "orders.created")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("notifications-relay", "relay", "registry.example/orders/notifications-relay:1.3.0", 1, w8bLabels("notifications-relay", "orders"), nil, "", 0)
						w8bEnv(&d.Spec.Template, "NATS_URL", "nats://nats:4222", "SUBSCRIBE", "orders.*")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("fulfilment-consumer", 2), readyReplicas("orders-api", 2), w11aStatefulSetReady("nats", 1)),
		},
		{
			// express-rate-limit keys on req.ip; without 'trust proxy' that is the ingress
			// controller's address, so all visitors share one bucket. The app reads
			// TRUST_PROXY; signup-api's ConfigMap spells it TRUSTED_PROXY (account-api's is right).
			Name: "signup-api-429-for-everyone", Covers: "outside the catalogue: signup-api (Node, Express, express-rate-limit) is Ready but answers 429 to almost every request and logs \"ValidationError: The 'X-Forwarded-For' header is set but the Express 'trust proxy' setting is false (default)\" (ERR_ERL_UNEXPECTED_X_FORWARDED_FOR); ConfigMap signup-api-env sets TRUSTED_PROXY=1 instead of the TRUST_PROXY the app reads (account-api-env has TRUST_PROXY=1)",
			Source: w23aSrcTrustProxy, Class: ClassOutside, Hops: 1,
			Problem: "Since Monday's release almost every visitor gets 'Too many requests, please try again later.' on the sign-up page, even on their first attempt; the account pages behind the same ingress work",
			Target:  target("Deployment", "signup-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "signup-api-env"}, Terms: []string{"TRUSTED_PROXY"}},
			Setup: func(ctx context.Context, e *Env) error {
				base := map[string]string{"NODE_ENV": "production", "PORT": "3000", "LOG_LEVEL": "info", "RATE_LIMIT_WINDOW_MS": "900000", "RATE_LIMIT_MAX": "20", "REDIS_URL": "redis://identity-redis:6379/2"}
				with := func(k, v string) map[string]string {
					m := map[string]string{k: v}
					for a, b := range base {
						m[a] = b
					}
					return m
				}
				api := func(name, entry string, lbl, ann map[string]string) func() error {
					return func() error {
						d := w11bApp(name, "api", "registry.example/identity/identity-node:3.4.1", 2, lbl, ann, "http", 3000)
						d.Spec.Template.Spec.Containers[0].Args = []string{"node", entry}
						envFromConfigMap(&d.Spec.Template, name+"-env")
						w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
						return e.w11bServe(ctx, d, 80)
					}
				}
				return steps(
					func() error { return e.createConfigMap(ctx, "signup-api-env", with("TRUSTED_PROXY", "1")) },
					func() error { return e.createConfigMap(ctx, "account-api-env", with("TRUST_PROXY", "1")) },
					func() error {
						return e.w11bStore(ctx, "identity-redis", "redis:7.2-alpine", w8bLabels("identity-redis", "identity"), nil, "redis", 6379)
					},
					api("signup-api", "dist/signup/server.js", signup, running("w23a-signup-api")),
					api("account-api", "dist/account/server.js", w8bLabels("account-api", "identity"), nil),
					func() error {
						return e.createIngress(ctx, w9aIngress("signup", "nginx", "id.example.com", "/signup", "signup-api", "http", nil, ""))
					},
					func() error {
						return e.createIngress(ctx, w9aIngress("account", "nginx", "id.example.com", "/account", "account-api", "http", nil, ""))
					},
				)
			},
			Wait: all(readyReplicas("signup-api", 2), readyReplicas("account-api", 2), w11aStatefulSetReady("identity-redis", 1)),
		},
	}
}
