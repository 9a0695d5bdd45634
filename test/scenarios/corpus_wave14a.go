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
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// Wave 14a: the decisive clue sits in Kubernetes itself, not in an application log: events
// (probe failures, mounts, pulls, scheduling, a CronJob's deletions), conditions, termination
// messages and the object specs around them. About half of the failing containers never write
// a useful line (they never start, or stay Pending). Written blind by an outside hand from the
// Kubernetes docs and public issue threads; every Want was fixed from the source before
// anything ran.

func wave14aScenarios() []*Scenario {
	return append(wave14aFirstScenarios(), wave14aMoreScenarios()...)
}

func wave14aFirstScenarios() []*Scenario {
	vendor := w8bLabels("vendor-sync", "procurement")
	buildkit := w8cLabels("app.kubernetes.io/name", "buildkitd", "app.kubernetes.io/instance", "ci", "app.kubernetes.io/component", "builder")
	console := w8bLabels("admin-console", "backoffice", "app.kubernetes.io/version", "4.1.0")
	pgb := w8cLabels("app.kubernetes.io/name", "pgbouncer", "app.kubernetes.io/instance", "orders-pgbouncer")
	orders := w8bLabels("orders-api", "orders")
	payments := w8bLabels("payments-api", "payments")
	journald := w8cLabels("app.kubernetes.io/name", "fluent-bit", "app.kubernetes.io/instance", "journald-forwarder")
	return []*Scenario{
		{
			// Someone set startingDeadlineSeconds: 0 "so a run never starts late". The
			// controller only considers schedule times within the deadline of now, so with 0 it
			// never finds one to start: no Job, no event, LAST SCHEDULE stays empty.
			Name: "vendor-sync-starting-deadline-zero", Covers: "CronJob vendor-sync (every minute) has never created a Job and shows no event at all, while vendor-report with the same schedule runs: its startingDeadlineSeconds is 0, so every schedule time is already past its deadline when the controller looks",
			Source: w14aSrcCronJobs, Class: ClassMechanism, Hops: 0, Slow: true,
			Problem: "the vendor-sync CronJob has never run since we deployed it, there is not a single Job",
			Target:  target("CronJob", "vendor-sync"),
			Want:    Want{Culprit: Ref{Kind: "CronJob", Name: "vendor-sync"}, Terms: []string{"startingDeadlineSeconds"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						c := w11aCronJob("vendor-sync", "registry.example/procurement/vendor-sync:2.3.1", "* * * * *", false, vendor, "sync", "--since=15m", "--supplier-api=https://suppliers.example.com/v2")
						c.Spec.StartingDeadlineSeconds = ptr.To[int64](0)
						return e.w11aCreateCronJob(ctx, c)
					},
					func() error {
						return e.w11aCreateCronJob(ctx, w11aCronJob("vendor-report", "registry.example/procurement/vendor-sync:2.3.1", "* * * * *", false, w8bLabels("vendor-report", "procurement"), "report", "--window=1m"))
					},
					func() error {
						d := w8bDeployment("vendor-portal", "registry.example/procurement/vendor-portal:1.12.0", 1, w8bLabels("vendor-portal", "procurement"), nil, "http", 8080)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: w14aCronJobIdle("vendor-sync", "vendor-report", 75*time.Second),
		},
		{
			// The cache size from the buildkit values (120Gi of GC keep-storage) was copied into
			// the container's ephemeral-storage request; no node has that much allocatable.
			Name: "ci-buildkitd-ephemeral-storage-request", Covers: "buildkitd pods stay Pending with '0/3 nodes are available: 3 Insufficient ephemeral-storage': the Deployment requests 120Gi of ephemeral-storage per pod while the nodes offer 95Gi allocatable",
			Source: w14aSrcEphemeral, Class: ClassMechanism, Hops: 0,
			Problem: "CI image builds hang waiting for buildkitd, its pods have been Pending since we raised the build cache size",
			Target:  target("Deployment", "buildkitd"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "buildkitd"}, Terms: []string{"ephemeral-storage", "120Gi"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "buildkitd-config", buildkit, map[string]string{"buildkitd.toml": "debug = false\n[worker.oci]\n  enabled = true\n  gc = true\n  gckeepstorage = 110000\n[worker.containerd]\n  enabled = false\n"})
					},
					func() error {
						d := w8bDeployment("buildkitd", "moby/buildkit:v0.16.0-rootless", 2, buildkit, nil, "grpc", 1234)
						w8cArgs(&d.Spec.Template, "--addr", "tcp://0.0.0.0:1234", "--addr", "unix:///run/user/1000/buildkit/buildkitd.sock", "--config", "/etc/buildkit/buildkitd.toml", "--oci-worker-no-process-sandbox")
						mountConfigMap(&d.Spec.Template, "buildkitd-config", "/etc/buildkit")
						w14aEphemeral(&d.Spec.Template, "120Gi")
						return e.w11bServe(ctx, d, 1234)
					},
					func() error {
						d := w8bDeployment("gitlab-runner", "gitlab/gitlab-runner:alpine-v17.5.2", 1, w8cLabels("app", "gitlab-runner", "release", "ci"), nil, "metrics", 9252)
						w8bEnv(&d.Spec.Template, "BUILDKIT_HOST", "tcp://buildkitd:1234", "CI_SERVER_URL", "https://gitlab.example.com", "RUNNER_EXECUTOR", "kubernetes")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(buildkit, unschedulable("ephemeral-storage")), readyReplicas("gitlab-runner", 1)),
		},
		{
			// The app now terminates TLS itself on 8443; the chart's readiness probe kept the
			// default scheme, so the kubelet speaks plain HTTP to a TLS listener and Go answers
			// 400 ("Client sent an HTTP request to an HTTPS server").
			Name: "admin-console-readiness-http-on-tls-port", Covers: "admin-console pods are Running but never Ready, 'Readiness probe failed: HTTP probe failed with statuscode: 400': the probe GETs /healthz on port https (8443) with the default scheme HTTP while the server there only speaks TLS",
			Source: w14aSrcProbes, Class: ClassSingle, Hops: 0,
			Problem: "admin-console has no ready pods since we turned on in-app TLS, the back-office UI is down",
			Target:  target("Deployment", "admin-console"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "admin-console"}, Terms: []string{"scheme"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.w9aTLSSecret(ctx, "admin-console-tls", "admin.backoffice.example.com") },
					func() error {
						d := w8bDeployment("admin-console", "registry.example/backoffice/admin-console:4.1.0", 2, console,
							w11bReadinessFail("admin-console", "", "HTTP probe failed with statuscode: 400"), "https", 8443)
						d.Spec.Template.Spec.Containers[0].Name = "admin-console"
						w8bEnv(&d.Spec.Template, "LISTEN_ADDR", ":8443", "TLS_CERT_FILE", "/etc/tls/tls.crt", "TLS_KEY_FILE", "/etc/tls/tls.key", "ADMIN_API_URL", "http://admin-api:8080")
						mountSecret(&d.Spec.Template, "admin-console-tls", "/etc/tls")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/healthz", "https", 10, 3)
						return e.w11bServe(ctx, d, 443)
					},
					func() error {
						d := w8bDeployment("admin-api", "registry.example/backoffice/admin-api:4.1.0", 2, w8bLabels("admin-api", "backoffice"), nil, "http", 8080)
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/healthz", "http", 10, 3)
						return e.w11bServe(ctx, d, 8080)
					},
				)
			},
			Wait: all(podsWith(console, runningNotReady), podEvent("Unhealthy", "statuscode: 400"), readyReplicas("admin-api", 2)),
		},
		{
			// The pgbouncer image was switched from Bitnami's to a slim one without the
			// PostgreSQL client tools; the liveness probe still execs pg_isready, so the kubelet
			// kills pgbouncer every few probes and orders-api loses its pool.
			Name: "pgbouncer-exec-probe-binary-missing", Covers: "orders-api crash-loops on 'connect ECONNREFUSED <orders-pgbouncer IP>:6432'; orders-pgbouncer is killed over and over: 'Liveness probe failed: OCI runtime exec failed: ... exec: \"pg_isready\": executable file not found in $PATH', the exec probe calls a binary the new image does not ship",
			Source: w14aSrcExecProbe, Class: ClassProvider, Hops: 2,
			Problem: "orders-api keeps restarting with connection refused errors since the database pooler image was swapped",
			Target:  target("Deployment", "orders-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "orders-pgbouncer"}, Terms: []string{"pg_isready"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "orders-postgres")
				return steps(
					func() error {
						st := w8bStatefulSet("orders-postgres", "docker.io/bitnami/postgresql:16.4.0", "orders-postgres-hl", 1, db, nil, "tcp-postgresql", 5432)
						w8bEnv(&st.Spec.Template, "POSTGRESQL_DATABASE", "orders", "POSTGRESQL_USERNAME", "orders")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("orders-postgres-hl", db, "tcp-postgresql", 5432)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("orders-postgres", db, "tcp-postgresql", 5432))
					},
					func() error {
						d := w8bDeployment("orders-pgbouncer", "docker.io/edoburu/pgbouncer:v1.23.1-p2", 1, pgb,
							sim("liveness-fail", annMessage, `OCI runtime exec failed: exec failed: unable to start container process: exec: "pg_isready": executable file not found in $PATH: unknown`), "pgbouncer", 6432)
						d.Spec.Template.Spec.Containers[0].Name = "pgbouncer"
						w8bEnv(&d.Spec.Template, "DB_HOST", "orders-postgres", "DB_PORT", "5432", "DB_USER", "orders", "POOL_MODE", "transaction", "MAX_CLIENT_CONN", "400", "DEFAULT_POOL_SIZE", "20", "LISTEN_PORT", "6432")
						d.Spec.Template.Spec.Containers[0].LivenessProbe = w14aExecProbe(10, 3, "pg_isready", "-h", "127.0.0.1", "-p", "6432", "-U", "orders")
						return e.w11bServe(ctx, d, 6432)
					},
					func() error {
						msg := e.w11aRefusedMessage(ctx, "KnexTimeoutError: pool acquire failed:", "orders-pgbouncer", 6432)
						d := w8bDeployment("orders-api", "registry.example/orders/orders-api:6.3.2", 2, orders, crash("1", msg, "w14a-orders-api-pgbouncer"), "http", 3000)
						w8bEnv(&d.Spec.Template, "PGHOST", "orders-pgbouncer", "PGPORT", "6432", "PGDATABASE", "orders", "PGUSER", "orders", "NODE_ENV", "production")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(orders, crashLooping(2)), podsWith(pgb, restartedWith("Error", 137)), w8cStatefulSetReady("orders-postgres", 1)),
		},
		{
			// Images moved from the old registry to Harbor; the rollout changed the image host
			// but the pull secret still only carries credentials for the old registry, so the
			// kubelet pulls from Harbor anonymously and gets 401.
			Name: "payments-pull-secret-old-registry-host", Covers: "payments-api is in ImagePullBackOff, '401 Unauthorized' pulling harbor.corp.example/payments/payments-api:3.8.0; its imagePullSecrets harbor-pull is a dockerconfigjson whose auths hold only registry.private.example, so no credentials match the new host (payments-worker, still on the old registry, pulls fine with the same secret)",
			Source: w14aSrcPullSecret, Class: ClassReference, Hops: 1,
			Problem: "payments-api is stuck in ImagePullBackOff after we moved the images to Harbor, the robot account works from my laptop",
			Target:  target("Deployment", "payments-api"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "harbor-pull"}, Terms: []string{"harbor.corp.example"}},
			Setup: func(ctx context.Context, e *Env) error {
				img := "harbor.corp.example/payments/payments-api:3.8.0"
				return steps(
					func() error {
						return e.w14aPullSecret(ctx, "harbor-pull", "registry.private.example", "robot$payments+ci", "Zq81mVx04TnLr7Ke")
					},
					func() error {
						d := w8bDeployment("payments-api", img, 2, payments,
							sim("image-pull-auth", annMessage, fmt.Sprintf("rpc error: code = Unknown desc = failed to pull and unpack image %q: failed to resolve reference %q: pull access denied, repository does not exist or may require authorization: authorization failed: 401 Unauthorized: unauthorized: unauthorized to access repository: payments/payments-api, action: pull", img, img)), "http", 8080)
						w14aPullWith(&d.Spec.Template, "harbor-pull")
						w8bEnv(&d.Spec.Template, "PSP_BASE_URL", "https://api.psp.example.com", "LEDGER_URL", "http://ledger:8080")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("payments-worker", "registry.private.example/payments/payments-worker:3.7.2", 1, w8bLabels("payments-worker", "payments"), nil, "metrics", 9102)
						w14aPullWith(&d.Spec.Template, "harbor-pull")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(payments, waiting("ErrImagePull", "ImagePullBackOff")), readyReplicas("payments-worker", 1)),
		},
		{
			// The journald input was copied from a distribution that keeps a persistent journal;
			// these nodes keep it volatile under /run/log/journal, and type Directory makes the
			// kubelet refuse the mount instead of creating it.
			Name: "journald-hostpath-type-directory", Covers: "DaemonSet journald-forwarder never starts a pod: 'MountVolume.SetUp failed for volume \"journal\" : hostPath type check failed: /var/log/journal is not a directory' on every node; its hostPath volume requires type Directory at a path the nodes do not have",
			Source: w14aSrcHostPath, Class: ClassClue, Hops: 0,
			Problem: "no kubelet or containerd logs have reached Loki since the journald forwarder was deployed, its pods sit in ContainerCreating",
			Target:  target("DaemonSet", "journald-forwarder"),
			Want:    Want{Culprit: Ref{Kind: "DaemonSet", Name: "journald-forwarder"}, Terms: []string{"/var/log/journal"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "journald-forwarder-config", journald, map[string]string{"fluent-bit.conf": "[SERVICE]\n    Flush 5\n    HTTP_Server On\n    HTTP_Port 2020\n[INPUT]\n    Name systemd\n    Path /var/log/journal\n    Systemd_Filter _SYSTEMD_UNIT=kubelet.service\n    Systemd_Filter _SYSTEMD_UNIT=containerd.service\n    Read_From_Tail On\n[OUTPUT]\n    Name loki\n    Match *\n    Host loki-gateway.logging.svc\n    Port 80\n    Labels job=journald\n"})
					},
					func() error {
						return e.w8aCreateDaemonSet(ctx, w8aDaemonSet("journald-forwarder", "cr.fluentbit.io/fluent/fluent-bit:3.1.9", journald, func(t *corev1.PodTemplateSpec) {
							t.Annotations = sim("mount-fail", annMessage, `MountVolume.SetUp failed for volume "journal" : hostPath type check failed: /var/log/journal is not a directory`)
							t.Spec.Containers[0].Name = "fluent-bit"
							w14aHostPath(t, "journal", "/var/log/journal", corev1.HostPathDirectory)
							w14aHostPath(t, "machine-id", "/etc/machine-id", corev1.HostPathFile)
							mountConfigMap(t, "journald-forwarder-config", "/fluent-bit/etc")
						}))
					},
					func() error {
						lbl := w8cLabels("app.kubernetes.io/name", "fluent-bit", "app.kubernetes.io/instance", "container-logs")
						return e.w8aCreateDaemonSet(ctx, w8aDaemonSet("container-logs", "cr.fluentbit.io/fluent/fluent-bit:3.1.9", lbl, func(t *corev1.PodTemplateSpec) {
							w14aHostPath(t, "varlog", "/var/log", corev1.HostPathDirectoryOrCreate)
						}))
					},
				)
			},
			Wait: all(podsWith(journald, w14aPending), podEvent("FailedMount", "hostPath type check failed"), w14aDaemonSetReady("container-logs")),
		},
	}
}

