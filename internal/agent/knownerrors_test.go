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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// The catalogue of well-known errors: the software's own error text (or a termination
// reason) leads to the settings its class names, wherever the cluster writes them.

func mountAt(cm, dir string) func(*corev1.PodSpec) { return mountCM(cm, dir) }

func all(fs ...func(*corev1.PodSpec)) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		for _, f := range fs {
			f(s)
		}
	}
}

func withClaim(claim, dir string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.Volumes = append(s.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
		s.Containers[0].VolumeMounts = append(s.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: dir})
	}
}

func withSecretEnv(secret string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.Containers[0].EnvFrom = append(s.Containers[0].EnvFrom, corev1.EnvFromSource{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: secret}}})
	}
}

func withMemory(limit, request string) func(*corev1.PodSpec) {
	return func(s *corev1.PodSpec) {
		s.Containers[0].Resources = corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(limit)},
			Requests: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(request)}}
	}
}

func claimOf(name, size string, modes ...corev1.PersistentVolumeAccessMode) *corev1.PersistentVolumeClaim {
	c := fx.PVC(ns, name, fx.Ptr("standard"), corev1.ClaimBound, modes...)
	c.Spec.Resources.Requests[corev1.ResourceStorage] = resource.MustParse(size)
	return c
}

func oomKilled(p *corev1.Pod) { fx.CrashLoop(p, 137, "OOMKilled", 4) }

func repeat(line string, n int) string { return strings.Repeat(line+"\n", n) }

// A pooler in transaction mode breaks server-side prepared statements, in any client's words,
// with the pool mode in a mounted ini file or in the pooler's env.
func TestKnownErrorPoolerTransactionMode(t *testing.T) {
	pooler := func(name string, spec func(*corev1.PodSpec), extra ...runtime.Object) []runtime.Object {
		o := withEndpoints(app(name, 2, spec, nil), svcAt(name, "10.96.7.7", map[string]string{"app": name}, 6432), name+"-")
		return append(append(o, fx.Node("node-1")), extra...)
	}
	cases := []depCase{
		{name: "JDBC client, pool_mode in the pooler's mounted ini", problem: "orders-api answers 500 on every other request",
			objs: func() []runtime.Object {
				o := app("orders-api", 3, withEnv("JDBC_URL", "jdbc:postgresql://db-pooler:6432/orders"), nil)
				return append(o, pooler("db-pooler", mountAt("pooler-ini", "/etc/pgbouncer"),
					cmWith("pooler-ini", "pgbouncer.ini", "[databases]\norders = host=orders-pg port=5432\n[pgbouncer]\nlisten_port = 6432\npool_mode = transaction\ndefault_pool_size = 25\n"))...)
			},
			logs: logBook{"orders-api-": repeat(`ERROR o.h.e.j.s.SqlExceptionHelper - ERROR: prepared statement "S_3" already exists`, 3)},
			rule: "pooler-transaction-mode", culprit: "ConfigMap/pooler-ini", affected: []string{"Service/db-pooler", "Deployment/orders-api"},
			terms: []string{"pool_mode = transaction", "prepared statement"}},
		{name: "asyncpg client crashing, pool mode in the pooler's env", problem: "the sync worker keeps restarting",
			objs: func() []runtime.Object {
				o := app("sync", 1, withEnv("DATABASE_URL", "postgresql://app@pgpool:5432/app"), crashing)
				return append(o, pooler("pgpool", withEnv("PGBOUNCER_POOL_MODE", "transaction", "PGBOUNCER_PORT", "5432"))...)
			},
			logs: logBook{"sync-": `asyncpg.exceptions.InvalidSQLStatementNameError: prepared statement "__asyncpg_stmt_37__" does not exist` + "\n"},
			rule: "pooler-transaction-mode", culprit: "Deployment/pgpool", affected: []string{"Service/pgpool"}, terms: []string{"PGBOUNCER_POOL_MODE", "transaction"}},
		{name: "session pooling explains nothing", problem: "orders-api answers 500 on every other request",
			objs: func() []runtime.Object {
				o := app("orders-api", 3, withEnv("JDBC_URL", "jdbc:postgresql://db-pooler:6432/orders"), nil)
				return append(o, pooler("db-pooler", mountAt("pooler-ini", "/etc/pgbouncer"), cmWith("pooler-ini", "pgbouncer.ini", "pool_mode = session\n"))...)
			},
			logs: logBook{"orders-api-": repeat(`ERROR: prepared statement "S_3" already exists`, 3)},
			rule: "app-error-logged", culprit: "Deployment/orders-api"},
	}
	runDepCases(t, cases)
}

