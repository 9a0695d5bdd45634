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
	"k8s.io/apimachinery/pkg/util/intstr"
)

func wave19aMoreScenarios() []*Scenario {
	return []*Scenario{w19aMigrateCommandScenario(), w19aRelayScenario(), w19aCPUDefaultsScenario(), w19aTokenReviewScenario(), w19aArchScenario()}
}

// A container command is an argv list: ["bundle exec rails db:migrate"] asks the runtime to
// exec a binary literally named "bundle exec rails db:migrate", which fails before the process
// starts (exit 128, nothing logged). The release's pre-upgrade migration Job failed that way,
// the new web pods rolled out anyway, and every query touching the new column fails.
func w19aMigrateCommandScenario() *Scenario {
	web := w8bLabels("accounts-web", "accounts")
	migrate := w8bLabels("accounts-migrate", "accounts")
	db := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "accounts-db")
	hook := map[string]string{"helm.sh/hook": "pre-install,pre-upgrade", "helm.sh/hook-weight": "-5"}
	return &Scenario{
		Name:   "accounts-login-500-after-upgrade",
		Covers: "accounts-web (Rails 7.1, Ready) answers 500 on login with 'PG::UndefinedColumn: ERROR: column accounts.mfa_enforced_at does not exist'; the release's migration Job accounts-migrate-318 failed (BackoffLimitExceeded, exit 128): 'exec: \"bundle exec rails db:migrate\": executable file not found in $PATH', its command is one string (accounts-migrate-317 of the previous release ran [bundle exec rails db:migrate] and completed)",
		Source: w19aSrcExecString, Class: ClassClue, Hops: 2,
		Problem: "since this afternoon's accounts 5.13 upgrade nobody can log in, the login page answers 500; the pods are Ready and the database looks fine",
		Target:  target("Deployment", "accounts-web"),
		Want:    Want{Culprit: Ref{Kind: "Job", Name: "accounts-migrate-318"}, Terms: []string{"command"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error {
					return e.createSecret(ctx, "accounts-db", map[string]string{"password": "p0Zr8wLq3NvT6xKc", "url": "postgres://accounts:p0Zr8wLq3NvT6xKc@accounts-db:5432/accounts"})
				},
				func() error {
					return e.w19aPostgres(ctx, "accounts-db", "accounts", db, nil, "accounts-db", "password")
				},
				func() error {
					j := w18cJob("accounts-migrate-317", "migrate", "registry.example/accounts/accounts:5.12.4", 1, migrate, nil)
					j.Annotations = hook
					j.Spec.Template.Spec.Containers[0].Command = []string{"bundle", "exec", "rails", "db:migrate"}
					envKeyFromSecret(&j.Spec.Template, "DATABASE_URL", "accounts-db", "url")
					return e.w18cCreateJob(ctx, j)
				},
				func() error {
					msg := `failed to create containerd task: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: exec: "bundle exec rails db:migrate": executable file not found in $PATH: unknown`
					j := w18cJob("accounts-migrate-318", "migrate", "registry.example/accounts/accounts:5.13.0", 1, migrate,
						sim("fail", annExitCode, "128", annMessage, msg, annLogs, "w14a-no-output"))
					j.Annotations = hook
					j.Spec.Template.Spec.Containers[0].Command = []string{"bundle exec rails db:migrate"}
					envKeyFromSecret(&j.Spec.Template, "DATABASE_URL", "accounts-db", "url")
					w8bEnv(&j.Spec.Template, "RAILS_ENV", "production", "RAILS_LOG_TO_STDOUT", "1")
					return e.w18cCreateJob(ctx, j)
				},
				func() error {
					d := w11bApp("accounts-web", "web", "registry.example/accounts/accounts:5.13.0", 2, web, running("w19a-accounts-web-undefined-column"), "http", 3000)
					envKeyFromSecret(&d.Spec.Template, "DATABASE_URL", "accounts-db", "url")
					w8bEnv(&d.Spec.Template, "RAILS_ENV", "production", "RAILS_LOG_TO_STDOUT", "1", "WEB_CONCURRENCY", "2", "RAILS_MAX_THREADS", "5")
					w8bReadiness(&d.Spec.Template, "/up", "http", 10)
					return e.w11bServe(ctx, d, 80)
				},
				func() error {
					d := w11bApp("accounts-sidekiq", "sidekiq", "registry.example/accounts/accounts:5.13.0", 1, w8bLabels("accounts-sidekiq", "accounts"), nil, "", 0)
					d.Spec.Template.Spec.Containers[0].Command = []string{"bundle", "exec", "sidekiq", "-C", "config/sidekiq.yml"}
					envKeyFromSecret(&d.Spec.Template, "DATABASE_URL", "accounts-db", "url")
					w8bEnv(&d.Spec.Template, "RAILS_ENV", "production", "REDIS_URL", "redis://accounts-redis:6379/0")
					return e.createDeployment(ctx, d)
				},
			)
		},
		Wait: all(w11aJobFailed("accounts-migrate-318", "BackoffLimitExceeded"), w9aJobComplete("accounts-migrate-317"), readyReplicas("accounts-web", 2)),
	}
}

