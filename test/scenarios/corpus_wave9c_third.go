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

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Wave 9c, third part: a StatefulSet update that never rolls out (OnDelete) behind a password
// rotation, a Node API whose pg client still demands TLS from an in-cluster Postgres, a celery
// worker on RabbitMQ's guest user, and a Flask app on a postgres:// URL SQLAlchemy 1.4 refuses.

const (
	w9cSrcSTSNotRolled = "runbooks/kubernetes/KubeStatefulSetUpdateNotRolledOut.md"
	w9cSrcPgNoSSL      = "https://github.com/knex/knex/issues/5033 (knex/pg in production: Error: The server does not support SSL connections, the client asks for SSL the server does not offer)"
	w9cSrcAMQPGuest    = "https://github.com/project-koku/koku/pull/1265 (celery on Kubernetes: ACCESS_REFUSED ... AMQPLAIN; RabbitMQ's guest user may only connect via localhost)"
	w9cSrcPgScheme     = "https://github.com/miguelgrinberg/flasky/issues/505 (NoSuchModuleError: Can't load plugin: sqlalchemy.dialects:postgres; the URL must start with postgresql://)"
)

func wave9cThirdScenarios() []*Scenario {
	return []*Scenario{
		{
			// The password was rotated in the Secret and both templates got the new checksum;
			// the StatefulSet's updateStrategy is OnDelete, so redis still runs with the old one.
			Name: "session-redis-ondelete-password-rotation", Covers: "after a password rotation the new session-gateway pods crash with 'WRONGPASS invalid username-password pair'; the redis StatefulSet has the new template but updateStrategy OnDelete, so its pod still runs the old revision with the old password",
			Source: w9cSrcSTSNotRolled, Class: ClassMechanism, Hops: 2,
			Problem: "session-gateway rollout is stuck since we rotated the redis password",
			Target:  target("Deployment", "session-gateway"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "session-redis"}, Terms: []string{"OnDelete", "WRONGPASS"}},
			Setup: func(ctx context.Context, e *Env) error {
				redis := w8cLabels("app.kubernetes.io/name", "session-redis", "app.kubernetes.io/part-of", "identity")
				gw := w8cLabels("app.kubernetes.io/name", "session-gateway", "app.kubernetes.io/part-of", "identity")
				return steps(
					func() error {
						return e.createSecret(ctx, "session-redis-auth", map[string]string{"redis-password": "s3ss-2025-q3-Xb7"})
					},
					func() error {
						st := w8bStatefulSet("session-redis", "redis:7.2.5-alpine", "session-redis-hl", 1, redis, running("w9c-session-redis-running"), "redis", 6379)
						st.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
						st.Spec.Template.Annotations["checksum/secret"] = "3b1f0c9e"
						envKeyFromSecret(&st.Spec.Template, "REDIS_PASSWORD", "session-redis-auth", "redis-password")
						w8cArgs(&st.Spec.Template, "redis-server", "--requirepass", "$(REDIS_PASSWORD)", "--save", "300", "100")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bHeadless("session-redis-hl", redis, "redis", 6379)) },
					func() error { return e.createService(ctx, w8bService("session-redis", redis, "redis", 6379)) },
					func() error {
						d := w8bDeployment("session-gateway", "ghcr.io/acme-id/session-gateway:1.8.4", 2, gw, map[string]string{"checksum/secret": "3b1f0c9e"}, "http", 8080)
						envKeyFromSecret(&d.Spec.Template, "REDIS_PASSWORD", "session-redis-auth", "redis-password")
						w8bEnv(&d.Spec.Template, "REDIS_ADDR", "session-redis:6379")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("session-gateway", gw, "http", 80)) },
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				if e.State["rotated"] == "" {
					if err := readyStatefulSet(ctx, e, "session-redis", 1); err != nil {
						return err
					}
					if err := readyReplicas("session-gateway", 2)(ctx, e); err != nil {
						return err
					}
					if err := e.w9cRotate(ctx); err != nil {
						return err
					}
					e.State["rotated"] = "yes"
				}
				return podsWith(w8cLabels("app.kubernetes.io/name", "session-gateway", "app.kubernetes.io/part-of", "identity"), crashLooping(2))(ctx, e)
			},
		},
		{
			// PGSSLMODE=require is left from the managed-database days; node-postgres honours it,
			// and the in-cluster postgres does not offer TLS.
			Name: "invoices-pg-client-requires-ssl", Covers: "a Node API crash-loops at its knex migration with 'Error: The server does not support SSL connections'; its ConfigMap still sets PGSSLMODE=require from the managed-database days, the in-cluster postgres runs without ssl",
			Source: w9cSrcPgNoSSL, Class: ClassClue, Hops: 2,
			Problem: "invoices-api crash-loops after we moved its database into the cluster",
			Target:  target("Deployment", "invoices-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "invoices-api-env"}, Terms: []string{"does not support SSL", "PGSSLMODE"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8cLabels("app", "invoices-db", "team", "finance-eng", "role", "primary")
				api := w8cLabels("app", "invoices-api", "team", "finance-eng")
				pdf := w8cLabels("app", "invoices-pdf", "team", "finance-eng")
				return steps(
					func() error {
						return e.createSecret(ctx, "invoices-db", map[string]string{"POSTGRES_USER": "invoices", "POSTGRES_PASSWORD": "inv-9Qk-2026", "POSTGRES_DB": "invoices"})
					},
					func() error {
						st := w8bStatefulSet("invoices-db", "postgres:16.4-alpine", "invoices-db", 1, db, nil, "postgres", 5432)
						envFromSecret(&st.Spec.Template, "invoices-db")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bService("invoices-db", db, "postgres", 5432)) },
					func() error {
						return e.createConfigMap(ctx, "invoices-api-env", map[string]string{"NODE_ENV": "production", "PGHOST": "invoices-db", "PGPORT": "5432",
							"PGDATABASE": "invoices", "PGSSLMODE": "require", "PDF_SERVICE_URL": "http://invoices-pdf:8080"})
					},
					func() error {
						d := w8bDeployment("invoices-api", "registry.acme.io/finance/invoices-api:4.2.0", 2, api, crash("1", "", "w9c-invoices-pg-no-ssl"), "http", 3000)
						envFromConfigMap(&d.Spec.Template, "invoices-api-env")
						envKeyFromSecret(&d.Spec.Template, "PGUSER", "invoices-db", "POSTGRES_USER")
						envKeyFromSecret(&d.Spec.Template, "PGPASSWORD", "invoices-db", "POSTGRES_PASSWORD")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("invoices-api", api, "http", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("invoices-pdf", "registry.acme.io/finance/invoices-pdf:1.3.0", 1, pdf, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("invoices-pdf", pdf, "http", 8080)) },
				)
			},
			Wait: all(func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "invoices-db", 1) },
				podsWith(w8cLabels("app", "invoices-api", "team", "finance-eng"), crashLooping(2))),
		},
		{
			// The broker URL still uses guest/guest from docker-compose; RabbitMQ only lets guest
			// in over loopback, so every connection from the worker pod is refused.
			Name: "reports-celery-rabbitmq-guest-remote", Covers: "a Running celery worker repeats 'consumer: Cannot connect to amqp://guest:**@rabbitmq:5672//: (403) ACCESS_REFUSED'; the broker logs 'AMQPLAIN login refused: user guest can only connect via localhost'; the ConfigMap's CELERY_BROKER_URL uses the guest user",
			Source: w9cSrcAMQPGuest, Class: ClassOutside, Hops: 2,
			Problem: "scheduled reports are not generated any more, the worker pods look healthy",
			Target:  target("Deployment", "reports-worker"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "reports-worker-env"}, Terms: []string{"ACCESS_REFUSED", "guest"}},
			Setup: func(ctx context.Context, e *Env) error {
				mq := w8bLabels("rabbitmq", "reports", "app.kubernetes.io/instance", "rabbitmq")
				rd := w8bLabels("redis", "reports", "app.kubernetes.io/instance", "reports-redis")
				wk := w8bLabels("reports-worker", "reports", "app.kubernetes.io/component", "worker")
				web := w8bLabels("reports-web", "reports", "app.kubernetes.io/component", "web")
				return steps(
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("rabbitmq", "rabbitmq:3.13.7-management", "rabbitmq-headless", 1, mq, running("w9c-rabbitmq-guest-refused"), "amqp", 5672))
					},
					func() error { return e.createService(ctx, w8bHeadless("rabbitmq-headless", mq, "amqp", 5672)) },
					func() error { return e.createService(ctx, w8bService("rabbitmq", mq, "amqp", 5672)) },
					func() error {
						return e.createStatefulSet(ctx, w8bStatefulSet("reports-redis", "redis:7.2.5-alpine", "reports-redis", 1, rd, nil, "redis", 6379))
					},
					func() error { return e.createService(ctx, w8bService("reports-redis", rd, "redis", 6379)) },
					func() error {
						return e.createConfigMap(ctx, "reports-worker-env", map[string]string{"DJANGO_SETTINGS_MODULE": "reports.settings.production",
							"CELERY_BROKER_URL": "amqp://guest:guest@rabbitmq:5672//", "CELERY_RESULT_BACKEND": "redis://reports-redis:6379/1"})
					},
					func() error {
						d := w8bDeployment("reports-worker", "registry.acme.io/reports/app:2026.47.1", 2, wk, running("w9c-reports-worker-amqp-guest"), "", 0)
						w8cArgs(&d.Spec.Template, "celery", "-A", "reports", "worker", "-Q", "reports", "-l", "INFO")
						envFromConfigMap(&d.Spec.Template, "reports-worker-env")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w8bDeployment("reports-web", "registry.acme.io/reports/app:2026.47.1", 2, web, nil, "http", 8000)
						w8cArgs(&d.Spec.Template, "gunicorn", "reports.wsgi", "-b", "0.0.0.0:8000")
						envFromConfigMap(&d.Spec.Template, "reports-worker-env")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("reports-web", web, "http", 80)) },
				)
			},
			Wait: all(func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "rabbitmq", 1) },
				readyReplicas("reports-worker", 2), readyReplicas("reports-web", 2)),
		},
		{
			// The DATABASE_URL was copied from the old PaaS add-on (postgres://); the image now
			// ships SQLAlchemy 2, which only knows the postgresql dialect name.
			Name: "survey-flask-postgres-url-scheme", Covers: "a Flask app under gunicorn fails to boot a worker: 'sqlalchemy.exc.NoSuchModuleError: Can't load plugin: sqlalchemy.dialects:postgres' (then 'Reason: Worker failed to boot.'); the Secret's DATABASE_URL starts with postgres:// instead of postgresql://",
			Source: w9cSrcPgScheme, Class: ClassClue, Hops: 1,
			Problem: "survey-api crash-loops after the dependency upgrade release",
			Target:  target("Deployment", "survey-api"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "survey-api-db"}, Terms: []string{"NoSuchModuleError", "postgresql://"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8cLabels("app", "survey-db", "tier", "data")
				api := w8cLabels("app", "survey-api", "tier", "api")
				fe := w8cLabels("app", "survey-frontend", "tier", "web")
				return steps(
					func() error {
						st := w8bStatefulSet("survey-db", "postgres:16.4", "survey-db", 1, db, nil, "postgres", 5432)
						w8bEnv(&st.Spec.Template, "POSTGRES_USER", "survey", "POSTGRES_DB", "survey")
						return e.createStatefulSet(ctx, st)
					},
					func() error { return e.createService(ctx, w8bService("survey-db", db, "postgres", 5432)) },
					func() error {
						return e.createSecret(ctx, "survey-api-db", map[string]string{"DATABASE_URL": "postgres://survey:Sv-41x-pass@survey-db:5432/survey"})
					},
					func() error {
						d := w8bDeployment("survey-api", "registry.acme.io/survey/api:3.0.0", 2, api, crash("3",
							`sqlalchemy.exc.NoSuchModuleError: Can't load plugin: sqlalchemy.dialects:postgres
[2026-11-27 15:41:12 +0000] [8] [INFO] Worker exiting (pid: 8)
[2026-11-27 15:41:12 +0000] [1] [ERROR] Worker (pid:8) exited with code 3
[2026-11-27 15:41:12 +0000] [1] [ERROR] Shutting down: Master
[2026-11-27 15:41:12 +0000] [1] [ERROR] Reason: Worker failed to boot.`, "w9c-survey-flask-postgres-scheme"), "http", 5000)
						w8cArgs(&d.Spec.Template, "gunicorn", "survey:create_app()", "-b", "0.0.0.0:5000", "-w", "2")
						envFromSecret(&d.Spec.Template, "survey-api-db")
						w8bEnv(&d.Spec.Template, "FLASK_ENV", "production")
						w9cFallbackToLogs(&d.Spec.Template)
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("survey-api", api, "http", 80)) },
					func() error {
						return e.createDeployment(ctx, w8bDeployment("survey-frontend", "registry.acme.io/survey/frontend:3.0.0", 2, fe, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("survey-frontend", fe, "http", 80)) },
				)
			},
			Wait: all(func(ctx context.Context, e *Env) error { return readyStatefulSet(ctx, e, "survey-db", 1) },
				podsWith(w8cLabels("app", "survey-api", "tier", "api"), crashLooping(2))),
		},
	}
}