// SQLite allows one writer: replicas above 1, or a claim shared read-write, lock it.
func TestKnownErrorSingleWriterStore(t *testing.T) {
	cases := []depCase{
		{name: "three Django replicas on one sqlite file", problem: "saving a page fails now and then",
			objs: func() []runtime.Object {
				o := app("wiki", 3, all(withEnv("DATABASE_URL", "sqlite:////srv/data/wiki.sqlite3"), withClaim("wiki-data", "/srv/data")), nil)
				return append(o, claimOf("wiki-data", "5Gi", corev1.ReadWriteMany), fx.Node("node-1"))
			},
			logs: logBook{"wiki-": repeat("django.db.utils.OperationalError: database is locked", 3)},
			rule: "single-writer-store-shared", culprit: "Deployment/wiki", affected: []string{"PersistentVolumeClaim/wiki-data"},
			terms: []string{"SQLite", "3 replicas", "database is locked", "ReadWriteMany"}},
		{name: "one replica sharing its claim with another workload", problem: "status page writes fail",
			objs: func() []runtime.Object {
				o := app("status", 1, all(mountAt("status-ini", "/etc/status"), withClaim("status-db", "/var/lib/status")), nil)
				o = append(o, app("status-cron", 1, withClaim("status-db", "/data"), nil)...)
				return append(o, claimOf("status-db", "1Gi", corev1.ReadWriteMany), cmWith("status-ini", "app.ini", "[database]\ntype = sqlite3\npath = status.db\n"), fx.Node("node-1"))
			},
			logs: logBook{"status-": repeat(`level=error msg="save failed" err="SQLITE_BUSY: database is locked"`, 2)},
			rule: "single-writer-store-shared", culprit: "Deployment/status", terms: []string{"type = sqlite3", "status-db"}},
		{name: "one replica alone on its file is left to the application", problem: "status page writes fail",
			objs: func() []runtime.Object {
				return append(app("status", 1, withClaim("status-db", "/var/lib/status"), nil), claimOf("status-db", "1Gi"), fx.Node("node-1"))
			},
			logs: logBook{"status-": repeat(`level=error msg="save failed" err="database is locked"`, 2)},
			rule: "app-error-logged", culprit: "Deployment/status"},
	}
	runDepCases(t, cases)
}

