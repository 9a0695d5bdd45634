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

// Wave 20b: "nothing happens" tickets. The object the user points at is healthy, but what
// should happen to it (a config change picked up, a queue consumed, new DAGs synced, a
// morning scale-up, an alert, a renewed certificate, a new image) does not; the cause sits in
// whatever should act on it or feed it. Written blind by an outside hand from public docs and
// issue threads; every Want was fixed from the source before anything ran.

func wave20bScenarios() []*Scenario {
	return append(wave20bFirstScenarios(), wave20bMoreScenarios()...)
}

func wave20bFirstScenarios() []*Scenario {
	checkout := w8bLabels("checkout-web", "checkout")
	pricing := w8bLabels("pricing-engine", "checkout")
	reloader := w8cLabels("app", "reloader-reloader", "release", "reloader")
	mailer := w8bLabels("order-mailer", "orders")
	rabbit := w8cLabels("app.kubernetes.io/name", "rabbitmq", "app.kubernetes.io/instance", "orders-rabbitmq")
	scheduler := w8cLabels("component", "scheduler", "release", "airflow", "tier", "airflow")
	worker := w8cLabels("component", "worker", "release", "airflow", "tier", "airflow")
	storefront := w8bLabels("storefront", "shop")
	return []*Scenario{
		{
			// Reloader's search mode: a workload annotated reloader.stakater.com/search is only
			// rolled when a ConfigMap it uses carries reloader.stakater.com/match: "true". The
			// platform switched every workload from auto to search; pricing-rules got the match
			// annotation, checkout-flags did not, so edits to it never restart checkout-web.
			Name: "checkout-flag-flip-never-applied", Covers: "checkout-web (reloader.stakater.com/search: \"true\") keeps serving the old flow after ConfigMap checkout-flags was edited; the Running reloader logs 'Changes detected' only for pricing-rules, which carries reloader.stakater.com/match: \"true\"; checkout-flags lacks that annotation",
			Source: w20bSrcReloaderMatch, Class: ClassOutside, Hops: 2,
			Problem: "we switched new_checkout_flow on an hour ago but checkout-web still serves the old flow; config edits used to restart it automatically",
			Target:  target("Deployment", "checkout-web"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "checkout-flags"}, Terms: []string{"reloader.stakater.com/match"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "reloader-reloader") },
					func() error {
						return e.createRole(ctx, "reloader-reloader-role",
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps", "secrets"}, Verbs: []string{"get", "list", "watch"}},
							rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments", "daemonsets", "statefulsets"}, Verbs: []string{"get", "list", "update", "patch"}},
							rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}})
					},
					func() error {
						return e.createRoleBinding(ctx, "reloader-reloader-role-binding", "Role", "reloader-reloader-role", "reloader-reloader")
					},
					func() error {
						d := w11bApp("reloader-reloader", "reloader-reloader", "ghcr.io/stakater/reloader:v1.2.1", 1, reloader, running("w20b-reloader-search-match"), "http", 9090)
						w8cArgs(&d.Spec.Template, "--reload-strategy=annotations", "--log-format=")
						d.Spec.Template.Spec.ServiceAccountName = "reloader-reloader"
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.w20bConfigMap(ctx, "pricing-rules", pricing, map[string]string{"reloader.stakater.com/match": "true"},
							map[string]string{"rules.yaml": "currency: EUR\nrounding: half_even\nvat:\n  DE: 0.19\n  FR: 0.20\n  NL: 0.21\nbundle_discount: 0.05\n"})
					},
					func() error {
						d := w11bApp("pricing-engine", "pricing-engine", "registry.example/checkout/pricing-engine:3.4.0", 1, pricing,
							map[string]string{"reloader.stakater.com/last-reloaded-from": `{"type":"CONFIGMAP","name":"pricing-rules","namespace":"checkout","hash":"9c1f0e5a2b7d43e8a61f2c0b7e5d9a4c18f3b6e2","containerRefs":["pricing-engine"],"observedAt":1764311520}`}, "http", 8080)
						w20bAnnotate(d, "reloader.stakater.com/search", "true")
						mountConfigMap(&d.Spec.Template, "pricing-rules", "/etc/pricing")
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						return e.w20bConfigMap(ctx, "checkout-flags", checkout, nil,
							map[string]string{"flags.yaml": "new_checkout_flow: false\nexpress_pay: true\naddress_autocomplete: true\ngift_wrap: false\n"})
					},
					func() error {
						d := w11bApp("checkout-web", "checkout-web", "registry.example/checkout/checkout-web:7.12.3", 2, checkout, running("w20b-checkout-web-flags"), "http", 3000)
						w20bAnnotate(d, "reloader.stakater.com/search", "true")
						mountConfigMap(&d.Spec.Template, "checkout-flags", "/etc/checkout")
						w8bEnv(&d.Spec.Template, "FLAGS_FILE", "/etc/checkout/flags.yaml", "PRICING_URL", "http://pricing-engine:8080", "NODE_ENV", "production")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(
				w20bEditOnce("checkout-flags", "flags.yaml", "new_checkout_flow: true\nexpress_pay: true\naddress_autocomplete: true\ngift_wrap: false\n", readyReplicas("checkout-web", 2)),
				readyReplicas("pricing-engine", 1), readyReplicas("reloader-reloader", 1)),
		},
		{
			// A topic exchange drops a message no binding matches; publishers that set mandatory
			// get it back as basic.return 312 NO_ROUTE. The new order-mailer declared its queue
			// with binding key order.created while orders-api publishes orders.created, so its
			// queue stays empty and only orders-api's log shows the returns.
			Name: "order-confirmation-mails-stopped", Covers: "order-mailer is Running and Ready and idle ('Waiting for messages on order-mailer.order-created'); orders-api logs 'returned by broker: replyCode=312 replyText=NO_ROUTE exchange=orders routingKey=orders.created' for every order; BINDING_KEY in ConfigMap order-mailer-config is order.created (invoice-worker binds orders.created and consumes fine)",
			Source: w20bSrcNoRoute, Class: ClassClue, Hops: 2,
			Problem: "customers get no order confirmation e-mails any more; order-mailer is up, shows no error, and has not processed a single message since it was redeployed",
			Target:  target("Deployment", "order-mailer"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "order-mailer-config"}, Terms: []string{"order.created"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11bStore(ctx, "orders-rabbitmq", "docker.io/library/rabbitmq:3.13.7-management", rabbit, nil, "amqp", 5672,
							"RABBITMQ_DEFAULT_USER", "orders", "RABBITMQ_DEFAULT_VHOST", "orders")
					},
					func() error {
						return e.createSecret(ctx, "orders-amqp", map[string]string{"AMQP_URL": "amqp://orders:J7vRk2pQx9Lm@orders-rabbitmq:5672/orders"})
					},
					func() error {
						d := w11bApp("orders-api", "orders-api", "registry.example/orders/orders-api:5.9.1", 2, w8bLabels("orders-api", "orders"), running("w20b-orders-api-no-route"), "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_PROFILES_ACTIVE", "prod", "ORDERS_EVENTS_EXCHANGE", "orders", "ORDERS_EVENTS_CREATED_KEY", "orders.created", "SPRING_RABBITMQ_PUBLISHER_RETURNS", "true")
						envFromSecret(&d.Spec.Template, "orders-amqp")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createConfigMap(ctx, "invoice-worker-config", map[string]string{"EXCHANGE": "orders", "QUEUE": "invoice-worker.order-created", "BINDING_KEY": "orders.created", "PREFETCH": "20"})
					},
					func() error {
						d := w11bApp("invoice-worker", "invoice-worker", "registry.example/billing/invoice-worker:2.3.0", 1, w8bLabels("invoice-worker", "billing"), running("w20b-invoice-worker-consuming"), "metrics", 9100)
						envFromConfigMap(&d.Spec.Template, "invoice-worker-config")
						envFromSecret(&d.Spec.Template, "orders-amqp")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createConfigMap(ctx, "order-mailer-config", map[string]string{"EXCHANGE": "orders", "QUEUE": "order-mailer.order-created", "BINDING_KEY": "order.created", "PREFETCH": "10", "SMTP_HOST": "smtp-relay.mail.svc", "SMTP_PORT": "587"})
					},
					func() error {
						d := w11bApp("order-mailer", "order-mailer", "registry.example/orders/order-mailer:1.6.0", 1, mailer, running("w20b-order-mailer-idle"), "metrics", 9100)
						envFromConfigMap(&d.Spec.Template, "order-mailer-config")
						envFromSecret(&d.Spec.Template, "orders-amqp")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(w11aStatefulSetReady("orders-rabbitmq", 1), readyReplicas("orders-api", 2), readyReplicas("invoice-worker", 1), readyReplicas("order-mailer", 1)),
		},
		{
			// git-sync fetches one ref; when the DAG repository renamed master to main, every
			// fetch of the scheduler's sidecar fails with "couldn't find remote ref master" and
			// it keeps serving the last good checkout. The workers' sidecar was moved to main,
			// so they have the new DAG files the scheduler never parses.
			Name: "airflow-merged-dag-not-in-ui", Covers: "the new DAG never appears in Airflow; the git-sync sidecar of airflow-scheduler (Running) logs 'error syncing repo, will retry' with 'fatal: couldn't find remote ref master' since the DAG repository's default branch became main; airflow-worker's git-sync uses --ref=main and syncs",
			Source: w20bSrcGitSyncRef, Class: ClassClue, Hops: 2,
			Problem: "the partner_export DAG we merged yesterday never showed up in the Airflow UI, the older DAGs still run on schedule",
			Target:  target("Deployment", "airflow-webserver"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "airflow-scheduler"}, Terms: []string{"master"}},
			Setup: func(ctx context.Context, e *Env) error {
				gitsync := func(t *corev1.PodTemplateSpec, ref string) {
					w9aEmptyDir(t, "dags", "/opt/airflow/dags")
					c := w10aContainer(t, "git-sync", "registry.k8s.io/git-sync/git-sync:v4.3.0", "", 0,
						"--repo=https://git.example.com/data/airflow-dags.git", "--ref="+ref, "--root=/git", "--link=repo", "--period=60s", "--depth=1", "--max-failures=-1")
					c.VolumeMounts = []corev1.VolumeMount{{Name: "dags", MountPath: "/git"}}
					w8bEnv(t, "AIRFLOW__CORE__DAGS_FOLDER", "/opt/airflow/dags/repo/dags", "AIRFLOW__CORE__EXECUTOR", "CeleryExecutor")
				}
				return steps(
					func() error {
						return e.w11bStore(ctx, "airflow-postgresql", "docker.io/bitnami/postgresql:16.4.0", w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "airflow"), nil, "tcp-postgresql", 5432,
							"POSTGRESQL_DATABASE", "airflow", "POSTGRESQL_USERNAME", "airflow")
					},
					func() error {
						d := w11bApp("airflow-webserver", "webserver", "apache/airflow:2.10.3", 1, w8cLabels("component", "webserver", "release", "airflow", "tier", "airflow"), nil, "airflow-ui", 8080)
						w8cArgs(&d.Spec.Template, "webserver")
						w8bEnv(&d.Spec.Template, "AIRFLOW__CORE__EXECUTOR", "CeleryExecutor", "AIRFLOW__WEBSERVER__BASE_URL", "https://airflow.data.example.com")
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						d := w11bApp("airflow-scheduler", "scheduler", "apache/airflow:2.10.3", 1, scheduler, running("w20b-airflow-scheduler-gitsync"), "", 0)
						w8cArgs(&d.Spec.Template, "scheduler")
						gitsync(&d.Spec.Template, "master")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("airflow-worker", "worker", "apache/airflow:2.10.3", 2, worker, running("w20b-airflow-worker-gitsync"), "worker-logs", 8793)
						w8cArgs(&d.Spec.Template, "celery", "worker")
						gitsync(&d.Spec.Template, "main")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(readyReplicas("airflow-webserver", 1), readyReplicas("airflow-scheduler", 1), readyReplicas("airflow-worker", 2), w11aStatefulSetReady("airflow-postgresql", 1)),
		},
		{
			// kubectl scale patches the deployments/scale subresource, which RBAC treats as its
			// own resource: a Role granting patch on deployments is not enough. The morning
			// scale-up CronJob (and the on-call's manual run of it) fails on that, and the
			// storefront stays at its night-time replica count.
			Name: "storefront-stayed-small-on-sale-day", Covers: "storefront stays at 2 replicas: Job storefront-scale-up-manual-7xk2p (created from CronJob storefront-scale-up) fails with 'cannot patch resource \"deployments/scale\" in API group \"apps\"'; Role replica-scheduler grants get, list and patch on deployments but nothing on the deployments/scale subresource",
			Source: w20bSrcScaleSubres, Class: ClassReference, Hops: 2,
			Problem: "storefront should have gone to 6 pods at 06:45 for today's sale but is still at 2, and running the morning scale-up by hand did not change anything either",
			Target:  target("Deployment", "storefront"),
			Want:    Want{Culprit: Ref{Kind: "Role", Name: "replica-scheduler"}, Terms: []string{"deployments/scale"}},
			Setup: func(ctx context.Context, e *Env) error {
				script := "set -eux\necho \"$(date -u +%FT%TZ) morning scale-up: storefront -> ${REPLICAS}\"\nkubectl get deployment storefront -o 'jsonpath={.spec.replicas}{\"\\n\"}'\nkubectl scale deployment/storefront --replicas=${REPLICAS}\nkubectl rollout status deployment/storefront --timeout=10m\n"
				scaler := func(name, schedule, replicas string) error {
					c := w11aCronJob(name, "docker.io/bitnami/kubectl:1.31.4", schedule, false, w8bLabels(name, "shop"))
					c.Spec.TimeZone = ptr.To("Europe/Berlin")
					t := &c.Spec.JobTemplate.Spec.Template
					t.Spec.ServiceAccountName = "replica-scheduler"
					t.Spec.RestartPolicy = corev1.RestartPolicyNever
					t.Spec.Containers[0].Command = []string{"/bin/sh", "-c", script}
					t.Spec.Containers[0].TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError
					w8bEnv(t, "REPLICAS", replicas)
					c.Spec.JobTemplate.Spec.BackoffLimit = ptr.To[int32](0)
					return e.w11aCreateCronJob(ctx, c)
				}
				return steps(
					func() error {
						d := w11bApp("storefront", "storefront", "registry.example/shop/storefront:12.4.0", 2, storefront, nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
					func() error { return e.createServiceAccount(ctx, "replica-scheduler") },
					func() error {
						return e.createRole(ctx, "replica-scheduler",
							rbacv1.PolicyRule{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list", "watch", "patch"}})
					},
					func() error {
						return e.createRoleBinding(ctx, "replica-scheduler", "Role", "replica-scheduler", "replica-scheduler")
					},
					func() error { return scaler("storefront-scale-up", "45 6 * * 1-5", "6") },
					func() error { return scaler("storefront-scale-down", "0 21 * * *", "2") },
					func() error {
						msg := fmt.Sprintf(`Error from server (Forbidden): deployments.apps "storefront" is forbidden: User "system:serviceaccount:%s:replica-scheduler" cannot patch resource "deployments/scale" in API group "apps" in the namespace "%s"`, e.Namespace, e.Namespace)
						a := sim("fail", annExitCode, "1", annMessage, msg, annLogs, "w20b-storefront-scale-up-forbidden")
						return e.w20bManualJob(ctx, "storefront-scale-up", "storefront-scale-up-manual-7xk2p", a)
					},
				)
			},
			Wait: all(w11aJobFailed("storefront-scale-up-manual-7xk2p", "BackoffLimitExceeded"), readyReplicas("storefront", 2)),
		},
	}
}
