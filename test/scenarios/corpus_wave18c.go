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

// Wave 18c: data stores and queues seen from their clients. A client fails (a Job, a crash
// loop, a readiness probe, or a Running pod that logs errors) because of the provider or the
// path to it: the provider's own settings, its Service, its RBAC, a NetworkPolicy in front of
// it, or the client's connection settings. The decisive clue is in the client's log, the
// server's log, a termination message or only in the objects. Written blind by an outside hand
// from public issues; every Want was fixed from the source before anything ran.

func wave18cScenarios() []*Scenario {
	return append(wave18cFirstScenarios(), wave18cMoreScenarios()...)
}

func wave18cFirstScenarios() []*Scenario {
	return []*Scenario{w18cRollupScenario(), w18cReadOnlyScenario(), w18cDiskAlarmScenario(), w18cMinISRScenario(), w18cClickHouseScenario()}
}

// A container's /dev/shm is a 64M tmpfs unless the pod mounts a memory-backed emptyDir there.
// PostgreSQL's parallel query workers exchange data through dynamic shared memory in /dev/shm,
// so a big parallel aggregate fails with "could not resize shared memory segment ... No space
// left on device" (SQLSTATE 53100) while small queries work; the fix is on the database pod.
func w18cRollupScenario() *Scenario {
	rollup := w8bLabels("revenue-rollup", "finance")
	wh := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "warehouse-postgres")
	odb := w8cLabels("app.kubernetes.io/name", "postgresql", "app.kubernetes.io/instance", "ledger-postgres")
	return &Scenario{
		Name:   "revenue-rollup-fails-on-big-aggregate",
		Covers: "the revenue-rollup Job fails (BackoffLimitExceeded) with 'psycopg2.errors.DiskFull: could not resize shared memory segment \"/PostgreSQL.2086467730\" to 67128672 bytes: No space left on device' from a parallel worker; StatefulSet warehouse-postgres runs with max_parallel_workers_per_gather=4 and work_mem=256MB but mounts no memory-backed emptyDir at /dev/shm (ledger-postgres does), so the container's 64M shm is too small",
		Source: w18cSrcShm, Class: ClassProvider, Hops: 2,
		Problem: "the nightly revenue-rollup Job fails every night on the big aggregation step; the small dimension refreshes before it work",
		Target:  target("Job", "revenue-rollup"),
		Want:    Want{Culprit: Ref{Kind: "StatefulSet", Name: "warehouse-postgres"}, Terms: []string{"/dev/shm"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error {
					st := w8bStatefulSet("warehouse-postgres", "docker.io/library/postgres:16.4", "warehouse-postgres-hl", 1, wh, running("w18c-warehouse-postgres"), "tcp-postgresql", 5432)
					st.Spec.Template.Spec.Containers[0].Name = "postgresql"
					w8cArgs(&st.Spec.Template, "-c", "max_parallel_workers_per_gather=4", "-c", "work_mem=256MB", "-c", "shared_buffers=1GB", "-c", "effective_cache_size=3GB")
					w8bEnv(&st.Spec.Template, "POSTGRES_DB", "warehouse", "POSTGRES_USER", "warehouse", "PGDATA", "/var/lib/postgresql/data/pgdata")
					envKeyFromSecret(&st.Spec.Template, "POSTGRES_PASSWORD", "warehouse-postgres", "password")
					return e.w18cStore(ctx, st, true)
				},
				func() error {
					return e.createSecret(ctx, "warehouse-postgres", map[string]string{"password": "v8QeWm2LrT0xZs4N", "rollup-password": "Hc71pQz0aLk3VbE9"})
				},
				func() error {
					st := w8bStatefulSet("ledger-postgres", "docker.io/library/postgres:16.4", "ledger-postgres-hl", 1, odb, nil, "tcp-postgresql", 5432)
					st.Spec.Template.Spec.Containers[0].Name = "postgresql"
					w8cArgs(&st.Spec.Template, "-c", "max_parallel_workers_per_gather=2", "-c", "work_mem=64MB")
					w8bEnv(&st.Spec.Template, "POSTGRES_DB", "ledger", "POSTGRES_USER", "ledger", "PGDATA", "/var/lib/postgresql/data/pgdata")
					w18cShm(&st.Spec.Template, "1Gi")
					return e.w18cStore(ctx, st, true)
				},
				func() error {
					d := w8bDeployment("ledger-api", "registry.example/finance/ledger-api:5.0.3", 2, w8bLabels("ledger-api", "finance"), nil, "http", 8080)
					w8bEnv(&d.Spec.Template, "PGHOST", "ledger-postgres", "PGDATABASE", "ledger", "PGUSER", "ledger")
					return e.w11bServe(ctx, d, 80)
				},
				func() error {
					msg := `psycopg2.errors.DiskFull: could not resize shared memory segment "/PostgreSQL.2086467730" to 67128672 bytes: No space left on device CONTEXT: parallel worker`
					j := w18cJob("revenue-rollup", "rollup", "registry.example/finance/revenue-rollup:3.4.1", 1, rollup,
						sim("fail", annExitCode, "3", annMessage, msg, annLogs, "w18c-revenue-rollup"), "--window=1d", "--steps=all")
					w8bEnv(&j.Spec.Template, "PGHOST", "warehouse-postgres", "PGPORT", "5432", "PGDATABASE", "warehouse", "PGUSER", "rollup")
					envKeyFromSecret(&j.Spec.Template, "PGPASSWORD", "warehouse-postgres", "rollup-password")
					return e.w18cCreateJob(ctx, j)
				},
			)
		},
		Wait: all(w11aJobFailed("revenue-rollup", "BackoffLimitExceeded"), w8cStatefulSetReady("warehouse-postgres", 1), readyReplicas("ledger-api", 2)),
	}
}

