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

package agent_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// Caches, gRPC, and the connection and size limits of databases and their poolers.
func TestKnownErrorsMoreCachesAndDatabases(t *testing.T) {
	cases := []depCase{
		{name: "memcached item past -I", problem: "thumbnails are never cached",
			objs: func() []runtime.Object {
				o := app("thumbs", 1, withEnv("MEMCACHE_SERVERS", "cache:11211"), nil)
				return append(o, serverOf("cache", "memcached:1.6-alpine", 11211, withArgs("memcached", "-m", "256", "-I", "1m"), fx.Node("node-1"))...)
			},
			logs: logBook{"thumbs-": repeat(`pymemcache.exceptions.MemcacheServerError: b'object too large for cache'`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/cache", affected: []string{"Service/cache"}, terms: []string{"-I = 1m", "max-item-size"}},
		{name: "memcached full at its default -m", problem: "sessions drop",
			objs: func() []runtime.Object {
				o := app("web", 2, withEnv("SESSION_CACHE", "sessions-cache:11211"), nil)
				return append(o, serverOf("sessions-cache", "memcached:1.6", 11211, nil, fx.Node("node-1"))...)
			},
			logs: logBook{"web-": repeat(`level=warn msg="failed to store item" err="memcache: unexpected response line from \"set\": \"SERVER_ERROR out of memory storing object\""`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/sessions-cache", terms: []string{"--memory-limit", "64 MB"}},
		{name: "gRPC client keepalive shorter than the server permits", problem: "checkout calls fail now and then",
			objs: func() []runtime.Object {
				o := app("checkout", 2, withEnv("PAYMENTS_ADDR", "payments:50051", "GRPC_KEEPALIVE_TIME_MS", "10000"), nil)
				return append(o, serverOf("payments", "registry.example/payments:1", 50051, nil, fx.Node("node-1"))...)
			},
			logs: logBook{"checkout-": repeat(`E0000 00:00:1754611629.299163 1008 chttp2_transport.cc:1316] ipv4:10.96.1.1:50051: Received a GOAWAY with error code ENHANCE_YOUR_CALM and debug data equal to "too_many_pings". Current keepalive time (before throttling): 10000ms`, 3)},
			rule: "client-connection-setting", culprit: "Deployment/checkout", terms: []string{"GRPC_KEEPALIVE_TIME_MS = 10000", "5 minutes"}},
		{name: "gRPC server's keepalive enforcement in its ConfigMap", problem: "ledger streams reset",
			objs: func() []runtime.Object {
				o := app("statements", 1, withEnv("LEDGER_ADDR", "ledger:9090", "GRPC_KEEPALIVE_TIME", "30s"), nil)
				return append(o, serverOf("ledger", "registry.example/ledger:1", 9090, envFrom("ledger-env"), cmWith("ledger-env", "GRPC_KEEPALIVE_ENFORCEMENT_MIN_TIME", "5m"), fx.Node("node-1"))...)
			},
			logs: logBook{"statements-": repeat(`{"level":"error","msg":"stream closed","error":"rpc error: code = Unavailable desc = closing transport due to: connection error: desc = \"error reading from server: EOF\", received prior goaway: code: ENHANCE_YOUR_CALM, debug data: \"too_many_pings\""}`, 3)},
			rule: "client-connection-setting", culprit: "ConfigMap/ledger-env", terms: []string{"GRPC_KEEPALIVE_ENFORCEMENT_MIN_TIME = 5m", "GRPC_KEEPALIVE_TIME = 30s"}},
		{name: "gRPC response past the default receive size", problem: "the report gateway fails on big reports",
			objs: func() []runtime.Object {
				return append(app("report-gw", 1, withEnv("REPORTS_ADDR", "reports:9000"), nil), fx.Node("node-1"))
			},
			logs: logBook{"report-gw-": repeat(`{"level":"error","msg":"GetReport failed","error":"rpc error: code = ResourceExhausted desc = grpc: received message larger than max (9014796 vs. 4194304)"}`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/report-gw", terms: []string{"grpc.max_receive_message_length", "4194304"}},
		{name: "MongoDB blocking sort past its default memory", problem: "the catalog list page fails",
			objs: func() []runtime.Object {
				o := app("catalog", 1, withEnv("MONGO_URL", "mongodb://catalog-db:27017/catalog"), nil)
				return append(o, serverOf("catalog-db", "mongo:5.0", 27017, nil, fx.Node("node-1"))...)
			},
			logs: logBook{"catalog-": repeat(`MongoServerError: Executor error during find command :: caused by :: Sort exceeded memory limit of 104857600 bytes, but did not opt in to external sorting.`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/catalog-db", terms: []string{"internalQueryMaxBlockingSortMemoryUsageBytes", "allowDiskUse"}},
		{name: "PgBouncer at its default max_client_conn", problem: "api pods fail to connect under load",
			objs: func() []runtime.Object {
				o := app("api", 3, withEnv("DATABASE_URL", "postgresql://app@pgbouncer:6432/app"), nil)
				return append(o, serverOf("pgbouncer", "bitnami/pgbouncer:1.22", 6432, withEnv("PGBOUNCER_DATABASE", "app"), fx.Node("node-1"))...)
			},
			logs: logBook{"api-": repeat(`psycopg2.OperationalError: connection to server at "pgbouncer" (10.96.20.2), port 6432 failed: FATAL:  no more connections allowed (max_client_conn)`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/pgbouncer", affected: []string{"Service/pgbouncer"}, terms: []string{"max_client_conn", "100 client connections"}},
		{name: "PgBouncer query_wait_timeout behind a small pool", problem: "requests hang then fail",
			objs: func() []runtime.Object {
				o := app("orders", 2, withEnv("DB_HOST", "pooler", "DB_PORT", "6432"), nil)
				return append(o, serverOf("pooler", "bitnami/pgbouncer:1.22", 6432, withEnv("PGBOUNCER_DEFAULT_POOL_SIZE", "5"), fx.Node("node-1"))...)
			},
			logs: logBook{"orders-": repeat(`sqlalchemy.exc.OperationalError: (psycopg2.OperationalError) ERROR:  query_wait_timeout`, 3)},
			rule: "request-timeout-setting", culprit: "Deployment/pooler", terms: []string{"PGBOUNCER_DEFAULT_POOL_SIZE = 5", "query_wait_timeout"}},
		{name: "PostgreSQL lock table at its default size", problem: "the nightly partition job fails",
			objs: func() []runtime.Object {
				o := app("partitioner", 1, withEnv("PGHOST", "warehouse"), crashing)
				return append(o, serverOf("warehouse", "postgres:15", 5432, nil, fx.Node("node-1"))...)
			},
			logs: logBook{"partitioner-": "psycopg2.errors.OutOfMemory: out of shared memory\nHINT:  You might need to increase max_locks_per_transaction.\n"},
			rule: "server-limit-reached", culprit: "Deployment/warehouse", terms: []string{"max_locks_per_transaction", "64"}},
		{name: "MariaDB blocks a host after its default connect errors", problem: "the legacy app cannot log in",
			objs: func() []runtime.Object {
				o := app("legacy", 1, withEnv("MYSQL_HOST", "legacy-db"), crashing)
				return append(o, serverOf("legacy-db", "mariadb:10.11", 3306, nil, fx.Node("node-1"))...)
			},
			logs: logBook{"legacy-": "ERROR 1129 (HY000): Host '10.244.1.17' is blocked because of many connection errors; unblock with 'mysqladmin flush-hosts'\n"},
			rule: "server-access-rule", culprit: "Deployment/legacy-db", terms: []string{"max_connect_errors", "100"}},
		{name: "MySQL at its default max_allowed_packet", problem: "document uploads fail",
			objs: func() []runtime.Object {
				o := app("docs", 1, withEnv("DB_HOST", "docs-db"), nil)
				return append(o, serverOf("docs-db", "mysql:8.0", 3306, nil, fx.Node("node-1"))...)
			},
			logs: logBook{"docs-": repeat(`SQLSTATE[08S01]: Communication link failure: 1153 Got a packet bigger than 'max_allowed_packet' bytes`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/docs-db", terms: []string{"max_allowed_packet", "64MB"}},
	}
	runDepCases(t, cases)
	runSilentCases(t, []silentCase{
		{name: "object too large from a server that is no memcached", problem: "thumbnails are never cached", not: "server-limit-reached",
			objs: func() []runtime.Object {
				o := app("thumbs", 1, withEnv("MEMCACHE_SERVERS", "cache:11211"), nil)
				return append(o, serverOf("cache", "registry.example/proxy:1", 11211, nil, fx.Node("node-1"))...)
			},
			logs: logBook{"thumbs-": repeat(`pymemcache.exceptions.MemcacheServerError: b'object too large for cache'`, 3)}},
		{name: "too_many_pings with no keepalive setting on either side", problem: "checkout calls fail now and then", not: "client-connection-setting",
			objs: func() []runtime.Object {
				o := app("checkout", 2, withEnv("PAYMENTS_ADDR", "payments:50051"), nil)
				return append(o, serverOf("payments", "registry.example/payments:1", 50051, nil, fx.Node("node-1"))...)
			},
			logs: logBook{"checkout-": repeat(`Received a GOAWAY with error code ENHANCE_YOUR_CALM and debug data equal to "too_many_pings"`, 3)}},
		{name: "max_client_conn written in the pooler's ini is left to the named-setting rules", problem: "api pods fail to connect under load", not: "server-limit-reached",
			objs: func() []runtime.Object {
				o := app("api", 3, withEnv("DATABASE_URL", "postgresql://app@pgbouncer:6432/app"), nil)
				return append(o, serverOf("pgbouncer", "bitnami/pgbouncer:1.22", 6432, mountAt("pgbouncer-ini", "/etc/pgbouncer"),
					cmWith("pgbouncer-ini", "pgbouncer.ini", "[pgbouncer]\nlisten_port = 6432\nmax_client_conn = 50\n"), fx.Node("node-1"))...)
			},
			logs: logBook{"api-": repeat(`FATAL:  no more connections allowed (max_client_conn)`, 3)}},
		{name: "a pooler's settings dump names query_wait_timeout", problem: "requests are slow", not: "request-timeout-setting",
			objs: func() []runtime.Object {
				o := app("orders", 2, withEnv("DB_HOST", "pooler", "DB_PORT", "6432"), nil)
				return append(o, serverOf("pooler", "bitnami/pgbouncer:1.22", 6432, withEnv("PGBOUNCER_DEFAULT_POOL_SIZE", "5"), fx.Node("node-1"))...)
			},
			logs: logBook{"orders-": repeat(`INFO pooler settings: query_wait_timeout=120 default_pool_size=5 max_client_conn=100`, 3)}},
	})
}

// Search and metrics back ends, coordination stores, web servers, object storage, task
// queues and the JVM.
func TestKnownErrorsMoreServices(t *testing.T) {
	es := "docker.elastic.co/elasticsearch/elasticsearch:8.13.4"
	cases := []depCase{
		{name: "RabbitMQ consumer_timeout in a mounted conf.d file", problem: "transcodes restart from scratch",
			objs: func() []runtime.Object {
				o := app("transcoder", 1, withEnv("AMQP_URL", "amqp://transcoder:pw@broker:5672/"), nil)
				return append(o, serverOf("broker", "rabbitmq:3.13-management", 5672, mountAt("broker-conf", "/etc/rabbitmq/conf.d"), cmWith("broker-conf", "10-timeouts.conf", "consumer_timeout = 600000\n"), fx.Node("node-1"))...)
			},
			logs: logBook{"transcoder-": repeat(`pika.exceptions.ChannelClosedByBroker: (406, 'PRECONDITION_FAILED - delivery acknowledgement on channel 1 timed out. Timeout value used: 600000 ms. This timeout value can be configured, see consumers doc guide to learn more')`, 3)},
			rule: "request-timeout-setting", culprit: "ConfigMap/broker-conf", terms: []string{"consumer_timeout = 600000"}},
		{name: "Postfix relay refusing a client outside mynetworks", problem: "customers stopped getting invoices",
			objs: func() []runtime.Object {
				o := app("invoice-mailer", 1, withEnv("SMTP_HOST", "smtp-relay", "SMTP_PORT", "587"), nil)
				return append(o, serverOf("smtp-relay", "boky/postfix:4.2.1", 587, envFrom("relay-env"), cmWith("relay-env", "POSTFIX_mynetworks", "127.0.0.0/8 10.10.0.0/16"), fx.Node("node-1"))...)
			},
			logs: logBook{"invoice-mailer-": "fail: Billing.Worker[0]\n      Sending invoice INV-1 to a@example.com failed; will retry\n      MailKit.Net.Smtp.SmtpCommandException: 5.7.1 <a@example.com>: Relay access denied\n" +
				"fail: Billing.Worker[0]\n      Sending invoice INV-2 to b@example.com failed; will retry\n      MailKit.Net.Smtp.SmtpCommandException: 5.7.1 <b@example.com>: Relay access denied\n"},
			rule: "server-access-rule", culprit: "ConfigMap/relay-env", terms: []string{"mynetworks"}},
		{name: "Elasticsearch's default total fields limit", problem: "some logs never show up",
			objs: func() []runtime.Object {
				o := app("log-shipper", 1, withEnv("ES_URL", "http://logs-es:9200"), nil)
				return append(o, serverOf("logs-es", es, 9200, withEnv("discovery.type", "single-node"), fx.Node("node-1"))...)
			},
			logs: logBook{"log-shipper-": repeat(`[error] [output:es:es.0] error: {"create":{"_index":"logs-2026.11.27","status":400,"error":{"type":"illegal_argument_exception","reason":"Limit of total fields [1000] has been exceeded while adding new fields [3]"}}}`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/logs-es", terms: []string{"index.mapping.total_fields.limit", "1000"}},
		{name: "Elasticsearch's default search.max_buckets", problem: "the dashboard's big panels fail",
			objs: func() []runtime.Object {
				o := app("dash-api", 1, withEnv("ELASTICSEARCH_HOSTS", "http://search:9200"), nil)
				return append(o, serverOf("search", es, 9200, withEnv("discovery.type", "single-node"), fx.Node("node-1"))...)
			},
			logs: logBook{"dash-api-": repeat(`elasticsearch.BadRequestError: BadRequestError(400, 'search_phase_execution_exception', 'Trying to create too many buckets. Must be less than or equal to: [65536] but was [65537]. This limit can be set by changing the [search.max_buckets] cluster level setting.')`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/search", terms: []string{"search.max_buckets", "65536 buckets"}},
		{name: "Elasticsearch out of shards per node", problem: "today's index was never created",
			objs: func() []runtime.Object {
				o := app("ingest", 1, withEnv("ES_HOSTS", "http://es:9200"), nil)
				return append(o, serverOf("es", es, 9200, withEnv("discovery.type", "single-node"), fx.Node("node-1"))...)
			},
			logs: logBook{"ingest-": repeat(`Elasticsearch exception [type=validation_exception, reason=Validation Failed: 1: this action would add [2] shards, but this cluster currently has [1000]/[1000] maximum normal shards open;]`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/es", terms: []string{"cluster.max_shards_per_node", "1000 shards"}},
		{name: "Mimir's default series limit", problem: "new metrics are missing",
			objs: func() []runtime.Object {
				o := app("metrics-agent", 1, withEnv("REMOTE_WRITE_URL", "http://mimir:8080/api/v1/push"), nil)
				return append(o, serverOf("mimir", "grafana/mimir:2.12.0", 8080, withArgs("-target=all", "-config.file=/etc/mimir/mimir.yaml"), fx.Node("node-1"))...)
			},
			logs: logBook{"metrics-agent-": repeat(`ts=2026-11-27T10:00:00Z level=error component=remote msg="non-recoverable error" err="server returned HTTP status 400 Bad Request: failed pushing to ingester: user=anonymous: per-user series limit of 150000 exceeded (err-mimir-max-series-per-user)"`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/mimir", terms: []string{"max_global_series_per_user", "150000 series"}},
		{name: "etcd request size lowered by a flag", problem: "the operator cannot save its state",
			objs: func() []runtime.Object {
				o := app("operator", 1, withEnv("ETCD_ENDPOINTS", "http://meta-etcd:2379"), crashing)
				return append(o, serverOf("meta-etcd", "quay.io/coreos/etcd:v3.5.15", 2379, withArgs("etcd", "--max-request-bytes=1048576"), fx.Node("node-1"))...)
			},
			logs: logBook{"operator-": `{"level":"error","msg":"failed to save state","error":"etcdserver: request is too large"}` + "\n"},
			rule: "server-limit-reached", culprit: "Deployment/meta-etcd", terms: []string{"--max-request-bytes = 1048576"}},
		{name: "Apache httpd MaxRequestWorkers in a mounted mpm conf", problem: "the site hangs at peak",
			objs: func() []runtime.Object {
				o := imaged("web", "httpd:2.4", 1, mountAt("web-mpm", "/usr/local/apache2/conf/extra"), nil)
				return append(o, cmWith("web-mpm", "httpd-mpm.conf", "<IfModule mpm_event_module>\n    ServerLimit 2\n    ThreadsPerChild 25\n    MaxRequestWorkers 50\n</IfModule>\n"), fx.Node("node-1"))
			},
			logs: logBook{"web-": repeat(`[Fri Nov 27 10:00:00.000000 2026] [mpm_event:error] [pid 1:tid 140] AH00484: server reached MaxRequestWorkers setting, consider raising the MaxRequestWorkers setting`, 3)},
			rule: "server-limit-reached", culprit: "ConfigMap/web-mpm", terms: []string{"MaxRequestWorkers = 50"}},
		{name: "php-fpm's default pm.max_children", problem: "the shop answers 504 under load",
			objs: func() []runtime.Object {
				return append(imaged("shop-fpm", "php:8.3-fpm", 1, nil, nil), fx.Node("node-1"))
			},
			logs: logBook{"shop-fpm-": repeat(`[27-Nov-2026 10:00:00] WARNING: [pool www] server reached pm.max_children setting (5), consider raising it`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/shop-fpm", terms: []string{"pm.max_children", "5"}},
		{name: "S3 client with no region signing for us-east-1", problem: "uploads fail",
			objs: func() []runtime.Object {
				o := app("uploader", 1, envFrom("uploader-env"), nil)
				return append(o, cmWith("uploader-env", "S3_BUCKET", "media"), fx.Node("node-1"))
			},
			logs: logBook{"uploader-": repeat(`botocore.exceptions.ClientError: An error occurred (AuthorizationHeaderMalformed) when calling the PutObject operation: The authorization header is malformed; the region 'us-east-1' is wrong; expecting 'eu-central-1'`, 3)},
			rule: "client-connection-setting", culprit: "Deployment/uploader", terms: []string{"AWS_REGION", "eu-central-1"}},
		{name: "Celery hard time limit on the worker's command line", problem: "renders never finish",
			objs: func() []runtime.Object {
				return append(app("render-worker", 1, withArgs("celery", "-A", "proj", "worker", "--time-limit=300", "-c", "2"), nil), fx.Node("node-1"))
			},
			logs: logBook{"render-worker-": repeat(`[2026-11-27 10:00:00,000: ERROR/MainProcess] Hard time limit (300s) exceeded for proj.tasks.render[5f0c3a1e-8b1d-4a57-9f3e-1c2d3e4f5a6b]`, 3)},
			rule: "request-timeout-setting", culprit: "Deployment/render-worker", terms: []string{"--time-limit = 300"}},
		{name: "ClickHouse max_execution_time in a mounted users.d profile", problem: "monthly reports time out",
			objs: func() []runtime.Object {
				o := app("reports", 1, withEnv("CLICKHOUSE_HOST", "olap"), nil)
				return append(o, serverOf("olap", "clickhouse/clickhouse-server:24.3", 8123, mountAt("olap-users", "/etc/clickhouse-server/users.d"),
					cmWith("olap-users", "profiles.yaml", "profiles:\n  default:\n    max_execution_time: 30\n"), fx.Node("node-1"))...)
			},
			logs: logBook{"reports-": repeat(`clickhouse_connect.driver.exceptions.DatabaseError: Code: 159. DB::Exception: Timeout exceeded: elapsed 30.000912 seconds, maximum: 30. (TIMEOUT_EXCEEDED)`, 3)},
			rule: "request-timeout-setting", culprit: "ConfigMap/olap-users", terms: []string{"max_execution_time = 30"}},
		{name: "JVM direct memory capped in JAVA_TOOL_OPTIONS", problem: "the gateway crashes under load",
			objs: func() []runtime.Object {
				return append(app("gateway", 1, all(withEnv("JAVA_TOOL_OPTIONS", "-Xmx512m -XX:MaxDirectMemorySize=64m"), withMemory("1Gi", "1Gi")), crashing), fx.Node("node-1"))
			},
			logs: logBook{"gateway-": "Exception in thread \"nioEventLoopGroup-3-1\" java.lang.OutOfMemoryError: Direct buffer memory\n\tat java.base/java.nio.Bits.reserveMemory(Bits.java:175)\n"},
			rule: "runtime-memory-setting", culprit: "Deployment/gateway", terms: []string{"MaxDirectMemorySize=64m", "1Gi"}},
	}
	runDepCases(t, cases)
	runSilentCases(t, []silentCase{
		{name: "a search setting named in a startup line", problem: "dashboards are slow", not: "server-limit-reached",
			objs: func() []runtime.Object {
				o := app("dash-api", 1, withEnv("ELASTICSEARCH_HOSTS", "http://search:9200"), nil)
				return append(o, serverOf("search", es, 9200, withEnv("search.max_buckets", "20000"), fx.Node("node-1"))...)
			},
			logs: logBook{"dash-api-": repeat(`INFO connected to cluster; search.max_buckets=20000, too many buckets are refused by the server`, 3)}},
		{name: "an S3 region that is set is left to the quoted-value rules", problem: "uploads fail", not: "client-connection-setting",
			objs: func() []runtime.Object {
				o := app("uploader", 1, envFrom("uploader-env"), nil)
				return append(o, cmWith("uploader-env", "AWS_REGION", "us-east-1", "S3_BUCKET", "media"), fx.Node("node-1"))
			},
			logs: logBook{"uploader-": repeat(`An error occurred (AuthorizationHeaderMalformed) when calling the PutObject operation: The authorization header is malformed; the region 'us-east-1' is wrong; expecting 'eu-central-1'`, 3)}},
		{name: "a Celery time limit with none set where the cluster shows", problem: "renders never finish", not: "request-timeout-setting",
			objs: func() []runtime.Object {
				return append(app("render-worker", 1, withArgs("celery", "-A", "proj", "worker", "-c", "2"), nil), fx.Node("node-1"))
			},
			logs: logBook{"render-worker-": repeat(`[2026-11-27 10:00:00,000: ERROR/MainProcess] Hard time limit (300s) exceeded for proj.tasks.render[5f0c3a1e]`, 3)}},
	})
}