// w9cRotate is the team's password rotation: the Secret gets a new value and both templates
// the new checksum; the gateway's 1.9.0 release goes out with it.
func (e *Env) w9cRotate(ctx context.Context) error {
	s, err := e.Client.CoreV1().Secrets(e.Namespace).Get(ctx, "session-redis-auth", metav1.GetOptions{})
	if err != nil {
		return err
	}
	s.Data["redis-password"] = []byte("s3ss-2025-q4-Hm2")
	if _, err := e.Client.CoreV1().Secrets(e.Namespace).Update(ctx, s, metav1.UpdateOptions{}); err != nil {
		return err
	}
	st, err := e.Client.AppsV1().StatefulSets(e.Namespace).Get(ctx, "session-redis", metav1.GetOptions{})
	if err != nil {
		return err
	}
	st.Spec.Template.Annotations["checksum/secret"] = "c27d54aa"
	if _, err := e.Client.AppsV1().StatefulSets(e.Namespace).Update(ctx, st, metav1.UpdateOptions{}); err != nil {
		return err
	}
	d, err := e.Client.AppsV1().Deployments(e.Namespace).Get(ctx, "session-gateway", metav1.GetOptions{})
	if err != nil {
		return err
	}
	d.Spec.Template.Annotations = crash("1", `time=2026-11-27T15:42:03.121Z level=ERROR msg="redis ping failed" addr=session-redis:6379 err="WRONGPASS invalid username-password pair or user is disabled."
time=2026-11-27T15:42:03.121Z level=INFO msg="closing listeners"`, "w9c-session-gateway-wrongpass")
	d.Spec.Template.Annotations["checksum/secret"] = "c27d54aa"
	d.Spec.Template.Spec.Containers[0].Image = "ghcr.io/acme-id/session-gateway:1.9.0"
	w9cFallbackToLogs(&d.Spec.Template)
	_, err = e.Client.AppsV1().Deployments(e.Namespace).Update(ctx, d, metav1.UpdateOptions{})
	return err
}