// A Redis chart with a master and read replicas: the Service meant for writes must select
// only the master pod. Someone dropped the component label from its selector, so it load-
// balances over the master and both replicas and about two writes in three land on a replica:
// "READONLY You can't write against a read only replica". The API stays Ready and logs it.
func w18cReadOnlyScenario() *Scenario {
	base := w8cLabels("app.kubernetes.io/name", "redis", "app.kubernetes.io/instance", "jobs-redis")
	master := w18cMerge(base, map[string]string{"app.kubernetes.io/component": "master"})
	replica := w18cMerge(base, map[string]string{"app.kubernetes.io/component": "replica"})
	api := w8bLabels("jobs-api", "jobs")
	return &Scenario{
		Name:   "jobs-api-enqueues-fail-after-scaleout",
		Covers: "jobs-api is Ready but about two enqueues in three fail with 'ReplyError: READONLY You can't write against a read only replica.'; Service jobs-redis-master selects only app.kubernetes.io/name and instance, so its endpoints are the master and the two pods of StatefulSet jobs-redis-replicas (Service jobs-redis-replicas, used by reports-api for reads, is right)",
		Source: w18cSrcReadOnly, Class: ClassOutside, Hops: 2,
		Problem: "since we scaled out the queue Redis, jobs-api randomly fails to enqueue jobs; some requests work, most return 503",
		Target:  target("Deployment", "jobs-api"),
		Want:    Want{Culprit: Ref{Kind: "Service", Name: "jobs-redis-master"}, Terms: []string{"select", "replica"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error {
					st := w8bStatefulSet("jobs-redis-master", "docker.io/bitnami/redis:7.2.5", "jobs-redis-headless", 1, master, nil, "redis", 6379)
					st.Spec.Template.Spec.Containers[0].Name = "redis"
					w8bEnv(&st.Spec.Template, "REDIS_REPLICATION_MODE", "master", "ALLOW_EMPTY_PASSWORD", "yes", "REDIS_AOF_ENABLED", "yes")
					return e.createStatefulSet(ctx, st)
				},
				func() error {
					st := w8bStatefulSet("jobs-redis-replicas", "docker.io/bitnami/redis:7.2.5", "jobs-redis-headless", 2, replica, running("w18c-jobs-redis-replica"), "redis", 6379)
					st.Spec.Template.Spec.Containers[0].Name = "redis"
					w8bEnv(&st.Spec.Template, "REDIS_REPLICATION_MODE", "replica", "REDIS_MASTER_HOST", "jobs-redis-master-0.jobs-redis-headless", "REDIS_MASTER_PORT_NUMBER", "6379", "ALLOW_EMPTY_PASSWORD", "yes")
					return e.createStatefulSet(ctx, st)
				},
				func() error { return e.createService(ctx, w8bHeadless("jobs-redis-headless", base, "redis", 6379)) },
				func() error { return e.createService(ctx, w8bService("jobs-redis-master", base, "redis", 6379)) },
				func() error { return e.createService(ctx, w8bService("jobs-redis-replicas", replica, "redis", 6379)) },
				func() error {
					d := w11bApp("jobs-api", "api", "registry.example/jobs/jobs-api:5.2.0", 2, api, running("w18c-jobs-api-bullmq"), "http", 3000)
					w8bEnv(&d.Spec.Template, "REDIS_HOST", "jobs-redis-master", "REDIS_PORT", "6379", "QUEUES", "pdf-render,email-outbound", "NODE_ENV", "production")
					w8bReadiness(&d.Spec.Template, "/healthz", "http", 10)
					return e.w11bServe(ctx, d, 80)
				},
				func() error {
					d := w11bApp("reports-api", "api", "registry.example/jobs/reports-api:2.8.1", 1, w8bLabels("reports-api", "jobs"), nil, "http", 3000)
					w8bEnv(&d.Spec.Template, "REDIS_HOST", "jobs-redis-replicas", "REDIS_PORT", "6379", "REDIS_READ_ONLY", "true")
					return e.w11bServe(ctx, d, 80)
				},
			)
		},
		Wait: all(readyReplicas("jobs-api", 2), w8cStatefulSetReady("jobs-redis-replicas", 2), w8cStatefulSetReady("jobs-redis-master", 1), readyReplicas("reports-api", 1)),
	}
}

