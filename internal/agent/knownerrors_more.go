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

// More well-known errors, across software the other domains do not cover yet: caches, gRPC,
// connection limits of databases and their poolers, search and metrics back ends,
// coordination stores, pre-forking web servers, object storage and task queues.
// Each entry's source names where its text and mechanism come from.
var moreKnownErrors = concatKnown(moreKnownErrors1, moreKnownErrors2)

var moreKnownErrors1 = []knownError{
	{class: "server-limit-reached", software: "memcached",
		signs:     []string{`object too large for cache`},
		mechanism: "memcached refuses (SERVER_ERROR) to store an item larger than its item size limit -I / --max-item-size (1 MB by default), whatever memory it has left",
		provider:  memcachedItem,
		runs:      `memcached`,
		fix:       "raise -I (--max-item-size, MEMCACHED_MAX_ITEM_SIZE) on the server, or cache smaller values (compress, split)",
		source:    "https://github.com/memcached/memcached/issues/831; https://github.com/bitnami/bitnami-docker-memcached/issues/74"},
	{class: "server-limit-reached", software: "memcached",
		signs:     []string{`out of memory storing object`},
		mechanism: "memcached answers SERVER_ERROR out of memory storing object when it cannot free room for an item within its memory limit -m (64 MB by default), as happens once the cache is full of items of that size",
		provider:  memcachedMemory,
		runs:      `memcached`,
		fix:       "raise -m (--memory-limit) with the container's memory limit, or store smaller items",
		source:    "https://github.com/memcached/memcached/issues/224; https://github.com/grafana/mimir/issues/2235"},
	{class: "client-connection-setting", software: "gRPC",
		signs:     []string{`too_many_pings`},
		mechanism: "a gRPC server closes a connection (GOAWAY ENHANCE_YOUR_CALM, too_many_pings) whose client sends keepalive pings more often than the server permits (5 minutes apart by default, its keepalive enforcement policy), so the client's keepalive time must not be shorter than that",
		consumer:  []settingSpec{{key: grpcKeepalive, value: `\d`}},
		provider:  []settingSpec{{key: grpcPermit, value: `\d`}},
		fix:       "raise the client's keepalive time to at least the server's permitted interval (or lower the server's keepalive enforcement minimum time)",
		source:    "https://github.com/grpc/grpc/pull/9902; https://grpc.github.io/grpc/cpp/md_doc_keepalive.html"},
	{class: "server-limit-reached", software: "gRPC",
		signs:     []string{`received message larger than max \(\d{1,12} vs\.? \d{1,12}\)`},
		mechanism: "gRPC refuses (RESOURCE_EXHAUSTED) a message larger than the receiving side's maximum receive message size, a limit of 4 MiB (4194304 bytes) by default in every implementation",
		consumer:  grpcRecv, provider: grpcRecv[:1],
		fix:    "raise the receiving side's maximum receive message size (MaxCallRecvMsgSize, grpc.max_receive_message_length), or page the response",
		source: "https://github.com/grpc/grpc/issues/31506; https://github.com/grpc-ecosystem/grpc-gateway/issues/943"},
	{class: "server-limit-reached", software: "MongoDB",
		signs: []string{`sort exceeded memory limit of \d{1,12} bytes`, `exceeded memory limit for \$group, but didn't allow external sort`,
			`queryexceededmemorylimitnodiskuseallowed`},
		mechanism: "MongoDB aborts a blocking sort (or $group) that needs more memory than internalQueryMaxBlockingSortMemoryUsageBytes, a limit of 100 MB by default, unless the query may spill to disk (allowDiskUse, on by default from 6.0 through allowDiskUseByDefault)",
		provider:  mongoSort, consumer: mongoSort,
		runs:   `mongo`,
		fix:    "add an index that serves the sort, or pass allowDiskUse: true; raise internalQueryMaxBlockingSortMemoryUsageBytes only with memory to spare",
		source: "https://github.com/Automattic/mongoose/issues/10177; https://www.mongodb.com/docs/manual/reference/parameters/#mongodb-parameter-param.internalQueryMaxBlockingSortMemoryUsageBytes"},
	{class: "server-limit-reached", software: "PgBouncer",
		signs:     []string{`no more connections allowed \(max_client_conn\)`},
		mechanism: "PgBouncer refuses a client connection once max_client_conn clients are connected (a limit of 100 by default), however many server connections its pools hold",
		provider:  pgbouncerClients, consumer: pgbouncerClients,
		runs:   `pgbouncer`,
		fix:    "raise max_client_conn (with the pooler's open-file limit), or make the clients' pools smaller",
		source: "https://github.com/pgbouncer/pgbouncer/issues/293; https://www.pgbouncer.org/config.html#max_client_conn"},
	{class: "request-timeout-setting", software: "PgBouncer",
		signs:     []string{`(error|fatal|because)[:\s)]{1,4}query_wait_timeout`},
		mechanism: "PgBouncer disconnects a client that waited longer than query_wait_timeout (a timeout of 120 seconds by default) for a server connection, which happens when the pool (default_pool_size) is too small for the clients or its connections are held by long sessions",
		provider:  pgbouncerWait, consumer: pgbouncerWait,
		runs:   `pgbouncer`,
		fix:    "give the pool more server connections (default_pool_size) or release them sooner (transaction pooling, shorter transactions); raise query_wait_timeout only if waiting is expected",
		source: "https://www.pgbouncer.org/config.html#query_wait_timeout; https://github.com/TheRacetrack/racetrack/issues/396"},
	{class: "server-limit-reached", software: "PostgreSQL",
		signs:     []string{`you might need to increase max_locks_per_transaction`},
		mechanism: "PostgreSQL's shared lock table holds max_locks_per_transaction × (max_connections + max_prepared_transactions) locks (a limit of 64 per slot by default), and a transaction touching many tables or partitions runs out of it",
		provider:  pgLocks, consumer: pgLocks,
		runs:   `postgres|postgis|timescale|pgvector|spilo`,
		fix:    "raise max_locks_per_transaction (a restart applies it), or touch fewer partitions per transaction",
		source: "https://www.postgresql.org/docs/current/runtime-config-locks.html#GUC-MAX-LOCKS-PER-TRANSACTION; https://github.com/goauthentik/authentik/issues/18151"},
	{class: "server-access-rule", software: "MySQL",
		signs:     []string{`host '[^']{1,100}' is blocked because of many connection errors`},
		mechanism: "MySQL refuses every connection from a client address after max_connect_errors successive interrupted connection attempts from it (100 by default), as probes that open and close a TCP connection make, until the host cache is flushed",
		provider:  mysqlConnectErrors, consumer: mysqlConnectErrors,
		runs:   `mysql|mariadb|percona`,
		fix:    "run FLUSH HOSTS (mysqladmin flush-hosts), raise max_connect_errors, and make TCP probes speak the protocol (or use mysqladmin ping)",
		source: "https://dev.mysql.com/doc/refman/8.0/en/host-cache.html; https://mariadb.com/docs/server/ref/mdb/error-codes/ER_HOST_IS_BLOCKED"},
	{class: "server-limit-reached", software: "MySQL",
		signs: []string{`got a packet bigger than '?max_allowed_packet'? bytes`, `er_net_packet_too_large`,
			`packet for query is too large \([\d,]{1,20} > [\d,]{1,20}\)`},
		mechanism: "MySQL refuses (ER_NET_PACKET_TOO_LARGE) and closes the connection of a statement or row larger than max_allowed_packet, a limit of 64MB by default in 8.0 (4MB in 5.7) that the server and the client each hold",
		provider:  mysqlPacket, consumer: mysqlPacket,
		runs:   `mysql|mariadb|percona`,
		fix:    "raise max_allowed_packet on the server (and in the client's connection settings), or send smaller rows and batches",
		source: "https://dev.mysql.com/doc/refman/8.0/en/packet-too-large.html; https://github.com/balderdashy/sails/issues/5651"},
	{class: "request-timeout-setting", software: "RabbitMQ",
		signs:     []string{`delivery acknowledgement on channel \d{1,5} timed out`},
		mechanism: "RabbitMQ closes the channel (PRECONDITION_FAILED) of a consumer that holds a delivery unacknowledged longer than consumer_timeout (a timeout of 30 minutes by default), so work that takes longer than that per message fails and is redelivered",
		provider:  rabbitConsumerTimeout, consumer: rabbitConsumerTimeout,
		runs:   `rabbitmq`,
		fix:    "acknowledge sooner (smaller prefetch, shorter work per message), or raise consumer_timeout in rabbitmq.conf (or the queue's x-consumer-timeout)",
		source: "https://www.rabbitmq.com/docs/consumers#acknowledgement-timeout; https://github.com/rabbitmq/rabbitmq-server/issues/9046"},
}