// Postfix relays to outside domains only for clients in mynetworks (or authenticated ones).
// The relay's settings came from the docker-compose era (172.16.0.0/12); pods use
// 10.244.0.0/16, so every invoice to a customer is refused with "554 5.7.1 Relay access
// denied" while both pods stay Running and Ready.
func w19aRelayScenario() *Scenario {
	relay := w8cLabels("app.kubernetes.io/name", "postfix", "app.kubernetes.io/instance", "smtp-relay")
	mailer := w8bLabels("invoice-mailer", "billing")
	return &Scenario{
		Name:   "invoices-not-reaching-customers",
		Covers: "invoice-mailer (.NET worker, MailKit, Ready) logs 'SmtpCommandException: 5.7.1 <accounts@northwind-traders.example>: Relay access denied' for every invoice; smtp-relay (boky/postfix, Ready) logs 'NOQUEUE: reject: RCPT from ...[10.244.2.31]: 554 5.7.1 ... Relay access denied': ConfigMap smtp-relay-env sets POSTFIX_mynetworks=127.0.0.0/8,172.16.0.0/12,192.168.0.0/16, which leaves out the pod network 10.244.0.0/16",
		Source: w19aSrcRelayDenied, Class: ClassOutside, Hops: 2,
		Problem: "customers tell us they have not received any invoice e-mail since Monday; nothing crashes, the mailer and the SMTP relay pods are all green",
		Target:  target("Deployment", "invoice-mailer"),
		Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "smtp-relay-env"}, Terms: []string{"mynetworks"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error {
					return e.w10aConfigMap(ctx, "smtp-relay-env", relay, map[string]string{
						"ALLOWED_SENDER_DOMAINS": "billing.example.com", "RELAYHOST": "[email-smtp.eu-west-1.amazonaws.com]:587",
						"RELAYHOST_USERNAME": "AKIAEXAMPLESESRELAY", "POSTFIX_mynetworks": "127.0.0.0/8,172.16.0.0/12,192.168.0.0/16",
						"POSTFIX_myhostname": "smtp-relay.billing.example.com", "POSTFIX_message_size_limit": "26214400",
					})
				},
				func() error {
					return e.createSecret(ctx, "smtp-relay-ses", map[string]string{"password": "BExampleSesSmtpPasswordNotReal0123456789ab"})
				},
				func() error {
					d := w11bApp("smtp-relay", "postfix", "docker.io/boky/postfix:v4.3.0", 1, relay, running("w19a-smtp-relay-postfix"), "smtp", 587)
					envFromConfigMap(&d.Spec.Template, "smtp-relay-env")
					envKeyFromSecret(&d.Spec.Template, "RELAYHOST_PASSWORD", "smtp-relay-ses", "password")
					d.Spec.Template.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 10,
						ProbeHandler: corev1.ProbeHandler{Exec: &corev1.ExecAction{Command: []string{"sh", "-c", "/scripts/healthcheck.sh"}}}}
					return e.w11bServe(ctx, d, 587)
				},
				func() error {
					d := w11bApp("invoice-mailer", "invoice-mailer", "registry.example/billing/invoice-mailer:3.4.0", 1, mailer, running("w19a-invoice-mailer-mailkit"), "", 0)
					w8bEnv(&d.Spec.Template, "DOTNET_ENVIRONMENT", "Production", "Smtp__Host", "smtp-relay", "Smtp__Port", "587", "Smtp__StartTls", "Auto",
						"Smtp__From", "invoices@billing.example.com", "Outbox__PollInterval", "00:00:15", "ConnectionStrings__Billing", "Host=billing-db;Database=billing;Username=mailer")
					return e.createDeployment(ctx, d)
				},
				func() error {
					d := w11bApp("invoice-api", "invoice-api", "registry.example/billing/invoice-api:3.4.0", 2, w8bLabels("invoice-api", "billing"), nil, "http", 8080)
					w8bEnv(&d.Spec.Template, "ASPNETCORE_URLS", "http://+:8080", "DOTNET_ENVIRONMENT", "Production")
					return e.w11bServe(ctx, d, 80)
				},
			)
		},
		Wait: all(readyReplicas("invoice-mailer", 1), readyReplicas("smtp-relay", 1), readyReplicas("invoice-api", 2)),
	}
}

