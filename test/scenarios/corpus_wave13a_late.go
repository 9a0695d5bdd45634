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

func wave13aLateScenarios() []*Scenario {
	backup := w8bLabels("orders-db-backup", "orders", "app.kubernetes.io/component", "backup")
	mysql := w8cLabels("app.kubernetes.io/name", "mysql", "app.kubernetes.io/instance", "catalog-mysql", "app.kubernetes.io/component", "primary")
	mongo := w8cLabels("app.kubernetes.io/name", "mongodb", "app.kubernetes.io/instance", "catalog-mongo")
	catalogAPI := w8cLabels("app", "catalog-api", "tier", "backend", "team", "catalog")
	o2p := w8cLabels("app.kubernetes.io/name", "oauth2-proxy", "app.kubernetes.io/instance", "grafana-auth")
	reviews := w8bLabels("reviews-api", "reviews")
	return []*Scenario{
		{
			// Whoever created the backup credentials swapped the two values, so the key ID the
			// AWS CLI sends is the 40-character secret; the dump runs, the upload is refused.
			Name: "orders-backup-cronjob-s3-keys-swapped", Covers: "every run of CronJob orders-db-backup fails: pg_dump finishes, then 'upload failed ... An error occurred (InvalidAccessKeyId) when calling the CreateMultipartUpload operation: The AWS Access Key Id you provided does not exist in our records.'; in Secret backup-s3 AWS_ACCESS_KEY_ID holds the secret key and AWS_SECRET_ACCESS_KEY the key ID",
			Source: w13aSrcS3Keys, Class: ClassClue, Hops: 3, Slow: true,
			Problem: "the nightly orders database backup hasn't landed in S3 and the backup job fails every night",
			Target:  target("CronJob", "orders-db-backup"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "backup-s3"}, Terms: []string{"access key"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createSecret(ctx, "backup-s3", map[string]string{"AWS_ACCESS_KEY_ID": "q7Vd2LmXr9TfKp4Wz8NbYc1Hs6JgEa3Uo5RiQx0B", "AWS_SECRET_ACCESS_KEY": "AKIA4QX7ZK2M9TBWE3LN"})
					},
					func() error {
						return e.createSecret(ctx, "restore-check-s3", map[string]string{"AWS_ACCESS_KEY_ID": "AKIA4QX7ZK2MRESTORE7", "AWS_SECRET_ACCESS_KEY": "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"})
					},
					func() error {
						return e.createSecret(ctx, "orders-postgres-backup", map[string]string{"PGUSER": "backup", "PGPASSWORD": "Bk5xR2mQ8zLw"})
					},
					func() error {
						return e.w11bStore(ctx, "orders-postgres", "postgres:16.4", w8bLabels("orders-postgres", "orders", "app.kubernetes.io/component", "database"), nil, "postgres", 5432,
							"POSTGRES_DB", "orders", "POSTGRES_USER", "orders")
					},
					func() error {
						c := w13aCronJob("orders-db-backup", "registry.example/platform/pg-backup-s3:16-2.17", backup, sim("fail", annExitCode, "1", annLogs, "w13a-db-backup-s3"))
						t := &c.Spec.JobTemplate.Spec.Template
						w8bEnv(t, "PGHOST", "orders-postgres", "PGDATABASE", "orders", "S3_URI", "s3://acme-orders-backups/daily/", "AWS_DEFAULT_REGION", "eu-central-1")
						envFromSecret(t, "orders-postgres-backup")
						envFromSecret(t, "backup-s3")
						return e.w11aCreateCronJob(ctx, c)
					},
					func() error {
						d := w8bDeployment("orders-restore-check", "registry.example/platform/pg-restore-check:1.3.0", 1, w8bLabels("orders-restore-check", "orders"), nil, "metrics", 9187)
						w8bEnv(&d.Spec.Template, "S3_URI", "s3://acme-orders-backups/daily/", "AWS_DEFAULT_REGION", "eu-central-1")
						envFromSecret(&d.Spec.Template, "restore-check-s3")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: w13aAnyJobFailed,
		},
		{
			// The import sends batches with inline images; the server drops any packet above
			// max_allowed_packet = 1M from its my.cnf and says so only in its own log. The Job
			// sees a reset connection.
			Name: "product-import-mysql-max-allowed-packet", Covers: "KubeJobFailed: Job product-import-20261128 (Spring JDBC) fails on 'Communications link failure ... Caused by: java.net.SocketException: Connection reset'; only catalog-mysql's log says 'Aborted connection ... (Got a packet bigger than 'max_allowed_packet' bytes)': max_allowed_packet = 1M in ConfigMap catalog-mysql-config",
			Source: w13aSrcMaxPacket, Class: ClassProvider, Hops: 3,
			Problem: "the supplier product import job failed overnight with a Communications link failure, new products are missing from the shop",
			Target:  target("Job", "product-import-20261128"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "catalog-mysql-config"}, Terms: []string{"max_allowed_packet"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "catalog-mysql-config", map[string]string{"my.cnf": "[mysqld]\nskip-name-resolve\nmax_connections = 300\nmax_allowed_packet = 1M\ninnodb_buffer_pool_size = 1G\ninnodb_log_file_size = 256M\ncharacter-set-server = utf8mb4\nlog_error_verbosity = 3\nslow_query_log = 1\nlong_query_time = 2\n"})
					},
					func() error {
						return e.createSecret(ctx, "catalog-mysql", map[string]string{"mysql-root-password": "Rt6pX1wN9qLz", "mysql-password": "Ct3mQ8vZ5kRx"})
					},
					func() error {
						st := w8bStatefulSet("catalog-mysql", "docker.io/bitnami/mysql:8.0.39", "catalog-mysql-headless", 1, mysql, running("w13a-catalog-mysql"), "mysql", 3306)
						w8bEnv(&st.Spec.Template, "MYSQL_DATABASE", "catalog", "MYSQL_USER", "catalog")
						envKeyFromSecret(&st.Spec.Template, "MYSQL_ROOT_PASSWORD", "catalog-mysql", "mysql-root-password")
						envKeyFromSecret(&st.Spec.Template, "MYSQL_PASSWORD", "catalog-mysql", "mysql-password")
						mountConfigMap(&st.Spec.Template, "catalog-mysql-config", "/opt/bitnami/mysql/conf/bitnami")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("catalog-mysql", mysql, "mysql", 3306))
					},
					func() error { return e.createService(ctx, w8bHeadless("catalog-mysql-headless", mysql, "mysql", 3306)) },
					func() error {
						d := w8bDeployment("catalog-api", "registry.example/catalog/catalog-api:7.2.0", 2, w8bLabels("catalog-api", "catalog"), nil, "http", 8080)
						w8bEnv(&d.Spec.Template, "SPRING_DATASOURCE_URL", "jdbc:mysql://catalog-mysql:3306/catalog", "SPRING_DATASOURCE_USERNAME", "catalog")
						envKeyFromSecret(&d.Spec.Template, "SPRING_DATASOURCE_PASSWORD", "catalog-mysql", "mysql-password")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						j := job("product-import-20261128", 1, sim("fail", annExitCode, "1", annLogs, "w13a-product-import-jdbc"))
						j.Spec.Template.Spec.Containers[0].Name = "product-import"
						j.Spec.Template.Spec.Containers[0].Image = "registry.example/catalog/product-import:4.0.2"
						w8bEnv(&j.Spec.Template, "SPRING_DATASOURCE_URL", "jdbc:mysql://catalog-mysql:3306/catalog?rewriteBatchedStatements=true", "SPRING_DATASOURCE_USERNAME", "catalog",
							"IMPORT_FEED_URI", "s3://acme-supplier-feeds/2026-11-28/products.jsonl.gz", "IMPORT_BATCH_SIZE", "500")
						envKeyFromSecret(&j.Spec.Template, "SPRING_DATASOURCE_PASSWORD", "catalog-mysql", "mysql-password")
						return e.w9aJob(ctx, j)
					},
				)
			},
			Wait: all(w11aJobFailed("product-import-20261128", "BackoffLimitExceeded"), w8cStatefulSetReady("catalog-mysql", 1)),
		},
		{
			// mongod accepts at most 50 connections (net.maxIncomingConnections in its config);
			// the workers' pools hold them all, so the API's new pods get their sockets closed at
			// once and give up. Only the server's log says why.
			Name: "catalog-mongo-max-incoming-connections", Covers: "catalog-api (FastAPI, pymongo) crash-loops on 'ServerSelectionTimeoutError: catalog-mongo:27017: connection closed'; the Running, Ready catalog-mongo logs 'Connection refused because there are too many open connections' (connectionCount 51): net.maxIncomingConnections: 50 in ConfigMap catalog-mongo-config, while four catalog-worker pods hold pools of 12",
			Source: w13aSrcMongoMaxConns, Class: ClassProvider, Hops: 3,
			Problem: "catalog-api pods scaled out for the sale crash at startup, although MongoDB is up",
			Target:  target("Deployment", "catalog-api"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "catalog-mongo-config"}, Terms: []string{"maxIncomingConnections"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.createConfigMap(ctx, "catalog-mongo-config", map[string]string{"mongod.conf": "net:\n  port: 27017\n  bindIpAll: true\n  maxIncomingConnections: 50\nstorage:\n  dbPath: /data/db\n  wiredTiger:\n    engineConfig:\n      cacheSizeGB: 1\noperationProfiling:\n  mode: slowOp\n  slowOpThresholdMs: 200\n"})
					},
					func() error {
						st := w8bStatefulSet("catalog-mongo", "mongo:7.0.14", "catalog-mongo", 1, mongo, running("w13a-catalog-mongo"), "mongodb", 27017)
						w8cArgs(&st.Spec.Template, "--config", "/etc/mongod/mongod.conf")
						mountConfigMap(&st.Spec.Template, "catalog-mongo-config", "/etc/mongod")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("catalog-mongo", mongo, "mongodb", 27017))
					},
					func() error {
						d := w8bDeployment("catalog-worker", "registry.example/catalog/catalog-worker:5.8.1", 4, w8cLabels("app", "catalog-worker", "tier", "worker", "team", "catalog"), nil, "metrics", 9100)
						w8bEnv(&d.Spec.Template, "MONGO_URL", "mongodb://catalog-mongo:27017/catalog?maxPoolSize=12&minPoolSize=12", "CELERY_CONCURRENCY", "12")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("catalog-api", "api", "registry.example/catalog/catalog-api:5.8.1", 3, catalogAPI, crash("3", "", "w13a-catalog-api-pymongo"), "http", 8000)
						w8cArgs(&d.Spec.Template, "uvicorn", "catalog.main:app", "--host", "0.0.0.0", "--port", "8000")
						w8bEnv(&d.Spec.Template, "MONGO_URL", "mongodb://catalog-mongo:27017/catalog?maxPoolSize=50", "MONGO_SERVER_SELECTION_TIMEOUT_MS", "30000", "LOG_LEVEL", "info")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(catalogAPI, crashLooping(2)), w8cStatefulSetReady("catalog-mongo", 1), readyReplicas("catalog-worker", 4)),
		},
		{
			// Keycloak 17 and later serve realms under /realms; the proxy's config still has the
			// old /auth prefix, discovery answers 404 and oauth2-proxy exits at startup.
			Name: "grafana-oauth2-proxy-keycloak-auth-path", Covers: "oauth2-proxy in front of Grafana crash-loops on 'failed to discover OIDC configuration: unexpected status \"404\": ... Could not find resource for full path: http://keycloak:8080/auth/realms/ops/.well-known/openid-configuration'; oidc_issuer_url in ConfigMap oauth2-proxy keeps the /auth prefix Keycloak 24 no longer serves",
			Source: w13aSrcKeycloakPath, Class: ClassClue, Hops: 1,
			Problem: "grafana.example.com answers 502 since the Keycloak upgrade and the oauth2-proxy pods keep restarting",
			Target:  target("Deployment", "oauth2-proxy"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "oauth2-proxy"}, Terms: []string{"auth/realms"}},
			Setup: func(ctx context.Context, e *Env) error {
				return steps(
					func() error {
						return e.w11bStore(ctx, "keycloak-postgres", "postgres:16.4", w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "keycloak"), nil, "postgres", 5432,
							"POSTGRES_DB", "keycloak", "POSTGRES_USER", "keycloak")
					},
					func() error {
						d := w8bDeployment("keycloak", "quay.io/keycloak/keycloak:24.0.5", 1, w8cLabels("app.kubernetes.io/name", "keycloak", "app.kubernetes.io/instance", "keycloak"), nil, "http", 8080)
						w8cArgs(&d.Spec.Template, "start", "--optimized")
						w8bEnv(&d.Spec.Template, "KC_DB", "postgres", "KC_DB_URL", "jdbc:postgresql://keycloak-postgres:5432/keycloak", "KC_HOSTNAME", "sso.example.com",
							"KC_HTTP_ENABLED", "true", "KC_PROXY_HEADERS", "xforwarded", "KC_HEALTH_ENABLED", "true")
						return e.w11bServe(ctx, d, 8080)
					},
					func() error {
						return e.createConfigMap(ctx, "oauth2-proxy", map[string]string{"oauth2_proxy.cfg": "provider = \"keycloak-oidc\"\noidc_issuer_url = \"http://keycloak:8080/auth/realms/ops\"\nredirect_url = \"https://grafana.example.com/oauth2/callback\"\nupstreams = [ \"http://grafana:80\" ]\nemail_domains = [ \"*\" ]\nallowed_groups = [ \"/ops\" ]\ncode_challenge_method = \"S256\"\ncookie_secure = true\nreverse_proxy = true\nhttp_address = \"0.0.0.0:4180\"\n"})
					},
					func() error {
						return e.createSecret(ctx, "oauth2-proxy", map[string]string{"client-id": "grafana", "client-secret": "mV2kQ8xR4nLp7TzW", "cookie-secret": "c2VjcmV0LWNvb2tpZS0zMmJ5dGVzLWxvbmctb2s="})
					},
					func() error {
						d := w8bDeployment("oauth2-proxy", "quay.io/oauth2-proxy/oauth2-proxy:v7.7.1", 2, o2p, crash("1", "", "w13a-oauth2-proxy-keycloak"), "http", 4180)
						w8cArgs(&d.Spec.Template, "--config=/etc/oauth2_proxy/oauth2_proxy.cfg")
						envKeyFromSecret(&d.Spec.Template, "OAUTH2_PROXY_CLIENT_ID", "oauth2-proxy", "client-id")
						envKeyFromSecret(&d.Spec.Template, "OAUTH2_PROXY_CLIENT_SECRET", "oauth2-proxy", "client-secret")
						envKeyFromSecret(&d.Spec.Template, "OAUTH2_PROXY_COOKIE_SECRET", "oauth2-proxy", "cookie-secret")
						mountConfigMap(&d.Spec.Template, "oauth2-proxy", "/etc/oauth2_proxy")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("grafana", "docker.io/grafana/grafana:11.2.2", 1, w8cLabels("app.kubernetes.io/name", "grafana", "app.kubernetes.io/instance", "grafana"), nil, "grafana", 3000)
						w8bEnv(&d.Spec.Template, "GF_AUTH_PROXY_ENABLED", "true", "GF_AUTH_PROXY_HEADER_NAME", "X-Forwarded-Email", "GF_SERVER_ROOT_URL", "https://grafana.example.com")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						return e.createIngress(ctx, w8cHostIngress("grafana", "grafana.example.com", "oauth2-proxy", 80))
					},
				)
			},
			Wait: all(podsWith(o2p, crashLooping(2)), readyReplicas("keycloak", 1), readyReplicas("grafana", 1)),
		},
		{
			// The Secret holds ca.crt, tls.crt, tls.key (cert-manager's keys) and tls.pem; the Deployment's
			// env points the driver at ca.pem, a file the mounted Secret does not have. The
			// ratings-api next to it mounts the same Secret and reads ca.crt.
			Name: "reviews-node-mongo-tls-ca-path", Covers: "reviews-api (Node) crash-loops on 'Error: ENOENT: no such file or directory, open '/etc/ssl/mongo/ca.pem''; Secret reviews-mongo-tls mounted at /etc/ssl/mongo has ca.crt, tls.crt, tls.key and tls.pem, and MONGO_TLS_CA_FILE in the Deployment's env names ca.pem (ratings-api uses ca.crt)",
			Source: w13aSrcNodeENOENT, Class: ClassClue, Hops: 0,
			Problem: "product pages show no reviews since MongoDB was switched to TLS; reviews-api keeps restarting",
			Target:  target("Deployment", "reviews-api"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "reviews-api"}, Terms: []string{"ca.pem"}},
			Setup: func(ctx context.Context, e *Env) error {
				pem := "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUQm9ndXNDZXJ0Rm9yVGVzdHMwCgYIKoZIzj0EAwIwFjEU\n-----END CERTIFICATE-----\n"
				return steps(
					func() error {
						return e.createSecret(ctx, "reviews-mongo-tls", map[string]string{"ca.crt": pem, "tls.crt": pem, "tls.pem": pem,
							"tls.key": "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBogusKeyForTestsOnly0123456789abcdefghijklmnoAoGCCqGSM49\n-----END EC PRIVATE KEY-----\n"})
					},
					func() error {
						return e.createSecret(ctx, "reviews-api-db", map[string]string{"MONGO_USERNAME": "reviews", "MONGO_PASSWORD": "Rv8nK3xQ1mTz"})
					},
					func() error {
						st := w8bStatefulSet("reviews-mongo", "mongo:7.0.14", "reviews-mongo", 1, w8bLabels("reviews-mongo", "reviews", "app.kubernetes.io/component", "database"), nil, "mongodb", 27017)
						w8cArgs(&st.Spec.Template, "--tlsMode", "requireTLS", "--tlsCertificateKeyFile", "/etc/ssl/mongo/tls.pem", "--tlsCAFile", "/etc/ssl/mongo/ca.crt", "--bind_ip_all")
						mountSecret(&st.Spec.Template, "reviews-mongo-tls", "/etc/ssl/mongo")
						if err := e.createStatefulSet(ctx, st); err != nil {
							return err
						}
						return e.createService(ctx, w8bService("reviews-mongo", st.Spec.Template.Labels, "mongodb", 27017))
					},
					func() error {
						d := w8bDeployment("reviews-api", "registry.example/reviews/reviews-api:3.3.0", 2, reviews, crash("1", "", "w13a-reviews-api-ca-path"), "http", 3000)
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "MONGO_URL", "mongodb://reviews-mongo:27017/reviews?tls=true&authSource=admin",
							"MONGO_TLS_CA_FILE", "/etc/ssl/mongo/ca.pem", "MONGO_TLS_CERT_FILE", "/etc/ssl/mongo/tls.crt", "MONGO_TLS_KEY_FILE", "/etc/ssl/mongo/tls.key")
						envFromSecret(&d.Spec.Template, "reviews-api-db")
						mountSecret(&d.Spec.Template, "reviews-mongo-tls", "/etc/ssl/mongo")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w8bDeployment("ratings-api", "registry.example/reviews/ratings-api:1.7.2", 2, w8bLabels("ratings-api", "reviews"), nil, "http", 3000)
						w8bEnv(&d.Spec.Template, "NODE_ENV", "production", "MONGO_URL", "mongodb://reviews-mongo:27017/ratings?tls=true&authSource=admin",
							"MONGO_TLS_CA_FILE", "/etc/ssl/mongo/ca.crt", "MONGO_TLS_CERT_FILE", "/etc/ssl/mongo/tls.crt", "MONGO_TLS_KEY_FILE", "/etc/ssl/mongo/tls.key")
						mountSecret(&d.Spec.Template, "reviews-mongo-tls", "/etc/ssl/mongo")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(reviews, crashLooping(2)), readyReplicas("ratings-api", 2)),
		},
	}
}