// A write refused by a replica blames the setting that names the replica, in any database's words.
func TestKnownErrorWriteToReadReplica(t *testing.T) {
	db := func(name string, sel map[string]string, spec func(*corev1.PodSpec)) []runtime.Object {
		d := fx.Deployment(ns, name, 1, "registry.example/db:1")
		d.Spec.Template.Labels = sel
		if spec != nil {
			spec(&d.Spec.Template.Spec)
		}
		rs := fx.ReplicaSet(d, 1, 1, "registry.example/db:1")
		return withEndpoints([]runtime.Object{d, rs, fx.PodFor(rs, "x0000")}, svcAt(name, "10.96.8."+string(rune('1'+len(name)%8)), sel, 5432), name+"-")
	}
	cases := []depCase{
		{name: "Postgres: env names the read-only Service", problem: "checkout cannot save orders",
			objs: func() []runtime.Object {
				o := app("checkout", 1, withEnv("DB_HOST", "orders-db-ro", "DB_PORT", "5432"), crashing)
				o = append(o, db("orders-db-ro", map[string]string{"app": "orders-db", "role": "replica"}, nil)...)
				return append(append(o, db("orders-db", map[string]string{"app": "orders-db", "role": "primary"}, nil)...), fx.Node("node-1"))
			},
			logs: logBook{"checkout-": `psycopg2.errors.ReadOnlySqlTransaction: cannot execute INSERT in a read-only transaction` + "\n"},
			rule: "write-to-read-replica", culprit: "Deployment/checkout", affected: []string{"Service/orders-db-ro"}, terms: []string{"orders-db-ro", "read-only", "Service orders-db"}},
		{name: "MySQL: the address sits in a Secret, the standby is known by its selector", problem: "reports cannot be generated",
			objs: func() []runtime.Object {
				o := app("reporter", 1, withSecretEnv("reporter-db"), crashing)
				o = append(o, fx.Secret(ns, "reporter-db", "DATABASE_URL"))
				o = append(o, db("reports-sql-b", map[string]string{"app": "reports-sql", "tier": "standby"}, nil)...)
				return append(append(o, db("reports-sql-a", map[string]string{"app": "reports-sql", "tier": "main"}, nil)...), fx.Node("node-1"))
			},
			logs: logBook{"reporter-": `Unhandled rejection Error: ER_OPTION_PREVENTS_STATEMENT: The MySQL server is running with the --read-only option so it cannot execute this statement` + "\n"},
			rule: "write-to-read-replica", culprit: "Secret/reporter-db", affected: []string{"Service/reports-sql-b"}, terms: []string{"DATABASE_URL", "reports-sql-b", "--read-only"}},
		{name: "Redis: the Service's backend replicates from another", problem: "sessions are not saved",
			objs: func() []runtime.Object {
				o := app("portal", 2, envFrom("portal-env"), nil)
				o = append(o, cmWith("portal-env", "SESSION_STORE", "redis://sessions:6379/1"))
				return append(append(o, db("sessions", map[string]string{"app": "sessions"}, withArgs("redis-server", "--replicaof", "sessions-main", "6379"))...), fx.Node("node-1"))
			},
			logs: logBook{"portal-": repeat(`ERROR ReplyError: READONLY You can't write against a read only replica.`, 3)},
			rule: "write-to-read-replica", culprit: "ConfigMap/portal-env", affected: []string{"Service/sessions"}, terms: []string{"replicaof", "SESSION_STORE"}},
		{name: "Redis: the writer's Service also selects the replicas", problem: "enqueues fail since the scale-out",
			objs: func() []runtime.Object {
				o := app("jobs-api", 1, withEnv("REDIS_HOST", "jobs-redis-master", "REDIS_PORT", "6379"), nil)
				o = append(o, db("jobs-redis-master", map[string]string{"app": "jobs-redis"}, withArgs("redis-server"))...)
				return append(append(o, db("jobs-redis-replicas", map[string]string{"app": "jobs-redis"}, withArgs("redis-server", "--replicaof", "jobs-redis-master", "6379"))...), fx.Node("node-1"))
			},
			logs: logBook{"jobs-api-": repeat(`ERROR enqueue failed: ReplyError: READONLY You can't write against a read only replica.`, 3)},
			rule: "write-to-read-replica", culprit: "Service/jobs-redis-master", affected: []string{"Deployment/jobs-redis-replicas"}, terms: []string{"selector", "app=jobs-redis"}},
		{name: "a writer-looking Service is not blamed", problem: "checkout cannot save orders",
			objs: func() []runtime.Object {
				o := app("checkout", 1, withEnv("DB_HOST", "orders-db"), crashing)
				return append(append(o, db("orders-db", map[string]string{"app": "orders-db"}, nil)...), fx.Node("node-1"))
			},
			logs: logBook{"checkout-": `ERROR: cannot execute INSERT in a read-only transaction` + "\n"},
			rule: "crash-loop", culprit: "Deployment/checkout"},
	}
	runDepCases(t, cases)
}