// A LimitRange's default limit applies to every container that sets none. Keycloak's values
// set memory only, so in the shared-services namespace it gets a 250m CPU limit; the first
// start runs the Quarkus build, which takes minutes at 250m, and the liveness probe kills the
// container before the management port opens, again and again.
func w19aCPUDefaultsScenario() *Scenario {
	kc := w8cLabels("app.kubernetes.io/name", "keycloak", "app.kubernetes.io/instance", "sso")
	proxy := w8cLabels("app.kubernetes.io/name", "oauth2-proxy", "app.kubernetes.io/instance", "sso")
	db := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "keycloak-db")
	probe := func(path string, delay, period, failures int32) *corev1.Probe {
		return &corev1.Probe{InitialDelaySeconds: delay, PeriodSeconds: period, FailureThreshold: failures, TimeoutSeconds: 5,
			ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString("management")}}}
	}
	return &Scenario{
		Name:   "sso-never-comes-up-after-namespace-move",
		Covers: "keycloak (26.0.5, 'start' without --optimized) is killed by its liveness probe over and over ('Liveness probe failed: Get \"http://...:9000/health/live\": connect: connection refused', exit 137) while its log shows the Quarkus augmentation taking 88 s; it sets only memory resources, so LimitRange container-defaults gives it a 250m CPU limit (oauth2-proxy, light, runs with the same defaults)",
		Source: w19aSrcCPUStartup, Class: ClassMechanism, Hops: 1,
		Problem: "Keycloak keeps restarting since we moved it into the shared-services namespace; same chart and values as before, it never finishes starting and SSO is down",
		Target:  target("Deployment", "keycloak"),
		Want:    Want{Culprit: Ref{Kind: "LimitRange", Name: "container-defaults"}, Terms: []string{"250m"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error { return e.ownNode(ctx, "sso") },
				func() error {
					return e.w13bLimitRange(ctx, "container-defaults", corev1.LimitRangeItem{Type: corev1.LimitTypeContainer,
						Default: w13bList("cpu", "250m", "memory", "512Mi"), DefaultRequest: w13bList("cpu", "100m", "memory", "256Mi")})
				},
				func() error {
					return e.createSecret(ctx, "keycloak-db", map[string]string{"password": "Lm4xQ8zR2vK7tN1w"})
				},
				func() error {
					st := w8bStatefulSet("keycloak-db", "docker.io/library/postgres:16.4", "keycloak-db", 1, db, nil, "tcp-postgresql", 5432)
					st.Spec.Template.Spec.Containers[0].Name = "postgres"
					w8bEnv(&st.Spec.Template, "POSTGRES_DB", "keycloak", "POSTGRES_USER", "keycloak")
					envKeyFromSecret(&st.Spec.Template, "POSTGRES_PASSWORD", "keycloak-db", "password")
					e.pin(&st.Spec.Template)
					if err := e.createStatefulSet(ctx, st); err != nil {
						return err
					}
					return e.createService(ctx, w8bService("keycloak-db", db, "tcp-postgresql", 5432))
				},
				func() error {
					ann := w10aOn("keycloak", "liveness-fail", "w19a-keycloak-slow-start", annMessage,
						`Get "http://10.244.3.17:9000/health/live": dial tcp 10.244.3.17:9000: connect: connection refused`)
					d := w11bApp("keycloak", "keycloak", "quay.io/keycloak/keycloak:26.0.5", 1, kc, ann, "http", 8080)
					c := &d.Spec.Template.Spec.Containers[0]
					c.Args = []string{"start"}
					w10aPort(&d.Spec.Template, "management", 9000)
					w8bEnv(&d.Spec.Template, "KC_DB", "postgres", "KC_DB_URL_HOST", "keycloak-db", "KC_DB_URL_DATABASE", "keycloak", "KC_DB_USERNAME", "keycloak",
						"KC_HOSTNAME", "https://sso.example.com", "KC_PROXY_HEADERS", "xforwarded", "KC_HTTP_ENABLED", "true", "KC_HEALTH_ENABLED", "true",
						"KC_CACHE_STACK", "kubernetes", "JAVA_OPTS_KC_HEAP", "-XX:MaxRAMPercentage=70")
					envKeyFromSecret(&d.Spec.Template, "KC_DB_PASSWORD", "keycloak-db", "password")
					c.LivenessProbe = probe("/health/live", 60, 10, 3)
					c.ReadinessProbe = probe("/health/ready", 30, 10, 3)
					w17aMemoryOnly(&d.Spec.Template, 0, "768Mi", "1536Mi")
					e.pin(&d.Spec.Template)
					return e.w11bServe(ctx, d, 80)
				},
				func() error {
					d := w11bApp("oauth2-proxy", "oauth2-proxy", "quay.io/oauth2-proxy/oauth2-proxy:v7.7.1", 1, proxy, nil, "http", 4180)
					w8cArgs(&d.Spec.Template, "--provider=keycloak-oidc", "--oidc-issuer-url=https://sso.example.com/realms/staff", "--upstream=static://202", "--http-address=0.0.0.0:4180")
					e.pin(&d.Spec.Template)
					return e.w11bServe(ctx, d, 80)
				},
			)
		},
		Wait: all(podsWith(kc, restartedWith("Error", 137)), readyReplicas("oauth2-proxy", 1), w8cStatefulSetReady("keycloak-db", 1)),
	}
}

