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

// w17aBackofficeNginx is the back office's nginx server block after the staging lockdown:
// auth_basic at server level also covers /healthz, which php-fpm's ping answers.
const w17aBackofficeNginx = "server {\n    listen 8080;\n    server_name _;\n    root /var/www/html/public;\n    index index.php;\n\n    auth_basic           \"Staging - authorised staff only\";\n    auth_basic_user_file /etc/nginx/htpasswd/auth;\n\n    location / {\n        try_files $uri /index.php$is_args$args;\n    }\n\n    location ~ \\.php$ {\n        include fastcgi_params;\n        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;\n        fastcgi_pass 127.0.0.1:9000;\n    }\n\n    location = /healthz {\n        access_log off;\n        include fastcgi_params;\n        fastcgi_param SCRIPT_NAME /fpm-ping;\n        fastcgi_param SCRIPT_FILENAME /fpm-ping;\n        fastcgi_pass 127.0.0.1:9000;\n    }\n}\n"

// w17aStorefrontNginx is the storefront's server block: no authentication.
const w17aStorefrontNginx = "server {\n    listen 8080;\n    server_name _;\n    root /var/www/html/public;\n    index index.php;\n\n    location / {\n        try_files $uri /index.php$is_args$args;\n    }\n\n    location ~ \\.php$ {\n        include fastcgi_params;\n        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;\n        fastcgi_pass 127.0.0.1:9000;\n    }\n\n    location = /healthz {\n        access_log off;\n        include fastcgi_params;\n        fastcgi_param SCRIPT_NAME /fpm-ping;\n        fastcgi_param SCRIPT_FILENAME /fpm-ping;\n        fastcgi_pass 127.0.0.1:9000;\n    }\n}\n"

// w17aPrefsDB is the chart's fullname for release customer-notification-preferences-eu-staging
// of the postgresql chart: 55 characters.
const w17aPrefsDB = "customer-notification-preferences-eu-staging-postgresql"

