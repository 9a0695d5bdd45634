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

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Class 3: the clue is in text (termination message, log line, event) and names something
// that must be matched against the cluster.

const (
	srcPodFailure    = "k8s-docs/tasks/debug/debug-application/determine-reason-pod-failure.md"
	srcRunningPod    = "k8s-docs/tasks/debug/debug-application/debug-running-pod.md"
	srcConfigurePodC = "k8s-docs/tasks/configure-pod-container/configure-pod-configmap.md"
	srcSecret        = "k8s-docs/concepts/configuration/secret.md"
	srcVolumes       = "k8s-docs/concepts/storage/volumes.md"
	srcSecurityCtx   = "k8s-docs/tasks/configure-pod-container/security-context.md"
	srcLogging       = "k8s-docs/concepts/cluster-administration/logging.md"
	srcJob           = "k8s-docs/concepts/workloads/controllers/job.md"
)

func clueScenarios() []*Scenario {
	return []*Scenario{
		{
			Name: "configmap-db-host-typo", Covers: "crash on 'no such host'; the host is a typo in a ConfigMap value while the real Service exists",
			Source: srcPodFailure, Class: ClassClue, Hops: 2,
			Problem: "checkout pods crash after the config change", Target: target("Deployment", "checkout"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "checkout-config"}, Terms: []string{"postgress", "no such host"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "postgres", "postgres:16", 5432, 5432) },
					func() error {
						return e.createConfigMap(ctx, "checkout-config", map[string]string{"DB_HOST": "postgress", "DB_PORT": "5432", "LOG_LEVEL": "info"})
					},
					func() error {
						d := deployment("checkout", "example/checkout:3.5", 1, crash("1",
							"failed to connect to `host=postgress user=checkout database=checkout`: hostname resolving error ("+dnsFail("postgress")+")", "checkout-dns"))
						envFromConfigMap(&d.Spec.Template, "checkout-config")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("checkout", crashLooping(3)),
		},
		{
			Name: "configmap-redis-port-typo", Covers: "crash on connection refused to a port the Service does not serve; the port comes from a ConfigMap",
			Source: srcConfigurePodC, Class: ClassClue, Hops: 2,
			Problem: "sessions service won't start", Target: target("Deployment", "sessions"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "sessions-config"}, Terms: []string{"6380"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "redis", "redis:7.2", 6379, 6379) },
					func() error {
						return e.createConfigMap(ctx, "sessions-config", map[string]string{"REDIS_ADDR": "redis:6380", "SESSION_TTL": "3600"})
					},
					func() error {
						d := deployment("sessions", "example/sessions:1.7", 1, crash("1",
							"redis: "+refused(e.clusterIP(ctx, "redis"), 6380), "sessions-redis-port"))
						envKeyFromConfigMap(&d.Spec.Template, "REDIS_ADDR", "sessions-config", "REDIS_ADDR")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("sessions", crashLooping(3)),
		},
		{
			Name: "env-ratings-host-typo", Covers: "crash on 'no such host'; the host is a typo in the Deployment's own env",
			Source: srcDNS, Class: ClassClue, Hops: 1,
			Problem: "product pages have no reviews and reviews pods restart", Target: target("Deployment", "reviews"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "reviews"}, Terms: []string{"ratngs", "no such host"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "ratings", "example/ratings:1.16", 9080, 9080) },
					func() error {
						msg := `java.net.UnknownHostException: ratngs: Name or service not known`
						return e.createDeployment(ctx, env(deployment("reviews", "example/reviews:1.16", 1, crash("1", msg, "reviews-unknown-host")), "RATINGS_HOSTNAME", "ratngs", "RATINGS_PORT", "9080"))
					},
				)
			},
			Wait: anyPod("reviews", crashLooping(3)),
		},
		{
			Name: "ingest-client-cert-expired", Covers: "crash whose only clue is in the log: x509 certificate has expired (termination message is generic)",
			Source: srcLogging, Class: ClassClue, Hops: 0,
			Problem: "the ingest pipeline is down", Target: target("Deployment", "ingest"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "ingest"}, Terms: []string{"certificate has expired"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "ingest-client-tls", map[string]string{"tls.crt": "-", "tls.key": "-"})
					},
					func() error {
						d := deployment("ingest", "example/ingest:4.1", 1, crash("1", "", "ingest-x509"))
						mountSecret(&d.Spec.Template, "ingest-client-tls", "/etc/ingest/tls")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("ingest", crashLooping(3)),
		},
		{
			Name: "indexer-emptydir-full", Covers: "crash whose log says 'no space left on device'; the scratch emptyDir has a small sizeLimit",
			Source: srcVolumes, Class: ClassClue, Hops: 0,
			Problem: "indexing stopped overnight", Target: target("Deployment", "indexer"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "indexer"}, Terms: []string{"no space left on device"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := deployment("indexer", "example/indexer:2.3", 1, crash("1", "", "indexer-no-space"))
				q := resource.MustParse("1Gi")
				d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: &q}}}}
				d.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "scratch", MountPath: "/var/lib/indexer"}}
				return e.createDeployment(ctx, d)
			},
			Wait: anyPod("indexer", crashLooping(3)),
		},
		{
			Name: "uploader-run-as-user", Covers: "crash on 'permission denied' opening its state file after runAsUser was set",
			Source: srcSecurityCtx, Class: ClassClue, Hops: 0,
			Problem: "uploads are broken after the security hardening", Target: target("Deployment", "uploader"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "uploader"}, Terms: []string{"permission denied"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := deployment("uploader", "example/uploader:2.0", 1, crash("1",
					"open /var/lib/uploader/state.db: permission denied", "uploader-permission"))
				d.Spec.Template.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](10001), RunAsNonRoot: ptr.To(true)}
				return e.createDeployment(ctx, d)
			},
			Wait: anyPod("uploader", crashLooping(3)),
		},
		{
			Name: "schema-migration-missing-relation", Covers: "a migration Job fails with a database error in its termination message",
			Source: srcJob, Class: ClassClue, Hops: 1,
			Problem: "the deploy of orders 5.3 failed", Target: target("Job", "orders-migrate-53"),
			Want: Want{Culprit: Ref{Kind: "Job", Name: "orders-migrate-53"}, Terms: []string{`relation "order_items" does not exist`}},
			Setup: func(ctx context.Context, e *Env) error {
				j := job("orders-migrate-53", 2, sim("fail", annExitCode, "1", annMessage,
					`migration 20260110_add_orders_index failed: ERROR: relation "order_items" does not exist (SQLSTATE 42P01)`, annLogs, "orders-migrate"))
				_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
				return wrap("Job", j.Name, err)
			},
			Wait: func(ctx context.Context, e *Env) error {
				return jobFailed(ctx, e, "orders-migrate-53", "BackoffLimitExceeded")
			},
		},
		{
			Name: "db-password-rejected", Covers: "crash on 'password authentication failed'; the password comes from a Secret",
			Source: srcSecret, Class: ClassClue, Hops: 2,
			Problem: "billing-api crashes since the credentials rotation", Target: target("Deployment", "billing-api"),
			Want: Want{Culprit: Ref{Kind: "Secret", Name: "billing-db"}, Terms: []string{"password authentication failed"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "postgres", "postgres:16", 5432, 5432) },
					func() error {
						return e.createSecret(ctx, "billing-db", map[string]string{"PGUSER": "billing", "PGPASSWORD": "rotated-2026-01"})
					},
					func() error {
						d := deployment("billing-api", "example/billing-api:8.0", 1, crash("1",
							`FATAL: password authentication failed for user "billing" (SQLSTATE 28P01)`, "billing-password"))
						envFromSecret(&d.Spec.Template, "billing-db")
						return e.createDeployment(ctx, env(d, "PGHOST", "postgres"))
					},
				)
			},
			Wait: anyPod("billing-api", crashLooping(3)),
		},
		{
			Name: "server-flag-typo-usage-banner", Covers: "crash whose last log line is a usage banner; the error above it names a mistyped flag in the args",
			Source: srcPodFailure, Class: ClassClue, Hops: 0,
			Problem: "metrics-gateway never comes up", Target: target("Deployment", "metrics-gateway"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "metrics-gateway"}, Terms: []string{"--listen-adress"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := deployment("metrics-gateway", "example/metrics-gateway:0.27", 1, crash("2", "", "gateway-usage"))
				d.Spec.Template.Spec.Containers[0].Args = []string{"--listen-adress=:9091", "--upstream=http://prometheus:9090"}
				return e.createDeployment(ctx, d)
			},
			Wait: anyPod("metrics-gateway", crashLooping(3)),
		},
		{
			Name: "configmap-cross-namespace-host", Covers: "crash on 'no such host' for a name in a namespace that does not exist; the URL is in a ConfigMap",
			Source: srcDNS, Class: ClassClue, Hops: 2,
			Problem: "subscriptions can't be created", Target: target("Deployment", "subscriptions"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "subscriptions-env"}, Terms: []string{"payments.billing", "no such host"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "payments", "example/payments:2.8", 8080, 8080) },
					func() error {
						return e.createConfigMap(ctx, "subscriptions-env", map[string]string{"PAYMENTS_URL": "http://payments.billing.svc.cluster.local:8080"})
					},
					func() error {
						d := deployment("subscriptions", "example/subscriptions:1.2", 1, crash("1",
							`startup check: Get "http://payments.billing.svc.cluster.local:8080/healthz": `+dnsFail("payments.billing.svc.cluster.local"), "subscriptions-dns"))
						envFromConfigMap(&d.Spec.Template, "subscriptions-env")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("subscriptions", crashLooping(3)),
		},
		{
			Name: "nfs-mount-access-denied", Covers: "pod stuck ContainerCreating; the FailedMount event says the NFS server denied the export",
			Source: srcVolumes, Class: ClassClue, Hops: 1,
			Problem: "media pods never start", Target: target("Deployment", "media"),
			Want: Want{Culprit: Ref{Kind: "Deployment", Name: "media"}, Terms: []string{"access denied", "10.20.0.5:/exports/media"}},
			Setup: func(ctx context.Context, e *Env) error {
				d := deployment("media", "example/media:3.0", 1, sim("mount-fail", annMessage,
					`MountVolume.SetUp failed for volume "assets" : mount failed: exit status 32 Mounting command: mount Mounting arguments: -t nfs 10.20.0.5:/exports/media /var/lib/kubelet/pods/x/volumes/kubernetes.io~nfs/assets Output: mount.nfs: access denied by server while mounting 10.20.0.5:/exports/media`))
				d.Spec.Template.Spec.Volumes = []corev1.Volume{{Name: "assets", VolumeSource: corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "10.20.0.5", Path: "/exports/media"}}}}
				d.Spec.Template.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "assets", MountPath: "/srv/media"}}
				return e.createDeployment(ctx, d)
			},
			Wait: podEvent("FailedMount", "access denied"),
		},
		{
			Name: "feature-flags-host-in-log", Covers: "pods never ready; only the log says the flags host does not resolve, and a ConfigMap holds the misspelt URL",
			Source: srcPodNotReady, Class: ClassClue, Hops: 2,
			Problem: "new pods of web never receive traffic", Target: target("Deployment", "web"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "web-settings"}, Terms: []string{"feature-flags"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "featureflags", "example/flagd:0.9", 8013, 8013) },
					func() error {
						return e.createConfigMap(ctx, "web-settings", map[string]string{"FLAGS_URL": "http://feature-flags:8013", "THEME": "dark"})
					},
					func() error {
						d := deployment("web", "example/web:14.2", 1, sim("readiness-fail", annMessage,
							"HTTP probe failed with statuscode: 503", annLogs, "web-flags-dns"))
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = httpProbe("/ready")
						envFromConfigMap(&d.Spec.Template, "web-settings")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(anyPod("web", runningNotReady), podEvent("Unhealthy", "Readiness probe failed")),
		},
		{
			Name: "smtp-credentials-rejected", Covers: "a CronJob-style Job fails; the SMTP server rejects the credentials from a Secret",
			Source: srcJobFailed, Class: ClassClue, Hops: 2,
			Problem: "the weekly digest email did not go out", Target: target("Job", "weekly-digest"),
			Want: Want{Culprit: Ref{Kind: "Secret", Name: "smtp-credentials"}, Terms: []string{"535", "smtp-credentials"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "smtp-relay", "example/postfix:3.8", 587, 587) },
					func() error {
						return e.createSecret(ctx, "smtp-credentials", map[string]string{"SMTP_USER": "digest", "SMTP_PASSWORD": "old"})
					},
					func() error {
						j := job("weekly-digest", 1, sim("fail", annExitCode, "1", annMessage,
							"smtp: 535 5.7.8 Username and Password not accepted", annLogs, "digest-smtp-auth"))
						envFromSecret(&j.Spec.Template, "smtp-credentials")
						j.Spec.Template.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "SMTP_HOST", Value: "smtp-relay:587"}}
						_, err := e.Client.BatchV1().Jobs(e.Namespace).Create(ctx, j, metav1.CreateOptions{})
						return wrap("Job", j.Name, err)
					},
				)
			},
			Wait: func(ctx context.Context, e *Env) error {
				return jobFailed(ctx, e, "weekly-digest", "BackoffLimitExceeded")
			},
		},
		{
			Name: "kafka-bootstrap-wrong-port-log", Covers: "Running consumer whose log repeats connection refused to a broker port the Service does not expose; the port is in a ConfigMap",
			Source: srcRunningPod, Class: ClassClue, Hops: 2,
			Problem: "order events are not processed", Target: target("Deployment", "order-events"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "order-events-config"}, Terms: []string{"9093"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "kafka", "example/kafka:3.7", 9092, 9092) },
					func() error {
						return e.createConfigMap(ctx, "order-events-config", map[string]string{"KAFKA_BOOTSTRAP": "kafka:9093", "GROUP_ID": "order-events"})
					},
					func() error {
						d := deployment("order-events", "example/order-events:2.6", 1, running("order-events-kafka"))
						envFromConfigMap(&d.Spec.Template, "order-events-config")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("order-events", runningReady),
		},
		{
			Name: "configmap-file-redis-host", Covers: "crash on 'no such host'; the host is in a config file mounted from a ConfigMap, the Service is called redis",
			Source: srcConfigurePodC, Class: ClassClue, Hops: 2,
			Problem: "leaderboard is down", Target: target("Deployment", "leaderboard"),
			Want: Want{Culprit: Ref{Kind: "ConfigMap", Name: "leaderboard-yaml"}, Terms: []string{"redis-master"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createBackend(ctx, "redis", "redis:7.2", 6379, 6379) },
					func() error {
						return e.createConfigMap(ctx, "leaderboard-yaml", map[string]string{"config.yaml": "listen: :8080\nredis:\n  host: redis-master\n  port: 6379\n  db: 2\n"})
					},
					func() error {
						d := deployment("leaderboard", "example/leaderboard:1.3", 1, crash("1", "redis: "+dnsFail("redis-master"), "leaderboard-redis"))
						mountConfigMap(&d.Spec.Template, "leaderboard-yaml", "/etc/leaderboard")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: anyPod("leaderboard", crashLooping(3)),
		},
	}
}

// jobWithDeadline is a Job that runs until activeDeadlineSeconds stops it.
func jobWithDeadline(name string, seconds int64, annotations map[string]string) *batchv1.Job {
	j := job(name, 0, annotations)
	j.Spec.ActiveDeadlineSeconds = ptr.To(seconds)
	return j
}