// RabbitMQ raises a disk alarm when free space on its data volume drops below
// disk_free_limit, and then blocks every publishing connection (consumers keep going). A limit
// copied from a VM install (50GB) is larger than the whole 8Gi volume, so the alarm is set at
// boot and never clears: publishers hang on "connection blocked", nothing looks broken.
func w18cDiskAlarmScenario() *Scenario {
	mq := w8cLabels("app.kubernetes.io/name", "rabbitmq", "app.kubernetes.io/instance", "rabbitmq")
	pub := w8bLabels("orders-publisher", "orders")
	conf := "## managed by platform team\nloopback_users.guest = false\nlisteners.tcp.default = 5672\nmanagement.tcp.port = 15672\n" +
		"cluster_formation.peer_discovery_backend = rabbit_peer_discovery_k8s\ncluster_formation.k8s.host = kubernetes.default.svc.cluster.local\n" +
		"cluster_formation.k8s.address_type = hostname\ncluster_formation.k8s.service_name = rabbitmq-headless\n" +
		"queue_master_locator = min-masters\nvm_memory_high_watermark.relative = 0.6\ndisk_free_limit.absolute = 50GB\n" +
		"log.console = true\nlog.console.level = info\n"
	return &Scenario{
		Name:   "orders-publisher-stalls-consumers-idle",
		Covers: "orders-publisher pods are Running but not Ready ('AMQP connection blocked by broker: low on disk', publisher confirms time out) while consumers are fine; rabbitmq-0 is Ready and logs 'Free disk space is insufficient. Free bytes: 8431435776. Limit: 50000000000' and 'disk resource limit alarm set': ConfigMap rabbitmq-config sets disk_free_limit.absolute = 50GB on an 8Gi data volume",
		Source: w18cSrcDiskAlarm, Class: ClassProvider, Hops: 2,
		Problem: "orders-publisher is not ready and new orders pile up in its outbox; RabbitMQ itself looks healthy and the consumers have nothing to do",
		Target:  target("Deployment", "orders-publisher"),
		Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "rabbitmq-config"}, Terms: []string{"disk_free_limit"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error {
					return e.w10aConfigMap(ctx, "rabbitmq-config", mq, map[string]string{"rabbitmq.conf": conf, "enabled_plugins": "[rabbitmq_management,rabbitmq_peer_discovery_k8s,rabbitmq_prometheus].\n"})
				},
				func() error {
					st := w8bStatefulSet("rabbitmq", "docker.io/library/rabbitmq:3.13.6-management", "rabbitmq-headless", 1, mq, running("w18c-rabbitmq-disk-alarm"), "amqp", 5672)
					st.Spec.Template.Spec.Containers[0].Name = "rabbitmq"
					w10aPort(&st.Spec.Template, "management", 15672)
					w8bEnv(&st.Spec.Template, "RABBITMQ_USE_LONGNAME", "true", "K8S_SERVICE_NAME", "rabbitmq-headless")
					mountConfigMap(&st.Spec.Template, "rabbitmq-config", "/etc/rabbitmq")
					if err := e.w10aClaimedStatefulSet(ctx, st, "data", "8Gi", "/var/lib/rabbitmq"); err != nil {
						return err
					}
					if err := e.createService(ctx, w8bHeadless("rabbitmq-headless", mq, "amqp", 5672)); err != nil {
						return err
					}
					return e.createService(ctx, w8bService("rabbitmq", mq, "amqp", 5672))
				},
				func() error {
					d := w11bApp("orders-publisher", "publisher", "registry.example/orders/orders-publisher:2.14.0", 2, pub,
						w11bReadinessFail("publisher", "w18c-orders-publisher-blocked", "HTTP probe failed with statuscode: 503"), "http", 8080)
					w8bEnv(&d.Spec.Template, "SPRING_RABBITMQ_HOST", "rabbitmq", "SPRING_RABBITMQ_PORT", "5672", "SPRING_RABBITMQ_VIRTUAL_HOST", "orders", "SPRING_RABBITMQ_USERNAME", "orders", "SPRING_RABBITMQ_PUBLISHER_CONFIRM_TYPE", "correlated")
					w8bReadiness(&d.Spec.Template, "/actuator/health/readiness", "http", 10)
					return e.w11bServe(ctx, d, 80)
				},
				func() error {
					d := w11bApp("orders-consumer", "consumer", "registry.example/orders/orders-consumer:2.14.0", 1, w8bLabels("orders-consumer", "orders"), nil, "http", 8080)
					w8bEnv(&d.Spec.Template, "SPRING_RABBITMQ_HOST", "rabbitmq", "SPRING_RABBITMQ_VIRTUAL_HOST", "orders", "SPRING_RABBITMQ_USERNAME", "orders", "LISTENER_QUEUES", "orders.created,orders.cancelled")
					return e.createDeployment(ctx, d)
				},
			)
		},
		Wait: all(podsWith(pub, runningNotReady), w8cStatefulSetReady("rabbitmq", 1), readyReplicas("orders-consumer", 1)),
	}
}