// A flood-stage watermark blames the search server's data claim, in either era's wording.
func TestKnownErrorDiskWatermark(t *testing.T) {
	search := func(name, claim string, spec func(*corev1.PodSpec)) []runtime.Object {
		o := app(name, 1, all(withClaim(claim, "/usr/share/opensearch/data"), spec), nil)
		return append(withEndpoints(o, svcAt(name, "10.96.5.5", map[string]string{"app": name}, 9200), name+"-"), claimOf(claim, "30Gi"))
	}
	noop := func(*corev1.PodSpec) {}
	cases := []depCase{
		{name: "shipper with the address in env, 7.x wording", problem: "no new logs since this morning",
			objs: func() []runtime.Object {
				o := app("shipper", 2, withEnv("OUTPUT_HOSTS", "http://search:9200"), nil)
				return append(append(o, search("search", "search-data", noop)...), fx.Node("node-1"))
			},
			logs: logBook{"shipper-": "WARN Marking url as dead. Read timed out\n" + repeat(`[WARN ] retrying failed action with response code: 429 ({"type"=>"cluster_block_exception", "reason"=>"index [logs-2026.11.27] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];"})`, 3)},
			rule: "disk-watermark-read-only", culprit: "PersistentVolumeClaim/search-data", affected: []string{"Service/search", "Deployment/search"},
			terms: []string{"flood-stage watermark", "search-data", "30Gi", "95%"}},
		{name: "pipeline file names the server, 6.x wording, watermark set", problem: "dashboards are empty",
			objs: func() []runtime.Object {
				o := app("ingest", 1, mountAt("ingest-pipeline", "/pipeline"), nil)
				o = append(o, cmWith("ingest-pipeline", "out.conf", "output { elasticsearch { hosts => [\"http://logs-es:9200\"] } }\n"))
				o = append(o, search("logs-es", "es-data", withEnv("cluster.routing.allocation.disk.watermark.flood_stage", "97%"))...)
				return append(o, fx.Node("node-1"))
			},
			logs: logBook{"ingest-": repeat(`[INFO ][logstash.outputs.elasticsearch] retrying failed action with response code: 403 ({"type"=>"cluster_block_exception", "reason"=>"blocked by: [FORBIDDEN/12/index read-only / allow delete (api)];"})`, 3)},
			rule: "disk-watermark-read-only", culprit: "PersistentVolumeClaim/es-data", terms: []string{"97%", "es-data"}},
	}
	runDepCases(t, cases)
}

// A pre-forking server sized by the node's CPUs outgrows its memory limit.
func TestKnownErrorWorkerPoolByCPUs(t *testing.T) {
	cases := []depCase{
		{name: "celery worker without --concurrency", problem: "workers keep dying",
			objs: func() []runtime.Object {
				return append(app("worker", 2, all(withArgs("celery", "-A", "proj", "worker", "-l", "info"), withMemory("1Gi", "512Mi")), oomKilled), fx.Node("node-1"))
			},
			rule: "worker-pool-by-cpus", culprit: "Deployment/worker", terms: []string{"OOMKilled", "concurrency", "4 CPUs", "1Gi"}},
		{name: "celery in a shell script with --concurrency is left to oom-killed", problem: "workers keep dying",
			objs: func() []runtime.Object {
				return append(app("worker", 1, all(withArgs("sh", "-c", "exec celery -A proj worker --concurrency 2"), withMemory("1Gi", "512Mi")), oomKilled), fx.Node("node-1"))
			},
			rule: "oom-killed", culprit: "Deployment/worker"},
		{name: "gunicorn workers from cpu_count in a mounted config", problem: "the API restarts under load",
			objs: func() []runtime.Object {
				o := app("api", 2, all(withArgs("gunicorn", "-c", "/etc/gunicorn/conf.py", "app:app"), mountAt("gunicorn-conf", "/etc/gunicorn"), withMemory("768Mi", "768Mi")), oomKilled)
				return append(o, cmWith("gunicorn-conf", "conf.py", "import multiprocessing\nbind = \"0.0.0.0:8000\"\nworkers = multiprocessing.cpu_count() * 2 + 1\n"), fx.Node("node-1"))
			},
			rule: "worker-pool-by-cpus", culprit: "ConfigMap/gunicorn-conf", terms: []string{"OOMKilled", "cpu_count"}},
		{name: "pm2 with instances max", problem: "the frontend restarts",
			objs: func() []runtime.Object {
				return append(app("front", 1, all(withArgs("pm2-runtime", "start", "server.js", "-i", "max"), withMemory("512Mi", "256Mi")), oomKilled), fx.Node("node-1"))
			},
			rule: "worker-pool-by-cpus", culprit: "Deployment/front", terms: []string{"OOMKilled", "-i = max"}},
	}
	runDepCases(t, cases)
}

