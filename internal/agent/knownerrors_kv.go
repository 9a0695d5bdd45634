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

package agent

// Well-known errors of key-value stores, document and search servers, and etcd.
// Each entry's source names where its text and mechanism come from.
var keyValueErrors = []knownError{
	{class: "write-to-read-replica", software: "Redis",
		signs:     []string{`you can't write against a read only (replica|slave)`},
		mechanism: "a Redis replica is read-only (replica-read-only yes), so every write command is refused",
		provider:  []settingSpec{{key: `^(replicaof|slaveof)$`}, {key: `(^|_)(replication_mode|role)$`, value: `slave|replica`}},
		fix:       "point the application at the master (or at Sentinel)",
		source:    "https://redis.io/docs/latest/operate/oss_and_stack/management/replication/#read-only-replica"},
	{class: "write-to-read-replica", software: "MongoDB",
		signs:     []string{`notwritableprimary`, `not primary and secondaryok=false`, `not master and slaveok=false`, `\bnot primary\b`},
		mechanism: "only the primary of a replica set accepts writes; a client pinned to a secondary (directConnection) is refused",
		fix:       "connect with the replica set's seed list and replicaSet option, not a single secondary",
		source:    "https://www.mongodb.com/docs/manual/core/replica-set-primary/"},
	{class: "disk-watermark-read-only", software: "Elasticsearch",
		signs:     []string{`flood[- ]stage (disk )?watermark`, `read-only-allow-delete`, `index read-only / allow delete`, `read_only_allow_delete`},
		mechanism: "past the flood-stage disk watermark (95% of the disk by default) it puts a read-only-allow-delete block on every index with a shard on that node, and writes fail until usage drops",
		provider:  []settingSpec{{key: `cluster_routing_allocation_disk_watermark_flood_stage$`, absent: "95% by default"}},
		fix:       "grow the data volume or delete old indices",
		source:    "https://www.elastic.co/guide/en/elasticsearch/reference/current/modules-cluster.html#disk-based-shard-allocation"},
	{class: "server-limit-reached", software: "Redis",
		signs:     []string{`oom command not allowed when used memory > 'maxmemory'`},
		mechanism: "Redis refuses writes once its data reaches the maxmemory limit while maxmemory-policy is noeviction (the default), instead of evicting keys",
		provider:  redisMemory, consumer: redisMemory,
		runs:   `redis|valkey|keydb`,
		fix:    "raise maxmemory (within the container's memory limit) or set an eviction policy such as allkeys-lru for a cache",
		source: "https://redis.io/docs/latest/develop/reference/eviction/"},
	{class: "server-limit-reached", software: "Redis",
		signs:     []string{`err max number of clients reached`},
		mechanism: "Redis refuses new connections once maxclients clients are connected (a limit of 10000 by default, lowered to what the open-file limit allows), and clients that open a pool per process or never close connections reach it",
		provider:  redisClients, consumer: redisClients,
		runs:   `redis|valkey|keydb`,
		fix:    "find the client that leaks or over-pools connections (CLIENT LIST), or raise maxclients",
		source: "https://redis.io/docs/latest/develop/reference/clients/#maximum-concurrent-connected-clients"},
	{class: "server-volume-unwritable", software: "Redis",
		signs:     []string{`misconf redis is configured to save rdb snapshots`},
		mechanism: "Redis refuses writes (MISCONF) once a background save of its RDB snapshot fails, since stop-writes-on-bgsave-error is yes by default; saves fail on a full volume or one its user cannot write",
		provider:  redisSave, consumer: redisSave,
		fix:    "free or grow the data volume (or let the server's user write it: fsGroup), then writes resume after the next successful save",
		source: "https://redis.io/docs/latest/operate/oss_and_stack/management/persistence/"},
	{class: "client-connection-setting", software: "Redis",
		signs:     []string{`noauth authentication required`},
		mechanism: "a Redis server with requirepass (or ACL users) refuses every command of a connection until it sends AUTH, and this client's connection URL carries no password",
		consumer:  []settingSpec{{key: `(url|uri|dsn)$`, value: `^rediss?://`, lacks: `^rediss?://[^@/]*:[^@/]+@`, want: "must carry the password (redis://:PASSWORD@host:6379)"}},
		unless:    []settingSpec{{key: `(^|_)(redis_)?pass(word)?$`}},
		fix:       "put the password in the URL (redis://:PASSWORD@host:6379/0) or the client's password setting",
		source:    "https://redis.io/docs/latest/operate/oss_and_stack/management/security/#authentication"},
	{class: "server-access-rule", software: "Redis",
		signs:     []string{`denied redis is running in protected mode`},
		mechanism: "Redis in protected mode (on by default when no password is set and no bind address is given) answers only clients on the loopback interface and refuses every other client",
		provider:  redisProtected, consumer: redisProtected,
		runs:   `redis|valkey`,
		fix:    "set a password (requirepass), or protected-mode no with a bind address",
		source: "https://redis.io/docs/latest/operate/oss_and_stack/management/security/#protected-mode"},
	{class: "client-connection-setting", software: "Redis Cluster",
		signs:     []string{`\bmoved \d{1,5} [0-9a-z.-]{3,100}:\d{2,5}`},
		mechanism: "a Redis Cluster node answers MOVED for a key another node owns, and a client connection not in cluster mode takes that redirection as an error",
		consumer: []settingSpec{{key: `(^|_)(redis_)?cluster(_mode|_enabled)?$`, value: `^(false|no|0|off|standalone)$`},
			{key: `(^|_)(redis_)?cluster(_mode|_enabled|_nodes)?$`, absent: "a standalone (non-cluster) client"}},
		fix:    "turn the client's cluster mode on (a cluster client with the seed nodes), or point it at a non-cluster Redis",
		source: "https://redis.io/docs/latest/operate/oss_and_stack/reference/cluster-spec/#moved-redirection"},
	{class: "client-connection-setting", software: "MongoDB",
		signs: []string{`codename'?"?\s?[:=]\s?'?"?authenticationfailed`, `\(authenticationfailed\) authentication failed`, `mongo(server)?error: authentication failed`,
			`exception authenticating mongocredential`, `sasl conversation error: unable to authenticate`},
		mechanism: "MongoDB looks a user up in the connection's authSource database, which defaults to the database named in the connection URI's path, so a user created in admin fails authentication when the URI names the application's database without authSource=admin",
		consumer: []settingSpec{{key: `(url|uri|dsn|conn(ection)?_?str(ing)?)$`, value: `^mongodb(\+srv)?://[^/]*@[^/]+/[^?/]+`, lacks: `authsource=`, want: "needs authSource=admin when the user was created in admin (else the password is wrong)"},
			{key: `(^|_)(auth_?source|authentication_?database)$`, value: `\S`}},
		fix:    "add authSource=admin (the database holding the user) to the connection URI, or create the user in the application's database",
		source: "https://www.mongodb.com/docs/manual/reference/connection-string-options/#mongodb-urioption-urioption.authSource"},
	{class: "server-limit-reached", software: "etcd",
		signs:     []string{`mvcc: database space exceeded`},
		mechanism: "etcd raises a NOSPACE alarm and refuses writes once its backend database reaches its space quota limit (--quota-backend-bytes, 2 GiB by default); it shrinks only after compaction and defragmentation",
		provider:  etcdQuota, consumer: etcdQuota,
		runs:   `etcd`,
		fix:    "compact and defragment, then disarm the alarm (etcdctl alarm disarm); turn on --auto-compaction-retention or raise --quota-backend-bytes",
		source: "runbooks/etcd/etcdBackendQuotaLowSpace.md; https://etcd.io/docs/v3.5/op-guide/maintenance/#space-quota"},
	{class: "server-limit-reached", software: "Elasticsearch",
		signs:     []string{`circuit_breaking_exception`, `\[parent\] data too large, data for \[`},
		mechanism: "Elasticsearch rejects a request with circuit_breaking_exception when the memory it would take pushes the JVM heap past the parent breaker's limit (95% of the heap), so the heap (-Xmx in ES_JAVA_OPTS) is too small for the work",
		provider:  esHeap, consumer: esHeap,
		runs:   `elasticsearch|opensearch`,
		fix:    "give the heap more memory (ES_JAVA_OPTS -Xms/-Xmx, half the container's memory limit) or send smaller requests",
		source: "https://www.elastic.co/guide/en/elasticsearch/reference/current/circuit-breaker-errors.html"},
	{class: "process-os-limit", software: "Elasticsearch",
		signs:     []string{`max virtual memory areas vm\.max_map_count \[\d{1,12}\] is too low`},
		mechanism: "Elasticsearch's bootstrap checks stop it when the node's kernel limit vm.max_map_count is below 262144, because it maps its index files into memory; that limit belongs to the node, not the container",
		consumer:  []settingSpec{{key: `(^|_)node_store_allow_mmap$`, absent: "mmap-based storage (node.store.allow_mmap true, the default)"}},
		runs:      `elasticsearch|opensearch`,
		fix:       "add a privileged init container running sysctl -w vm.max_map_count=262144 (or set node.store.allow_mmap: false)",
		source:    "https://www.elastic.co/guide/en/elasticsearch/reference/current/vm-max-map-count.html"},
	{class: "server-access-rule", software: "Elasticsearch",
		signs:     []string{`missing authentication credentials for rest request`},
		mechanism: "Elasticsearch 8 turns security on by default, so it refuses (401) a request that carries no credentials (basic auth or an API key)",
		consumer: []settingSpec{{key: `(^|_)(elasticsearch|es|opensearch|elastic)_(user(name)?|password|api_?key)$|^(username|password|user|api_?key)$`,
			absent: "no credentials: it sends its requests anonymously"}},
		fix:    "give the client a user and password (or an API key) from the elastic credentials Secret",
		source: "https://www.elastic.co/guide/en/elasticsearch/reference/current/security-basic-setup.html"},
	{class: "server-limit-reached", software: "ClickHouse",
		signs:     []string{`memory limit \((total|for query|for user)\) exceeded`},
		mechanism: "ClickHouse aborts a query that would take more memory than max_memory_usage (per query) or max_server_memory_usage (the whole server, 90% of the memory it sees by default)",
		provider:  clickhouseMemory, consumer: clickhouseMemory,
		runs:   `clickhouse`,
		fix:    "raise the memory limit setting (and the container's memory limit with it), or make the query use less (max_bytes_before_external_group_by)",
		source: "https://clickhouse.com/docs/en/operations/server-configuration-parameters/settings#max_server_memory_usage"},
	{class: "server-limit-reached", software: "ClickHouse",
		signs:     []string{`too many parts \(\d{1,9}`},
		mechanism: "ClickHouse refuses inserts into a partition holding more active parts than its parts_to_throw_insert limit, which happens when clients insert many small batches faster than merges join them",
		provider:  clickhouseParts, consumer: clickhouseParts,
		runs:   `clickhouse`,
		fix:    "insert in larger, rarer batches (or async_insert=1); raise parts_to_throw_insert only as a stopgap",
		source: "https://clickhouse.com/docs/en/operations/settings/merge-tree-settings#parts-to-throw-insert"},
}