func wave14aLateScenarios() []*Scenario {
	resizer := w8cLabels("app.kubernetes.io/name", "image-resizer", "app.kubernetes.io/instance", "media-image-resizer", "app.kubernetes.io/managed-by", "Helm")
	fulfil := w8bLabels("fulfilment-api", "fulfilment")
	return []*Scenario{
		{
			// The resizer decodes full-size uploads with libvips; its own 256Mi limit is far too
			// small. The namespace LimitRange would give 512Mi, but only to containers that set
			// no limit, so it does not apply here.
			Name: "image-resizer-oom-own-limit-256mi", Covers: "image-resizer restarts with OOMKilled (exit 137) and no error in its log; the Deployment sets its own memory limit of 256Mi, so the namespace LimitRange default of 512Mi never applies to it",
			Source: w14aSrcMemory, Class: ClassMechanism, Hops: 0,
			Problem: "image-resizer restarts constantly whenever users upload photos",
			Target:  target("Deployment", "image-resizer"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "image-resizer"}, Terms: []string{"256Mi"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.w14aLimitRange(ctx, "namespace-defaults", "512Mi", "128Mi", "50m") },
					func() error {
						d := w8bDeployment("image-resizer", "registry.example/media/image-resizer:2.4.0", 2, resizer, sim("oomkill"), "http", 3000)
						memoryOnly(&d.Spec.Template, 0, "256Mi")
						w8bEnv(&d.Spec.Template, "SHARP_CONCURRENCY", "2", "MAX_INPUT_PIXELS", "268402689", "UV_THREADPOOL_SIZE", "4", "ORIGINALS_BUCKET", "media-originals")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("thumbnail-cache", "docker.io/library/varnish:7.6.1", 1, w8cLabels("app.kubernetes.io/name", "varnish", "app.kubernetes.io/instance", "thumbnail-cache"), nil, "http", 6081)
						w8bEnv(&d.Spec.Template, "VARNISH_SIZE", "256M", "BACKEND_HOST", "image-resizer")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(resizer, restartedWith("OOMKilled", 137)), readyReplicas("thumbnail-cache", 1)),
		},
		{
			// A kustomize overlay for the old environment appended a second DATABASE_URL to the
			// container's env; the last definition wins, so the app dials a host that no longer
			// exists although the first entry is right.
			Name: "fulfilment-api-duplicate-database-url", Covers: "fulfilment-api crash-loops on 'could not translate host name \"fulfilment-db-legacy\" to address'; its container env defines DATABASE_URL twice, first with fulfilment-db (which runs), then with fulfilment-db-legacy from an old overlay, and the last definition wins",
			Source: w14aSrcDuplicate, Class: ClassClue, Hops: 0,
			Problem: "fulfilment-api crash-loops after the overlay refactor although the database is up",
			Target:  target("Deployment", "fulfilment-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "fulfilment-api"}, Terms: []string{"DATABASE_URL"}},
			Setup: func(ctx context.Context, e *Env) error {
				db := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "fulfilment-db")
				msg := `sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) could not translate host name "fulfilment-db-legacy" to address: Name or service not known`
				return steps(
					func() error {
						return e.createSecret(ctx, "fulfilment-db", map[string]string{"password": "Hn4pWq82LxZc"})
					},
					func() error {
						st := w8bStatefulSet("fulfilment-db", "docker.io/bitnami/postgresql:16.4.0", "fulfilment-db-hl", 1, db, nil, "tcp-postgresql", 5432)
						w8bEnv(&st.Spec.Template, "POSTGRESQL_DATABASE", "fulfilment", "POSTGRESQL_USERNAME", "fulfilment")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("fulfilment-db-hl", db, "tcp-postgresql", 5432)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("fulfilment-db", db, "tcp-postgresql", 5432))
					},
					func() error {
						d := w8bDeployment("fulfilment-api", "registry.example/fulfilment/fulfilment-api:4.0.1", 2, fulfil, crash("1", msg, "w14a-fulfilment-api-db-host"), "http", 8000)
						w8bEnv(&d.Spec.Template, "DATABASE_URL", "postgresql://fulfilment@fulfilment-db:5432/fulfilment", "DB_POOL_SIZE", "10",
							"CARRIER_API_URL", "https://carriers.example.com/v3", "GUNICORN_WORKERS", "4",
							"DATABASE_URL", "postgresql://fulfilment@fulfilment-db-legacy:5432/fulfilment")
						envKeyFromSecret(&d.Spec.Template, "PGPASSWORD", "fulfilment-db", "password")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("fulfilment-worker", "registry.example/fulfilment/fulfilment-api:4.0.1", 1, w8bLabels("fulfilment-worker", "fulfilment"), nil, "metrics", 9102)
						w8cArgs(&d.Spec.Template, "celery", "-A", "fulfilment", "worker")
						w8bEnv(&d.Spec.Template, "DATABASE_URL", "postgresql://fulfilment@fulfilment-db:5432/fulfilment")
						envKeyFromSecret(&d.Spec.Template, "PGPASSWORD", "fulfilment-db", "password")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(fulfil, crashLooping(2)), w8cStatefulSetReady("fulfilment-db", 1), readyReplicas("fulfilment-worker", 1)),
		},
	}
}