// With acks=all the leader only appends when the in-sync replica set has at least
// min.insync.replicas members. A broker default of min.insync.replicas=3 next to
// default.replication.factor=2 makes that impossible for every new topic: acks=all producers
// retry NOT_ENOUGH_REPLICAS forever while acks=1 producers and consumers work.
func w18cMinISRScenario() *Scenario {
	kafka := w8cLabels("app.kubernetes.io/name", "kafka", "app.kubernetes.io/instance", "kafka")
	pay := w8bLabels("payments-api", "payments")
	props := "process.roles=broker,controller\ncontroller.quorum.voters=0@kafka-0.kafka-headless:9093,1@kafka-1.kafka-headless:9093,2@kafka-2.kafka-headless:9093\n" +
		"listeners=PLAINTEXT://:9092,CONTROLLER://:9093\ncontroller.listener.names=CONTROLLER\ninter.broker.listener.name=PLAINTEXT\n" +
		"log.dirs=/bitnami/kafka/data\nauto.create.topics.enable=false\nnum.partitions=6\ndefault.replication.factor=2\nmin.insync.replicas=3\n" +
		"offsets.topic.replication.factor=3\ntransaction.state.log.replication.factor=3\ntransaction.state.log.min.isr=2\n" +
		"unclean.leader.election.enable=false\nlog.retention.hours=168\n"
	return &Scenario{
		Name:   "payments-kafka-produce-retries-forever",
		Covers: "payments-api is Running but not Ready; its producer (acks=all) logs 'Got error produce response ... Error: NOT_ENOUGH_REPLICAS' and the brokers log 'The size of the current ISR Set(1, 2) is insufficient to satisfy the min.isr requirement of 3': ConfigMap kafka-broker-config sets min.insync.replicas=3 with default.replication.factor=2 (clickstream-collector, acks=1, and audit-consumer work)",
		Source: w18cSrcMinISR, Class: ClassClue, Hops: 2,
		Problem: "payments-api has no ready pods since the Kafka cluster was rebuilt, payment events are never acknowledged; the clickstream collector on the same Kafka works",
		Target:  target("Deployment", "payments-api"),
		Want:    Want{Culprit: Ref{Kind: "ConfigMap", Name: "kafka-broker-config"}, Terms: []string{"min.insync.replicas"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error {
					return e.w10aConfigMap(ctx, "kafka-broker-config", kafka, map[string]string{"server.properties": props})
				},
				func() error {
					st := w8bStatefulSet("kafka", "docker.io/bitnami/kafka:3.7.1", "kafka-headless", 3, kafka, running("w18c-kafka-broker-isr"), "client", 9092)
					st.Spec.Template.Spec.Containers[0].Name = "kafka"
					w10aPort(&st.Spec.Template, "controller", 9093)
					w8bEnv(&st.Spec.Template, "KAFKA_KRAFT_CLUSTER_ID", "Vq2dT3hXQJ6tN1oA8m4yLw", "KAFKA_CFG_NODE_ID_FROM_POD_ORDINAL", "true")
					mountConfigMap(&st.Spec.Template, "kafka-broker-config", "/opt/bitnami/kafka/config/server.d")
					return e.w18cStore(ctx, st, true)
				},
				func() error {
					d := w11bApp("payments-api", "api", "registry.example/payments/payments-api:7.3.0", 2, pay,
						w11bReadinessFail("api", "w18c-payments-api-produce", "HTTP probe failed with statuscode: 503"), "http", 8080)
					w8bEnv(&d.Spec.Template, "SPRING_KAFKA_BOOTSTRAP_SERVERS", "kafka:9092", "SPRING_KAFKA_PRODUCER_ACKS", "all", "SPRING_KAFKA_PRODUCER_PROPERTIES_ENABLE_IDEMPOTENCE", "true", "PAYMENTS_EVENTS_TOPIC", "payments.events")
					w8bReadiness(&d.Spec.Template, "/actuator/health/readiness", "http", 10)
					return e.w11bServe(ctx, d, 80)
				},
				func() error {
					d := w11bApp("clickstream-collector", "collector", "registry.example/web/clickstream-collector:1.9.4", 1, w8bLabels("clickstream-collector", "web"), nil, "http", 8080)
					w8bEnv(&d.Spec.Template, "KAFKA_BROKERS", "kafka:9092", "KAFKA_ACKS", "1", "KAFKA_TOPIC", "web.clicks")
					return e.w11bServe(ctx, d, 80)
				},
				func() error {
					d := w11bApp("audit-consumer", "consumer", "registry.example/payments/audit-consumer:7.3.0", 1, w8bLabels("audit-consumer", "payments"), nil, "", 0)
					w8bEnv(&d.Spec.Template, "KAFKA_BROKERS", "kafka:9092", "KAFKA_GROUP_ID", "audit-consumer", "KAFKA_TOPICS", "payments.events")
					return e.createDeployment(ctx, d)
				},
			)
		},
		Wait: all(podsWith(pay, runningNotReady), w8cStatefulSetReady("kafka", 3), readyReplicas("clickstream-collector", 1)),
	}
}