// Settings several entries above share.
var (
	redisMemory = []settingSpec{{key: `(^|_)maxmemory$`, value: `\S`}, {key: `(^|_)maxmemory_policy$`, value: `noeviction`},
		{key: `(^|_)maxmemory_policy$`, absent: "noeviction, the default: writes are refused, no key is evicted"}}
	redisClients = []settingSpec{{key: `(^|_)maxclients$`, value: `\d`}, {key: `(^|_)maxclients$`, absent: "10000 clients, Redis's default maxclients"}}
	redisSave    = []settingSpec{{key: `(^|_)stop_writes_on_bgsave_error$`, value: `\S`}, {key: `^(--)?dir$`, value: `\S`},
		{key: `(^|_)stop_writes_on_bgsave_error$`, absent: "yes, the default: writes stop until a save succeeds"}}
	redisProtected = []settingSpec{{key: `(^|_)protected_mode$`, value: `^yes$`},
		{key: `(^|_)(protected_mode|requirepass|redis_password|bind)$`, absent: "protected-mode yes, the default, with no password and no bind address"}}
	etcdQuota = []settingSpec{{key: `(^|_)quota_backend_bytes$`, value: `\d`},
		{key: `(^|_)auto_compaction_retention$`, absent: "no automatic compaction, so every old revision is kept"}}
	esHeap = []settingSpec{{key: `(^|_)(es|opensearch)_java_opts$`, value: `xmx`}, {key: `indices_breaker_total_limit$`, value: `\S`},
		{key: `(^|_)(es|opensearch)_java_opts$`, absent: "a heap Elasticsearch sizes itself from the container's memory"}}
	clickhouseMemory = []settingSpec{{key: `(^|_)max_(server_)?memory_usage(_to_ram_ratio)?$`, value: `\S`},
		{key: `(^|_)max_server_memory_usage(_to_ram_ratio)?$`, absent: "90% of the memory ClickHouse sees"}}
	clickhouseParts = []settingSpec{{key: `(^|_)parts_to_throw_insert$`, value: `\d`}, {key: `(^|_)async_insert$`},
		{key: `(^|_)parts_to_throw_insert$`, absent: "300 active parts per partition (3000 from release 23.6)"}}
)
