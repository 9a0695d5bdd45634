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
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// A replication factor is a fault only above the brokers that run; a server that cannot
// persist blames the claim it stores on.
func TestKnownErrorsReplicasAndVolumes(t *testing.T) {
	cases := []depCase{
		{name: "one broker, offsets topic at the default three copies (broker's own log)", problem: "consumers never join their group",
			objs: func() []runtime.Object {
				return append(imaged("kafka", "apache/kafka:3.8.0", 1, withEnv("KAFKA_NODE_ID", "1", "KAFKA_PROCESS_ROLES", "broker,controller"), crashing), fx.Node("node-1"))
			},
			logs: logBook{"kafka-": repeat(`[2026-11-27 10:00:00,000] ERROR [KafkaApi-1] Number of alive brokers '1' does not meet the required replication factor '3' for the offsets topic (configured via 'offsets.topic.replication.factor'). This error can be ignored if the cluster is starting up and not all brokers are up yet. (kafka.server.KafkaApis)`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/kafka", terms: []string{"offsets_topic_replication_factor", "3 copies", "1 replica"}},
		{name: "one broker, offsets topic factor set to three in env, client side", problem: "the consumer reads nothing",
			objs: func() []runtime.Object {
				o := app("reader", 1, withEnv("KAFKA_BOOTSTRAP_SERVERS", "events:9092"), nil)
				return append(o, serverOf("events", "bitnami/kafka:3.7", 9092, withEnv("KAFKA_CFG_OFFSETS_TOPIC_REPLICATION_FACTOR", "3"), fx.Node("node-1"))...)
			},
			logs: logBook{"reader-": repeat(`%5|1700000000.000|REQTMOUT|rdkafka#consumer-1| [thrd:GroupCoordinator]: GroupCoordinator/1: Broker: Coordinator not available (COORDINATOR_NOT_AVAILABLE)`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/events", terms: []string{"OFFSETS_TOPIC_REPLICATION_FACTOR = 3", "1 replica"}},
		{name: "min.insync.replicas above the brokers", problem: "orders are not published",
			objs: func() []runtime.Object {
				o := app("orders", 1, withEnv("KAFKA_BROKERS", "bus:9092", "KAFKA_ACKS", "all"), crashing)
				return append(o, serverOf("bus", "bitnami/kafka:3.7", 9092, withEnv("KAFKA_CFG_MIN_INSYNC_REPLICAS", "2"), fx.Node("node-1"))...)
			},
			logs: logBook{"orders-": "org.apache.kafka.common.errors.NotEnoughReplicasException: Messages are rejected since there are fewer in-sync replicas than required.\n"},
			rule: "server-limit-reached", culprit: "Deployment/bus", terms: []string{"MIN_INSYNC_REPLICAS = 2", "KAFKA_ACKS"}},
		{name: "a client creating its topic with more copies than brokers", problem: "the audit topic is never created",
			objs: func() []runtime.Object {
				o := app("audit", 1, envFrom("audit-env"), crashing)
				o = append(o, cmWith("audit-env", "KAFKA_URL", "kafka://stream:9092", "AUDIT_TOPIC_REPLICATION_FACTOR", "3"))
				return append(o, serverOf("stream", "apache/kafka:3.8.0", 9092, nil, fx.Node("node-1"))...)
			},
			logs: logBook{"audit-": "kafkajs.KafkaJSProtocolError: Replication factor: 3 larger than available brokers: 1. type=INVALID_REPLICATION_FACTOR\n"},
			rule: "server-limit-reached", culprit: "ConfigMap/audit-env", terms: []string{"AUDIT_TOPIC_REPLICATION_FACTOR = 3"}},
		{name: "Redis MISCONF blames the claim the server stores on", problem: "notifications are not queued",
			objs: func() []runtime.Object {
				o := app("notifier", 2, withEnv("REDIS_HOST", "queue-redis"), nil)
				return append(o, append(serverOf("queue-redis", "bitnami/redis:7.2", 6379, withClaim("redis-data-queue-redis-0", "/bitnami/redis/data")), claimOf("redis-data-queue-redis-0", "8Gi"), fx.Node("node-1"))...)
			},
			logs: logBook{"notifier-": repeat(`Error: MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Commands that may modify the data set are disabled, because this instance is configured to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please check the Redis logs for details about the RDB error.`, 3)},
			rule: "server-volume-unwritable", culprit: "PersistentVolumeClaim/redis-data-queue-redis-0", affected: []string{"Service/queue-redis", "Deployment/queue-redis"},
			terms: []string{"8Gi", "not writable", "stop-writes-on-bgsave-error"}},
	}
	runDepCases(t, cases)
	// Asked about the client, the server's own log decides between a full and an unwritable
	// volume, and is quoted.
	e := engine(append(app("notifier", 2, withEnv("REDIS_HOST", "queue-redis"), nil),
		append(serverOf("queue-redis", "bitnami/redis:7.2", 6379, withClaim("redis-data-queue-redis-0", "/bitnami/redis/data")), claimOf("redis-data-queue-redis-0", "8Gi"), fx.Node("node-1"))...)...)
	e.Logs = logBook{"notifier-": repeat(`Error: MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk.`, 3),
		"queue-redis-": "1:M 27 Nov 2026 14:29:41.001 * 100 changes in 300 seconds. Saving...\n2291:C 27 Nov 2026 14:29:47.121 # Failed opening the temp RDB file temp-2291.rdb (in server root dir /bitnami/redis/data) for saving: No space left on device\n1:M 27 Nov 2026 14:29:47.199 # Background saving error\n"}.source()
	s := sessionFor("notifications are not queued")
	s.Target = deploy("notifier")
	rc := drive(t, e, s).RootCause
	if rc.Rule != "server-volume-unwritable" || rc.Culprit.Name != "redis-data-queue-redis-0" || !strings.Contains(rc.Summary, "No space left on device") || !strings.Contains(rc.Summary, "server's own log") {
		t.Errorf("got %s on %s without the server's own words: %s", rc.Rule, rc.Culprit, rc.Summary)
	}
	runSilentCases(t, []silentCase{
		{name: "three brokers hold the default three copies", problem: "consumers never join their group", not: "server-limit-reached",
			objs: func() []runtime.Object {
				o := imaged("kafka", "apache/kafka:3.8.0", 3, nil, crashing)
				for _, x := range o {
					if d, ok := x.(*appsv1.Deployment); ok {
						d.Spec.Replicas = fx.Ptr(int32(3))
					}
				}
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{"kafka-": repeat(`ERROR Number of alive brokers '2' does not meet the required replication factor '3' for the offsets topic (configured via 'offsets.topic.replication.factor').`, 3)}},
		{name: "a client's coordinator wait with no factor written (a starting broker)", problem: "the consumer reads nothing", not: "server-limit-reached",
			objs: func() []runtime.Object {
				o := app("reader", 1, withEnv("KAFKA_BOOTSTRAP_SERVERS", "events:9092"), nil)
				return append(o, serverOf("events", "confluentinc/cp-kafka:7.6.0", 9092, nil, fx.Node("node-1"))...)
			},
			logs: logBook{"reader-": repeat(`Broker: Coordinator not available (COORDINATOR_NOT_AVAILABLE)`, 3)}},
		{name: "min.insync.replicas within the brokers", problem: "orders are not published", not: "server-limit-reached",
			objs: func() []runtime.Object {
				o := app("orders", 1, withEnv("KAFKA_BROKERS", "bus:9092"), crashing)
				return append(o, serverOf("bus", "bitnami/kafka:3.7", 9092, withEnv("KAFKA_CFG_MIN_INSYNC_REPLICAS", "1"), fx.Node("node-1"))...)
			},
			logs: logBook{"orders-": "NotEnoughReplicasException: Messages are rejected since there are fewer in-sync replicas than required.\n"}},
	})
	_ = corev1.ReadWriteOnce
}

// A database whose data directory is a volume's mount point (lost+found) never initializes.
func TestKnownErrorsDataDirectory(t *testing.T) {
	cases := []depCase{
		{name: "postgres on the mount point by default", problem: "the database never starts",
			objs: func() []runtime.Object {
				o := imaged("orders-db", "postgres:16", 1, all(withEnv("POSTGRES_DB", "orders"), withClaim("orders-pgdata", "/var/lib/postgresql/data")), crashing)
				return append(o, claimOf("orders-pgdata", "20Gi"), fx.Node("node-1"))
			},
			logs: logBook{"orders-db-": "initdb: error: directory \"/var/lib/postgresql/data\" exists but is not empty\ninitdb: detail: It contains a lost+found directory, perhaps due to it being a mount point.\ninitdb: hint: Using a mount point directly as the data directory is not recommended.\nCreate a subdirectory under the mount point.\n"},
			rule: "data-directory-setting", culprit: "Deployment/orders-db", terms: []string{"PGDATA", "lost+found", "orders-pgdata"}},
		{name: "mysqld with --datadir on the mount point", problem: "mysql crash loops",
			objs: func() []runtime.Object {
				o := imaged("shop-mysql", "mysql:8.0", 1, all(withArgs("--datadir=/data"), withClaim("shop-mysql-data", "/data")), crashing)
				return append(o, claimOf("shop-mysql-data", "10Gi"), fx.Node("node-1"))
			},
			logs: logBook{"shop-mysql-": "2026-11-27T10:00:00.000000Z 0 [ERROR] [MY-010457] [Server] --initialize specified but the data directory has files in it. Aborting.\n2026-11-27T10:00:00.000000Z 0 [ERROR] [MY-013236] [Server] The designated data directory /data/ is unusable. You can remove all files that the server added to it.\n"},
			rule: "data-directory-setting", culprit: "Deployment/shop-mysql", terms: []string{"--datadir = /data", "subdirectory"}},
	}
	runDepCases(t, cases)
}

// Broker and cache limits that block clients: Redis's maxclients, RabbitMQ's alarms.
func TestKnownErrorsBrokerAlarms(t *testing.T) {
	cases := []depCase{
		{name: "Redis at its maxclients", problem: "sessions fail at peak",
			objs: func() []runtime.Object {
				o := app("web", 3, withEnv("REDIS_URL", "redis://sessions:6379"), nil)
				return append(o, serverOf("sessions", "redis:7.2", 6379, withArgs("redis-server", "--maxclients", "100"), fx.Node("node-1"))...)
			},
			logs: logBook{"web-": repeat(`redis.exceptions.ConnectionError: max number of clients reached`, 3) + repeat(`ERR max number of clients reached`, 2)},
			rule: "server-limit-reached", culprit: "Deployment/sessions", terms: []string{"--maxclients = 100"}},
		{name: "RabbitMQ memory alarm with the watermark in rabbitmq.conf", problem: "publishers hang",
			objs: func() []runtime.Object {
				o := app("publisher", 1, withEnv("AMQP_URL", "amqp://app:pw@mq:5672/"), nil)
				return append(o, serverOf("mq", "rabbitmq:3.13-management", 5672, mountAt("mq-conf", "/etc/rabbitmq/conf.d"), cmWith("mq-conf", "10-limits.conf", "vm_memory_high_watermark.relative = 0.2\n"), fx.Node("node-1"))...)
			},
			logs: logBook{"publisher-": repeat(`WARNING:pika.connection:Connection.Blocked: reason='low on memory'; blocked by the broker: low on memory`, 3)},
			rule: "server-limit-reached", culprit: "ConfigMap/mq-conf", terms: []string{"vm_memory_high_watermark.relative = 0.2"}},
		{name: "Spring AMQP's blocked connection against a disk limit in rabbitmq.conf", problem: "the publisher is not ready",
			objs: func() []runtime.Object {
				o := app("publisher", 1, withEnv("SPRING_RABBITMQ_HOST", "mq"), nil)
				return append(o, serverOf("mq", "rabbitmq:3.13-management", 5672, mountAt("mq-conf", "/etc/rabbitmq/conf.d"), cmWith("mq-conf", "10-limits.conf", "disk_free_limit.absolute = 50GB\n"), fx.Node("node-1"))...)
			},
			logs: logBook{"publisher-": repeat(`2026-03-04T08:00:09.894Z WARN  [AMQP Connection mq:5672] c.e.orders.amqp.BlockedConnectionListener : AMQP connection blocked by broker: low on disk`, 3)},
			rule: "server-limit-reached", culprit: "ConfigMap/mq-conf", terms: []string{"disk_free_limit.absolute = 50GB"}},
		{name: "RabbitMQ's own disk alarm at the default limit", problem: "nothing gets published",
			objs: func() []runtime.Object {
				return append(imaged("rabbitmq", "bitnami/rabbitmq:3.12", 1, withClaim("data-rabbitmq-0", "/bitnami/rabbitmq/mnesia"), nil), claimOf("data-rabbitmq-0", "1Gi"), fx.Node("node-1"))
			},
			logs: logBook{"rabbitmq-": repeat(`2026-11-27 10:00:00.000 [warning] <0.456.0> disk resource limit alarm set on node rabbit@rabbitmq-0.`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/rabbitmq", terms: []string{"disk_free_limit", "50MB"}},
	}
	runDepCases(t, cases)
}
