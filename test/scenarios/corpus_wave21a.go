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

// Wave 21a, "only the log knows": the workload showing the symptom fails generically (exit 1
// with no termination message, a readiness probe answering 500, a Job that fails, Running pods
// whose requests fail) and the cause appears only in the text its container prints: a database,
// a config file name, a setting, a remote, an origin, an index or a cookie, whose value comes
// from an object of the namespace a user must edit. Stacks and log formats vary (Spring and
// HikariCP, node-config, Laravel, rclone, Django, Rust/envy, the Elasticsearch JS client,
// Elixir and distributed Erlang). Written blind by an outside hand; every Want was fixed from
// the source before anything ran.

func wave21aScenarios() []*Scenario {
	return append(wave21aFirstScenarios(), wave21aMoreScenarios()...)
}

func wave21aFirstScenarios() []*Scenario {
	mysql := w8cLabels("app.kubernetes.io/name", "mysql", "app.kubernetes.io/instance", "stock-mysql")
	stock := w8bLabels("stock-api", "inventory")
	stockReports := w8bLabels("stock-reports", "inventory")
	notifier := w8bLabels("notifier", "messaging")
	digest := w8bLabels("notifier-digest", "messaging")
	helpdesk := w8bLabels("helpdesk-web", "helpdesk")
	queue := w8bLabels("helpdesk-queue", "helpdesk")
	minio := w8cLabels("app.kubernetes.io/name", "minio", "app.kubernetes.io/instance", "minio")
	return []*Scenario{
		{
			// The database moved from RDS to an in-cluster MySQL whose chart created the schema
			// "inventory"; the app's ConfigMap kept the RDS schema name in the JDBC URL. MySQL
			// answers error 1049 and HikariCP fails fast, so Spring exits 1 before the server
			// starts; only the stack trace names the database.
			Name:    "stock-api-restarts-after-db-cutover",
			Covers:  "stock-api (Spring Boot, HikariCP, Flyway) exits 1 with no termination message; its log's stack trace says 'java.sql.SQLSyntaxErrorException: Unknown database 'inventory_prod'': SPRING_DATASOURCE_URL in ConfigMap stock-api-config names schema inventory_prod while StatefulSet stock-mysql creates MYSQL_DATABASE=inventory (stock-reports, whose ConfigMap names inventory, runs)",
			Source:  w21aSrcUnknownDB,
			Class:   ClassClue,
			Hops:    2,
			Problem: "stock-api has been crash-looping since the database cutover last night; the MySQL pod is up and stock-reports can query it",
			Target:  target("Deployment", "stock-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "stock-api-config"}, Terms: []string{"inventory_prod"}},
			Setup: func(ctx context.Context, e *Env) error {
				jdbc := func(schema string) string {
					return "jdbc:mysql://stock-mysql:3306/" + schema + "?useSSL=false&allowPublicKeyRetrieval=true&serverTimezone=UTC"
				}
				return steps(
					func() error {
						return e.w11bStore(ctx, "stock-mysql", "docker.io/library/mysql:8.0.39", mysql, nil, "mysql", 3306,
							"MYSQL_DATABASE", "inventory", "MYSQL_USER", "stock", "MYSQL_RANDOM_ROOT_PASSWORD", "yes")
					},
					func() error {
						return e.createSecret(ctx, "stock-mysql-auth", map[string]string{"username": "stock", "password": "pV7k2sQx9LwE4mTz"})
					},
					func() error {
						return e.w10aConfigMap(ctx, "stock-api-config", stock, map[string]string{
							"SPRING_PROFILES_ACTIVE": "prod", "SPRING_DATASOURCE_URL": jdbc("inventory_prod"),
							"SPRING_DATASOURCE_USERNAME": "stock", "SPRING_JPA_OPEN_IN_VIEW": "false",
							"SPRING_FLYWAY_ENABLED": "true", "SERVER_SHUTDOWN": "graceful", "JAVA_TOOL_OPTIONS": "-XX:MaxRAMPercentage=75",
						})
					},
					func() error {
						return e.w10aConfigMap(ctx, "stock-reports-config", stockReports, map[string]string{
							"SPRING_PROFILES_ACTIVE": "prod", "SPRING_DATASOURCE_URL": jdbc("inventory"),
							"SPRING_DATASOURCE_USERNAME": "stock", "SPRING_DATASOURCE_HIKARI_READ_ONLY": "true",
						})
					},
					func() error {
						d := w11bApp("stock-api", "stock-api", "registry.example/inventory/stock-api:4.7.0", 2, stock, crash("1", "", "w21a-stock-api-unknown-db"), "http", 8080)
						envFromConfigMap(&d.Spec.Template, "stock-api-config")
						envKeyFromSecret(&d.Spec.Template, "SPRING_DATASOURCE_PASSWORD", "stock-mysql-auth", "password")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("stock-reports", "stock-reports", "registry.example/inventory/stock-reports:2.3.1", 1, stockReports, nil, "http", 8080)
						envFromConfigMap(&d.Spec.Template, "stock-reports-config")
						envKeyFromSecret(&d.Spec.Template, "SPRING_DATASOURCE_PASSWORD", "stock-mysql-auth", "password")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(stock, crashLooping(2)), w11aStatefulSetReady("stock-mysql", 1), readyReplicas("stock-reports", 1)),
		},
		{
			// node-config loads default.json plus <NODE_ENV>.json from NODE_CONFIG_DIR. The env
			// cleanup moved NODE_ENV into a ConfigMap as "prod"; no prod.json exists, so only
			// default.json loads (a WARNING, not an error) and the first config.get of a
			// production-only key throws. The warning names the value; the crash names the key.
			Name:    "notifier-crashloop-after-env-cleanup",
			Covers:  "notifier (Node, node-config) exits 1 with no termination message; its log says \"WARNING: NODE_ENV value of 'prod' did not match any deployment config file names.\" then 'Error: Configuration property \"smtp.host\" is not defined': ConfigMap notifier-env sets NODE_ENV=prod while the mounted ConfigMap notifier-settings has default.json and production.json (notifier-digest, with NODE_ENV=production, runs)",
			Source:  w21aSrcNodeConfig,
			Class:   ClassClue,
			Hops:    2,
			Problem: "no notification emails have gone out since this morning's config cleanup, the notifier pods keep restarting",
			Target:  target("Deployment", "notifier"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "notifier-env"}, Terms: []string{"NODE_ENV"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "notifier-settings", w8bLabels("notifier", "messaging"), map[string]string{
							"default.json":    `{"http":{"port":8080},"metrics":{"port":9464},"templates":{"dir":"/app/templates","locales":["en","de","fr"]},"queue":{"url":"amqp://rabbitmq:5672/messaging","prefetch":5}}`,
							"production.json": `{"smtp":{"host":"smtp.eu.mailgun.org","port":587,"secure":false,"pool":true},"queue":{"prefetch":20},"links":{"baseUrl":"https://app.acme.example"}}`,
						})
					},
					func() error {
						return e.w10aConfigMap(ctx, "notifier-env", notifier, map[string]string{
							"NODE_ENV": "prod", "NODE_CONFIG_DIR": "/app/config", "LOG_LEVEL": "info", "UV_THREADPOOL_SIZE": "8",
						})
					},
					func() error {
						d := w11bApp("notifier", "notifier", "registry.example/messaging/notifier:3.12.0", 2, notifier, crash("1", "", "w21a-notifier-node-config"), "metrics", 9464)
						envFromConfigMap(&d.Spec.Template, "notifier-env")
						envKeyFromSecret(&d.Spec.Template, "SMTP_PASSWORD", "notifier-smtp", "password")
						mountConfigMap(&d.Spec.Template, "notifier-settings", "/app/config")
						return e.createDeployment(ctx, d)
					},
					func() error {
						return e.createSecret(ctx, "notifier-smtp", map[string]string{"username": "postmaster@mg.acme.example", "password": "5e1f0c9a7d2b44e8"})
					},
					func() error {
						d := w11bApp("notifier-digest", "notifier-digest", "registry.example/messaging/notifier:3.12.0", 1, digest, nil, "metrics", 9464)
						w8cArgs(&d.Spec.Template, "node", "dist/digest.js", "--interval=15m")
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "NODE_CONFIG_DIR", "/app/config")
						envKeyFromSecret(&d.Spec.Template, "SMTP_PASSWORD", "notifier-smtp", "password")
						mountConfigMap(&d.Spec.Template, "notifier-settings", "/app/config")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(notifier, crashLooping(2)), readyReplicas("notifier-digest", 1)),
		},
		{
			// The chart upgrade added an explicit `APP_KEY: {{ .Values.app.key | quote }}` env
			// entry (empty by default). The key lives in the Secret loaded with envFrom, but a
			// variable set in env wins over envFrom, so Laravel sees an empty APP_KEY and every
			// request, the /up probe included, answers 500.
			Name:    "helpdesk-web-unready-after-chart-bump",
			Covers:  "helpdesk-web (Laravel on php-fpm) is Running but never Ready, 'Readiness probe failed: HTTP probe failed with statuscode: 500'; its log repeats 'production.ERROR: No application encryption key has been specified. (MissingAppKeyException)': the Deployment's env sets APP_KEY to an empty value, which overrides the APP_KEY of envFrom Secret helpdesk-env (helpdesk-queue, same Secret and no override, runs)",
			Source:  w21aSrcAppKey,
			Class:   ClassClue,
			Hops:    1,
			Problem: "the helpdesk portal answers 503 since we upgraded its Helm chart; helpdesk-web pods run but none becomes ready",
			Target:  target("Deployment", "helpdesk-web"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "helpdesk-web"}, Terms: []string{"APP_KEY"}},
			Setup: func(ctx context.Context, e *Env) error {
				image := "registry.example/helpdesk/helpdesk:5.2.0-fpm"
				return steps(
					func() error {
						return e.createSecret(ctx, "helpdesk-env", map[string]string{
							"APP_KEY": "base64:q8N1x0Jm3vYc9WfQeT2LrA5sZk7HdPuB6gEoVtMiKyc=", "DB_PASSWORD": "hd-8Rw2mQ4zLx", "MAIL_PASSWORD": "mg-71cf0e2ab9",
						})
					},
					func() error {
						return e.createConfigMap(ctx, "helpdesk-config", map[string]string{
							"APP_ENV": "production", "APP_DEBUG": "false", "APP_URL": "https://help.acme.example", "LOG_CHANNEL": "stderr",
							"DB_CONNECTION": "mysql", "DB_HOST": "helpdesk-mysql", "DB_DATABASE": "helpdesk", "DB_USERNAME": "helpdesk",
							"QUEUE_CONNECTION": "redis", "REDIS_HOST": "helpdesk-redis", "SESSION_DRIVER": "redis",
						})
					},
					func() error {
						d := w11bApp("helpdesk-web", "php-fpm", image, 2, helpdesk, w11bReadinessFail("php-fpm", "w21a-helpdesk-app-key", "HTTP probe failed with statuscode: 500"), "http", 8080)
						envFromConfigMap(&d.Spec.Template, "helpdesk-config")
						envFromSecret(&d.Spec.Template, "helpdesk-env")
						w8bEnv(&d.Spec.Template, "APP_KEY", "", "PHP_FPM_PM_MAX_CHILDREN", "16", "OPCACHE_VALIDATE_TIMESTAMPS", "0")
						w8bReadiness(&d.Spec.Template, "/up", "http", 10)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("helpdesk-queue", "queue", image, 1, queue, nil, "", 0)
						w8cArgs(&d.Spec.Template, "php", "artisan", "queue:work", "redis", "--sleep=3", "--tries=3", "--max-time=3600")
						envFromConfigMap(&d.Spec.Template, "helpdesk-config")
						envFromSecret(&d.Spec.Template, "helpdesk-env")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(helpdesk, runningNotReady), podEvent("Unhealthy", "statuscode: 500"), readyReplicas("helpdesk-queue", 1)),
		},
		{
			// rclone resolves "<remote>:<path>" against the [sections] of its config file. The
			// platform team's Secret names the MinIO remote [backup-store]; the media Job was
			// written against an older config whose remote was minio-backups, so rclone exits 1
			// before copying anything and the Job runs out of retries.
			Name:    "media-offsite-sync-job-fails",
			Covers:  "Job media-offsite-sync fails (BackoffLimitExceeded, exit 1, no termination message); its log says 'Failed to create file system for \"minio-backups:media-archive\": didn't find section in config file': the Job's command syncs to remote minio-backups while rclone.conf in Secret rclone-config only defines [backup-store] (Job db-dumps-offsite, which copies to backup-store:, completes)",
			Source:  w21aSrcRclone,
			Class:   ClassReference,
			Hops:    1,
			Problem: "the offsite copy of the media library failed again after the storage migration; the database dump copy next to it went fine",
			Target:  target("Job", "media-offsite-sync"),
			Want:    Want{Culprit: Ref{Kind: "Job", Name: "media-offsite-sync"}, Terms: []string{"minio-backups"}},
			Setup: func(ctx context.Context, e *Env) error {
				rclone := "docker.io/rclone/rclone:1.68.2"
				conf := "[backup-store]\ntype = s3\nprovider = Minio\nenv_auth = false\naccess_key_id = offsite-sync\nsecret_access_key = 0f5Yc2WqLr8NvKx3Tb6M\nendpoint = http://minio:9000\nacl = private\nno_check_bucket = true\n"
				script := func(src, dst string) string {
					return "set -x\necho \"offsite sync of " + src + " started at $(date -u +%FT%TZ)\"\nrclone version\nrclone sync " + src + " " + dst + " --config /config/rclone/rclone.conf --transfers 8 --checkers 16 --fast-list -v || { status=$?; echo \"offsite sync failed with status $status\"; exit $status; }\n"
				}
				return steps(
					func() error {
						d := w11bApp("minio", "minio", "docker.io/bitnami/minio:2024.11.7-debian-12-r0", 1, minio, nil, "api", 9000)
						w8bEnv(&d.Spec.Template, "MINIO_DEFAULT_BUCKETS", "media-archive,db-dumps", "MINIO_ROOT_USER", "admin", "MINIO_BROWSER", "off")
						return e.w11bServe(ctx, d, 9000)
					},
					func() error { return e.createSecret(ctx, "rclone-config", map[string]string{"rclone.conf": conf}) },
					func() error {
						j := w21aRcloneJob("media-offsite-sync", rclone, 2, w8bLabels("media-offsite-sync", "backups"),
							sim("fail", annExitCode, "1", annLogs, "w21a-media-sync-rclone"), "/bin/sh", "-c", script("/data/media", "minio-backups:media-archive"))
						mountSecret(&j.Spec.Template, "rclone-config", "/config/rclone")
						w9aEmptyDir(&j.Spec.Template, "media", "/data/media")
						return e.w9aJob(ctx, j)
					},
					func() error {
						j := w21aRcloneJob("db-dumps-offsite", rclone, 2, w8bLabels("db-dumps-offsite", "backups"), nil,
							"/bin/sh", "-c", script("/dumps", "backup-store:db-dumps"))
						mountSecret(&j.Spec.Template, "rclone-config", "/config/rclone")
						w9aEmptyDir(&j.Spec.Template, "dumps", "/dumps")
						return e.w9aJob(ctx, j)
					},
				)
			},
			Wait: all(w11aJobFailed("media-offsite-sync", "BackoffLimitExceeded"), w9aJobComplete("db-dumps-offsite"), readyReplicas("minio", 1)),
		},
	}
}
