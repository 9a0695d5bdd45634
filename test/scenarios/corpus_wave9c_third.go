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
// rotation, and a Node API whose pg client still demands TLS from an in-cluster Postgres.

const (
	w9cSrcSTSNotRolled = "runbooks/kubernetes/KubeStatefulSetUpdateNotRolledOut.md"
	w9cSrcPgNoSSL      = "https://github.com/knex/knex/issues/5033 (knex/pg in production: Error: The server does not support SSL connections, the client asks for SSL the server does not offer)"
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