// Settings several entries above share. Where the error's own words name the setting
// (max_client_conn, max_allowed_packet, max_locks_per_transaction), a value someone wrote is
// left to the rules that follow a named setting (config-setting-named, provider-setting-limit):
// the entry speaks only for the default its absence means.
var (
	memcachedItem = []settingSpec{{key: `^-i$|(^|_)max_item_size$`, value: `\S`},
		{key: `^-i$|(^|_)max_item_size$`, name: "--max-item-size", absent: "1m per item, memcached's default -I"}}
	memcachedMemory = []settingSpec{{key: `^(-m|--memory_limit|memory_limit|memcached_cache_size|memcached_memory_limit)$`, value: `\d`},
		{key: `^(-m|--memory_limit|memory_limit|memcached_cache_size|memcached_memory_limit)$`, name: "--memory-limit", absent: "64 MB of item memory, memcached's default -m"}}
	grpcRecv = []settingSpec{{key: `(^|_)max_(recv|receive|call_recv|inbound)_?(msg|message)_?(size|length|bytes)$|(^|_)grpc_max_message_(size|length)$`, value: `\d`},
		{key: `(^|_)max_(recv|receive|call_recv|inbound)_?(msg|message)_?(size|length|bytes)$`, name: "grpc.max_receive_message_length", absent: "4194304 bytes (4 MiB), gRPC's default receive limit"}}
	mongoSort = []settingSpec{{key: `(^|_)internalquerymaxblockingsortmemoryusagebytes$`, value: `\d`},
		{key: `^--setparameter$`, value: `internalquerymaxblockingsortmemoryusagebytes|allowdiskusebydefault`},
		{key: `(^|_)allowdiskusebydefault$`, value: `^(false|0)$`},
		{key: `(^|_)internalquerymaxblockingsortmemoryusagebytes$`, name: "internalQueryMaxBlockingSortMemoryUsageBytes", absent: "104857600 bytes (100 MB) per blocking sort, MongoDB's default"}}
	pgbouncerClients = []settingSpec{{key: `(^|_)max_client_conn$`, absent: "100 client connections, PgBouncer's default max_client_conn"}}
	pgbouncerWait    = []settingSpec{{key: `(^|_)default_pool_size$`, value: `\d`},
		{key: `(^|_)query_wait_timeout$`, absent: "a wait of 120 seconds, PgBouncer's default query_wait_timeout"}}
	pgLocks            = []settingSpec{{key: `(^|_)max_locks_per_transaction$`, absent: "64 locks per connection slot, PostgreSQL's default max_locks_per_transaction"}}
	mysqlConnectErrors = []settingSpec{{key: `(^|_)max_connect_errors$`, value: `\d`},
		{key: `(^|_)max_connect_errors$`, absent: "100 interrupted connections per host, MySQL's default max_connect_errors"}}
	mysqlPacket           = []settingSpec{{key: `(^|_)max_allowed_packet$`, absent: "64MB, MySQL 8.0's default max_allowed_packet (4MB in 5.7)"}}
	rabbitConsumerTimeout = []settingSpec{{key: `(^|_)consumer_timeout$`, value: `\d`},
		{key: `(^|_)consumer_timeout$`, absent: "1800000 ms (30 minutes), RabbitMQ's default consumer_timeout"}}
)

// grpcKeepalive is the client's keepalive time; grpcPermit the server's least permitted ping interval.
const (
	grpcKeepalive = `(^|_)(grpc_)?keepalive_time(_ms|_s|_seconds)?$|(^|_)grpc_keepalive(_interval)?(_ms|_s|_seconds)?$|(^|_)grpc_client_keepalive(_time)?(_ms|_s)?$`
	grpcPermit    = `(^|_)(grpc_)?(keepalive_)?(enforcement_)?min_time(_ms|_s)?$|(^|_)(grpc_)?permit_keepalive_time(_ms)?$|min_recv_ping_interval_without_data_ms$`
)