// A topic nobody created blames the broker setting that turns creation on first use off.
func TestKnownErrorTopicNotCreated(t *testing.T) {
	broker := func(name string, spec func(*corev1.PodSpec), extra ...runtime.Object) []runtime.Object {
		o := withEndpoints(app(name, 1, spec, nil), svcAt(name, "10.96.6.6", map[string]string{"app": name}, 9092), name+"-")
		return append(append(o, fx.Node("node-1")), extra...)
	}
	cases := []depCase{
		{name: "broker env turns auto-create off", problem: "order events are not published",
			objs: func() []runtime.Object {
				o := app("publisher", 1, withEnv("KAFKA_BOOTSTRAP_SERVERS", "events:9092", "ORDERS_TOPIC", "orders.v1"), crashing)
				return append(o, broker("events", withEnv("KAFKA_CFG_AUTO_CREATE_TOPICS_ENABLE", "false"))...)
			},
			logs: logBook{"publisher-": `WARN [Producer clientId=producer-1] Error while fetching metadata with correlation id 7 : {orders.v1=UNKNOWN_TOPIC_OR_PARTITION}` + "\n"},
			rule: "topic-not-created", culprit: "Deployment/events", affected: []string{"Service/events"}, terms: []string{"AUTO_CREATE_TOPICS_ENABLE = false", "orders.v1"}},
		{name: "server.properties in a ConfigMap", problem: "the audit consumer reads nothing",
			objs: func() []runtime.Object {
				o := app("audit", 2, mountAt("audit-conf", "/etc/audit"), nil)
				o = append(o, cmWith("audit-conf", "consumer.yaml", "bootstrap: \"kafka-0.bus:9092,bus:9092\"\ntopic: audit-log\n"))
				return append(o, broker("bus", mountAt("bus-props", "/opt/kafka/config"), cmWith("bus-props", "server.properties", "broker.id=0\nauto.create.topics.enable=false\nnum.partitions=3\n"))...)
			},
			logs: logBook{"audit-": repeat(`%3|1700000000.123|ERROR|rdkafka#consumer-1| Subscribed topic not available: audit-log: Broker: Unknown topic or partition`, 3)},
			rule: "topic-not-created", culprit: "ConfigMap/bus-props", terms: []string{"auto.create.topics.enable = false", "audit-log"}},
		{name: "auto-create on leaves the error to the client", problem: "order events are not published",
			objs: func() []runtime.Object {
				o := app("publisher", 1, withEnv("KAFKA_BOOTSTRAP_SERVERS", "events:9092"), crashing)
				return append(o, broker("events", withEnv("KAFKA_CFG_AUTO_CREATE_TOPICS_ENABLE", "true"))...)
			},
			logs: logBook{"publisher-": `ERROR {orders.v1=UNKNOWN_TOPIC_OR_PARTITION}` + "\n"},
			rule: "crash-loop", culprit: "Deployment/publisher"},
	}
	runDepCases(t, cases)
}