// Vault's kubernetes auth checks each login JWT with a TokenReview, made with Vault's own
// ServiceAccount, which therefore needs system:auth-delegator. The kustomize overlay that moved
// Vault out of namespace vault kept the binding's subject namespace, so the binding names an
// account that does not exist and every login fails inside Vault.
func w19aTokenReviewScenario() *Scenario {
	vault := w8cLabels("app.kubernetes.io/name", "vault", "app.kubernetes.io/instance", "vault", "component", "server")
	pay := w8bLabels("payments-api", "payments")
	return &Scenario{
		Name:   "payments-api-crash-after-platform-change",
		Covers: "payments-api (Go) crash-loops: vault login to auth/kubernetes answers 500 'tokenreviews.authentication.k8s.io is forbidden: User \"system:serviceaccount:<ns>:vault\" cannot create resource \"tokenreviews\"'; vault-0 is unsealed and Ready, but ClusterRoleBinding vault-server-binding (system:auth-delegator) names ServiceAccount vault in namespace vault, not the one Vault runs as",
		Source: w19aSrcTokenReview, Class: ClassReference, Hops: 2,
		Problem: "payments-api pods crash at startup since the platform team re-deployed Vault with kustomize this morning; Vault itself is unsealed and healthy and the payments-api role in Vault did not change",
		Target:  target("Deployment", "payments-api"),
		Want:    Want{Culprit: Ref{Kind: "ClusterRoleBinding", Name: "vault-server-binding", Cluster: true}, Terms: []string{"tokenreviews"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error { return e.createServiceAccount(ctx, "vault") },
				func() error { return e.createServiceAccount(ctx, "payments-api") },
				func() error {
					return e.w19aClusterRoleBinding(ctx, "vault-server-binding", "system:auth-delegator", "vault", "vault")
				},
				func() error {
					st := w8bStatefulSet("vault", "docker.io/hashicorp/vault:1.17.5", "vault-internal", 1, vault, running("w19a-vault-server"), "http", 8200)
					st.Spec.Template.Spec.Containers[0].Name = "vault"
					st.Spec.Template.Spec.ServiceAccountName = "vault"
					w10aPort(&st.Spec.Template, "https-internal", 8201)
					w10bFieldEnv(&st.Spec.Template, "POD_IP", "status.podIP", "VAULT_K8S_NAMESPACE", "metadata.namespace", "VAULT_K8S_POD_NAME", "metadata.name")
					w8bEnv(&st.Spec.Template, "VAULT_ADDR", "http://127.0.0.1:8200", "VAULT_API_ADDR", "http://$(POD_IP):8200", "SKIP_SETCAP", "true")
					if err := e.createStatefulSet(ctx, st); err != nil {
						return err
					}
					if err := e.createService(ctx, w8bHeadless("vault-internal", vault, "http", 8200)); err != nil {
						return err
					}
					return e.createService(ctx, w8bService("vault", vault, "http", 8200))
				},
				func() error {
					msg := fmt.Sprintf("vault login (kubernetes, role payments-api) failed: Error making API request.\n\nURL: PUT http://vault:8200/v1/auth/kubernetes/login\nCode: 500. Errors:\n\n"+
						"* tokenreviews.authentication.k8s.io is forbidden: User \"system:serviceaccount:%s:vault\" cannot create resource \"tokenreviews\" in API group \"authentication.k8s.io\" at the cluster scope", e.Namespace)
					d := w11bApp("payments-api", "payments-api", "registry.example/payments/payments-api:4.6.2", 2, pay, crash("1", msg, "w19a-payments-api-vault"), "http", 8080)
					d.Spec.Template.Spec.ServiceAccountName = "payments-api"
					w8bEnv(&d.Spec.Template, "VAULT_ADDR", "http://vault:8200", "VAULT_AUTH_ROLE", "payments-api", "VAULT_SECRET_PATH", "secret/data/payments/psp")
					return e.w11bServe(ctx, d, 80)
				},
				func() error {
					d := w11bApp("checkout-api", "checkout-api", "registry.example/payments/checkout-api:2.9.0", 1, w8bLabels("checkout-api", "payments"), nil, "http", 8080)
					envFromSecret(&d.Spec.Template, "checkout-api-env")
					return e.w11bServe(ctx, d, 80)
				},
				func() error {
					return e.createSecret(ctx, "checkout-api-env", map[string]string{"PAYMENTS_URL": "http://payments-api", "SESSION_KEY": "3c9f1e7a2b8d4c6e"})
				},
			)
		},
		Wait: all(podsWith(pay, crashLooping(2)), w8cStatefulSetReady("vault", 1), readyReplicas("checkout-api", 1)),
	}
}

