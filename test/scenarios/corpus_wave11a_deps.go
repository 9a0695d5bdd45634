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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// wave11aDependencyScenarios: quotas, claims, names and dependencies that fail behind the
// workload a user looks at.
func wave11aDependencyScenarios() []*Scenario {
	reco := w8cLabels("app", "recommendation-api", "team", "personalisation")
	features := w8cLabels("app", "feature-store", "team", "personalisation")
	renderer := w8bLabels("pdf-renderer", "docs")
	docAPI := w8bLabels("doc-api", "docs")
	timescale := w8cLabels("app.kubernetes.io/name", "timescaledb", "app.kubernetes.io/instance", "metrics-timescale")
	ingestor := w8cLabels("app.kubernetes.io/name", "metrics-ingestor", "app.kubernetes.io/instance", "metrics")
	fulfilDB := w8cLabels("app", "fulfilment-postgres", "tier", "database")
	fulfil := w8cLabels("app", "fulfilment-api", "tier", "backend")
	profile := w8bLabels("profile-service", "accounts")
	users := w8bLabels("users-api", "accounts")
	cart := w8cLabels("app", "cart-api", "system", "shop")
	redisCart := w8cLabels("app", "redis-cart", "system", "shop")
	hooks := w8cLabels("app.kubernetes.io/name", "partner-webhooks", "app.kubernetes.io/instance", "partner-webhooks")
	mailer := w8cLabels("app", "mailer", "team", "comms")
	return []*Scenario{
		{
			// Scaling from 3 to 6 replicas for the sale: the namespace's quota on memory limits
			// is used up by the fourth pod, the ReplicaSet cannot create the last two.
			Name: "recommendation-api-scale-up-hits-quota", Covers: "recommendation-api has 4 of 6 replicas after a scale-up: its ReplicaSet reports FailedCreate 'exceeded quota: compute-quota, requested: limits.memory=512Mi, used: limits.memory=4Gi, limited: limits.memory=4Gi' (feature-store holds 2Gi of it)",
			Source: w11aSrcReplicas, Class: ClassMechanism, Hops: 2,
			Problem: "KubeDeploymentReplicasMismatch: deployment recommendation-api has not matched the expected number of replicas for longer than 15 minutes",
			Target:  target("Deployment", "recommendation-api"),
			Want:    Want{Culprit: Ref{Kind: "ResourceQuota", Name: "compute-quota"}, Terms: []string{"quota", "limits.memory"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11aQuota(ctx, "compute-quota", "requests.cpu", "4", "limits.memory", "4Gi", "pods", "30")
					},
					func() error {
						d := w8bDeployment("feature-store", "registry.example.com/personalisation/feature-store:1.9.0", 2, features, nil, "grpc", 9000)
						w8cRequests(&d.Spec.Template, "10m", "64Mi", "", "1Gi")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("feature-store", features, "grpc", 9000)) },
					func() error {
						d := w8bDeployment("recommendation-api", "registry.example.com/personalisation/recommendation-api:4.2.0", 3, reco, nil, "http", 8080)
						w8cRequests(&d.Spec.Template, "10m", "64Mi", "", "512Mi")
						w8bEnv(&d.Spec.Template, "FEATURE_STORE_ADDR", "feature-store:9000")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("recommendation-api", reco, "http", 80)) },
				)
			},
			Wait: all(readyReplicas("feature-store", 2), w9bRollout("recommendation-api", 3, func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](6) },
				all(readyReplicas("recommendation-api", 4), w11aEvent("ReplicaSet", "FailedCreate", "exceeded quota")))),
		},
		{
			// The docs namespace has a quota on requests and limits; the new pdf-renderer
			// manifest sets no resources and there is no LimitRange to default them.
			Name: "pdf-renderer-no-resources-under-quota", Covers: "pdf-renderer has no pods at all: its ReplicaSet reports FailedCreate 'failed quota: docs-quota: must specify limits.cpu for: renderer; limits.memory ...' because the container sets no requests or limits and the namespace has a ResourceQuota (and no LimitRange defaults)",
			Source: w11aSrcQuotas, Class: ClassMechanism, Hops: 2,
			Problem: "pdf-renderer was deployed an hour ago but there are no pods",
			Target:  target("Deployment", "pdf-renderer"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "pdf-renderer"}, Also: []Ref{{Kind: "ResourceQuota", Name: "docs-quota"}}, Terms: []string{"limits.cpu"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11aQuota(ctx, "docs-quota", "requests.cpu", "2", "requests.memory", "4Gi", "limits.cpu", "4", "limits.memory", "8Gi")
					},
					func() error {
						d := w8bDeployment("doc-api", "ghcr.io/acme-docs/doc-api:2.4.1", 1, docAPI, nil, "http", 8080)
						w8cRequests(&d.Spec.Template, "20m", "64Mi", "500m", "512Mi")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("doc-api", docAPI, "http", 80)) },
					func() error {
						d := w8bDeployment("pdf-renderer", "gotenberg/gotenberg:8.11.1", 2, renderer, nil, "http", 3000)
						w10aMain(&d.Spec.Template, "renderer", "gotenberg", "--api-timeout=60s", "--chromium-max-queue-size=8")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("pdf-renderer", renderer, "http", 80)) },
				)
			},
			Wait: all(readyReplicas("doc-api", 1), w11aEvent("ReplicaSet", "FailedCreate", "must specify")),
		},
		{
			// The chart values were copied from the EKS cluster, whose encrypted gp3 class does
			// not exist on this cluster.
			Name: "metrics-timescale-storageclass-missing", Covers: "metrics-timescale-0 stays Pending ('pod has unbound immediate PersistentVolumeClaims'); its claim data-metrics-timescale-0 asks for StorageClass gp3-encrypted, which this cluster does not have (ProvisioningFailed: storageclass.storage.k8s.io \"gp3-encrypted\" not found); metrics-ingestor cannot write",
			Source: w11aSrcPV, Class: ClassReference, Hops: 2,
			Problem: "timescale pod pending for 30 minutes after installing the chart",
			Target:  target("StatefulSet", "metrics-timescale"),
			Want:    Want{Culprit: Ref{Kind: "PersistentVolumeClaim", Name: "data-metrics-timescale-0"}, Terms: []string{"gp3-encrypted"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := w8bStatefulSet("metrics-timescale", "timescale/timescaledb-ha:pg16.4-ts2.16.1", "metrics-timescale", 1, timescale, nil, "postgresql", 5432)
						w10aMain(&st.Spec.Template, "timescaledb")
						w8bClaimTemplate(st, "data", "50Gi", "/home/postgres/pgdata")
						st.Spec.VolumeClaimTemplates[0].Spec.StorageClassName = ptr.To("gp3-encrypted")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						return e.createService(ctx, w8bHeadless("metrics-timescale", timescale, "postgresql", 5432))
					},
					func() error {
						d := w8bDeployment("metrics-ingestor", "ghcr.io/acme-obs/metrics-ingestor:0.14.2", 1, ingestor, nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "PGHOST", "metrics-timescale-0.metrics-timescale", "PGDATABASE", "metrics")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(pvcPending("data-metrics-timescale-0"), w11aEvent("PersistentVolumeClaim", "ProvisioningFailed", "gp3-encrypted"), readyReplicas("metrics-ingestor", 1)),
		},
		{
			// The WAL volume filled up over the weekend; PostgreSQL panics on start and the API
			// in front of it reports the database as down.
			Name: "fulfilment-postgres-volume-full", Covers: "fulfilment-api pods are not Ready (readiness 503, logs 'Connection to fulfilment-postgres:5432 refused'); fulfilment-postgres-0 crash-loops with 'PANIC: could not write to file \"pg_wal/xlogtemp.29\": No space left on device': its 2Gi claim is full",
			Source: w11aSrcFillingUp, Class: ClassClue, Hops: 3,
			Problem: "fulfilment API is returning 503 since Sunday night",
			Target:  target("Deployment", "fulfilment-api"),
			Want:    Want{Culprit: Ref{Kind: "PersistentVolumeClaim", Name: "data-fulfilment-postgres-0"}, Terms: []string{"No space left"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						st := w8bStatefulSet("fulfilment-postgres", "postgres:16.4", "fulfilment-postgres", 1, fulfilDB, crash("1", "", "w11a-fulfilment-postgres-disk-full"), "postgres", 5432)
						w10aMain(&st.Spec.Template, "postgres")
						w8bEnv(&st.Spec.Template, "PGDATA", "/var/lib/postgresql/data/pgdata", "POSTGRES_DB", "fulfilment")
						return e.w10aClaimedStatefulSet(ctx, st, "data", "2Gi", "/var/lib/postgresql/data")
					},
					func() error {
						return e.createService(ctx, w8bService("fulfilment-postgres", fulfilDB, "postgres", 5432))
					},
					func() error {
						d := w8bDeployment("fulfilment-api", "registry.example.com/commerce/fulfilment-api:3.1.0", 2, fulfil, sim("readiness-fail", annLogs, "w11a-fulfilment-api-db-refused"), "http", 8080)
						w8bReadiness(&d.Spec.Template, "/actuator/health/readiness", "http", 10)
						w8bEnv(&d.Spec.Template, "SPRING_DATASOURCE_URL", "jdbc:postgresql://fulfilment-postgres:5432/fulfilment")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("fulfilment-api", fulfil, "http", 80)) },
				)
			},
			Wait: all(w10aStatefulSetPods(fulfilDB, 1, crashLooping(2)), podsWith(fulfil, runningNotReady)),
		},
		{
			// The settings ConfigMap says user-api; the Service is users-api.
			Name: "profile-service-users-api-host-typo", Covers: "profile-service crash-loops: 'dial tcp: lookup user-api on 10.96.0.10:53: no such host'; ConfigMap profile-service-config sets USERS_API_URL=http://user-api:8080 while the Service is users-api",
			Source: w11aSrcDNS, Class: ClassClue, Hops: 2,
			Problem: "profile pages fail, profile-service pods in CrashLoopBackOff after the config change",
			Target:  target("Deployment", "profile-service"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "profile-service-config"}, Terms: []string{"user-api", "no such host"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createDeployment(ctx, w8bDeployment("users-api", "ghcr.io/acme-accounts/users-api:5.0.3", 2, users, nil, "http", 8080))
					},
					func() error { return e.createService(ctx, w8bService("users-api", users, "http", 8080)) },
					func() error {
						return e.createConfigMap(ctx, "profile-service-config", map[string]string{"USERS_API_URL": "http://user-api:8080", "AVATAR_BUCKET": "acme-avatars-prod", "LOG_FORMAT": "json"})
					},
					func() error {
						return e.createConfigMap(ctx, "users-api-config", map[string]string{"DATABASE_HOST": "accounts-postgres", "TOKEN_TTL": "15m"})
					},
					func() error {
						d := w8bDeployment("profile-service", "ghcr.io/acme-accounts/profile-service:2.3.0", 2, profile, crash("1", "", "w11a-profile-service-dns"), "http", 8080)
						envFromConfigMap(&d.Spec.Template, "profile-service-config")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("profile-service", profile, "http", 8080)) },
				)
			},
			Wait: all(podsWith(profile, crashLooping(2)), readyReplicas("users-api", 2)),
		},
		{
			// Redis is told it may hold 512mb but its container is limited to 128Mi: it is
			// OOMKilled while loading its RDB, and the cart API exits on the refused connection.
			Name: "cart-api-redis-oomkilled-below-maxmemory", Covers: "cart-api crash-loops on 'connect ECONNREFUSED <redis-cart IP>:6379'; the cause is redis-cart, OOMKilled (exit 137) over and over because its memory limit (128Mi) is below the maxmemory 512mb of its redis.conf",
			Source: w11aSrcDeterminePods, Class: ClassRanking, Hops: 2,
			Problem: "cart service is down, cart-api pods in CrashLoopBackOff",
			Target:  target("Deployment", "cart-api"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "redis-cart"}, Terms: []string{"OOMKilled"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "redis-cart-config", map[string]string{"redis.conf": "maxmemory 512mb\nmaxmemory-policy allkeys-lru\nappendonly no\nsave 300 10\n"})
					},
					func() error {
						st := w8bStatefulSet("redis-cart", "redis:7.2.5-alpine", "redis-cart", 1, redisCart, sim("oomkill", annLogs, "w11a-redis-cart"), "redis", 6379)
						w10aMain(&st.Spec.Template, "redis", "/etc/redis/redis.conf")
						mountConfigMap(&st.Spec.Template, "redis-cart-config", "/etc/redis")
						w8cRequests(&st.Spec.Template, "20m", "64Mi", "", "128Mi")
						return e.createStatefulSet(ctx, st)
					},
					func() error {
						// The address cart-api's log quotes (static logs cannot learn an allocated one).
						s := w8bService("redis-cart", redisCart, "redis", 6379)
						s.Spec.ClusterIP = "10.96.0.64"
						return e.createService(ctx, s)
					},
					func() error {
						msg := e.w11aRefusedMessage(ctx, "[ioredis] Unhandled error event:", "redis-cart", 6379)
						d := w8bDeployment("cart-api", "ghcr.io/acme-shop/cart-api:6.1.0", 2, cart, crash("1", msg, "w11a-cart-api-redis"), "http", 8080)
						w8bEnv(&d.Spec.Template, "REDIS_URL", "redis://redis-cart:6379/0")
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("cart-api", cart, "http", 80)) },
				)
			},
			Wait: all(podsWith(redisCart, restartedWith("OOMKilled", 137)), podsWith(cart, crashLooping(2))),
		},
		{
			// v3 listens on 9000 (the chart's containerPort was updated) but the readiness
			// probe still targets the old literal port 8080: no pod becomes Ready, the Service
			// has no ready endpoints and the ingress answers 503.
			Name: "partner-webhooks-probe-old-port", Covers: "hooks.example.com answers 503: Service partner-webhooks has no ready endpoints because every pod fails 'Readiness probe failed: Get \"http://…:8080/readyz\": dial tcp …:8080: connect: connection refused'; v3 serves on 9000 and the probe still names port 8080",
			Source: w11aSrcPodNotReady, Class: ClassRanking, Hops: 2,
			Problem: "partners get 503 from hooks.example.com since the v3 upgrade",
			Target:  target("Ingress", "partner-webhooks"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "partner-webhooks"}, Terms: []string{"readiness", "8080"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						d := w8bDeployment("partner-webhooks", "ghcr.io/acme-platform/partner-webhooks:3.0.0", 2, hooks,
							sim("readiness-fail", annMessage, `Get "http://10.244.0.57:8080/readyz": dial tcp 10.244.0.57:8080: connect: connection refused`, annLogs, "w11a-partner-webhooks"), "http", 9000)
						w10aMain(&d.Spec.Template, "webhooks")
						w10aPort(&d.Spec.Template, "metrics", 9090)
						w8bEnv(&d.Spec.Template, "PORT", "9000", "METRICS_PORT", "9090")
						d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = &corev1.Probe{PeriodSeconds: 10, FailureThreshold: 3,
							ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromInt32(8080)}}}
						return e.createDeployment(ctx, d)
					},
					func() error { return e.createService(ctx, w8bService("partner-webhooks", hooks, "http", 80)) },
					func() error {
						return e.createIngress(ctx, w8cHostIngress("partner-webhooks", "hooks.example.com", "partner-webhooks", 80))
					},
				)
			},
			Wait: all(podsWith(hooks, runningNotReady), podEvent("Unhealthy", "8080")),
		},
		{
			// SES SMTP credentials were rotated in IAM and the Secret was never updated: the
			// mailer is Running and Ready and every send fails with 535.
			Name: "mailer-ses-smtp-credentials-rotated", Covers: "password-reset and order emails stop; mailer is Running and Ready but logs 'smtp auth: 535 Authentication Credentials Invalid' for every message; the SMTP username/password in Secret mailer-smtp are stale",
			Source: w11aSrcDebugApp, Class: ClassOutside, Hops: 1,
			Problem: "password reset emails are not arriving",
			Target:  target("Deployment", "mailer"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "mailer-smtp"}, Terms: []string{"535"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "mailer-smtp", map[string]string{"SMTP_USERNAME": "AKIAIOSFODNN7EXAMPLE", "SMTP_PASSWORD": "BHq6y0000000000000000000000000000000000000"})
					},
					func() error {
						return e.createConfigMap(ctx, "mailer-config", map[string]string{"SMTP_HOST": "email-smtp.eu-west-1.amazonaws.com", "SMTP_PORT": "587", "MAIL_FROM": "no-reply@shop.example.com"})
					},
					func() error {
						d := w8bDeployment("mailer", "ghcr.io/acme-shop/mailer:1.7.4", 1, mailer, running("w11a-mailer-smtp-auth"), "metrics", 9102)
						envFromConfigMap(&d.Spec.Template, "mailer-config")
						envFromSecret(&d.Spec.Template, "mailer-smtp")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: readyReplicas("mailer", 1),
		},
	}
}
