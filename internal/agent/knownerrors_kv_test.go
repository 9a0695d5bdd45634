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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	fx "github.com/kubage/kubage/test/fixtures"
)

// Well-known errors of key-value stores, document and search servers, and etcd.
func TestKnownErrorsKeyValue(t *testing.T) {
	cases := []depCase{
		{name: "Redis at maxmemory with the default policy", problem: "logins fail now and then",
			objs: func() []runtime.Object {
				o := app("sessions-api", 2, withEnv("REDIS_URL", "redis://cache:6379/0"), nil)
				return append(o, serverOf("cache", "redis:7.2-alpine", 6379, withArgs("redis-server", "--maxmemory", "256mb", "--save", ""), fx.Node("node-1"))...)
			},
			logs: logBook{"sessions-api-": repeat(`[ioredis] Unhandled error event: ReplyError: OOM command not allowed when used memory > 'maxmemory'.`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/cache", affected: []string{"Service/cache"}, terms: []string{"--maxmemory = 256mb", "noeviction"}},
		{name: "Redis URL without a password", problem: "the queue consumer crashes",
			objs: func() []runtime.Object {
				o := app("queue", 1, envFrom("queue-env"), crashing)
				return append(o, cmWith("queue-env", "BROKER_REDIS_URL", "redis://jobs-redis:6379/0"), fx.Node("node-1"))
			},
			logs: logBook{"queue-": "redis.exceptions.AuthenticationError: NOAUTH Authentication required.\n"},
			rule: "client-connection-setting", culprit: "ConfigMap/queue-env", terms: []string{"BROKER_REDIS_URL", "password", "requirepass"}},
		{name: "Redis protected mode in a mounted redis.conf", problem: "web cannot reach its cache",
			objs: func() []runtime.Object {
				o := app("web", 1, withEnv("CACHE_HOST", "kv", "CACHE_PORT", "6379"), crashing)
				return append(o, serverOf("kv", "redis:6.2", 6379, mountAt("kv-conf", "/usr/local/etc/redis"), cmWith("kv-conf", "redis.conf", "port 6379\nprotected-mode yes\nappendonly no\n"), fx.Node("node-1"))...)
			},
			logs: logBook{"web-": "Error: DENIED Redis is running in protected mode because protected mode is enabled and no password is set for the default user.\n"},
			rule: "server-access-rule", culprit: "ConfigMap/kv-conf", terms: []string{"protected-mode = yes", "loopback"}},
		{name: "a standalone client on Redis Cluster", problem: "cart writes fail",
			objs: func() []runtime.Object {
				return append(app("cart", 2, withEnv("REDIS_ADDR", "cart-redis:6379"), nil), fx.Node("node-1"))
			},
			logs: logBook{"cart-": repeat(`{"level":"error","msg":"cart save failed","error":"MOVED 12182 10.244.3.9:6379"}`, 3)},
			rule: "client-connection-setting", culprit: "Deployment/cart", terms: []string{"MOVED", "cluster"}},
		{name: "MongoDB URI from a Secret, Node driver", problem: "catalog-api is down",
			objs: func() []runtime.Object {
				o := app("catalog-api", 1, envFromSecret("catalog-mongo"), crashing)
				return append(o, fx.Secret(ns, "catalog-mongo", "MONGODB_URI"), fx.Node("node-1"))
			},
			logs: logBook{"catalog-api-": "MongoServerError: Authentication failed.\n    at Connection.onMessage (/app/node_modules/mongodb/lib/cmap/connection.js:202:26)\n"},
			rule: "client-connection-setting", culprit: "Secret/catalog-mongo", terms: []string{"authSource", "MONGODB_URI"}},
		{name: "MongoDB URI in a ConfigMap, pymongo", problem: "the importer fails",
			objs: func() []runtime.Object {
				o := app("importer", 1, envFrom("importer-env"), crashing)
				return append(o, cmWith("importer-env", "MONGO_URL", "mongodb://importer:s3cret@mongo-0.mongo:27017/inventory?retryWrites=true"), fx.Node("node-1"))
			},
			logs: logBook{"importer-": "pymongo.errors.OperationFailure: Authentication failed., full error: {'ok': 0.0, 'errmsg': 'Authentication failed.', 'code': 18, 'codeName': 'AuthenticationFailed'}\n"},
			rule: "client-connection-setting", culprit: "ConfigMap/importer-env", terms: []string{"authSource", "MONGO_URL"}},
		{name: "etcd past its space quota", problem: "config-sync cannot write",
			objs: func() []runtime.Object {
				o := app("config-sync", 1, withEnv("ETCD_ENDPOINTS", "http://kv-etcd:2379"), crashing)
				return append(o, serverOf("kv-etcd", "quay.io/coreos/etcd:v3.5.15", 2379, withEnv("ETCD_QUOTA_BACKEND_BYTES", "134217728"), fx.Node("node-1"))...)
			},
			logs: logBook{"config-sync-": `{"level":"warn","ts":"2026-11-27T10:00:00.000Z","msg":"retrying of unary invoker failed","error":"rpc error: code = ResourceExhausted desc = etcdserver: mvcc: database space exceeded"}` + "\n"},
			rule: "server-limit-reached", culprit: "Deployment/kv-etcd", terms: []string{"ETCD_QUOTA_BACKEND_BYTES = 134217728", "compaction"}},
		{name: "Elasticsearch parent breaker on a small heap", problem: "indexing is slow and fails",
			objs: func() []runtime.Object {
				o := app("indexer", 2, withEnv("ES_URL", "http://search:9200"), nil)
				return append(o, serverOf("search", "docker.elastic.co/elasticsearch/elasticsearch:8.13.4", 9200, withEnv("ES_JAVA_OPTS", "-Xms1g -Xmx1g", "discovery.type", "single-node"), fx.Node("node-1"))...)
			},
			logs: logBook{"indexer-": repeat(`elasticsearch.ApiError: ApiError(429, 'circuit_breaking_exception', '[parent] Data too large, data for [<http_request>] would be [1020054732/972.7mb], which is larger than the limit of [1020054732/972.7mb]')`, 3)},
			rule: "server-limit-reached", culprit: "Deployment/search", terms: []string{"ES_JAVA_OPTS = -Xms1g -Xmx1g", "heap"}},
		{name: "Elasticsearch bootstrap check on vm.max_map_count", problem: "logging cluster will not start",
			objs: func() []runtime.Object {
				return append(imaged("logs-es", "docker.elastic.co/elasticsearch/elasticsearch:8.13.4", 1, withEnv("discovery.type", "single-node"), crashing), fx.Node("node-1"))
			},
			logs: logBook{"logs-es-": `{"@timestamp":"2026-11-27T10:00:00.000Z","log.level":"ERROR","message":"node validation exception\n[1] bootstrap checks failed. You must address the points described in the following [1] lines before starting Elasticsearch.\nbootstrap check failure [1] of [1]: max virtual memory areas vm.max_map_count [65530] is too low, increase to at least [262144]"}` + "\n"},
			rule: "process-os-limit", culprit: "Deployment/logs-es", terms: []string{"vm.max_map_count", "262144", "node.store.allow_mmap"}},
		{name: "a shipper without credentials against Elasticsearch 8", problem: "no logs arrive",
			objs: func() []runtime.Object {
				return append(app("shipper", 1, withEnv("ES_HOSTS", "http://es:9200"), nil), fx.Node("node-1"))
			},
			logs: logBook{"shipper-": repeat(`{"log.level":"error","message":"Failed to connect to backoff(elasticsearch(http://es:9200)): 401 Unauthorized: {\"error\":{\"type\":\"security_exception\",\"reason\":\"missing authentication credentials for REST request [/]\"}}"}`, 3)},
			rule: "server-access-rule", culprit: "Deployment/shipper", terms: []string{"credentials", "API key"}},
		{name: "ClickHouse at its server memory limit", problem: "reports time out",
			objs: func() []runtime.Object {
				o := app("reports", 1, withEnv("CLICKHOUSE_HOST", "olap"), crashing)
				return append(o, serverOf("olap", "clickhouse/clickhouse-server:24.3", 8123, withMemory("4Gi", "4Gi"), fx.Node("node-1"))...)
			},
			logs: logBook{"reports-": "clickhouse_connect.driver.exceptions.DatabaseError: HTTPDriver received ClickHouse error code 241\n Code: 241. DB::Exception: Memory limit (total) exceeded: would use 3.51 GiB (attempt to allocate chunk of 4219648 bytes), maximum: 3.46 GiB. (MEMORY_LIMIT_EXCEEDED)\n"},
			rule: "server-limit-reached", culprit: "Deployment/olap", terms: []string{"max_server_memory_usage", "90%"}},
		{name: "ClickHouse too many parts, limit in a mounted YAML", problem: "event ingestion fails",
			objs: func() []runtime.Object {
				o := app("ingest", 2, withEnv("CH_URL", "http://events-ch:8123"), nil)
				return append(o, serverOf("events-ch", "clickhouse/clickhouse-server:23.3", 8123, mountAt("events-ch-config", "/etc/clickhouse-server/config.d"),
					cmWith("events-ch-config", "merge_tree.yaml", "merge_tree:\n  parts_to_throw_insert: 300\n"), fx.Node("node-1"))...)
			},
			logs: logBook{"ingest-": repeat(`Code: 252. DB::Exception: Too many parts (300 with average size of 12.34 KiB) in table 'events.raw'. Merges are processing significantly slower than inserts. (TOO_MANY_PARTS)`, 3)},
			rule: "server-limit-reached", culprit: "ConfigMap/events-ch-config", terms: []string{"parts_to_throw_insert = 300", "batches"}},
	}
	runDepCases(t, cases)
	runSilentCases(t, []silentCase{
		{name: "a MongoDB URI with authSource", problem: "the importer fails", not: "client-connection-setting",
			objs: func() []runtime.Object {
				o := app("importer", 1, envFrom("importer-env"), crashing)
				return append(o, cmWith("importer-env", "MONGO_URL", "mongodb://importer:s3cret@mongo:27017/inventory?authSource=admin"), fx.Node("node-1"))
			},
			logs: logBook{"importer-": "MongoServerError: Authentication failed.\n"}},
		{name: "a password setting beside the Redis URL", problem: "the queue consumer crashes", not: "client-connection-setting",
			objs: func() []runtime.Object {
				o := app("queue", 1, all(envFrom("queue-env"), withEnv("REDIS_PASSWORD", "x")), crashing)
				return append(o, cmWith("queue-env", "REDIS_URL", "redis://jobs-redis:6379/0"), fx.Node("node-1"))
			},
			logs: logBook{"queue-": "NOAUTH Authentication required.\n"}},
		{name: "maxmemory on a server that is no Redis", problem: "logins fail", not: "server-limit-reached",
			objs: func() []runtime.Object {
				o := app("sessions-api", 2, withEnv("REDIS_URL", "redis://cache:6379/0"), nil)
				return append(o, serverOf("cache", "registry.example/proxy:1", 6379, nil, fx.Node("node-1"))...)
			},
			logs: logBook{"sessions-api-": repeat(`ReplyError: OOM command not allowed when used memory > 'maxmemory'.`, 3)}},
	})
	_ = corev1.ReadWriteOnce
}
