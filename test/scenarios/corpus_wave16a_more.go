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

	storagev1 "k8s.io/api/storage/v1"
)

func wave16aMoreScenarios() []*Scenario {
	ingester := w8cLabels("app.kubernetes.io/name", "metrics-ingester", "app.kubernetes.io/part-of", "metrics")
	tsdb := w8cLabels("app.kubernetes.io/name", "timescaledb", "app.kubernetes.io/instance", "metrics-tsdb")
	payments := w8bLabels("payments-api", "payments")
	refunds := w8bLabels("refunds-api", "payments")
	storefront := w8bLabels("storefront", "shop")
	certSync := w8cLabels("app", "cert-sync", "team", "platform")
	statsd := w8cLabels("app.kubernetes.io/name", "statsd-relay", "app.kubernetes.io/part-of", "observability")
	portal := w8cLabels("app", "portal", "component", "web")
	migrate := w8cLabels("app", "portal", "component", "migrate")
	return []*Scenario{
		{
			// The chart bump raised persistence.size from 20Gi to 50Gi. The local SSD volumes
			// an admin pre-provisioned for the TSDB are 20Gi, and a claim never binds a volume
			// smaller than it asks for, so the database pod stays Pending and its clients get
			// connection refused from a Service with no endpoints.
			Name: "metrics-ingester-down-after-chart-bump", Covers: "metrics-ingester (Go, pgx) crash-loops on 'dial tcp 10.96.0.187:5432: connect: connection refused' to metrics-tsdb; metrics-tsdb-0 is Pending with 'didn't find available persistent volumes to bind': the StatefulSet's claim template asks 50Gi of the local-ssd class while the pre-provisioned volume for data-metrics-tsdb-0 has 20Gi",
			Source: w16aSrcPVCapacity, Class: ClassProvider, Hops: 3,
			Problem: "metrics ingestion has been down since the TSDB chart bump this morning; the ingester crash-loops with connection refused, did the database lose its password?",
			Target:  target("Deployment", "metrics-ingester"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "metrics-tsdb"}, Terms: []string{"50Gi"}},
			Setup: func(ctx context.Context, e *Env) error {
				class := e.ClusterName("local-ssd")
				return steps(
					func() error {
						return e.createStorageClass(ctx, "local-ssd", "kubernetes.io/no-provisioner", storagev1.VolumeBindingWaitForFirstConsumer)
					},
					func() error { return e.w16aLocalPV(ctx, "tsdb-ssd-0", "data-metrics-tsdb-0", class, "20Gi") },
					func() error {
						st := w8bStatefulSet("metrics-tsdb", "docker.io/timescale/timescaledb:2.15.2-pg16", "metrics-tsdb-hl", 1, tsdb, nil, "postgres", 5432)
						w8bEnv(&st.Spec.Template, "POSTGRES_DB", "metrics", "POSTGRES_USER", "metrics", "PGDATA", "/var/lib/postgresql/data/pgdata", "TS_TUNE_MEMORY", "2GB")
						st.Spec.VolumeClaimTemplates = append(st.Spec.VolumeClaimTemplates, w16aClaim("data", class, "50Gi"))
						c := &st.Spec.Template.Spec.Containers[0]
						c.VolumeMounts = append(c.VolumeMounts, w11bMount("data", "/var/lib/postgresql/data", ""))
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("metrics-tsdb-hl", tsdb, "postgres", 5432)); err != nil {
							return err
						}
						s := w8bService("metrics-tsdb", tsdb, "postgres", 5432)
						s.Spec.ClusterIP = "10.96.0.187"
						return e.createService(ctx, s)
					},
					func() error {
						msg := "giving up on database: failed to connect to `user=metrics database=metrics`: dial error (dial tcp 10.96.0.187:5432: connect: connection refused)"
						d := w11bApp("metrics-ingester", "ingester", "registry.example/observability/metrics-ingester:2.4.0", 2, ingester, crash("1", msg, "w16a-metrics-ingester-pgx"), "http-metrics", 9090)
						w8bEnv(&d.Spec.Template, "TSDB_DSN", "postgres://metrics@metrics-tsdb:5432/metrics?sslmode=disable", "KAFKA_BROKERS", "kafka-0.kafka-headless:9092")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("metrics-ui", "ui", "registry.example/observability/metrics-ui:2.4.0", 1, w8cLabels("app.kubernetes.io/name", "metrics-ui", "app.kubernetes.io/part-of", "metrics"), nil, "http", 3000)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(ingester, crashLooping(2)), podsWith(tsdb, unschedulable("persistent volumes")), readyReplicas("metrics-ui", 1)),
		},
		{
			// The hardening sprint added Egress to policyTypes of payments-api's ingress policy
			// "to be explicit", without a single egress rule. That isolates the pods for all
			// outgoing traffic, DNS included: payments-api cannot resolve its database and exits,
			// and the storefront reports the payment service as down.
			Name: "checkout-broken-after-hardening-sprint", Covers: "storefront is not ready and logs 'request to http://payments-api:8000/v1/intents failed, reason: connect ECONNREFUSED'; payments-api (FastAPI) crash-loops on 'socket.gaierror: [Errno -3] Temporary failure in name resolution': NetworkPolicy payments-api-ingress lists Egress in policyTypes with no egress rule, so all egress (DNS too) is denied (refunds-api, whose policy lists only Ingress, resolves fine)",
			Source: w16aSrcEgressTypes, Class: ClassMechanism, Hops: 2,
			Problem: "customers cannot check out, the storefront says the payment service is unavailable and payments-api logs DNS errors; I think CoreDNS is broken",
			Target:  target("Deployment", "storefront"),
			Want:    Want{Culprit: Ref{Kind: "NetworkPolicy", Name: "payments-api-ingress"}, Terms: []string{"Egress"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11bStore(ctx, "payments-db", "docker.io/library/postgres:16.3", w8bLabels("payments-db", "payments"), nil, "postgres", 5432, "POSTGRES_DB", "payments", "POSTGRES_USER", "payments")
					},
					func() error {
						d := w11bApp("payments-api", "api", "registry.example/payments/payments-api:2.19.1", 2, payments, crash("3", "socket.gaierror: [Errno -3] Temporary failure in name resolution", "w16a-payments-fastapi-dns"), "http", 8000)
						w8cArgs(&d.Spec.Template, "uvicorn", "payments.main:app", "--host", "0.0.0.0", "--port", "8000")
						w8bEnv(&d.Spec.Template, "DATABASE_URL", "postgresql+asyncpg://payments@payments-db:5432/payments", "PSP_BASE_URL", "https://api.psp.example.com/v3")
						return e.w11bServe(ctx, d, 8000)
					},
					func() error {
						return e.createNetworkPolicy(ctx, w16aIngressOnly("payments-api-ingress", payments, storefront, 8000, true))
					},
					func() error {
						d := w11bApp("refunds-api", "api", "registry.example/payments/refunds-api:1.7.0", 1, refunds, nil, "http", 8000)
						w8bEnv(&d.Spec.Template, "DATABASE_URL", "postgresql+asyncpg://refunds@payments-db:5432/payments")
						return e.w11bServe(ctx, d, 8000)
					},
					func() error {
						return e.createNetworkPolicy(ctx, w16aIngressOnly("refunds-api-ingress", refunds, storefront, 8000, false))
					},
					func() error {
						d := w11bApp("storefront", "storefront", "registry.example/shop/storefront:9.3.0", 2, storefront, w11bReadinessFail("storefront", "w16a-storefront-payments-503", "HTTP probe failed with statuscode: 503"), "http", 3000)
						w8bEnv(&d.Spec.Template, "PAYMENTS_URL", "http://payments-api:8000", "REFUNDS_URL", "http://refunds-api:8000", "NODE_ENV", "production")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/ready", "http", 10, 3)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(storefront, runningNotReady), podsWith(payments, crashLooping(2)), readyReplicas("refunds-api", 1)),
		},
		{
			// cert-sync copies the wildcard TLS Secret into team namespaces. Its RoleBinding
			// grants the built-in ClusterRole view, which deliberately excludes Secrets, so the
			// first list call is refused and the pod exits.
			Name: "wildcard-cert-not-copied-pod-restarting", Covers: "cert-sync (Python kubernetes client) crash-loops on '(403) Forbidden: secrets is forbidden: User \"system:serviceaccount:<ns>:cert-sync\" cannot list resource \"secrets\"': RoleBinding cert-sync-view binds the ClusterRole view, which does not include Secrets (config-sync, bound the same way, only lists ConfigMaps and runs)",
			Source: w16aSrcViewSecrets, Class: ClassReference, Hops: 2,
			Problem: "the wildcard certificate is not being copied into the team namespaces any more and the cert-sync pod keeps restarting",
			Target:  target("Deployment", "cert-sync"),
			Want:    Want{Culprit: Ref{Kind: "RoleBinding", Name: "cert-sync-view"}, Terms: []string{"view", "secrets"}},
			Setup: func(ctx context.Context, e *Env) error {
				msg := fmt.Sprintf("kubernetes.client.exceptions.ApiException: (403) Reason: Forbidden: secrets is forbidden: User \"system:serviceaccount:%s:cert-sync\" cannot list resource \"secrets\" in API group \"\" in the namespace \"%s\"", e.Namespace, e.Namespace)
				return steps(
					func() error { return e.createServiceAccount(ctx, "cert-sync") },
					func() error { return e.createServiceAccount(ctx, "config-sync") },
					func() error { return e.createRoleBinding(ctx, "cert-sync-view", "ClusterRole", "view", "cert-sync") },
					func() error {
						return e.createRoleBinding(ctx, "config-sync-view", "ClusterRole", "view", "config-sync")
					},
					func() error {
						return e.w9aTLSSecret(ctx, "wildcard-tls", "*.apps.example.com")
					},
					func() error {
						d := w11bApp("cert-sync", "cert-sync", "registry.example/platform/cert-sync:1.6.0", 1, certSync, crash("1", msg, "w16a-cert-sync-forbidden"), "metrics", 9102)
						w15aServiceAccount(&d.Spec.Template, "cert-sync")
						w8bEnv(&d.Spec.Template, "SYNC_SELECTOR", "sync.example.com/replicate=true", "SYNC_TARGETS", "team-a,team-b,team-c")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("config-sync", "config-sync", "registry.example/platform/config-sync:1.6.0", 1, w8cLabels("app", "config-sync", "team", "platform"), nil, "metrics", 9102)
						w15aServiceAccount(&d.Spec.Template, "config-sync")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(certSync, crashLooping(2)), readyReplicas("config-sync", 1)),
		},
		{
			// statsd-relay binds UDP 8125 on its node (hostPort) so legacy VMs can send to the
			// node IP. A rolling update surges a new pod before stopping the old one; on the one
			// node the relay may use, the port is taken, so the new pod never schedules.
			Name: "statsd-relay-release-never-finishes", Covers: "the statsd-relay rollout to 1.5.0 never completes: its new pod is Pending with 'didn't have free ports for the requested pod ports' because the Deployment publishes hostPort 8125 and keeps the RollingUpdate strategy (surge first) on the single zone-b node, whose port the old pod still holds",
			Source: w16aSrcHostPortRoll, Class: ClassMechanism, Hops: 0,
			Problem: "our CI deploy of statsd-relay timed out: 'Waiting for deployment \"statsd-relay\" rollout to finish: 1 old replicas are pending termination...' for 20 minutes",
			Target:  target("Deployment", "statsd-relay"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "statsd-relay"}, Terms: []string{"hostPort"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w11bApp("statsd-relay", "relay", "registry.example/observability/statsd-relay:1.4.0", 1, statsd, nil, "statsd", 8125)
						w16aHostPort(&d.Spec.Template, true)
						d.Spec.Template.Spec.NodeSelector = map[string]string{"topology.kubernetes.io/zone": "zone-b"}
						w8cArgs(&d.Spec.Template, "--statsd.listen-udp=:8125", "--forward=metrics-gateway:9125")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("metrics-gateway", "gateway", "registry.example/observability/metrics-gateway:3.0.2", 1, w8cLabels("app.kubernetes.io/name", "metrics-gateway", "app.kubernetes.io/part-of", "observability"), nil, "ingest", 9125)
						return e.w11bServe(ctx, d, 9125)
					},
				)
			},
			Wait: all(w16aRollOut("statsd-relay", "registry.example/observability/statsd-relay:1.5.0", 1), podsWith(statsd, unschedulable("free ports")), readyReplicas("metrics-gateway", 1)),
		},
		{
			// The migrate hook Job was copied from the web Deployment but only kept the
			// ConfigMap envFrom; DATABASE_URL lives in the Secret the web pods also load. With
			// no DATABASE_URL, dj-database-url yields an empty DATABASES entry and Django fails.
			Name: "portal-helm-upgrade-hook-fails", Covers: "Job portal-migrate-142 (Django migrate, a helm pre-upgrade hook) fails with BackoffLimitExceeded: 'ImproperlyConfigured: settings.DATABASES is improperly configured. Please supply the ENGINE value'; the Job loads only ConfigMap portal-config while DATABASE_URL is in Secret portal-secrets, which portal-web (running fine) also loads",
			Source: w16aSrcDjangoEngine, Class: ClassClue, Hops: 1,
			Problem: "helm upgrade of the portal fails with 'pre-upgrade hooks failed: job failed: BackoffLimitExceeded'; the database is up and the current site works",
			Target:  target("Job", "portal-migrate-142"),
			Want:    Want{Culprit: Ref{Kind: "Job", Name: "portal-migrate-142"}, Terms: []string{"DATABASE_URL"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11bStore(ctx, "portal-db", "docker.io/library/postgres:16.3", w8cLabels("app", "portal", "component", "db"), nil, "postgres", 5432, "POSTGRES_DB", "portal", "POSTGRES_USER", "portal")
					},
					func() error {
						return e.createConfigMap(ctx, "portal-config", map[string]string{"DJANGO_SETTINGS_MODULE": "portal.settings.production", "ALLOWED_HOSTS": "portal.example.com", "STATIC_URL": "/static/"})
					},
					func() error {
						return e.createSecret(ctx, "portal-secrets", map[string]string{"DATABASE_URL": "postgres://portal:Vb83kQm2Lp@portal-db:5432/portal", "DJANGO_SECRET_KEY": "q9$w!m2z@l8x#c4v%b7n^a1s&d5f*g3h"})
					},
					func() error {
						d := w11bApp("portal-web", "web", "registry.example/portal/portal:2025.11.1", 2, portal, nil, "http", 8000)
						w8cArgs(&d.Spec.Template, "gunicorn", "portal.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3")
						envFromConfigMap(&d.Spec.Template, "portal-config")
						envFromSecret(&d.Spec.Template, "portal-secrets")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						msg := "django.core.exceptions.ImproperlyConfigured: settings.DATABASES is improperly configured. Please supply the ENGINE value. Check settings documentation for more details."
						j := w15cJob("portal-migrate-142", "registry.example/portal/portal:2025.12.0", "", 1, migrate, sim("fail", annExitCode, "1", annMessage, msg, annLogs, "w16a-portal-migrate-django"), "python", "manage.py", "migrate", "--noinput")
						j.Annotations = map[string]string{"helm.sh/hook": "pre-install,pre-upgrade", "helm.sh/hook-weight": "-5", "helm.sh/hook-delete-policy": "before-hook-creation"}
						envFromConfigMap(&j.Spec.Template, "portal-config")
						return e.w16aJob(ctx, j)
					},
				)
			},
			Wait: all(w11aJobFailed("portal-migrate-142", "BackoffLimitExceeded"), readyReplicas("portal-web", 2)),
		},
	}
}