// A nodeSelector on kubernetes.io/arch: arm64 (values prepared for a Graviton node pool) was
// merged while the pool migration was rolled back; no node is arm64, so the search engine's
// pod stays Pending, its Service has no endpoints and the API in front of it crash-loops on
// connection refused.
func w19aArchScenario() *Scenario {
	ts := w8cLabels("app.kubernetes.io/name", "typesense", "app.kubernetes.io/instance", "typesense")
	api := w8bLabels("search-api", "catalog")
	return &Scenario{
		Name:   "product-search-down-after-pool-rollback",
		Covers: "search-api (Deno) crash-loops on 'TypeError: error sending request for url (http://typesense:8108/health) ... Connection refused'; Service typesense has no endpoints because typesense-0 is Pending with 'didn't match Pod's node affinity/selector': StatefulSet typesense selects kubernetes.io/arch=arm64 and every node is amd64",
		Source: w19aSrcArchSelector, Class: ClassProvider, Hops: 2,
		Problem: "product search is down on the storefront: search-api keeps crashing with connection refused since last night's node pool work",
		Target:  target("Deployment", "search-api"),
		Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "typesense"}, Terms: []string{"arm64"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error {
					return e.createSecret(ctx, "typesense-api-key", map[string]string{"api-key": "xyzTypesenseExampleKey0123"})
				},
				func() error {
					st := w8bStatefulSet("typesense", "docker.io/typesense/typesense:27.1", "typesense-headless", 1, ts, nil, "http", 8108)
					st.Spec.Template.Spec.Containers[0].Name = "typesense"
					envKeyFromSecret(&st.Spec.Template, "TYPESENSE_API_KEY", "typesense-api-key", "api-key")
					w8cArgs(&st.Spec.Template, "--data-dir=/data", "--api-key=$(TYPESENSE_API_KEY)", "--enable-cors")
					w10aEmptyDir(&st.Spec.Template, "data", "/data", 0)
					st.Spec.Template.Spec.NodeSelector = map[string]string{"kubernetes.io/arch": "arm64"}
					st.Spec.Template.Spec.Tolerations = []corev1.Toleration{{Key: "arch", Operator: corev1.TolerationOpEqual, Value: "arm64", Effect: corev1.TaintEffectNoSchedule}}
					if err := e.createStatefulSet(ctx, st); err != nil {
						return err
					}
					if err := e.createService(ctx, w8bHeadless("typesense-headless", ts, "http", 8108)); err != nil {
						return err
					}
					return e.createService(ctx, w8bService("typesense", ts, "http", 8108))
				},
				func() error {
					msg := "error: Uncaught (in promise) TypeError: error sending request for url (http://typesense:8108/health): client error (Connect): tcp connect error: Connection refused (os error 111)"
					d := w11bApp("search-api", "search-api", "registry.example/catalog/search-api:1.9.0", 2, api, crash("1", msg, "w19a-search-api-deno"), "http", 8000)
					w8bEnv(&d.Spec.Template, "TYPESENSE_URL", "http://typesense:8108", "TYPESENSE_COLLECTION", "products_v7", "DENO_DIR", "/tmp/deno")
					envKeyFromSecret(&d.Spec.Template, "TYPESENSE_API_KEY", "typesense-api-key", "api-key")
					return e.w11bServe(ctx, d, 80)
				},
				func() error {
					d := w11bApp("search-ui", "nginx", "docker.io/library/nginx:1.27.2-alpine", 1, w8bLabels("search-ui", "catalog"), nil, "http", 8080)
					return e.w11bServe(ctx, d, 80)
				},
			)
		},
		Wait: all(podsWith(api, crashLooping(2)), podsWith(ts, unschedulable("node affinity/selector")), readyReplicas("search-ui", 1)),
	}
}
