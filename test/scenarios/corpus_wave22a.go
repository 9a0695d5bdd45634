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

// Wave 22a: "the value that explains it". A workload fails and a correct explanation must name
// one value (a subPath, a DSN setting, a listen address, a broker setting, a database edition,
// a libpq option, a Secret key, a Sentinel master name) that lives one to three objects away
// from the symptom. About half of the failing containers say so only in their termination
// message, the rest only in their log. Written blind by an outside hand from public issue
// threads and docs; every Want was fixed from the source before anything ran.

func wave22aScenarios() []*Scenario {
	return append(wave22aFirstScenarios(), wave22aMoreScenarios()...)
}

func wave22aFirstScenarios() []*Scenario {
	planner := w8bLabels("route-planner", "logistics")
	ledgerSync := w8bLabels("ledger-sync", "ledger")
	shopWeb := w8bLabels("shop-web", "shop")
	video := w8bLabels("video-worker", "media")
	export := w8bLabels("catalog-export", "catalog")
	return []*Scenario{
		{
			// The settings moved into a ConfigMap whose key is planner.yaml; the Deployment
			// mounts subPath planner.yml. A subPath that names no key of the volume is created
			// as an empty directory, so the app finds a directory where its file should be.
			Name: "route-planner-config-read-fails", Covers: "route-planner crash-loops with 'read /etc/route-planner/planner.yaml: is a directory': its volumeMount takes subPath planner.yml from ConfigMap route-planner-config, whose key is planner.yaml, so the kubelet mounts an empty directory (route-planner-worker mounts subPath planner.yaml and runs)",
			Source: w22aSrcSubPathDir, Class: ClassReference, Hops: 1,
			Problem: "route-planner keeps restarting since this morning's deploy that moved its settings into a ConfigMap; the worker deployed with it is fine",
			Target:  target("Deployment", "route-planner"),
			Want:    Want{Culprit: Ref{Kind: "Deployment", Name: "route-planner"}, Terms: []string{"planner.yml"}},
			Setup: func(ctx context.Context, e *Env) error {
				cfg := "server:\n  listen: \":8080\"\nsolver:\n  max_stops: 120\n  time_windows: strict\n  osrm_url: http://osrm:5000\nzones_file: /etc/route-planner/zones.geojson\n"
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "route-planner-config", planner, map[string]string{"planner.yaml": cfg, "logging.yaml": "level: info\nformat: logfmt\n"})
					},
					func() error {
						d := w11bApp("route-planner", "route-planner", "registry.example/logistics/route-planner:2.8.0", 2, planner,
							crash("1", `level=fatal ts=2026-03-11T06:42:17.093Z caller=main.go:71 msg="cannot load configuration" path=/etc/route-planner/planner.yaml err="read /etc/route-planner/planner.yaml: is a directory"`, "w22a-route-planner"), "http", 8080)
						d.Spec.Template.Spec.Containers[0].Args = []string{"serve", "--config=/etc/route-planner/planner.yaml"}
						w22aSubPathConfigMap(&d.Spec.Template, 0, "route-planner-config", "planner.yml", "/etc/route-planner/planner.yaml")
						w22aSubPathConfigMap(&d.Spec.Template, 0, "route-planner-config", "logging.yaml", "/etc/route-planner/logging.yaml")
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("route-planner-worker", "worker", "registry.example/logistics/route-planner:2.8.0", 1, w8bLabels("route-planner-worker", "logistics"), nil, "metrics", 9090)
						d.Spec.Template.Spec.Containers[0].Args = []string{"worker", "--config=/etc/route-planner/planner.yaml"}
						w22aSubPathConfigMap(&d.Spec.Template, 0, "route-planner-config", "planner.yaml", "/etc/route-planner/planner.yaml")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(planner, crashLooping(2)), readyReplicas("route-planner-worker", 1)),
		},
		{
			// lib/pq defaults to sslmode=require when the DSN names none. On RDS that worked;
			// the in-cluster postgres runs without SSL, so every connect fails until the DSN
			// in the Secret says sslmode=disable (ledger-api's already does).
			Name: "ledger-sync-crashes-after-db-move", Covers: "ledger-sync (Go, lib/pq) crash-loops on 'ping database: pq: SSL is not enabled on the server' after the ledger database moved from RDS to the in-cluster ledger-pg: DATABASE_URL in Secret ledger-sync-db has no sslmode, and lib/pq's default is require (ledger-api's Secret sets sslmode=disable)",
			Source: w22aSrcLibPQSSL, Class: ClassClue, Hops: 2,
			Problem: "ledger-sync crash-loops since we moved the ledger database from RDS into the cluster, while ledger-api works against the same database",
			Target:  target("Deployment", "ledger-sync"),
			Want:    Want{Culprit: Ref{Kind: "Secret", Name: "ledger-sync-db"}, Terms: []string{"sslmode"}},
			Setup: func(ctx context.Context, e *Env) error {
				pg := w22aLabels("postgresql", "ledger-pg")
				return steps(
					func() error {
						return e.w11bStore(ctx, "ledger-pg", "postgres:16.4", pg, nil, "postgresql", 5432, "POSTGRES_DB", "ledger", "POSTGRES_USER", "ledger", "PGDATA", "/var/lib/postgresql/data/pgdata")
					},
					func() error {
						return e.createSecret(ctx, "ledger-sync-db", map[string]string{"DATABASE_URL": "postgres://ledger_sync:Jf83kQz1Lp2v@ledger-pg:5432/ledger", "LEDGER_SYNC_BATCH": "500"})
					},
					func() error {
						return e.createSecret(ctx, "ledger-api-db", map[string]string{"DATABASE_URL": "postgres://ledger_api:Wm27xTa9Qe4r@ledger-pg:5432/ledger?sslmode=disable"})
					},
					func() error {
						d := w11bApp("ledger-sync", "ledger-sync", "registry.example/ledger/ledger-sync:1.17.2", 1, ledgerSync,
							crash("1", "ledger-sync: startup: ping database: pq: SSL is not enabled on the server", "w22a-ledger-sync"), "metrics", 9102)
						envFromSecret(&d.Spec.Template, "ledger-sync-db")
						w8bEnv(&d.Spec.Template, "UPSTREAM_BANK_API", "https://bank-gateway.example.com/v3", "SYNC_INTERVAL", "60s")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("ledger-api", "ledger-api", "registry.example/ledger/ledger-api:4.2.0", 2, w8bLabels("ledger-api", "ledger"), nil, "http", 8080)
						envFromSecret(&d.Spec.Template, "ledger-api-db")
						return e.w11bServe(ctx, d, 80)
					},
				)
			},
			Wait: all(podsWith(ledgerSync, crashLooping(2)), readyReplicas("ledger-api", 2), w11aStatefulSetReady("ledger-pg", 1)),
		},
		{
			// nginx and php-fpm were split into two Deployments. The pool config mounted over
			// php-fpm.d (dropping the image's zz-docker.conf) is php's stock www.conf with
			// listen = 127.0.0.1:9000, so fpm answers only inside its own pod; nginx gets
			// connection refused on the Service and returns 502.
			Name: "shop-web-502-after-fpm-split", Covers: "shop-web (nginx) is never Ready, 'Readiness probe failed: HTTP probe failed with statuscode: 502', its log repeats 'connect() failed (111: Connection refused) while connecting to upstream ... fastcgi://10.96.0.141:9000'; shop-fpm pods are Ready (their exec probe talks to localhost) but ConfigMap shop-fpm-pool, mounted over php-fpm.d, sets listen = 127.0.0.1:9000",
			Source: w22aSrcFPMListen, Class: ClassProvider, Hops: 3,
			Problem: "the shop answers 502 Bad Gateway on every page since we split nginx and php-fpm into separate deployments",
			Target:  target("Deployment", "shop-web"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "shop-fpm-pool"}, Terms: []string{"127.0.0.1"}},
			Setup: func(ctx context.Context, e *Env) error {
				fpm := w8bLabels("shop-fpm", "shop")
				pool := "[www]\nuser = www-data\ngroup = www-data\nlisten = 127.0.0.1:9000\npm = dynamic\npm.max_children = 20\npm.start_servers = 4\npm.min_spare_servers = 2\npm.max_spare_servers = 6\npm.status_path = /fpm-status\nping.path = /fpm-ping\nclear_env = no\ncatch_workers_output = yes\ndecorate_workers_output = no\n"
				site := "server {\n    listen 8080;\n    server_name _;\n    root /var/www/html/public;\n    index index.php;\n    location = /healthz {\n        include fastcgi_params;\n        fastcgi_param SCRIPT_NAME /fpm-ping;\n        fastcgi_param SCRIPT_FILENAME /fpm-ping;\n        fastcgi_pass shop-fpm:9000;\n    }\n    location / {\n        try_files $uri /index.php$is_args$args;\n    }\n    location ~ \\.php$ {\n        include fastcgi_params;\n        fastcgi_param SCRIPT_FILENAME $document_root$fastcgi_script_name;\n        fastcgi_pass shop-fpm:9000;\n    }\n}\n"
				return steps(
					func() error { return e.w10aConfigMap(ctx, "shop-fpm-pool", fpm, map[string]string{"www.conf": pool}) },
					func() error {
						return e.w10aConfigMap(ctx, "shop-web-nginx", shopWeb, map[string]string{"default.conf": site})
					},
					func() error {
						d := w11bApp("shop-fpm", "php-fpm", "registry.example/shop/shop-fpm:8.3.4", 2, fpm, running("w22a-shop-fpm"), "fastcgi", 9000)
						mountConfigMap(&d.Spec.Template, "shop-fpm-pool", "/usr/local/etc/php-fpm.d")
						w22aExecReady(&d.Spec.Template, 0, "php-fpm-healthcheck")
						w8bEnv(&d.Spec.Template, "APP_ENV", "production", "DB_HOST", "shop-mysql", "REDIS_HOST", "shop-redis")
						if err := e.createDeployment(ctx, d); err != nil {
							return err
						}
						s := w8bService("shop-fpm", fpm, "fastcgi", 9000)
						s.Spec.ClusterIP = "10.96.0.141"
						return e.createService(ctx, s)
					},
					func() error {
						d := w11bApp("shop-web", "nginx", "nginx:1.27-alpine", 2, shopWeb,
							w11bReadinessFail("nginx", "w22a-shop-web", "HTTP probe failed with statuscode: 502"), "http", 8080)
						mountConfigMap(&d.Spec.Template, "shop-web-nginx", "/etc/nginx/conf.d")
						d.Spec.Template.Spec.Containers[0].ReadinessProbe = w10aProbe("/healthz", "http", 5)
						return e.w11bServe(ctx, d, 80)
					},
					func() error {
						d := w11bApp("shop-worker", "worker", "registry.example/shop/shop-fpm:8.3.4", 1, w8bLabels("shop-worker", "shop"), nil, "", 0)
						d.Spec.Template.Spec.Containers[0].Command = []string{"php", "artisan", "queue:work", "--sleep=3", "--tries=3"}
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(shopWeb, runningNotReady), podEvent("Unhealthy", "statuscode: 502"), readyReplicas("shop-fpm", 2), readyReplicas("shop-worker", 1)),
		},
		{
			// Someone set consumer_timeout to five minutes on the broker through its Erlang
			// args. Transcodes run with acks_late and take longer, so RabbitMQ closes the
			// channel before the ack and Celery dies with an unrecoverable PreconditionFailed;
			// thumbnails finish in seconds and never notice.
			Name: "video-worker-restarts-mid-transcode", Covers: "video-worker (Celery) restarts again and again, its termination message ends with \"Unrecoverable error: PreconditionFailed(406, 'PRECONDITION_FAILED - delivery acknowledgement on channel 1 timed out. Timeout value used: 300000 ms ...')\"; StatefulSet media-rabbitmq sets RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS '-rabbit consumer_timeout 300000', shorter than a transcode (thumbnail-worker on the same broker is fine)",
			Source: w22aSrcConsumerTime, Class: ClassProvider, Hops: 2,
			Problem: "video-worker keeps restarting and the same transcode tasks start over and over; the thumbnail worker on the same queue server is fine",
			Target:  target("Deployment", "video-worker"),
			Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "media-rabbitmq"}, Terms: []string{"consumer_timeout"}},
			Setup: func(ctx context.Context, e *Env) error {
				mq := w22aLabels("rabbitmq", "media-rabbitmq")
				tm := "[2026-03-12 02:17:44,102: CRITICAL/MainProcess] Unrecoverable error: PreconditionFailed(406, 'PRECONDITION_FAILED - delivery acknowledgement on channel 1 timed out. Timeout value used: 300000 ms. This timeout value can be configured, see consumers doc guide to learn more', (0, 0), '')"
				return steps(
					func() error {
						return e.w11bStore(ctx, "media-rabbitmq", "rabbitmq:3.13.7-management", mq, running("w22a-media-rabbitmq"), "amqp", 5672,
							"RABBITMQ_DEFAULT_USER", "media", "RABBITMQ_DEFAULT_VHOST", "media", "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS", "-rabbit consumer_timeout 300000")
					},
					func() error {
						return e.createSecret(ctx, "media-celery", map[string]string{"CELERY_BROKER_URL": "amqp://media:7bX2pLr9Kd@media-rabbitmq:5672/media"})
					},
					func() error {
						d := w11bApp("video-worker", "worker", "registry.example/media/media-tasks:5.2.0", 2, video, crash("1", tm, "w22a-video-worker"), "", 0)
						d.Spec.Template.Spec.Containers[0].Args = []string{"celery", "-A", "media", "worker", "-Q", "transcode", "--concurrency=2", "--prefetch-multiplier=1", "-Ofair", "--loglevel=INFO"}
						d.Spec.Template.Spec.Containers[0].TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError
						envFromSecret(&d.Spec.Template, "media-celery")
						w8bEnv(&d.Spec.Template, "CELERY_TASK_ACKS_LATE", "true", "TRANSCODE_PRESETS", "1080p,720p,480p")
						return e.createDeployment(ctx, d)
					},
					func() error {
						d := w11bApp("thumbnail-worker", "worker", "registry.example/media/media-tasks:5.2.0", 1, w8bLabels("thumbnail-worker", "media"), nil, "", 0)
						d.Spec.Template.Spec.Containers[0].Args = []string{"celery", "-A", "media", "worker", "-Q", "thumbnails", "--concurrency=4", "--loglevel=INFO"}
						envFromSecret(&d.Spec.Template, "media-celery")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(podsWith(video, crashLooping(2)), readyReplicas("thumbnail-worker", 1), w11aStatefulSetReady("media-rabbitmq", 1)),
		},
		{
			// The broker's server.properties was "hardened" with message.max.bytes=262144.
			// The export sends product snapshot batches of ~600 KB; the broker rejects them
			// (MESSAGE_TOO_LARGE, not retriable) and the Job fails, while the price feed's
			// small messages pass.
			Name: "catalog-export-job-fails-on-publish", Covers: "Job catalog-export (Node, kafkajs) fails (BackoffLimitExceeded), its termination message 'KafkaJSProtocolError: The request included a message larger than the max message size the server will accept'; server.properties in ConfigMap catalog-kafka-config sets message.max.bytes=262144 below the export's batches (price-feed's small messages pass)",
			Source: w22aSrcKafkaMaxMsg, Class: ClassProvider, Hops: 3,
			Problem: "the catalog-export Job fails every time as soon as it starts publishing; price-feed still publishes to the same Kafka",
			Target:  target("Job", "catalog-export"),
			Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "catalog-kafka-config"}, Terms: []string{"message.max.bytes"}},
			Setup: func(ctx context.Context, e *Env) error {
				kafka := w22aLabels("kafka", "catalog-kafka")
				props := "process.roles=broker,controller\nnode.id=1\ncontroller.quorum.voters=1@catalog-kafka-0.catalog-kafka-headless:9093\nlisteners=PLAINTEXT://:9092,CONTROLLER://:9093\nadvertised.listeners=PLAINTEXT://catalog-kafka-0.catalog-kafka-headless:9092\ncontroller.listener.names=CONTROLLER\nlistener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT\nlog.dirs=/var/lib/kafka/data\nnum.partitions=6\noffsets.topic.replication.factor=1\ntransaction.state.log.replication.factor=1\nauto.create.topics.enable=false\nlog.retention.hours=72\nmessage.max.bytes=262144\nreplica.fetch.max.bytes=262144\n"
				tm := "{\"level\":\"ERROR\",\"timestamp\":\"2026-03-12T01:00:41.219Z\",\"logger\":\"kafkajs\",\"message\":\"[Producer] The request included a message larger than the max message size the server will accept\",\"retryCount\":0,\"retryTime\":0}\nexport failed: KafkaJSProtocolError: The request included a message larger than the max message size the server will accept\n    at createErrorFromCode (/app/node_modules/kafkajs/src/protocol/error.js:581:10) {\n  type: 'MESSAGE_TOO_LARGE',\n  code: 10,\n  retriable: false\n}"
				return steps(
					func() error {
						return e.w10aConfigMap(ctx, "catalog-kafka-config", kafka, map[string]string{"server.properties": props})
					},
					func() error {
						return e.w22aConfiguredStatefulSet(ctx, "catalog-kafka", "apache/kafka:3.7.1", kafka, running("w22a-catalog-kafka"), "plaintext", 9092,
							"catalog-kafka-config", "/etc/kafka", []string{"/opt/kafka/bin/kafka-server-start.sh", "/etc/kafka/server.properties"}, "KAFKA_HEAP_OPTS", "-Xmx1g -Xms1g")
					},
					func() error {
						j := w18cJob("catalog-export", "export", "registry.example/catalog/catalog-export:1.9.3", 1, export,
							sim("fail", annExitCode, "1", annMessage, tm, annLogs, "w22a-catalog-export"), "--topic=catalog.snapshots.v2", "--batch-size=500", "--compression=none")
						j.Spec.Template.Spec.Containers[0].TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError
						w8bEnv(&j.Spec.Template, "KAFKA_BROKERS", "catalog-kafka:9092", "CATALOG_API_URL", "http://catalog-api:8080", "NODE_ENV", "production")
						return e.w18cCreateJob(ctx, j)
					},
					func() error {
						d := w11bApp("price-feed", "price-feed", "registry.example/catalog/price-feed:2.4.0", 1, w8bLabels("price-feed", "catalog"), nil, "metrics", 9464)
						w8bEnv(&d.Spec.Template, "KAFKA_BROKERS", "catalog-kafka:9092", "KAFKA_TOPIC", "catalog.prices.v1")
						return e.createDeployment(ctx, d)
					},
				)
			},
			Wait: all(w11aJobFailed("catalog-export", "BackoffLimitExceeded"), readyReplicas("price-feed", 1), w11aStatefulSetReady("catalog-kafka", 1)),
		},
	}
}
