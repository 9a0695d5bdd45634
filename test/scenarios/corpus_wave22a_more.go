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

	corev1 "k8s.io/api/core/v1"
)

func wave22aMoreScenarios() []*Scenario {
	geo := w8bLabels("geo-lookup", "edge")
	invoices := w8bLabels("invoice-run", "billing")
	reports := w8bLabels("reports-api", "reports")
	quota := w8bLabels("quota-api", "platform")
	return []*Scenario{
		{
			// The MaxMind databases are no longer baked into the image: an init container
			// runs geoipupdate into a shared emptyDir. Its edition list comes from a ConfigMap
			// written for fraud-scorer, which needs only Country and ASN, so the City database
			// geo-lookup opens is never downloaded.
			Name: "geo-lookup-crashes-after-image-slimming", Covers: "geo-lookup (Node, maxmind reader) crash-loops with \"ENOENT: no such file or directory, open '/usr/share/GeoIP/GeoLite2-City.mmdb'\"; its geoipupdate init container completes, but GEOIPUPDATE_EDITION_IDS in ConfigMap geoipupdate-env lists only GeoLite2-ASN and GeoLite2-Country (fraud-scorer, which needs only those, runs)",
			Source: w22aSrcGeoIPUpdate, Class: ClassClue, Hops: 2,
			Problem: "geo-lookup crash-loops right after start since we stopped baking the GeoIP databases into its image",
			Target:  target("Deployment", "geo-lookup"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "geoipupdate-env"}, Terms: []string{"GEOIPUPDATE_EDITION_IDS"}},
			Setup: func(ctx context.Context, e *Env) error {
				tm := "node:internal/fs/promises:639\n  return new FileHandle(await PromisePrototypeThen(binding.openFileHandle(path, flags, mode, kUsePromises), undefined, handleErrorFromBinding));\n                                       ^\n\nError: ENOENT: no such file or directory, open '/usr/share/GeoIP/GeoLite2-City.mmdb'\n    at async open (node:internal/fs/promises:639:25)\n    at async Object.readFile (node:internal/fs/promises:1242:14)\n    at async open (/app/node_modules/maxmind/lib/index.js:36:20)\n    at async loadReaders (/app/dist/geo.js:18:18) {\n  errno: -2,\n  code: 'ENOENT',\n  syscall: 'open',\n  path: '/usr/share/GeoIP/GeoLite2-City.mmdb'\n}\n\nNode.js v20.18.0"
				withGeoIP := func(t *corev1.PodTemplateSpec) {
					w22aGeoIPInit(t, "geoipupdate-env", "geoipupdate-account")
					w22aSharedDir(t, "geoip", "/usr/share/GeoIP")
				}
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "geoipupdate-env", w8bLabels("geoipupdate", "edge"), map[string]string{
							"GEOIPUPDATE_EDITION_IDS": "GeoLite2-ASN GeoLite2-Country", "GEOIPUPDATE_DB_DIR": "/usr/share/GeoIP", "GEOIPUPDATE_VERBOSE": "1"})
					},
					func() error {
						return e.createSecret(ctx, "geoipupdate-account", map[string]string{"GEOIPUPDATE_ACCOUNT_ID": "918273", "GEOIPUPDATE_LICENSE_KEY": "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"})
					},
					func() error {
						d := w11bApp("geo-lookup", "geo-lookup", "registry.example/edge/geo-lookup:3.4.1", 2, geo, crash("1", tm, "w22a-geo-lookup"), "http", 3000)
						d.Spec.Template.Spec.Containers[0].TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError
						w8bEnv(&d.Spec.Template, "GEOIP_CITY_DB", "/usr/share/GeoIP/GeoLite2-City.mmdb", "GEOIP_ASN_DB", "/usr/share/GeoIP/GeoLite2-ASN.mmdb", "PORT", "3000")
						withGeoIP(&d.Spec.Template)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("fraud-scorer", "fraud-scorer", "registry.example/edge/fraud-scorer:1.12.0", 1, w8bLabels("fraud-scorer", "edge"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "GEOIP_COUNTRY_DB", "/usr/share/GeoIP/GeoLite2-Country.mmdb", "GEOIP_ASN_DB", "/usr/share/GeoIP/GeoLite2-ASN.mmdb")
						withGeoIP(&d.Spec.Template)
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(geo, crashLooping(2)), readyReplicas("fraud-scorer", 1)),
		},
		{
			// The API team added PGOPTIONS '-c statement_timeout=5s' to the shared libpq
			// settings ConfigMap to cut slow requests. libpq sends it on every connection, so
			// the month-end invoice batch, which reads the same ConfigMap, has its long
			// aggregation cancelled at five seconds.
			Name: "invoice-run-fails-every-night", Covers: "every run of CronJob invoice-run (Python, psycopg2) fails (exit 1); its log ends in 'psycopg2.errors.QueryCanceled: canceling statement due to statement timeout': ConfigMap billing-db-env, shared with billing-api and read through envFrom, sets PGOPTIONS '-c statement_timeout=5s'",
			Source: w22aSrcPGOptions, Class: ClassClue, Hops: 1, Slow: true,
			Problem: "every run of the invoice-run CronJob fails partway through with a database error; the billing API is healthy",
			Target:  target("CronJob", "invoice-run"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "billing-db-env"}, Terms: []string{"statement_timeout"}},
			Setup: func(ctx context.Context, e *Env) error {
				pg := w22aLabels("postgresql", "billing-pg")
				return steps(
					func() error {
						return e.w11bStore(ctx, "billing-pg", "postgres:16.4", pg, nil, "postgresql", 5432, "POSTGRES_DB", "billing", "POSTGRES_USER", "billing")
					},
					func() error {
						return e.w10aConfigMap(ctx, "billing-db-env", w8bLabels("billing-db-env", "billing"), map[string]string{
							"PGHOST": "billing-pg", "PGPORT": "5432", "PGDATABASE": "billing", "PGUSER": "billing_app", "PGSSLMODE": "disable",
							"PGOPTIONS": "-c statement_timeout=5s -c lock_timeout=2s", "PGCONNECT_TIMEOUT": "5"})
					},
					func() error {
						return e.createSecret(ctx, "billing-db-password", map[string]string{"PGPASSWORD": "c8Vn2QwLx7Rt"})
					},
					func() error {
						d := w11bApp("billing-api", "billing-api", "registry.example/billing/billing-api:7.3.0", 2, w8bLabels("billing-api", "billing"), nil, "http", 8000)
						envFromConfigMap(&d.Spec.Template, "billing-db-env")
						envFromSecret(&d.Spec.Template, "billing-db-password")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						c := w13aCronJob("invoice-run", "registry.example/billing/billing-batch:7.3.0", invoices,
							sim("fail", annExitCode, "1", annLogs, "w22a-invoice-run"), "python", "-m", "billing.batch.invoice_run", "--period=previous-month")
						envFromConfigMap(&c.Spec.JobTemplate.Spec.Template, "billing-db-env")
						envFromSecret(&c.Spec.JobTemplate.Spec.Template, "billing-db-password")
						return e.w11aCreateCronJob(ctx, c)
					},
				)
			},
			Wait: all(w13aAnyJobFailed, readyReplicas("billing-api", 2)),
		},
		{
			// During a credential rotation the Secret was recreated with
			// `kubectl create secret generic reports-api-secrets --from-file=.env` instead of
			// --from-env-file: it now holds one key named .env with the whole file, so envFrom
			// sets no DATABASE_URL and the gunicorn workers fail to boot.
			Name: "reports-api-crashloop-after-rotation", Covers: "reports-api (gunicorn, Flask) crash-loops with exit 3: \"KeyError: 'DATABASE_URL'\", 'Worker failed to boot.'; Secret reports-api-secrets, read with envFrom, was recreated with --from-file and holds a single key .env containing the whole file (reports-worker's Secret has one key per variable)",
			Source: w22aSrcFromFile, Class: ClassReference, Hops: 1,
			Problem: "reports-api has been crash-looping since we rotated its credentials this morning",
			Target:  target("Deployment", "reports-api"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "reports-api-secrets"}, Terms: []string{".env"}},
			Setup: func(ctx context.Context, e *Env) error {
				tm := "  File \"/app/reports/config.py\", line 14, in <module>\n    SQLALCHEMY_DATABASE_URI = os.environ[\"DATABASE_URL\"]\n                              ~~~~~~~~~~^^^^^^^^^^^^^^^^\n  File \"<frozen os>\", line 714, in __getitem__\nKeyError: 'DATABASE_URL'\n[2026-03-12 08:14:03 +0000] [8] [INFO] Worker exiting (pid: 8)\n[2026-03-12 08:14:03 +0000] [1] [ERROR] Worker (pid:8) exited with code 3\n[2026-03-12 08:14:03 +0000] [1] [ERROR] Shutting down: Master\n[2026-03-12 08:14:03 +0000] [1] [ERROR] Reason: Worker failed to boot."
				dotenv := "DATABASE_URL=postgresql://reports:N4vq8Rz2Lw@reports-pg:5432/reports\nSECRET_KEY=9f1c7d0b5e2a4c8f83b6d1e7a0c4f2b9\nS3_BUCKET=reports-exports\nSENTRY_DSN=https://4b1e0c@sentry.example.com/12\n"
				return steps(
					func() error {
						return e.w11bStore(ctx, "reports-pg", "postgres:16.4", w22aLabels("postgresql", "reports-pg"), nil, "postgresql", 5432, "POSTGRES_DB", "reports", "POSTGRES_USER", "reports")
					},
					func() error { return e.w22aRawSecret(ctx, "reports-api-secrets", map[string]string{".env": dotenv}) },
					func() error {
						return e.createSecret(ctx, "reports-worker-secrets", map[string]string{
							"DATABASE_URL": "postgresql://reports_worker:Tq6Mx1Vb3p@reports-pg:5432/reports", "S3_BUCKET": "reports-exports", "SECRET_KEY": "0a7e3f9c1d5b8e2f4a6c0d9b7e1f3a5c"})
					},
					func() error {
						d := w11bApp("reports-api", "reports-api", "registry.example/reports/reports-api:2.6.1", 2, reports, crash("3", tm, "w22a-reports-api"), "http", 8000)
						d.Spec.Template.Spec.Containers[0].Args = []string{"gunicorn", "--bind=0.0.0.0:8000", "--workers=3", "reports.wsgi:app"}
						d.Spec.Template.Spec.Containers[0].TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError
						envFromSecret(&d.Spec.Template, "reports-api-secrets")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("reports-worker", "worker", "registry.example/reports/reports-api:2.6.1", 1, w8bLabels("reports-worker", "reports"), nil, "", 0)
						d.Spec.Template.Spec.Containers[0].Args = []string{"celery", "-A", "reports.tasks", "worker", "--loglevel=INFO"}
						envFromSecret(&d.Spec.Template, "reports-worker-secrets")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(reports, crashLooping(2)), readyReplicas("reports-worker", 1), w11aStatefulSetReady("reports-pg", 1)),
		},
		{
			// The Redis move to Sentinel named the monitored master quota-primary. quota-api
			// kept its chart's REDIS_SENTINEL_MASTER=mymaster, so every Sentinel answers that
			// it knows no such master and /readyz fails; quota-sync asks for quota-primary.
			Name: "quota-api-never-ready-after-sentinel", Covers: "quota-api pods are Running but never Ready (/readyz 503) and log \"redis.sentinel.MasterNotFoundError: No master found for 'mymaster'\"; the Sentinels of quota-redis monitor a master named quota-primary (sentinel.conf in ConfigMap quota-redis-sentinel) while Deployment quota-api sets REDIS_SENTINEL_MASTER=mymaster (quota-sync asks for quota-primary and works)",
			Source: w22aSrcSentinelName, Class: ClassProvider, Hops: 2,
			Problem: "quota-api pods never become Ready since Redis was moved behind Sentinel, so every quota check through the gateway fails",
			Target:  target("Deployment", "quota-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "quota-api"}, Terms: []string{"quota-primary"}},
			Setup: func(ctx context.Context, e *Env) error {
				rl := w22aLabels("redis", "quota-redis")
				sentinel := "port 26379\nsentinel resolve-hostnames yes\nsentinel announce-hostnames yes\nsentinel monitor quota-primary quota-redis-0.quota-redis-headless 6379 2\nsentinel down-after-milliseconds quota-primary 5000\nsentinel failover-timeout quota-primary 60000\nsentinel parallel-syncs quota-primary 1\n"
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "quota-redis-sentinel", rl, map[string]string{"sentinel.conf": sentinel})
					},
					func() error {
						st := w8bStatefulSet("quota-redis", "redis:7.2.5", "quota-redis-headless", 3, rl, nil, "redis", 6379)
						st.Spec.Template.Spec.Containers[0].Name = "redis"
						w22aWithSidecar(st, "sentinel", "redis:7.2.5", "sentinel", 26379, "redis-sentinel", "/etc/redis-sentinel/sentinel.conf")
						st.Spec.Template.Spec.Volumes = append(st.Spec.Template.Spec.Volumes, w11bConfigMapVolume("quota-redis-sentinel"))
						st.Spec.Template.Spec.Containers[1].VolumeMounts = []corev1.VolumeMount{w11bMount("quota-redis-sentinel", "/etc/redis-sentinel", "")}
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless("quota-redis-headless", rl, "redis", 6379)); err != nil {
							return err
						}
						return e.createService(ctx, w10aServicePort(w8bService("quota-redis", rl, "sentinel", 26379), "redis", 6379))
					},
					func() error {
						d := w11bApp("quota-api", "quota-api", "registry.example/platform/quota-api:1.8.2", 2, quota,
							w11bReadinessFail("quota-api", "w22a-quota-api", "HTTP probe failed with statuscode: 503"), "http", 8000)
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w10aProbe("/readyz", "http", 5)
						w8bEnv(&d.Spec.Template, "REDIS_SENTINELS", "quota-redis:26379", "REDIS_SENTINEL_MASTER", "mymaster", "REDIS_DB", "2", "QUOTA_WINDOW_SECONDS", "60")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("quota-sync", "quota-sync", "registry.example/platform/quota-sync:1.8.2", 1, w8bLabels("quota-sync", "platform"), nil, "metrics", 9100)
						w8bEnv(&d.Spec.Template, "REDIS_SENTINELS", "quota-redis:26379", "REDIS_SENTINEL_MASTER", "quota-primary", "REDIS_DB", "2")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(quota, runningNotReady), podEvent("Unhealthy", "statuscode: 503"), readyReplicas("quota-sync", 1), w11aStatefulSetReady("quota-redis", 3)),
		},
	}
}