func wave17aMoreScenarios() []*Scenario {
	backup := w8cLabels("app.kubernetes.io/name", "ledger-db-backup", "app.kubernetes.io/part-of", "ledger")
	mongo := w8cLabels("app.kubernetes.io/name", "mongodb", "app.kubernetes.io/instance", "reviews-mongo")
	reviews := w8bLabels("reviews-api", "reviews")
	keel := w8cLabels("app", "keel")
	office := w8bLabels("backoffice", "backoffice")
	prefs := w8bLabels("prefs-api", "notification-preferences")
	pg := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "customer-notification-preferences-eu-staging")
	return []*Scenario{
		{
			// The ledger database went from PostgreSQL 15 to 16; the backup CronJob still runs
			// the postgres:15.7 image, and pg_dump refuses to dump a newer server ("aborting
			// because of server version mismatch"). The vacuum CronJob uses a 16 image.
			Name: "ledger-nightly-backup-red-since-tuesday", Covers: "every run of CronJob ledger-db-backup fails (exit 1): 'pg_dump: error: aborting because of server version mismatch ... server version: 16.3; pg_dump version: 15.7'; the CronJob's image is postgres:15.7-alpine while StatefulSet ledger-db runs postgres:16.3 (ledger-db-vacuum with a 16.3 image succeeds)",
			Source: w17aSrcPgDumpVersion, Class: ClassClue, Hops: 2, Slow: true,
			Problem: "KubeJobFailed for the ledger backup every night since Tuesday's database maintenance; the vacuum job against the same database still succeeds and the database is healthy",
			Target:  target("CronJob", "ledger-db-backup"),
			Want:    Want{Culprit: Ref{Kind: "CronJob", Name: "ledger-db-backup"}, Terms: []string{"pg_dump", "version"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11bStore(ctx, "ledger-db", "docker.io/library/postgres:16.3", w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "ledger-db"), nil, "postgres", 5432, "POSTGRES_DB", "ledger")
					},
					func() error {
						return e.createSecret(ctx, "ledger-db-backup", map[string]string{"PGPASSWORD": "b4ckup-9Qx2", "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE7Q2W", "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"})
					},
					func() error {
						msg := "pg_dump: error: aborting because of server version mismatch\npg_dump: detail: server version: 16.3 (Debian 16.3-1.pgdg120+1); pg_dump version: 15.7"
						c := w13aCronJob("ledger-db-backup", "docker.io/library/postgres:15.7-alpine", backup,
							sim("fail", annExitCode, "1", annMessage, msg, annLogs, "w17a-ledger-backup-pgdump"))
						t := &c.Spec.JobTemplate.Spec.Template
						t.Spec.Containers[0].Command = []string{"/bin/sh", "-xc", "STAMP=$(date -u +%Y%m%dT%H%M%SZ); pg_isready -h ledger-db -p 5432 -t 10 && pg_dump --host=ledger-db --username=backup --format=custom --no-owner --file=/backup/ledger-$STAMP.dump ledger && aws s3 cp /backup/ledger-$STAMP.dump s3://acme-db-backups/ledger/"}
						envFromSecret(t, "ledger-db-backup")
						w9aEmptyDir(t, "backup", "/backup")
						return e.w11aCreateCronJob(ctx, c)
					},
					func() error {
						c := w11aCronJob("ledger-db-vacuum", "docker.io/library/postgres:16.3-alpine", "* * * * *", false,
							w8cLabels("app.kubernetes.io/name", "ledger-db-vacuum", "app.kubernetes.io/part-of", "ledger"),
							"vacuumdb", "--host=ledger-db", "--username=backup", "--analyze-only", "ledger")
						envKeyFromSecret(&c.Spec.JobTemplate.Spec.Template, "PGPASSWORD", "ledger-db-backup", "PGPASSWORD")
						return e.w11aCreateCronJob(ctx, c)
					},
				)
			},
			Wait: all(w13aAnyJobFailed, w11aAnyJobComplete, w11aStatefulSetReady("ledger-db", 1)),
		},
		{
			// The replica set (needed for change streams) was initiated by an init script with
			// member host "localhost:27017". A driver connecting with replicaSet=rs0 discovers
			// that member name and dials its own localhost; directConnection clients are fine.
			Name: "reviews-api-refused-after-change-streams", Covers: "reviews-api (Node, mongoose) crash-loops on 'MongooseServerSelectionError: connect ECONNREFUSED 127.0.0.1:27017' although its URI names reviews-mongo-0.reviews-mongo with replicaSet=rs0: the init script in ConfigMap reviews-mongo-init ran rs.initiate with member host localhost:27017, so the driver's discovered topology points at localhost (reviews-digest, using directConnection=true, works)",
			Source: w17aSrcMongoLocal, Class: ClassProvider, Hops: 2,
			Problem: "reviews-api crash-loops with ECONNREFUSED 127.0.0.1:27017 since we switched Mongo to a replica set for change streams, but the URI clearly points at reviews-mongo-0, not localhost! mongo-0 is Running and Ready",
			Target:  target("Deployment", "reviews-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "reviews-mongo-init"}, Terms: []string{"localhost"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "reviews-mongo-init", map[string]string{"01-replset.js": "// initiate the single-member replica set used for change streams\nrs.initiate({\n  _id: \"rs0\",\n  members: [{ _id: 0, host: \"localhost:27017\" }]\n});\n"})
					},
					func() error {
						st := w8bStatefulSet("reviews-mongo", "docker.io/library/mongo:7.0.12", "reviews-mongo", 1, mongo, running("w17a-reviews-mongo"), "mongodb", 27017)
						w8cArgs(&st.Spec.Template, "--replSet", "rs0", "--bind_ip_all")
						w17aMountDir(&st.Spec.Template, "reviews-mongo-init", "/docker-entrypoint-initdb.d")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bHeadless("reviews-mongo", mongo, "mongodb", 27017))
					},
					func() error {
						d := w11bApp("reviews-api", "reviews-api", "registry.example/reviews/reviews-api:2.9.0", 2, reviews,
							crash("1", "MongooseServerSelectionError: connect ECONNREFUSED 127.0.0.1:27017", "w17a-reviews-api-mongoose"), "http", 3000)
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "MONGODB_URI", "mongodb://reviews-mongo-0.reviews-mongo:27017/reviews?replicaSet=rs0", "CHANGE_STREAMS", "true")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("reviews-digest", "digest", "registry.example/reviews/reviews-digest:2.9.0", 1, w8bLabels("reviews-digest", "reviews"), nil, "metrics", 9100)
						w8bEnv(&d.Spec.Template, "MONGODB_URI", "mongodb://reviews-mongo-0.reviews-mongo:27017/reviews?directConnection=true")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(reviews, crashLooping(2)), w11aStatefulSetReady("reviews-mongo", 1), readyReplicas("reviews-digest", 1)),
		},
		{
			// Keel 0.16.1 was built with a client-go that watches batch/v1beta1 CronJobs, an
			// API removed in Kubernetes 1.25. After the cluster upgrade its informers never sync
			// and nothing is updated any more, while the pod stays Running and Ready.
			Name: "image-auto-updates-stopped-after-upgrade", Covers: "outside the catalogue: storefront keeps its old image because keel (0.16.1, Running and Ready) no longer updates anything; keel's log repeats 'Failed to list *v1beta1.CronJob: the server could not find the requested resource': the keel Deployment runs a release that watches an API the upgraded cluster no longer serves",
			Source: w17aSrcKeelBeta, Class: ClassOutside, Hops: 1,
			Problem: "storefront still runs 4.3.0 although 4.3.1 has been in the registry since this morning; new images stopped being rolled out automatically after the cluster upgrade, and keel looks healthy",
			Target:  target("Deployment", "storefront"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "keel"}, Terms: []string{"v1beta1"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.createServiceAccount(ctx, "keel") },
					func() error {
						d := w11bApp("keel", "keel", "docker.io/keelhq/keel:0.16.1", 1, keel, running("w17a-keel-v1beta1"), "http", 9300)
						w15aServiceAccount(&d.Spec.Template, "keel")
						w8bEnv(&d.Spec.Template, "POLL", "1", "SLACK_CHANNELS", "deployments", "BASIC_AUTH_USER", "admin")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w14aHTTPProbe("/healthz", "http", 10, 3)
						return e.w11bServe(ctx, d, 9300)
					},
					func() error {
						d := w11bApp("storefront", "storefront", "registry.example/shop/storefront:4.3.0", 2, w8bLabels("storefront", "shop"), nil, "http", 3000)
						d.Annotations = map[string]string{"keel.sh/policy": "patch", "keel.sh/trigger": "poll", "keel.sh/pollSchedule": "@every 5m"}
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						c := w11aCronJob("sitemap-builder", "registry.example/shop/sitemap-builder:1.4.2", "*/30 * * * *", false, w8bLabels("sitemap-builder", "shop"))
						c.Annotations = map[string]string{"keel.sh/policy": "minor", "keel.sh/trigger": "poll"}
						return e.w11aCreateCronJob(ctx, c)
					},
				)
			},
			Wait: all(readyReplicas("keel", 1), readyReplicas("storefront", 2)),
		},
		{
			// Staging was locked down with auth_basic at the nginx server level. The block also
			// covers /healthz (a fastcgi location, so the access phase runs), the liveness probe
			// gets 401 without credentials, and the kubelet restarts a working back office.
			Name: "backoffice-restarts-since-lockdown", Covers: "backoffice's nginx container is killed by its liveness probe over and over, 'Liveness probe failed: HTTP probe failed with statuscode: 401', and logs 'no user/password was provided for basic authentication' for GET /healthz: ConfigMap backoffice-nginx sets auth_basic for the whole server, /healthz included (storefront-web's server block has no auth and stays up)",
			Source: w17aSrcProbeAuth, Class: ClassMechanism, Hops: 1,
			Problem: "since yesterday's change to password-protect the staging back office, its pods restart every minute or so; when we catch one between restarts the login prompt and the admin pages work",
			Target:  target("Deployment", "backoffice"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "backoffice-nginx"}, Terms: []string{"auth_basic"}},
			Setup: func(ctx context.Context, e *Env) error {
				web := func(name, cm string, lbl, ann map[string]string) error {
					d := w11bApp(name, "php-fpm", "registry.example/"+name+"/app:2025.03.1", 1, lbl, ann, "fpm", 9000)
					n := w10aContainer(&d.Spec.Template, "nginx", "docker.io/library/nginx:1.27.1-alpine", "http", 8080)
					n.LivenessProbe = w14aHTTPProbe("/healthz", "http", 10, 3)
					w17aMountKey(&d.Spec.Template, 1, cm, "/etc/nginx/conf.d/default.conf", "default.conf")
					if name == "backoffice" {
						w14bMountSecret(&d.Spec.Template, &d.Spec.Template.Spec.Containers[1], "backoffice-htpasswd", "/etc/nginx/htpasswd")
					}
					if err := e.createDeployment(ctx, d); err != nil {
						return err
					}
					return e.createService(ctx, w10aServiceTo(name, lbl, "http", 80, "http"))
				}
				return steps(
					func() error {
						return e.createConfigMap(ctx, "backoffice-nginx", map[string]string{"default.conf": w17aBackofficeNginx})
					},
					func() error {
						return e.createConfigMap(ctx, "storefront-nginx", map[string]string{"default.conf": w17aStorefrontNginx})
					},
					func() error {
						return e.createSecret(ctx, "backoffice-htpasswd", map[string]string{"auth": "ops:$apr1$Qm3k8Jx1$0bq1Jm4m0c2kZ9XkYfGJ7/\n"})
					},
					func() error {
						return web("backoffice", "backoffice-nginx", office, w10aOn("nginx", "liveness-fail", "w17a-backoffice-nginx-401", annMessage, "HTTP probe failed with statuscode: 401"))
					},
					func() error {
						return web("storefront-web", "storefront-nginx", w8bLabels("storefront-web", "shop"), nil)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("backoffice", "backoffice.staging.example.com", "backoffice", 80))
					},
				)
			},
			Wait: all(podsWith(office, restartedWith("Error", 137)), podEvent("Unhealthy", "401"), readyReplicas("storefront-web", 1)),
		},
		{
			// helm install with a long release name made the postgresql chart's fullname 55
			// characters. The StatefulSet is accepted, but every pod it creates carries
			// controller-revision-hash=<name>-<hash>, longer than a label value may be (63).
			Name: "prefs-api-down-on-fresh-staging-install", Covers: "prefs-api (Elixir, Ecto) crash-loops on 'tcp connect (customer-notification-preferences-eu-staging-postgresql:5432): connection refused'; that Service has no endpoints because the StatefulSet of the same 55-character name never creates a pod: FailedCreate 'metadata.labels: Invalid value ...: must be no more than 63 characters' (its controller-revision-hash label); prefs-redis, with a short name, runs",
			Source: w17aSrcStsName, Class: ClassProvider, Hops: 3,
			Problem: "fresh staging install of the notification-preferences stack: prefs-api crash-loops on 'connection refused' to its postgres, and there is no postgres pod at all, although helm install said the release was deployed",
			Target:  target("Deployment", "prefs-api"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: w17aPrefsDB}, Terms: []string{"63"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, w17aPrefsDB, map[string]string{"postgres-password": "Vn4cK8sPq2Lm", "password": "P7rWq1Zt0dXe"})
					},
					func() error {
						st := w8bStatefulSet(w17aPrefsDB, "docker.io/bitnami/postgresql:16.3.0-debian-12-r23", w17aPrefsDB+"-hl", 1, pg, nil, "tcp-postgresql", 5432)
						w8bEnv(&st.Spec.Template, "POSTGRESQL_DATABASE", "prefs", "POSTGRESQL_USERNAME", "prefs")
						envKeyFromSecret(&st.Spec.Template, "POSTGRES_PASSWORD", w17aPrefsDB, "password")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						if err := e.createService(ctx, w8bHeadless(w17aPrefsDB+"-hl", pg, "tcp-postgresql", 5432)); err != nil {
							return err
						}
						return e.createService(ctx, w8bService(w17aPrefsDB, pg, "tcp-postgresql", 5432))
					},
					func() error {
						return e.w11bStore(ctx, "prefs-redis", "docker.io/library/redis:7.2.4-alpine", w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "prefs-redis"), nil, "redis", 6379)
					},
					func() error {
						d := w11bApp("prefs-api", "prefs-api", "registry.example/notifications/prefs-api:1.8.3", 2, prefs, crash("1", "", "w17a-prefs-api-ecto"), "http", 4000)
						w8cArgs(&d.Spec.Template, "/app/bin/server")
						w8bEnv(&d.Spec.Template, "DATABASE_HOST", w17aPrefsDB, "DATABASE_NAME", "prefs", "DATABASE_USER", "prefs", "REDIS_URL", "redis://prefs-redis:6379", "PHX_HOST", "prefs.staging.example.com")
						envKeyFromSecret(&d.Spec.Template, "DATABASE_PASSWORD", w17aPrefsDB, "password")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(prefs, crashLooping(2)), w11aEvent("StatefulSet", "FailedCreate", "63"), w11aStatefulSetReady("prefs-redis", 1)),
		},
		{
			// The platform team added namespace defaults: a LimitRange whose default memory
			// limit is 256Mi. reports-api requests 512Mi and sets no limit, so it inherits a
			// 256Mi limit below its own request and every pod is invalid at creation.
			Name: "reports-release-has-zero-pods", Covers: "Deployment reports-api has no pod at all: its ReplicaSet's FailedCreate says 'spec.containers[0].resources.requests: Invalid value: \"512Mi\": must be less than or equal to memory limit of 256Mi': it requests 512Mi without a limit, and LimitRange namespace-defaults gives it a default limit of 256Mi (reports-ui, without resources, and reports-worker, with its own limit, run)",
			Source: w17aSrcLimitDefault, Class: ClassMechanism, Hops: 1,
			Problem: "this morning's reports-api release has zero pods: not Pending, not crashing, just none. reports-ui and reports-worker went out in the same pipeline and are fine",
			Target:  target("Deployment", "reports-api"),
			Want:    Want{Culprit: Ref{Kind: "LimitRange", Name: "namespace-defaults"}, Also: []Ref{{Kind: "Deployment", Name: "reports-api"}}, Terms: []string{"256Mi"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error { return e.w17aMemoryDefaults(ctx, "namespace-defaults", "256Mi", "128Mi") },
					func() error {
						d := w11bApp("reports-api", "reports-api", "registry.example/reports/reports-api:3.2.0", 2, w8bLabels("reports-api", "reports"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "JAVA_TOOL_OPTIONS", "-XX:MaxRAMPercentage=75", "SPRING_PROFILES_ACTIVE", "prod")
						w17aMemoryOnly(&d.Spec.Template, 0, "512Mi", "")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.w11bServe(ctx, w11bApp("reports-ui", "reports-ui", "registry.example/reports/reports-ui:3.2.0", 1, w8bLabels("reports-ui", "reports"), nil, "http", 8080), 80)
					},
					func() error {
						d := w11bApp("reports-worker", "reports-worker", "registry.example/reports/reports-worker:3.2.0", 1, w8bLabels("reports-worker", "reports"), nil, "metrics", 9090)
						w17aMemoryOnly(&d.Spec.Template, 0, "384Mi", "768Mi")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("reports", "reports.example.com", "reports-ui", 80))
					},
				)
			},
			Wait: all(w11aEvent("ReplicaSet", "FailedCreate", "must be less than or equal to memory limit"), readyReplicas("reports-ui", 1), readyReplicas("reports-worker", 1)),
		},
	}
}