// ClickHouse speaks its native protocol on 9000 and HTTP on 8123. The Service's http port was
// pasted from the tcp one and targets container port 9000, so an HTTP client reaching
// clickhouse:8123 lands on the native listener, which answers 400 "Port 9000 is for
// clickhouse-client program. You must use port 8123 for HTTP." Native clients are unaffected.
func w18cClickHouseScenario() *Scenario {
	ch := w8cLabels("app.kubernetes.io/name", "clickhouse", "app.kubernetes.io/instance", "clickhouse")
	rep := w8bLabels("usage-reporter", "billing")
	return &Scenario{
		Name:   "usage-reporter-clickhouse-http-400",
		Covers: "usage-reporter (Python, clickhouse-connect over HTTP) crash-loops on 'HTTP driver received HTTP status 400, server response: Port 9000 is for clickhouse-client program. You must use port 8123 for HTTP.'; Service clickhouse maps its http port 8123 to targetPort tcp (container port 9000) instead of http (8123); ingest-worker on the native port 9000 works",
		Source: w18cSrcClickPort, Class: ClassClue, Hops: 1,
		Problem: "usage-reporter keeps crashing with an HTTP 400 from ClickHouse, yet ClickHouse is up and the ingest worker writes to it fine",
		Target:  target("Deployment", "usage-reporter"),
		Want:    Want{Culprit: Ref{Kind: "Service", Name: "clickhouse"}, Terms: []string{"targetPort"}},
		Setup: func(ctx context.Context, e *Env) error {
			return steps(
				func() error {
					st := w8bStatefulSet("clickhouse", "docker.io/clickhouse/clickhouse-server:24.8", "clickhouse-headless", 1, ch, nil, "http", 8123)
					st.Spec.Template.Spec.Containers[0].Name = "clickhouse"
					w10aPort(&st.Spec.Template, "tcp", 9000)
					w10aPort(&st.Spec.Template, "interserver", 9009)
					w8bEnv(&st.Spec.Template, "CLICKHOUSE_DB", "usage", "CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT", "1")
					if err := e.createStatefulSet(ctx, st); err != nil {
						return err
					}
					if err := e.createService(ctx, w10aServicePort(w8bHeadless("clickhouse-headless", ch, "http", 8123), "tcp", 9000)); err != nil {
						return err
					}
					return e.createService(ctx, w10aServicePort(w10aServiceTo("clickhouse", ch, "http", 8123, "tcp"), "tcp", 9000))
				},
				func() error {
					msg := "clickhouse_connect.driver.exceptions.DatabaseError: HTTP driver received HTTP status 400, server response: Port 9000 is for clickhouse-client program. You must use port 8123 for HTTP. (for url http://clickhouse:8123)"
					d := w11bApp("usage-reporter", "reporter", "registry.example/billing/usage-reporter:2.4.0", 1, rep, crash("1", msg, "w18c-usage-reporter-clickhouse"), "metrics", 9102)
					w8bEnv(&d.Spec.Template, "CLICKHOUSE_HOST", "clickhouse", "CLICKHOUSE_PORT", "8123", "CLICKHOUSE_DATABASE", "usage", "CLICKHOUSE_USER", "reporter", "REPORT_INTERVAL", "1h")
					return e.createDeployment(ctx, d)
				},
				func() error {
					d := w11bApp("ingest-worker", "worker", "registry.example/billing/ingest-worker:3.1.0", 1, w8bLabels("ingest-worker", "billing"), nil, "metrics", 9102)
					w8bEnv(&d.Spec.Template, "CLICKHOUSE_ADDR", "clickhouse:9000", "CLICKHOUSE_DATABASE", "usage", "CLICKHOUSE_PROTOCOL", "native", "BATCH_SIZE", "50000")
					return e.createDeployment(ctx, d)
				},
			)
		},
		Wait: all(podsWith(rep, crashLooping(2)), w8cStatefulSetReady("clickhouse", 1), readyReplicas("ingest-worker", 1)),
	}
}
