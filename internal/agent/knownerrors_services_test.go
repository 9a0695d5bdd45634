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

// Well-known errors of message brokers, web servers and frameworks, language runtimes and
// observability back ends, each in the software's own log format.
func TestKnownErrorsServices(t *testing.T) {
	cases := []depCase{
		{name: "Kafka producer past the broker's default message size", problem: "uploads are lost",
			objs: func() []runtime.Object {
				o := app("uploader", 1, withEnv("KAFKA_BROKERS", "bus:9092"), crashing)
				return append(o, serverOf("bus", "bitnami/kafka:3.7", 9092, withEnv("KAFKA_CFG_NODE_ID", "0"), fx.Node("node-1"))...)
			},
			logs: logBook{"uploader-": "org.apache.kafka.common.errors.RecordTooLargeException: The request included a message larger than the max message size the server will accept.\n"},
			rule: "server-limit-reached", culprit: "Deployment/bus", terms: []string{"message_max_bytes", "1048588"}},
		{name: "Kafka broker with a lowered message.max.bytes, librdkafka", problem: "events are dropped",
			objs: func() []runtime.Object {
				o := app("events-out", 1, envFrom("events-out-env"), nil)
				o = append(o, cmWith("events-out-env", "BOOTSTRAP", "stream:9092"))
				return append(o, serverOf("stream", "apache/kafka:3.8.0", 9092, withEnv("KAFKA_MESSAGE_MAX_BYTES", "524288"), fx.Node("node-1"))...)
			},
			logs: logBook{"events-out-": repeat(`%3|1700000000.000|PRODUCE|rdkafka#producer-1| Delivery failed: Broker: Message size too large`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/stream", terms: []string{"KAFKA_MESSAGE_MAX_BYTES = 524288"}},
		{name: "Kafka SASL mechanism the listener does not enable", problem: "the audit consumer cannot connect",
			objs: func() []runtime.Object {
				o := app("audit", 1, mountAt("audit-props", "/etc/audit"), crashing)
				o = append(o, cmWith("audit-props", "consumer.properties", "bootstrap.servers=events:9093\nsecurity.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"))
				return append(o, serverOf("events", "bitnami/kafka:3.7", 9093, withEnv("KAFKA_CFG_SASL_ENABLED_MECHANISMS", "SCRAM-SHA-512"), fx.Node("node-1"))...)
			},
			logs: logBook{"audit-": "org.apache.kafka.common.errors.UnsupportedSaslMechanismException: Client SASL mechanism 'PLAIN' not enabled in the server, enabled mechanisms are [SCRAM-SHA-512]\n"},
			rule: "client-connection-setting", culprit: "Deployment/events", terms: []string{"SCRAM-SHA-512", "sasl.mechanism = PLAIN"}},
		{name: "librdkafka consumer past max.poll.interval.ms", problem: "enricher lags",
			objs: func() []runtime.Object {
				return append(app("enricher", 2, withEnv("KAFKA_BOOTSTRAP", "kafka:9092"), nil), fx.Node("node-1"))
			},
			logs: logBook{"enricher-": repeat(`%4|1700000000.000|MAXPOLL|rdkafka#consumer-1| [thrd:main]: Application maximum poll interval (300000ms) exceeded by 88ms (adjust max.poll.interval.ms for long-running message processing): leaving group`, 3)},
			rule: "request-timeout-setting", culprit: "Deployment/enricher", terms: []string{"max_poll_interval_ms", "300000 ms"}},
		{name: "Java consumer with a large max.poll.records", problem: "billing events are processed twice",
			objs: func() []runtime.Object {
				o := app("billing-consumer", 1, envFrom("billing-kafka"), nil)
				return append(o, cmWith("billing-kafka", "SPRING_KAFKA_CONSUMER_MAX_POLL_RECORDS", "5000"), fx.Node("node-1"))
			},
			logs: logBook{"billing-consumer-": repeat(`org.apache.kafka.clients.consumer.CommitFailedException: Offset commit cannot be completed since the consumer is not part of an active group for auto partition assignment; it is likely that the consumer was kicked out of the group.`, 2)},
			rule: "request-timeout-setting", culprit: "ConfigMap/billing-kafka", terms: []string{"MAX_POLL_RECORDS = 5000"}},
		{name: "celery on RabbitMQ's guest user", problem: "reports never run",
			objs: func() []runtime.Object {
				o := app("reports-worker", 1, envFrom("reports-worker-env"), crashing)
				return append(o, cmWith("reports-worker-env", "CELERY_BROKER_URL", "amqp://guest:guest@rabbitmq:5672//"), fx.Node("node-1"))
			},
			logs: logBook{"reports-worker-": "[2026-11-27 10:00:00,000: ERROR/MainProcess] consumer: Cannot connect to amqp://guest:**@rabbitmq:5672//: (0, 0): (403) ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN. For details see the broker logfile..\n"},
			rule: "server-access-rule", culprit: "ConfigMap/reports-worker-env", terms: []string{"guest", "localhost", "loopback_users"}},
		{name: "nginx refusing an upload past client_max_body_size", problem: "uploads fail with 413",
			objs: func() []runtime.Object {
				o := imaged("edge", "nginx:1.27-alpine", 1, mountAt("edge-conf", "/etc/nginx/conf.d"), nil)
				return append(o, cmWith("edge-conf", "default.conf", "server {\n  listen 80;\n  client_max_body_size 1m;\n  location / { proxy_pass http://files:8080; }\n}\n"), fx.Node("node-1"))
			},
			logs: logBook{"edge-": repeat(`2026/11/27 10:00:00 [error] 31#31: *5 client intended to send too large body: 5242880 bytes, client: 10.244.0.1, server: _, request: "POST /upload HTTP/1.1", host: "files.example.com"`, 3)},
			rule: "server-limit-reached", culprit: "ConfigMap/edge-conf", terms: []string{"client_max_body_size = 1m", "413"}},
		{name: "nginx's default read timeout in front of a slow upstream", problem: "reports answer 504",
			objs: func() []runtime.Object {
				o := imaged("gateway", "nginx:1.25", 1, mountAt("gateway-conf", "/etc/nginx/conf.d"), nil)
				return append(o, cmWith("gateway-conf", "api.conf", "server {\n  listen 8080;\n  location /report { proxy_pass http://reports:8080; }\n}\n"), fx.Node("node-1"))
			},
			logs: logBook{"gateway-": repeat(`2026/11/27 10:00:00 [error] 29#29: *118 upstream timed out (110: Connection timed out) while reading response header from upstream, client: 10.244.1.1, server: api.example.com, request: "GET /report HTTP/1.1", upstream: "http://10.96.4.4:8080/report"`, 3)},
			rule: "request-timeout-setting", culprit: "Deployment/gateway", terms: []string{"proxy_read_timeout", "60s"}},
		{name: "gunicorn's default worker timeout", problem: "exports die halfway",
			objs: func() []runtime.Object {
				return append(app("exports", 1, withArgs("gunicorn", "exports.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"), nil), fx.Node("node-1"))
			},
			logs: logBook{"exports-": repeat(`[2026-11-27 10:00:00 +0000] [1] [CRITICAL] WORKER TIMEOUT (pid:17)`, 3)},
			rule: "request-timeout-setting", culprit: "Deployment/exports", terms: []string{"--timeout", "30 seconds"}},
		{name: "gunicorn timeout already raised, still shorter than the work", problem: "exports die halfway",
			objs: func() []runtime.Object {
				return append(app("exports", 1, withArgs("gunicorn", "app:app", "--timeout", "300"), nil), fx.Node("node-1"))
			},
			logs: logBook{"exports-": repeat(`[CRITICAL] WORKER TIMEOUT (pid:17)`, 3)},
			rule: "request-timeout-setting", culprit: "Deployment/exports", terms: []string{"--timeout = 300"}},
		{name: "Django host not in ALLOWED_HOSTS", problem: "cms readiness fails",
			objs: func() []runtime.Object {
				o := app("cms", 1, envFrom("cms-env"), nil)
				return append(o, cmWith("cms-env", "DJANGO_ALLOWED_HOSTS", "cms.example.com"), fx.Node("node-1"))
			},
			logs: logBook{"cms-": repeat(`Invalid HTTP_HOST header: '10.244.1.7:8000'. You may need to add '10.244.1.7' to ALLOWED_HOSTS.`, 3)},
			rule: "server-access-rule", culprit: "ConfigMap/cms-env", terms: []string{"DJANGO_ALLOWED_HOSTS = cms.example.com"}},
		{name: "Keycloak behind a TLS-terminating Ingress without proxy headers", problem: "users cannot log in",
			objs: func() []runtime.Object {
				return append(imaged("sso", "quay.io/keycloak/keycloak:25.0", 1, withEnv("KC_HOSTNAME", "sso.example.com"), nil), fx.Node("node-1"))
			},
			logs: logBook{"sso-": repeat(`2026-11-27 10:00:00,000 WARN  [org.keycloak.events] (executor-thread-3) type="LOGIN_ERROR", realmId="a1", clientId="grafana", userId="null", ipAddress="10.244.0.5", error="ssl_required"`, 3)},
			rule: "server-access-rule", culprit: "Deployment/sso", terms: []string{"kc_proxy_headers", "X-Forwarded-Proto"}},
		{name: "JVM heap capped by -Xmx in JAVA_OPTS", problem: "pricing keeps crashing",
			objs: func() []runtime.Object {
				return append(app("pricing", 1, all(withEnv("JAVA_OPTS", "-Xms256m -Xmx256m"), withMemory("2Gi", "1Gi")), crashing), fx.Node("node-1"))
			},
			logs: logBook{"pricing-": "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space\n\tat java.base/java.util.Arrays.copyOf(Arrays.java:3537)\n"},
			rule: "runtime-memory-setting", culprit: "Deployment/pricing", terms: []string{"-Xmx256m", "2Gi", "MaxRAMPercentage"}},
		{name: "JVM heap from the default MaxRAMPercentage", problem: "gateway errors under load",
			objs: func() []runtime.Object {
				return append(app("gateway", 2, withMemory("1Gi", "1Gi"), nil), fx.Node("node-1"))
			},
			logs: logBook{"gateway-": repeat(`2026-11-27 10:00:00.000 ERROR 1 --- [nio-8080-exec-4] o.a.c.c.C.[.[.[/].[dispatcherServlet] : Servlet.service() threw exception: java.lang.OutOfMemoryError: Java heap space`, 3)},
			rule: "runtime-memory-setting", culprit: "Deployment/gateway", terms: []string{"25%", "1Gi"}},
		{name: "Metaspace capped in a ConfigMap", problem: "legacy app dies after redeploys",
			objs: func() []runtime.Object {
				o := app("legacy", 1, envFrom("legacy-jvm"), crashing)
				return append(o, cmWith("legacy-jvm", "CATALINA_OPTS", "-Xmx1g -XX:MaxMetaspaceSize=128m"), fx.Node("node-1"))
			},
			logs: logBook{"legacy-": "SEVERE [http-nio-8080-exec-1] java.lang.OutOfMemoryError: Metaspace\n"},
			rule: "runtime-memory-setting", culprit: "ConfigMap/legacy-jvm", terms: []string{"MaxMetaspaceSize=128m", "Metaspace"}},
		{name: "Node heap set in NODE_OPTIONS", problem: "server-side rendering crashes",
			objs: func() []runtime.Object {
				return append(app("ssr", 1, all(withEnv("NODE_OPTIONS", "--max-old-space-size=512"), withMemory("2Gi", "2Gi")), crashing), fx.Node("node-1"))
			},
			logs: logBook{"ssr-": "<--- Last few GCs --->\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n 1: 0xb7c3b0 node::Abort() [node]\n"},
			rule: "runtime-memory-setting", culprit: "Deployment/ssr", terms: []string{"--max-old-space-size=512", "2Gi"}},
		{name: "promtail against Loki's ingestion rate in limits_config", problem: "logs are missing in Grafana",
			objs: func() []runtime.Object {
				o := app("promtail", 1, mountAt("promtail-config", "/etc/promtail"), nil)
				o = append(o, cmWith("promtail-config", "promtail.yaml", "clients:\n  - url: http://loki:3100/loki/api/v1/push\n"))
				return append(o, serverOf("loki", "grafana/loki:3.1.0", 3100, mountAt("loki", "/etc/loki"),
					cmWith("loki", "config.yaml", "auth_enabled: false\nlimits_config:\n  ingestion_rate_mb: 4\n  ingestion_burst_size_mb: 6\n"), fx.Node("node-1"))...)
			},
			logs: logBook{"promtail-": repeat(`level=warn ts=2026-11-27T10:00:00Z caller=client.go:419 component=client host=loki:3100 msg="error sending batch, will retry" status=429 tenant= error="server returned HTTP status 429 Too Many Requests (429): Ingestion rate limit exceeded for user fake (limit: 4194304 bytes/sec) while attempting to ingest '2000' lines totaling '1048576' bytes, reduce log volume or contact your Loki administrator to see if the limit can be increased"`, 3)},
			rule: "server-limit-reached", culprit: "ConfigMap/loki", affected: []string{"Service/loki"}, terms: []string{"ingestion_rate_mb = 4"}},
		{name: "Fluent Bit against Loki's default per-stream limit", problem: "api logs have gaps",
			objs: func() []runtime.Object {
				o := app("fluent-bit", 1, withEnv("LOKI_HOST", "logs"), nil)
				return append(o, serverOf("logs", "grafana/loki:2.9.8", 3100, withArgs("-config.file=/etc/loki/local-config.yaml"), fx.Node("node-1"))...)
			},
			logs: logBook{"fluent-bit-": repeat(`[2026/11/27 10:00:00] [error] [output:loki:loki.0] logs:3100, HTTP status=429 Per stream rate limit exceeded (limit: 3MB/sec) while attempting to ingest for stream '{app="api"}' totaling 1048576B, consider splitting a stream via additional labels or contact your Loki administrator to see if the limit can be increased`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/logs", terms: []string{"per_stream_rate_limit", "3MB"}},
		{name: "Loki's active stream limit", problem: "new pods' logs are missing",
			objs: func() []runtime.Object {
				o := app("alloy", 1, withEnv("LOKI_URL", "http://loki-gw:3100/loki/api/v1/push"), nil)
				return append(o, serverOf("loki-gw", "grafana/loki:3.0.0", 3100, mountAt("loki-limits", "/etc/loki"), cmWith("loki-limits", "limits.yaml", "limits_config:\n  max_global_streams_per_user: 5000\n"), fx.Node("node-1"))...)
			},
			logs: logBook{"alloy-": repeat(`ts=2026-11-27T10:00:00Z level=error msg="final error sending batch" component=loki.write.default status=429 error="server returned HTTP status 429 Too Many Requests (429): Maximum active stream limit exceeded, reduce the number of active streams (reduce labels or reduce label values), or contact your Loki administrator to see if the limit can be increased, user: 'fake'"`, 3)},
			rule: "server-limit-reached", culprit: "ConfigMap/loki-limits", terms: []string{"max_global_streams_per_user = 5000"}},
		{name: "Prometheus --query.max-samples behind Grafana", problem: "dashboards show errors",
			objs: func() []runtime.Object {
				o := app("dashboards", 1, withEnv("PROMETHEUS_URL", "http://prom:9090"), nil)
				return append(o, serverOf("prom", "quay.io/prometheus/prometheus:v2.53.0", 9090, withArgs("--config.file=/etc/prometheus/prometheus.yml", "--query.max-samples=5000000"), fx.Node("node-1"))...)
			},
			logs: logBook{"dashboards-": repeat(`logger=tsdb.prometheus endpoint=queryData level=error msg="Query error" error="query processing would load too many samples into memory in query execution"`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/prom", terms: []string{"--query.max-samples = 5000000"}},
	}
	runDepCases(t, cases)
	runSilentCases(t, []silentCase{
		{name: "a 413 from a server that is no nginx", problem: "uploads fail with 413", not: "server-limit-reached",
			objs: func() []runtime.Object {
				o := app("client", 1, withEnv("FILES_URL", "http://files:8080"), crashing)
				return append(o, serverOf("files", "registry.example/files:2", 8080, nil, fx.Node("node-1"))...)
			},
			logs: logBook{"client-": "Error: upload failed: 413 Request Entity Too Large\n"}},
		{name: "celery on a user of its own", problem: "reports never run", not: "server-access-rule",
			objs: func() []runtime.Object {
				o := app("reports-worker", 1, envFrom("reports-worker-env"), crashing)
				return append(o, cmWith("reports-worker-env", "CELERY_BROKER_URL", "amqp://reports:pw@rabbitmq:5672//"), fx.Node("node-1"))
			},
			logs: logBook{"reports-worker-": "(403) ACCESS_REFUSED - Login was refused using authentication mechanism PLAIN.\n"}},
	})
}
